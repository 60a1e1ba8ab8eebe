"""The commands around `ask`: status, sources, rm, compare, trace --search / diff, and the
exit codes, colours and step log that scripts and terminals rely on."""

import json
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from ragcli.cli import app
from ragcli.errors import ExitCode, exit_code_for
from ragcli.llm.answer_parse import parse_answer
from ragcli.pipeline import steps
from ragcli.pipeline.modes.registry import MODES
from tests.support.common import SAMPLE
from tests.support.imports import cli_imports
from tests.support.stubs import Fault, OpenAIStub

runner = CliRunner()
QUESTION = "How long is the refund window for annual plans?"
REFUND = str(SAMPLE / "policies" / "refund_policy.md")


def cli(*args: str, env: dict | None = None):
    return runner.invoke(app, list(args), env=env)


# -- exit codes ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("answer_type", "code"),
    [
        ("answer", 0),
        ("limited", 3),
        ("unverified", 3),
        ("clarification", 4),
        ("handoff", 5),
        ("not_covered", 5),
        ("something_new", 3),  # never mistaken for a full answer
    ],
)
def test_answer_type_maps_to_exit_code(answer_type, code):
    assert exit_code_for(answer_type) == code


def _fixed_mode(answer_type: str):
    def run(ctx, question):
        chunks = steps.retrieve(ctx, question)
        return ctx.result(parse_answer(f"a {answer_type} reply"), chunks, answer_type=answer_type)

    return run


@pytest.mark.slow
def test_ask_exits_with_the_code_of_its_answer_type(sample_store, monkeypatch):
    for answer_type in ("answer", "limited", "unverified", "clarification", "handoff"):
        monkeypatch.setitem(MODES, "fixed", _fixed_mode(answer_type))
        result = cli("ask", QUESTION, "--mode", "fixed", "--store", str(sample_store))
        assert result.exit_code == exit_code_for(answer_type), (answer_type, result.output)
        assert f"a {answer_type} reply" in result.output  # the answer is still printed
    monkeypatch.setitem(MODES, "fixed", _fixed_mode("not_covered"))
    result = cli("ask", QUESTION, "--mode", "fixed", "--json", "--store", str(sample_store))
    assert result.exit_code == 5 and json.loads(result.output)["answer_type"] == "not_covered"


def test_standard_with_a_model_answers_and_a_model_failure_exits_1(sample_store):
    with OpenAIStub(default="Within 30 days [1].") as stub:
        env = {"OPENAI_BASE_URL": stub.base_url, "RAGCLI_LLM__MAX_RETRIES": "0"}
        result = cli("ask", QUESTION, "--store", str(sample_store), env=env)
        assert result.exit_code == 0 and "Within 30 days [1]." in result.output
        stub.enqueue(Fault(500))
        result = cli("ask", QUESTION, "--store", str(sample_store), env=env)
    assert result.exit_code == ExitCode.FAILURE
    assert "HTTP 500" in result.output and "Traceback" not in result.output


def test_configuration_errors_exit_2(sample_store):
    env = {"RAGCLI_RETRIEVAL__TOP_K": "0"}
    result = cli("ask", QUESTION, "--store", str(sample_store), env=env)
    assert result.exit_code == 2 and "retrieval.top_k" in result.output


# -- status, sources, rm ---------------------------------------------------------------


def test_status_reports_store_collections_and_backends_with_keys_redacted(sample_store):
    env = {"OPENAI_API_KEY": "sk-secret-123", "TAVILY_API_KEY": "tvly-secret-456"}
    result = cli("status", "--store", str(sample_store), "--json", env=env)
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["store"]["path"] == str(sample_store)
    docs = data["collections"][0]
    assert docs["name"] == "docs" and docs["files"] == 18 and docs["chunks"] > 100
    latest = max(c["last_ingest"] for c in data["collections"])
    assert data["last_ingest"] == latest and latest.startswith("20")
    assert data["llm"]["provider"] == "openai" and data["llm"]["model"] == "gpt-4o-mini"
    assert data["llm"]["price_per_1m_tokens"] == {"input": 0.15, "output": 0.60}
    assert data["web"]["provider"] == "tavily"
    assert data["embedder"]["model"] == "all-MiniLM-L6-v2"
    text = cli("status", "--store", str(sample_store), env=env).output
    for output in (result.output, text):
        assert "sk-secret-123" not in output and "tvly-secret-456" not in output
    assert "docs" in text and "openai" in text and "redacted" in text
    assert "$0.15 in, $0.6 out per 1M tokens" in text


