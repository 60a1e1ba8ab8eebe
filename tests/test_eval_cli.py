"""`ragcli eval` end to end on a tiny BEIR dataset whose metrics are worked out by hand."""

import json
import math

import pytest
from typer.testing import CliRunner

from ragcli.cli import app

runner = CliRunner()

# BM25 (after stemming and stopwords): "zebra" matches d2 (tf 2) above d1 (tf 1) and nothing
# else; "giraffe neck" matches d4 only.
CORPUS = [
    {"_id": "d1", "title": "", "text": "Zebra stripes pattern."},
    {"_id": "d2", "title": "", "text": "Zebra zebra herd savanna."},
    {"_id": "d3", "title": "", "text": "Lion pride hunting."},
    {"_id": "d4", "title": "", "text": "Giraffe neck tall."},
]
QUERIES = [{"_id": "q1", "text": "zebra"}, {"_id": "q2", "text": "giraffe neck"}]
# q1: its one relevant document d1 is ranked 2nd. q2: d4 is 1st, d3 is never retrieved.
QRELS = "query-id\tcorpus-id\tscore\r\nq1\td1\t1\r\nq2\td4\t1\r\nq2\td3\t1\r\n"
NDCG_Q1 = 1 / math.log2(3)
NDCG_Q2 = 1 / (1 + 1 / math.log2(3))
EXPECTED_BM25 = {
    "nDCG@10": (NDCG_Q1 + NDCG_Q2) / 2,
    "Recall@10": (1 + 0.5) / 2,
    "Recall@100": (1 + 0.5) / 2,
    "MRR@10": (0.5 + 1) / 2,
}


def write_dataset(directory, corpus=CORPUS):
    (directory / "qrels").mkdir(parents=True, exist_ok=True)
    (directory / "corpus.jsonl").write_text("".join(json.dumps(d) + "\n" for d in corpus))
    (directory / "queries.jsonl").write_text("".join(json.dumps(q) + "\n" for q in QUERIES))
    (directory / "qrels" / "test.tsv").write_text(QRELS)


def run_eval(*args):
    result = runner.invoke(app, ["eval", *args, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def test_eval_reports_hand_checked_metrics_and_reruns_incrementally(tmp_path):
    data = tmp_path / "tiny"
    write_dataset(data)
    store = str(tmp_path / "store")
    first = run_eval(str(data), "--store", store, "--retriever", "bm25")
    assert first["collection"] == "eval-tiny" and first["queries"] == 2
    assert first["ingest"] == {
        "new": 4,
        "changed": 0,
        "unchanged": 0,
        "removed": 0,
        "chunks_added": 4,
    }
    assert list(first["results"]) == ["bm25"]
    for metric, value in EXPECTED_BM25.items():
        assert first["results"]["bm25"][metric] == pytest.approx(value), metric

    # A second run embeds nothing; an edited document and a dropped one are noticed.
    edited = [*CORPUS[:2], {"_id": "d3", "title": "", "text": "Lion pride hunting at dusk."}]
    write_dataset(data, edited)
    second = run_eval(str(data), "--store", store)
    assert second["ingest"] == {
        "new": 0,
        "changed": 1,
        "unchanged": 2,
        "removed": 1,
        "chunks_added": 1,
    }
    assert set(second["results"]) == {"dense", "bm25", "hybrid"}
    # d4 is gone: q2 can no longer find a relevant document with BM25.
    assert second["results"]["bm25"]["MRR@10"] == pytest.approx(0.5 / 2)
    for scores in second["results"].values():
        assert set(scores) == {"nDCG@10", "Recall@10", "Recall@100", "MRR@10"}
        assert all(0.0 <= v <= 1.0 for v in scores.values())

    table = runner.invoke(app, ["eval", str(data), "--store", store, "-r", "hybrid"])
    assert table.exit_code == 0
    assert "nDCG@10" in table.output and "hybrid" in table.output
    assert "3 unchanged" in " ".join(table.output.split())  # however the line wraps


def test_eval_errors_are_one_line(tmp_path):
    result = runner.invoke(app, ["eval", str(tmp_path / "missing"), "--store", str(tmp_path)])
    assert result.exit_code == 2
    assert "BEIR dataset directory not found" in result.output
    assert "Traceback" not in result.output
    write_dataset(tmp_path / "tiny")
    result = runner.invoke(app, ["eval", str(tmp_path / "tiny"), "--split", "dev"])
    assert result.exit_code == 2 and "available splits: test" in result.output
    result = runner.invoke(app, ["eval", str(tmp_path / "tiny"), "-r", "colbert"])
    assert result.exit_code == 2 and "--retriever 'colbert'" in result.output
