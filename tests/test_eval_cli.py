"""`ragcli eval` end to end on a tiny BEIR dataset whose metrics are worked out by hand."""

import json
import math

import pytest
from typer.testing import CliRunner

from ragcli.cli import app
from tests.support.tiny_beir import (
    CORPUS,
    EXPECTED_BM25,
    NDCG_Q1,
    NDCG_Q2,
    write_arguana,
    write_dataset,
)

runner = CliRunner()


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


def test_baseline_gate_fails_on_a_drop_beyond_the_tolerance_and_says_where(tmp_path):
    data = tmp_path / "tiny"
    write_dataset(data)
    store = str(tmp_path / "store")
    baseline = tmp_path / "baseline.json"
    first = run_eval(str(data), "--store", store, "--retriever", "bm25")
    baseline.write_text(json.dumps(first))

    same = run_eval(str(data), "--store", store, "--retriever", "bm25", "--baseline", str(baseline))
    assert same["gate"]["passed"] is True
    assert {c["metric"] for c in same["gate"]["changes"]} == {"nDCG@10", "Recall@10"}

    # A baseline that scored better than this corpus can: the gate must fail, with exit 7.
    better = json.loads(baseline.read_text())
    better["results"]["bm25"]["nDCG@10"] += 0.05
    better["results"]["dense"] = {"nDCG@10": 0.9, "Recall@10": 0.9}
    baseline.write_text(json.dumps(better))
    args = ["eval", str(data), "--store", store, "--retriever", "bm25", "--baseline", str(baseline)]
    shown = runner.invoke(app, [*args, "--tolerance", "0.01"])
    assert shown.exit_code == 7, shown.output
    assert "dropped" in shown.output and "quality gate failed" in shown.output
    assert "not compared (not run now): dense" in shown.output
    assert runner.invoke(app, [*args, "--tolerance", "0.1"]).exit_code == 0


def test_a_baseline_that_is_not_an_eval_report_is_one_line(tmp_path):
    data = tmp_path / "tiny"
    write_dataset(data)
    bad = tmp_path / "bad.json"
    bad.write_text('{"answer": 1}')
    for path, said in (
        (bad, "not the output of `ragcli eval --json`"),
        (tmp_path / "no", "no such file"),
    ):
        result = runner.invoke(
            app, ["eval", str(data), "--baseline", str(path), "--store", str(tmp_path / "s")]
        )
        assert result.exit_code == 2 and said in result.output
        assert result.output.count("\n") == 1
    assert not (tmp_path / "s").exists()  # checked before anything was ingested


def test_folds_show_how_far_the_figures_move_with_the_queries(tmp_path):
    data = tmp_path / "tiny"
    write_dataset(data)
    store = str(tmp_path / "store")
    report = run_eval(str(data), "--store", store, "-r", "bm25", "--folds", "2")
    # Two queries in two folds: each fold is one query, scored as worked out above.
    ndcg = report["folds"]["bm25"]["nDCG@10"]
    assert sorted(ndcg["folds"]) == pytest.approx(sorted([NDCG_Q1, NDCG_Q2]))
    assert ndcg["mean"] == pytest.approx(EXPECTED_BM25["nDCG@10"])
    assert ndcg["spread"] == pytest.approx(abs(NDCG_Q2 - NDCG_Q1))
    assert report["folds"]["bm25"]["Recall@10"]["spread"] == pytest.approx(0.5)
    table = runner.invoke(app, ["eval", str(data), "--store", store, "-r", "bm25", "--folds", "2"])
    assert table.exit_code == 0 and "Across 2 folds" in table.output
    too_many = runner.invoke(app, ["eval", str(data), "--store", store, "--folds", "3"])
    assert too_many.exit_code == 2 and "--folds 3" in too_many.output
    assert "Traceback" not in too_many.output


def test_a_query_that_is_a_corpus_document_does_not_find_itself(tmp_path):
    """BEIR's rule on an ArguAna-shaped set: the query's own document is dropped by
    default (each counter-argument moves from rank 2 to rank 1), the output says so, and
    --keep-identical-ids counts it again."""
    data = tmp_path / "arguana"
    write_arguana(data)
    store = str(tmp_path / "store")
    dropped = run_eval(str(data), "--store", store, "-r", "bm25")
    assert dropped["identical_ids"] == {"dropped": True, "self_hits": {"bm25": 2}}
    assert dropped["results"]["bm25"]["MRR@10"] == pytest.approx(1.0)
    kept = run_eval(str(data), "--store", store, "-r", "bm25", "--keep-identical-ids")
    assert kept["identical_ids"] == {"dropped": False, "self_hits": {"bm25": 2}}
    assert kept["results"]["bm25"]["MRR@10"] == pytest.approx(0.5)
    assert kept["results"]["bm25"]["nDCG@10"] == pytest.approx(1 / math.log2(3))

    table = runner.invoke(app, ["eval", str(data), "--store", store, "-r", "bm25"])
    said = " ".join(table.output.split())
    assert "whose id is the query's is not counted" in said and "2 queries found" in said

    # A gate against the kept run warns that the two runs count differently.
    baseline = tmp_path / "kept.json"
    baseline.write_text(json.dumps(kept))
    gated = run_eval(str(data), "--store", store, "-r", "bm25", "--baseline", str(baseline))
    assert any("kept documents whose id is the query's" in w for w in gated["gate"]["warnings"])