def test_status_of_a_missing_store_creates_nothing(tmp_path):
    missing = tmp_path / "none"
    result = cli("status", "--store", str(missing))
    assert result.exit_code == 0 and "not created yet" in result.output
    assert "ragcli ingest" in result.output
    assert not missing.exists()


@pytest.mark.slow
def test_status_and_sources_do_not_import_torch(sample_store):
    for args in (["status"], ["sources"]):
        run = cli_imports(*args, "--store", str(sample_store))
        assert run.heavy == [], (args, run.stdout[-300:])
        assert "docs" in run.stdout


def test_sources_lists_files_with_chunks_pages_hash_and_time(sample_store):
    result = cli("sources", "--store", str(sample_store), "--json")
    rows = json.loads(result.output)
    assert len(rows) == 19  # 18 documents in docs, the FAQ file in qna
    assert {r["collection"] for r in rows} == {"docs", "qna"}
    pdf = next(r for r in rows if r["path"].endswith("admin_guide.pdf"))
    assert pdf["pages"] == 4 and pdf["chunk_count"] > 0 and len(pdf["sha256"]) == 64
    assert pdf["ingested_at"].startswith("20")
    # Piped (as CliRunner is), one file a line, whole, so `ragcli sources | grep` works.
    text = cli("sources", "--collection", "docs", "--store", str(sample_store)).output
    lines = text.strip().splitlines()
    assert len(lines) == 18
    (line,) = [line for line in lines if "admin_guide.pdf" in line]
    assert pdf["sha256"][:8] in line and pdf["path"].endswith(line.split("\t")[0])
    empty = cli("sources", "--collection", "other", "--store", str(sample_store))
    assert empty.exit_code == 0 and "no files ingested in collection 'other'" in empty.output


def test_sources_and_rm_on_a_missing_store_say_to_ingest(tmp_path):
    for args in (["sources"], ["rm", "x.md"]):
        result = cli(*args, "--store", str(tmp_path / "none"))
        assert result.exit_code == 2 and "ragcli ingest PATH" in result.output
    assert not (tmp_path / "none").exists()


@pytest.mark.slow
def test_rm_removes_a_file_and_a_folder_from_store_and_manifest(sample_store):
    store = str(sample_store)
    before = json.loads(cli("status", "--store", store, "--json").output)["collections"][0]
    dry = cli("rm", REFUND, "--dry-run", "--store", store, "--json")
    planned = json.loads(dry.output)
    assert dry.exit_code == 0 and planned["dry_run"] and planned["chunks_removed"] > 0
    assert json.loads(cli("status", "--store", store, "--json").output)["collections"][0] == before

    result = cli("rm", REFUND, "--store", store, "--json")
    assert result.exit_code == 0, result.output
    removed = json.loads(result.output)
    assert [f["path"] for f in removed["files"]] == [REFUND]
    assert removed["chunks_removed"] == planned["chunks_removed"]
    after = json.loads(cli("status", "--store", store, "--json").output)["collections"][0]
    assert after["files"] == before["files"] - 1
    assert after["chunks"] == before["chunks"] - removed["chunks_removed"]
    # The answer no longer comes from the removed file.
    answer = json.loads(cli("ask", QUESTION, "--store", store, "--json").output)
    assert all(s["metadata"]["source_file"] != REFUND for s in answer["sources"])

    listed = json.loads(cli("sources", "--store", store, "--json").output)
    in_docs = sum(1 for r in listed if r["path"].startswith(str(SAMPLE / "docs") + "/"))
    assert in_docs == 15
    result = cli("rm", str(SAMPLE / "docs"), "--store", store)
    assert result.exit_code == 0 and "removed 15 files" in result.output
    paths = [r["path"] for r in json.loads(cli("sources", "--store", store, "--json").output)]
    assert paths and not any("/docs/" in p for p in paths)


def test_rm_of_a_path_not_ingested_is_an_error_and_removes_nothing(sample_store):
    store = str(sample_store)
    result = cli("rm", REFUND, str(SAMPLE / "nothing_here.md"), "--store", store)
    assert result.exit_code == 2
    assert "nothing_here.md: no ingested file at or under this path" in result.output
    rows = json.loads(cli("sources", "--store", store, "--json").output)
    assert any(r["path"] == REFUND for r in rows)


