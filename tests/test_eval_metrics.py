import gzip
import json
import math
from pathlib import Path

import pytest

from ragcli.errors import ConfigError
from ragcli.evaluation.beir import DatasetError, Document, load_beir
from ragcli.evaluation.metrics import evaluate, mrr_at_k, ndcg_at_k, recall_at_k

# q1 has graded judgements (d1 highly relevant, d2 relevant, d3 judged non-relevant);
# q2 has one relevant doc that the run misses; q3 is in queries.jsonl but not judged in test.
CORPUS = [
    {"_id": "d1", "title": "Aspirin", "text": "reduces fever."},
    {"_id": "d2", "title": "", "text": "Ibuprofen is an NSAID."},
    {"_id": "d3", "title": "Cats", "text": "purr."},
    {"_id": "d4", "text": "No title field at all."},
]
QUERIES = [
    {"_id": "q1", "text": "fever drugs", "metadata": {}},
    {"_id": "q2", "text": "what is an NSAID"},
    {"_id": "q3", "text": "unjudged"},
]
QRELS_TEST = "query-id\tcorpus-id\tscore\r\nq1\td1\t2\r\nq1\td2\t1\r\nq1\td3\t0\r\nq2\td4\t1\r\n"
RUN = {"q1": ["d3", "d1", "d5", "d2"], "q2": ["d5", "d6"]}

# q1 by hand: gains at ranks 1..4 are 0, 2, 0, 1; ideal ranking has gains 2, 1.
Q1_IDCG = 2 / math.log2(2) + 1 / math.log2(3)
Q1_NDCG3 = (2 / math.log2(3)) / Q1_IDCG  # 0.4796
Q1_NDCG10 = (2 / math.log2(3) + 1 / math.log2(5)) / Q1_IDCG  # 0.6433


def write_dataset(root: Path, gz: bool = False) -> Path:
    lines = "".join(json.dumps(row) + "\n" for row in CORPUS)
    if gz:
        with gzip.open(root / "corpus.jsonl.gz", "wt", encoding="utf-8") as f:
            f.write(lines)
    else:
        (root / "corpus.jsonl").write_text(lines, encoding="utf-8")
    (root / "queries.jsonl").write_text("".join(json.dumps(q) + "\n" for q in QUERIES))
    (root / "qrels").mkdir()
    (root / "qrels" / "test.tsv").write_bytes(QRELS_TEST.encode())
    return root


def test_ndcg_graded_by_hand() -> None:
    judged = {"d1": 2, "d2": 1, "d3": 0}
    assert ndcg_at_k(RUN["q1"], judged, 3) == pytest.approx(Q1_NDCG3, abs=1e-12)
    assert ndcg_at_k(RUN["q1"], judged, 10) == pytest.approx(Q1_NDCG10, abs=1e-12)
    assert ndcg_at_k(["d1", "d2"], judged, 10) == pytest.approx(1.0)
    # Swapping the grades' order costs: gains 1, 2 instead of 2, 1.
    assert ndcg_at_k(["d2", "d1"], judged, 10) == pytest.approx(
        (1 + 2 / math.log2(3)) / Q1_IDCG, abs=1e-12
    )
    # Ideal DCG is cut at k too: with k=1 only the grade-2 doc is ideal.
    assert ndcg_at_k(["d2"], judged, 1) == pytest.approx(1 / 2)


def test_ndcg_edge_cases() -> None:
    assert ndcg_at_k([], {"d1": 1}, 10) == 0.0
    assert ndcg_at_k(["d1"], {"d1": 0}, 10) == 0.0  # nothing relevant: 0, not a division error
    # A repeated id is only credited at its first rank.
    assert ndcg_at_k(["d1", "d1"], {"d1": 1, "d2": 1}, 10) == pytest.approx(
        1 / (1 + 1 / math.log2(3))
    )


