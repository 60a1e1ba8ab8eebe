import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ragcli.cli import app
from tests.support.common import SAMPLE
from tests.support.imports import HEAVY, cli_imports

runner = CliRunner()


def test_ask_on_missing_store_says_to_ingest_first(tmp_path):
    result = runner.invoke(app, ["ask", "anything?", "--store", str(tmp_path / "none")])
    assert result.exit_code == 2
    assert "run `ragcli ingest PATH` first" in result.output
    assert "Traceback" not in result.output
    assert not (tmp_path / "none").exists()  # asking creates nothing


@pytest.mark.slow
def test_ingest_ask_trace_through_the_cli(tmp_path):
    store = str(tmp_path / "store")
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "refunds.md").write_text(
        "# Refunds\nAnnual plans can be refunded within 30 days of purchase.\n"
    )
    (docs / "notes.xyz").write_text("unsupported")
    result = runner.invoke(app, ["ingest", str(docs), "--store", store, "--json"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.output)
    assert summary["files_new"] == 1 and summary["files_skipped"] == 1
    reasons = {f["path"].rsplit("/", 1)[-1]: f["reason"] for f in summary["files"]}
    assert reasons["notes.xyz"] == "unsupported file type .xyz"

    result = runner.invoke(app, ["ingest", str(docs), "--store", store])
    assert result.exit_code == 0 and "unchanged" in result.output

    result = runner.invoke(
        app, ["ask", "How long can I get a refund for an annual plan?", "--store", store, "--json"]
    )
    assert result.exit_code == 0, result.output
    answer = json.loads(result.output)
    assert "30 days" in answer["answer"] and "[1]" in answer["answer"]
    assert answer["backend"]["llm"] == "extractive"
    assert answer["sources"][0]["metadata"]["file_type"] == "md"

    result = runner.invoke(app, ["trace", "--store", store, "--json"])
    record = json.loads(result.output)
    assert record["id"] == answer["trace_id"]
    assert [s["name"] for s in record["steps"]] == ["retrieve", "generate", "support"]
    assert record["thresholds"]["crag"]["relevant_threshold"] == 0.7

    result = runner.invoke(app, ["trace", "--store", store])
    assert result.exit_code == 0 and "retrieve" in result.output and "30 days" in result.output
    result = runner.invoke(app, ["trace", "--list", "--store", store])
    assert answer["trace_id"] in result.output


def test_ingest_exit_code_when_files_fail_not_when_files_hold_no_text(tmp_path):
    """A file with no text of its own is skipped and said, and the ingest exits 0; exit 3
    is for a file that could not be read."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "ok.md").write_text("fine")
    (docs / "empty.md").write_text("")
    (docs / "blank.txt").write_text("  \n\n \t\n")
    (docs / "only-markup.md").write_text("<!-- a comment -->\n\n---\n")
    store = str(tmp_path / "s")
    result = runner.invoke(app, ["ingest", str(docs), "--store", store, "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert (report["files_new"], report["files_skipped"], report["files_failed"]) == (1, 3, 0)
    reasons = {f["path"].rsplit("/", 1)[-1]: (f["status"], f["reason"]) for f in report["files"]}
    assert reasons["empty.md"] == reasons["blank.txt"] == ("skipped", "empty file")
    assert reasons["only-markup.md"] == ("skipped", "no text")

    (docs / "broken.pdf").write_bytes(b"%PDF-1.4 not really")
    result = runner.invoke(app, ["ingest", str(docs), "--store", store])
    assert result.exit_code == 3 and "corrupt PDF" in result.output


def test_a_stored_file_emptied_leaves_the_store(tmp_path):
    """Its old text would be cited on, and `ragcli ingest` of it would change nothing."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "keep.md").write_text("# Keep\n\nThe pager rota changes every Wednesday.\n")
    (docs / "notes.md").write_text("# Notes\n\nThe vault opens at nine.\n")
    store = str(tmp_path / "s")
    assert runner.invoke(app, ["ingest", str(docs), "--store", store]).exit_code == 0
    (docs / "notes.md").write_text("\n")
    result = runner.invoke(app, ["ingest", str(docs), "--store", store, "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    [notes] = [f for f in report["files"] if f["path"].endswith("notes.md")]
    removed = "empty file (its 1 stored chunk removed)"
    assert (notes["status"], notes["reason"]) == ("skipped", removed)
    assert report["chunks_removed"] == 1
    listed = runner.invoke(app, ["sources", "--store", store, "--json"])
    assert [Path(f["path"]).name for f in json.loads(listed.output)] == ["keep.md"]
    found = runner.invoke(app, ["search", "when does the vault open", "--store", store, "--json"])
    assert all(h["file"].endswith("keep.md") for h in json.loads(found.output)["results"])


def test_bad_mode_and_bad_path_are_usage_errors(tmp_path):
    result = runner.invoke(app, ["ask", "q", "--mode", "wild", "--store", str(tmp_path)])
    assert result.exit_code == 2 and "--mode 'wild'" in result.output
    result = runner.invoke(
        app, ["ingest", str(tmp_path / "missing"), "--store", str(tmp_path / "s")]
    )
    assert result.exit_code == 1 and "no such file or directory" in result.output


@pytest.mark.slow
def test_light_commands_do_not_import_heavy_libraries(tmp_path):
    # numpy comes with what asking needs (ragcli.service imports it on first use): 0.2 s
    # of `ragcli trace`'s start.
    heavy = (*HEAVY, "chromadb", "numpy")
    for args in (["--help"], ["config"], ["trace", "--store", str(tmp_path)]):
        run = cli_imports(*args, heavy=heavy, cwd=tmp_path)
        assert run.heavy == [], (args, run.stdout[-300:], run.stderr[-300:])


def test_sample_corpus_exists_with_every_file_type():
    suffixes = {p.suffix for p in SAMPLE.rglob("*") if p.is_file()}
    assert {".md", ".txt", ".pdf", ".html", ".yaml"} <= suffixes


def test_help_lists_commands_in_the_order_people_use_them_with_plain_metavars():
    shown = runner.invoke(app, ["--help"]).output
    lines = shown.split("Commands:")[1].splitlines()
    listed = [line.split()[0] for line in lines if line.startswith("  ") and line.strip()]
    order = ["ingest", "ask", "trace", "status", "sources", "rm", "compare", "eval"]
    assert [c for c in listed if c in order] == order
    for command in ("ingest", "ask", "trace", "sources", "rm", "eval", "calibrate"):
        text = runner.invoke(app, [command, "--help"]).output
        for label in ("<str>", "<bool>", "<int>", "<path>", "<list"):
            assert label not in text.lower(), text
    ask = runner.invoke(app, ["ask", "--help"]).output
    assert "-k, --top-k N" in ask and "--store DIR" in ask and "--json " in ask
    trace = runner.invoke(app, ["trace", "--help"]).output
    assert "-n, --limit N" in trace  # every short option has a long name


@pytest.mark.slow
def test_reingest_says_what_changed_and_only_new_problems_set_the_exit_code(tmp_path):
    store = str(tmp_path / "store")
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# A\n\nAnnual plans renew every year.\n")
    (docs / "b.md").write_text("# B\n\nMonthly plans renew every month.\n")
    (docs / "broken.pdf").write_bytes(b"%PDF-1.4 not really")
    first = runner.invoke(app, ["ingest", str(docs), "--store", store])
    assert first.exit_code == 3 and "broken.pdf" in first.output  # a new failure

    (docs / "b.md").unlink()
    again = runner.invoke(app, ["ingest", str(docs), "--store", store])
    assert again.exit_code == 0, again.output  # the same failure, said last time
    assert "broken.pdf" not in again.output
    assert "1 file still skipped or failing, unchanged since the last run" in again.output
    assert "1 file is gone from" in again.output and "--prune" in again.output
    listed = runner.invoke(app, ["ingest", str(docs), "--store", store, "--show-skipped"])
    assert "broken.pdf" in listed.output

    (docs / "broken.pdf").write_bytes(b"%PDF-1.4 still broken, differently")
    changed = runner.invoke(app, ["ingest", str(docs), "--store", store, "--json"])
    assert changed.exit_code == 3  # new content, failing anew: said again
    data = json.loads(changed.output)
    assert data["files_repeated"] == 0 and data["gone"][0].endswith("b.md")

    pruned = runner.invoke(app, ["ingest", str(docs), "--store", store, "--prune", "--json"])
    assert json.loads(pruned.output)["files_removed"] == 1


def test_an_empty_folder_says_there_is_nothing_to_read(tmp_path):
    (tmp_path / "empty").mkdir()
    result = runner.invoke(app, ["ingest", str(tmp_path / "empty"), "--store", str(tmp_path / "s")])
    assert result.exit_code == 0 and "no supported files under" in result.output