# -- compare --------------------------------------------------------------------------


@pytest.mark.slow
def test_compare_runs_every_registered_mode(sample_store, monkeypatch):
    monkeypatch.setitem(MODES, "fixed", _fixed_mode("clarification"))

    def broken(ctx, question):
        raise RuntimeError("mode exploded")

    monkeypatch.setitem(MODES, "broken", broken)
    result = cli("compare", QUESTION, "--store", str(sample_store), "--json")
    assert result.exit_code == 1  # one mode failed; the others still report
    rows = json.loads(result.output)
    assert [r["mode"] for r in rows] == list(MODES)
    by_mode = {r["mode"]: r for r in rows}
    standard, fixed, failed = by_mode["standard"], by_mode["fixed"], by_mode["broken"]
    assert standard["answer_type"] == "answer" and "refund" in standard["answer"]
    assert standard["route"] == "retrieve > generate" and standard["score"] > 0.3
    assert standard["llm_calls"] == 0 and standard["ms"] > 0 and standard["trace_id"]
    assert fixed["answer_type"] == "clarification"
    assert failed["answer_type"] == "failed" and "mode exploded" in failed["error"]

    text = cli("ask", QUESTION, "--compare", "--store", str(sample_store)).output
    for word in ("mode", "answer type", "route", "calls", "tokens", "web", "ms"):
        assert word in text
    assert "a clarification reply" in text and "mode exploded" in text


def test_compare_reads_route_and_score_from_the_deciding_step(sample_store, monkeypatch):
    def graded(ctx, question):
        chunks = steps.retrieve(ctx, question)
        with ctx.trace.step("grade") as step:
            step.scores = {"relevance": 0.55}
            step.threshold = {"relevant": 0.7, "ambiguous": 0.4}
            step.decision = "ambiguous: documents + web"
        return ctx.result(parse_answer("graded reply"), chunks, answer_type="limited")

    monkeypatch.setattr("ragcli.pipeline.modes.registry.MODES", {"graded": graded})
    rows = json.loads(cli("compare", QUESTION, "--store", str(sample_store), "--json").output)
    assert rows[0]["route"] == "grade: ambiguous: documents + web"
    assert (rows[0]["score"], rows[0]["threshold"]) == (0.55, 0.7)
    assert rows[0]["answer_type"] == "limited"


def test_compare_on_a_missing_store_is_one_error(tmp_path):
    result = cli("compare", QUESTION, "--store", str(tmp_path / "none"))
    assert result.exit_code == 2 and result.output.count("error:") == 1


# -- trace --search and diff -------------------------------------------------------------


def test_trace_search_finds_questions_and_answers(sample_store):
    store = str(sample_store)
    first = json.loads(cli("ask", QUESTION, "--store", store, "--json").output)
    second = json.loads(cli("ask", "How do I restore a backup?", "--store", store, "--json").output)
    by_question = json.loads(
        cli("trace", "--search", "REFUND WINDOW", "--store", store, "--json").output
    )
    assert [r["id"] for r in by_question] == [first["trace_id"]]
    word = second["answer"].split()[3]  # a word only the answer holds
    assert word.lower() not in "how do i restore a backup?"
    by_answer = json.loads(cli("trace", "--search", word, "--store", store, "--json").output)
    assert second["trace_id"] in [r["id"] for r in by_answer]
    text = cli("trace", "--search", "refund", "--store", store).output
    assert first["trace_id"] in text and second["trace_id"] not in text
    none = cli("trace", "--search", "100%_nothing", "--store", store)
    assert none.exit_code == 0 and "no run's question or answer contains" in none.output


