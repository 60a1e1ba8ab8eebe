"""`ragcli search`: ranked chunks with their scores, no model call; --json, --jsonl and
--files for scripts; exit 5 when nothing matches."""

import json
from pathlib import Path

from typer.testing import CliRunner

from ragcli.cli import app
from tests.support.stubs import OpenAIStub

runner = CliRunner()
QUERY = "how long is the refund window for annual plans"


def search(store: Path, *args: str, env: dict | None = None):
    return runner.invoke(app, ["search", QUERY, *args, "--store", str(store)], env=env)


def test_json_has_every_retrievers_score_file_and_locator(sample_store):
    result = search(sample_store, "--json", "-k", "3")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert (data["query"], data["retriever"], data["top_k"]) == (QUERY, "hybrid", 3)
    assert "filters" not in data
    hits = data["results"]
    assert [h["rank"] for h in hits] == [1, 2, 3]
    fused = [h["fused"] for h in hits]
    assert fused == sorted(fused, reverse=True)  # ranked by the fused score
    top = hits[0]
    assert Path(top["file"]).name == "refund_policy.md"
    # A Markdown section is cited by its lines, from its heading to its last paragraph.
    assert (top["locator"], top["heading"]) == (
        "lines 7–11",
        "Driftwood Refund Policy > Annual plans",
    )
    assert top["dense"] is not None and top["bm25"] > 0 and "30 days" in top["text"]


def test_retriever_choice_ranks_by_that_retriever(sample_store):
    bm25 = json.loads(search(sample_store, "--json", "-r", "bm25").output)["results"]
    assert all(h["fused"] is None for h in bm25)
    assert [h["bm25"] for h in bm25] == sorted((h["bm25"] for h in bm25), reverse=True)
    dense = json.loads(search(sample_store, "--json", "-r", "dense").output)["results"]
    assert [h["dense"] for h in dense] == sorted((h["dense"] for h in dense), reverse=True)
    bad = search(sample_store, "-r", "semantic")
    assert bad.exit_code == 2 and "choose from dense, bm25, hybrid" in bad.output


def test_jsonl_is_one_chunk_a_line_and_files_the_distinct_files_best_first(sample_store):
    lines = search(sample_store, "--jsonl", "-k", "6").output.splitlines()
    hits = [json.loads(line) for line in lines]
    assert [h["rank"] for h in hits] == list(range(1, 7))
    files = search(sample_store, "--files", "-k", "6").output.splitlines()
    assert files == list(dict.fromkeys(h["file"] for h in hits))  # absolute: outside cwd
    assert all(Path(f).is_file() for f in files)  # usable by xargs


def test_piped_output_is_one_tab_separated_line_per_chunk(sample_store):
    result = search(sample_store, "-k", "4")
    lines = result.output.splitlines()
    assert len(lines) == 4
    fields = lines[0].split("\t")
    assert fields[0] == "1" and fields[4].endswith("refund_policy.md")
    assert fields[5] == "lines 7–11 · Driftwood Refund Policy > Annual plans"
    assert "30 days" in fields[6]


def test_search_never_calls_a_model(sample_store):
    with OpenAIStub(default="unused") as stub:
        result = search(sample_store, "--json", env={"OPENAI_BASE_URL": stub.base_url})
        assert result.exit_code == 0 and stub.requests == []


def test_nothing_found_exits_5_and_output_flags_exclude_each_other(sample_store):
    result = runner.invoke(
        app, ["search", "zyzzyva", "-r", "bm25", "--json", "--store", str(sample_store)]
    )
    assert result.exit_code == 5 and json.loads(result.output)["results"] == []
    both = search(sample_store, "--json", "--files")
    assert both.exit_code == 2 and "choose one of --json, --jsonl and --files" in both.output


def test_missing_store_is_one_line_exit_2(tmp_path):
    result = search(tmp_path / "nowhere")
    assert result.exit_code == 2 and "run `ragcli ingest PATH` first" in result.output