def test_recall_and_mrr_by_hand() -> None:
    judged = {"d1": 2, "d2": 1, "d3": 0}
    assert recall_at_k(RUN["q1"], judged, 1) == 0.0  # d3 is judged but grade 0
    assert recall_at_k(RUN["q1"], judged, 3) == 0.5
    assert recall_at_k(RUN["q1"], judged, 10) == 1.0
    assert mrr_at_k(RUN["q1"], judged, 1) == 0.0
    assert mrr_at_k(RUN["q1"], judged, 10) == 0.5
    assert mrr_at_k(["x", "y", "d2"], judged, 10) == pytest.approx(1 / 3)
    assert recall_at_k(["d1"], {"d1": 0}, 10) == 0.0


def test_evaluate_averages_over_judged_queries() -> None:
    qrels = {"q1": {"d1": 2, "d2": 1, "d3": 0}, "q2": {"d4": 1}}
    scores = evaluate(RUN, qrels, ["nDCG@3", "nDCG@10", "Recall@3", "Recall@10", "MRR@10"])
    assert scores == {
        "nDCG@3": pytest.approx(Q1_NDCG3 / 2),
        "nDCG@10": pytest.approx(Q1_NDCG10 / 2),
        "Recall@3": 0.25,
        "Recall@10": 0.5,
        "MRR@10": 0.25,
    }
    # A judged query the run skipped counts as 0; an unjudged query in the run is ignored.
    partial = evaluate({"q1": RUN["q1"], "zz": ["d4"]}, qrels, ["Recall@10"])
    assert partial == {"Recall@10": 0.5}
    with pytest.raises(ValueError, match="unknown metric 'P@10'"):
        evaluate(RUN, qrels, ["P@10"])


@pytest.mark.parametrize("gz", [False, True])
def test_load_beir_with_crlf_qrels(tmp_path: Path, gz: bool) -> None:
    data = load_beir(write_dataset(tmp_path, gz=gz), split="test")
    assert data.qrels == {"q1": {"d1": 2, "d2": 1, "d3": 0}, "q2": {"d4": 1}}  # no stray "\r"
    assert data.queries == {"q1": "fever drugs", "q2": "what is an NSAID"}  # judged only
    assert data.corpus["d1"] == Document(title="Aspirin", text="reduces fever.")
    assert data.corpus["d1"].full_text == "Aspirin reduces fever."
    assert data.corpus["d2"].full_text == "Ibuprofen is an NSAID."
    assert data.corpus["d4"] == Document(title="", text="No title field at all.")
    assert len(data.corpus) == 4

    run = {"q1": RUN["q1"], "q2": RUN["q2"]}
    assert evaluate(run, data.qrels, ["nDCG@10"]) == {"nDCG@10": pytest.approx(Q1_NDCG10 / 2)}


def test_missing_files_are_named(tmp_path: Path) -> None:
    root = write_dataset(tmp_path)
    with pytest.raises(DatasetError, match=r"qrels/dev\.tsv \(available splits: test\)"):
        load_beir(root, split="dev")

    (root / "corpus.jsonl").unlink()
    with pytest.raises(DatasetError, match=r"missing corpus\.jsonl \(or corpus\.jsonl\.gz\)"):
        load_beir(root, split="test")

    (root / "queries.jsonl").unlink()
    with pytest.raises(DatasetError, match=r"missing queries file: .*queries\.jsonl"):
        load_beir(root, split="test")

    with pytest.raises(DatasetError, match="directory not found"):
        load_beir(tmp_path / "nope")


def test_malformed_files_name_the_line(tmp_path: Path) -> None:
    root = write_dataset(tmp_path)
    (root / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq1\td1\n")
    with pytest.raises(DatasetError, match=r"test\.tsv:2: expected"):
        load_beir(root, split="test")

    (root / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq9\td1\t1\n")
    with pytest.raises(DatasetError, match=r"judges 1 queries absent from queries\.jsonl"):
        load_beir(root, split="test")

    (root / "qrels" / "test.tsv").write_bytes(QRELS_TEST.encode())
    (root / "corpus.jsonl").write_text('{"_id": "d1", "text": "ok"}\n{not json\n')
    with pytest.raises(DatasetError, match=r"corpus\.jsonl:2: invalid JSON"):
        load_beir(root, split="test")
    # A user-facing error: the CLI prints it as one line with the usage exit code.
    assert issubclass(DatasetError, ConfigError)