def test_trace_diff_marks_the_scores_and_routes_that_differ(sample_store, monkeypatch):
    store = str(sample_store)

    def routed(score: float, route: str):
        def run(ctx, question):
            chunks = steps.retrieve(ctx, question)
            with ctx.trace.step("grade") as step:
                step.scores = {"relevance": score}
                step.threshold = {"relevant": 0.7}
                step.decision = route
            if route == "rewrite":
                chunks = steps.retrieve(ctx, question + " refund")
            return ctx.result(parse_answer(route), chunks)

        return run

    monkeypatch.setitem(MODES, "a", routed(0.81, "relevant"))
    monkeypatch.setitem(MODES, "b", routed(0.52, "rewrite"))
    run_a = json.loads(cli("ask", QUESTION, "-m", "a", "--store", store, "--json").output)
    run_b = json.loads(cli("ask", QUESTION, "-m", "b", "--store", store, "--json").output)
    ids = [run_a["trace_id"][:6], run_b["trace_id"][:6]]
    result = cli("trace", "diff", *ids, "--store", store, "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    pairs = [
        ((p["a"] or {}).get("name"), (p["b"] or {}).get("name"), p["differs"])
        for p in data["steps"]
    ]
    assert pairs == [
        ("retrieve", "retrieve", []),  # same question, same chunks
        ("grade", "grade", ["scores", "route"]),
        (None, "retrieve", ["only in B"]),  # the rewrite's retrieval sits opposite a gap
        ("support", "support", []),  # both answers' sentences checked alike
    ]
    assert {row["field"]: row["differs"] for row in data["summary"]}["mode"] is True
    text = cli("trace", "diff", *ids, "--store", store, env={"COLUMNS": "160"}).output
    assert "0.81 vs relevant 0.70 -> relevant" in text and "0.52 vs relevant 0.70" in text
    assert "scores, route" in text and "only in B" in text and "2 of 4 steps differ" in text

    bad = cli("trace", "diff", ids[0], "--store", store)
    assert bad.exit_code == 2 and "ragcli trace diff ID_A ID_B" in bad.output
    bad = cli("trace", "diff", ids[0], "ffffffffff", "--store", store)
    assert bad.exit_code == 2 and "no run matches 'ffffffffff'" in bad.output


# -- terminals, colours and the step log ------------------------------------------------


@pytest.mark.slow
def test_no_color_and_pipes_get_plain_text(sample_store):
    store = str(sample_store)
    terminal = {"TTY_COMPATIBLE": "1", "COLUMNS": "100"}
    coloured = cli("ask", QUESTION, "--no-stream", "--store", store, env=terminal)
    assert "\x1b[" in coloured.output  # a terminal gets styles: the check below can fail
    plain = cli("ask", QUESTION, "--no-stream", "--store", store, env={**terminal, "NO_COLOR": "1"})
    assert plain.exit_code == 0 and "\x1b" not in plain.output and "30 days" in plain.output
    for args in (["ask", QUESTION], ["trace"], ["status"], ["sources"], ["compare", QUESTION]):
        piped = cli(*args, "--store", store)  # CliRunner's output is not a terminal
        assert piped.exit_code == 0 and "\x1b" not in piped.output, args
    dumb = cli("trace", "--store", store, env={**terminal, "TERM": "dumb"})
    assert "\x1b" not in dumb.output


@pytest.mark.slow
def test_verbose_logs_a_line_per_step(sample_store):
    # A subprocess, so logging is configured as for a real run.
    args = ["ragcli", "ask", QUESTION, "-m", "graded", "-v", "--store", str(sample_store)]
    quiet = [a for a in args if a != "-v"]
    code = (
        "import sys\nfrom ragcli.pipeline.modes.registry import MODES\n"
        "from tests.support.modes import graded\n"
        "MODES['graded'] = graded\n"
        "from ragcli.cli import app\nsys.argv = {!r}\n"
        "try:\n    app()\nexcept SystemExit:\n    pass\n"
    )
    root = str(SAMPLE.parent)
    loud = subprocess.run(
        [sys.executable, "-c", code.format(args)], capture_output=True, text=True, cwd=root
    )
    assert "step retrieve · best" in loud.stderr and "-> 5 chunks" in loud.stderr
    assert "step grade · relevance 0.55 vs relevant 0.70 · -> ambiguous" in loud.stderr
    silent = subprocess.run(
        [sys.executable, "-c", code.format(quiet)], capture_output=True, text=True, cwd=root
    )
    assert "step retrieve" not in silent.stderr and silent.returncode == 0


def test_version_and_completion_are_available():
    assert cli("--version").output.startswith("ragcli ")
    help_text = cli("--help").output
    assert "--install-completion" in help_text and "--show-completion" in help_text
    for command in ("status", "sources", "rm", "compare"):
        assert command in help_text
