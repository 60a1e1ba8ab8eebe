"""The view layer as a person reads it: every view rendered at 80 and 120 columns (80 is
also what Rich assumes for a pipe), file names whole on one line, nothing past the edge."""

from __future__ import annotations

import ast
import io
from pathlib import Path

import pytest
from rich.console import Console, RenderableType

from ragcli.models import ChunkMetadata, RetrievedChunk, Usage
from ragcli.pipeline.modes.crag.details import (
    CragDetails,
    CragThresholds,
    GradeRow,
    RewriteRow,
    Verdict,
    WebResultRow,
    WebSearchStatus,
)
from ragcli.pipeline.modes.reflect.details import ReflectionDetails, ReflectionRound
from ragcli.pipeline.modes.tos.details import BandRow, TosDetails, VerificationRecord
from ragcli.pipeline.results import AskResult, BackendInfo
from ragcli.trace.recorder import StepRecord, Trace
from ragcli.views.ask import ask_view
from ragcli.views.compare import compare_view
from ragcli.views.eval import calibration_view, eval_view
from ragcli.views.format import format_cost
from ragcli.views.ingest import ingest_view
from ragcli.views.layout import Col, FitTable
from ragcli.views.rm import removal_view
from ragcli.views.sources import sources_view
from ragcli.views.status import status_view
from ragcli.views.trace import trace_diff_view, trace_list, trace_search_view, trace_view

WIDTHS = (80, 120)
INVITE = "docs/github-actions/accept-the-invitation-to-collaborate.md"
TOKENS = "docs/account-and-profile/managing-your-personal-access-tokens.md"
PDF = "manuals/admin_guide.pdf"
NAMES = (INVITE, TOKENS, PDF)
QUESTION = "How do I accept an invitation to collaborate on a repository someone shared with me?"
ANSWER = (
    "## Accepting an invitation\n\n"
    "You can **accept** the invitation from the "
    "[notifications page](https://github.com/notifications) [1]. "
    "Fine-grained tokens replace passwords [2]."
)
LONG_URL = (
    "https://docs.github.com/en/account-and-profile/setting-up-and-managing-your-personal-"
    "account-on-github/managing-access-to-your-personal-repositories/inviting-collaborators"
)


def render(view: RenderableType, width: int, soft_wrap: bool = False) -> str:
    console = Console(width=width, record=True, force_terminal=False, file=io.StringIO())
    console.print(view, soft_wrap=soft_wrap)
    return console.export_text()


def assert_readable(text: str, width: int, names=NAMES) -> None:
    lines = text.splitlines()
    for name in names:
        assert any(name in line for line in lines), f"{name} is not whole on one line:\n{text}"
    assert all(len(line.rstrip()) <= width for line in lines)


# -- sample results --------------------------------------------------------------------


def chunk(path: str, score: float, number: int, **meta) -> RetrievedChunk:
    preview = f"Passage {number} of {path}, long enough to be cut at narrow widths."
    return RetrievedChunk(
        content=preview,
        score=score,
        component_scores={"dense": score - 0.02, "bm25": score - 0.1},
        metadata=ChunkMetadata(
            chunk_id=f"{number:032x}",
            source_file=path,
            file_type="pdf" if path.endswith(".pdf") else "markdown",
            content_preview=preview,
            **meta,
        ),
    )


SOURCES = [
    chunk(INVITE, 0.82, 1, heading="Accepting an invitation to a repository"),
    chunk(TOKENS, 0.64, 2, heading="Creating a fine-grained personal access token"),
    chunk(PDF, 0.51, 3, page=3),
]


def crag_details() -> CragDetails:
    return CragDetails(
        used_web_search=True,
        evaluation=Verdict(relevance_score=0.55, relevance_label="ambiguous"),
        route="documents+web",
        thresholds=CragThresholds(relevant=0.7, ambiguous=0.4),
        grades=[
            GradeRow(
                rank=1,
                chunk_id="1",
                source_file=INVITE,
                score=0.82,
                label="correct",
                rationale="Says where to accept the invitation.",
            ),
            GradeRow(
                rank=2,
                chunk_id="2",
                source_file=TOKENS,
                score=0.31,
                label="incorrect",
                rationale="About tokens.",
            ),
            GradeRow(rank=3, chunk_id="3", source_file=PDF, score=0.2, label="incorrect"),
        ],
        rewrites=[
            RewriteRow(
                query="accept collaborator invitation",
                relevance_score=0.61,
                relevance_label="ambiguous",
                kept=True,
            )
        ],
        web_search=WebSearchStatus(status="ok"),
        web_results=[
            WebResultRow(
                chunk_id="w1",
                title="Inviting collaborators - GitHub Docs",
                url=LONG_URL,
                score=0.91,
                grade=0.77,
                label="correct",
                used=True,
            )
        ],
    )


def reflection_details() -> ReflectionDetails:
    return ReflectionDetails(
        final_answer=ANSWER,
        iterations=2,
        approved=True,
        min_score=0.8,
        chosen_iteration=2,
        history=[
            ReflectionRound(
                iteration=1,
                query=QUESTION,
                score=0.55,
                grounded=False,
                hallucination=True,
                reason="Names a button no source mentions.",
                action="refine",
            ),
            ReflectionRound(
                iteration=2,
                query="accept invitation notifications",
                score=0.85,
                grounded=True,
                hallucination=False,
                action="approved",
            ),
        ],
    )


def tos_details() -> TosDetails:
    return TosDetails(
        answer_type="tos_limited",
        qna_score=0.62,
        tos_score=0.74,
        matched_question="How do I invite a collaborator?",
        verification=VerificationRecord(
            status="failed",
            reason="0.60 < 0.70",
            unsupported_claims=["Invitations expire after 7 days."],
            downgraded="tos_answer -> tos_limited",
        ),
        path=[
            BandRow(
                stage="qna",
                best_score=0.62,
                thresholds={"tos.qna_threshold": 0.85, "tos.qna_mid_threshold": 0.75},
                outcome="documents",
                reason="below the FAQ bands",
            ),
            BandRow(
                stage="documents",
                best_score=0.74,
                thresholds={"tos.tos_threshold": 0.7},
                outcome="tos_answer",
                components={"dense": 0.7, "bm25": 0.6},
            ),
        ],
        retrieval="hybrid",
    )


def ask_result(mode: str = "standard", **blocks) -> AskResult:
    return AskResult(
        query=QUESTION,
        answer=ANSWER,
        mode=mode,
        trace_id="3f2a9c1d0b7e",
        backend=BackendInfo(llm="openai", model="gpt-4o-mini", web="tavily", embedder="minilm"),
        sources=SOURCES,
        usage=Usage(llm_calls=3, prompt_tokens=1200, completion_tokens=80, web_searches=1),
        timings_ms={"total": 812.4},
        **blocks,
    )


def sample_trace(result: dict | None = None) -> Trace:
    chunk_rows = [
        {
            "chunk_id": s.chunk_id,
            "source_file": s.metadata.source_file,
            "page": s.metadata.page,
            "heading": s.metadata.heading,
            "score": s.score,
            "component_scores": s.component_scores,
            "preview": s.metadata.content_preview,
        }
        for s in SOURCES
    ]
    sub_questions = [
        {"#": 1, "sub_question": "Where is the invitation?", "best_score": 0.8, "chunks": 3},
        {"#": 2, "sub_question": "What replaces passwords?", "best_score": 0.6, "chunks": 2},
    ]
    trace = Trace(
        question=QUESTION,
        mode="both",
        thresholds={"crag": {"relevant": 0.7}, "tos": {"qna_mid_threshold": 0.75}},
        backend={"llm": "openai", "model": "gpt-4o-mini"},
        answer=ANSWER,
        answer_type="answer",
        total_ms=812.4,
        result=result or {},
    )
    trace.steps = [
        StepRecord(
            name="retrieve",
            scores={"best": 0.82, "chunks": 3},
            decision="3 chunks",
            ms=41.0,
            details={"chunks": chunk_rows},
        ),
        StepRecord(
            name="grade",
            scores={"relevance": 0.55},
            threshold={"relevant": 0.7, "ambiguous": 0.4},
            decision="ambiguous: documents+web",
            ms=120.0,
            llm_calls=1,
            notes=["the grader's reply was not JSON; asked again"],
            details={"grades": [r.model_dump() for r in crag_details().grades]},
        ),
        StepRecord(
            name="answer_sub_questions",
            decision="2 of 2 sub-questions answered",
            details={"sub_questions": sub_questions},
        ),
    ]
    return trace


# -- ask -------------------------------------------------------------------------------

ASK_CASES = {
    "standard": {},
    "crag": {"crag_details": crag_details()},
    "reflect": {"reflection_details": reflection_details()},
    "tos": {"tos_details": tos_details()},
    "both": {"crag_details": crag_details(), "reflection_details": reflection_details()},
}


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("mode", list(ASK_CASES))
def test_ask_keeps_every_file_name_whole(mode, width):
    result = ask_result(mode, **ASK_CASES[mode])
    text = render(ask_view(result, sample_trace(), cost=0.000123), width)
    assert_readable(text, width)
    assert f"{mode} · answer" in text
    assert "[1]" in text and "[2]" in text  # citations survive the Markdown
    assert "Routing" in text and "3. answer_sub_questions: sub_questions" in text
    assert "3 model calls · 1280 tokens · 1 web search · ~$0.000123" in text
    assert "backend  llm: openai" in text


@pytest.mark.parametrize("width", WIDTHS)
def test_ask_shows_each_modes_tables(width):
    both = render(ask_view(ask_result("both", **ASK_CASES["both"])), width)
    for title in ("Sources", "Chunk grades", "CRAG routing", "Web results", "Reflection rounds"):
        assert title in both
    assert "0.85 vs 0.80" in both and "rewrite: accept collaborator" in both
    assert "Inviting collaborators - GitHub Docs" in both

    tos = render(ask_view(ask_result("tos", answer_type="limited", **ASK_CASES["tos"])), width)
    assert "tos · limited · tos_limited" in tos and "Bands" in tos
    # Setting names are what a user passes to --set: each stays whole.
    for setting in ("tos.qna_threshold 0.85", "tos.qna_mid_threshold 0.75", "tos.tos_threshold"):
        assert setting in tos
    assert "verification: failed (0.60 < 0.70); downgraded tos_answer -> tos_limited" in tos
    assert "unsupported: Invitations expire after 7 days." in tos


def test_ask_hides_secondary_columns_at_80_and_says_so():
    narrow = render(ask_view(ask_result()), 80)
    wide = render(ask_view(ask_result()), 160)
    assert "Passage 1 of" not in narrow and "hidden at 80 columns: components, preview" in narrow
    assert "Passage 1 of" in wide and "dense 0.80" in wide and "hidden" not in wide


def test_ask_renders_the_answer_as_markdown():
    text = render(ask_view(ask_result()), 100)
    assert "You can accept the invitation from the notifications page [1]." in text
    assert "**" not in text and "##" not in text and "](https://" not in text
    assert "Accepting an invitation" in text


# -- sources ---------------------------------------------------------------------------


def file_rows() -> list[dict]:
    return [
        {
            "collection": "docs",
            "path": path,
            "sha256": f"{number:x}" * 64,
            "size": 1000,
            "mtime_ns": 0,
            "file_type": "pdf" if path.endswith(".pdf") else "markdown",
            "chunk_count": 4 * number,
            "pages": 4 if path.endswith(".pdf") else None,
            "ingested_at": "2024-05-01T10:22:33+00:00",
        }
        for number, path in enumerate([*NAMES, "README.md"], start=1)
    ]


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("collection", ["docs", None])
def test_sources_keep_file_names_whole(width, collection):
    text = render(sources_view(file_rows(), collection), width)
    assert_readable(text, width)
    assert "4 files · 40 chunks" in text
    if width == 120:
        assert "2024-05-01 10:22" in text  # room for the time, and for the hash
        assert ("11111111" in text) == (collection is not None)  # unless collections are listed
    else:
        assert "hidden at 80 columns:" in text and "sha256" in text.split("hidden")[1]


def test_sources_plain_is_one_line_per_file_for_grep_and_cut():
    view = sources_view(file_rows(), None, plain=True)
    text = render(view, 80, soft_wrap=True)
    assert text == str(view)
    lines = text.splitlines()
    assert len(lines) == 4
    assert [line.split("\t")[0] for line in lines] == [*NAMES, "README.md"]
    assert lines[0].split("\t") == [
        INVITE,
        "docs",
        "markdown",
        "4",
        "-",
        "1" * 64,
        "2024-05-01 10:22",
    ]
    assert not any(mark in text for mark in "─│┃━")
    assert [line for line in lines if "admin_guide.pdf" in line] == [lines[2]]  # grep


def test_sources_outside_the_working_directory_are_shown_under_their_folder(tmp_path):
    rows = file_rows()
    for row in rows:
        row["path"] = str(tmp_path / row["path"])
    text = render(sources_view(rows, "docs"), 120)
    assert f"under {tmp_path}" in text
    assert_readable(text, 120)


# -- status, ingest, rm ----------------------------------------------------------------


def status_data(collections: list[dict]) -> dict:
    return {
        "store": {
            "path": "/home/someone/.local/share/ragcli",
            "exists": True,
            "chroma": "local",
            "default_collection": "docs",
            "error": None,
        },
        "collections": collections,
        "last_ingest": "2024-05-01T10:22:33+00:00",
        "embedder": {"model": "all-MiniLM-L6-v2", "backend": "onnx", "device": "cpu"},
        "retrieval": {"mode": "hybrid", "top_k": 5},
        "llm": {
            "provider": "openai",
            "model": "gpt-4o-mini",
            "base_url": "api.openai.com",
            "api_key": "set (redacted)",
            "price_per_1m_tokens": {"input": 0.15, "output": 0.6},
        },
        "web": {"provider": "tavily", "base_url": None, "api_key": "not set"},
        "traces": {"runs": 1, "last_run": "2024-05-02T08:00:00+00:00"},
    }


@pytest.mark.parametrize("width", WIDTHS)
def test_status_shows_backends_and_collections(width):
    names = ["docs", "customer-support-knowledge-base-2024-archive"]
    collections = [
        {"name": name, "files": 14, "chunks": None if i else 230, "last_ingest": None}
        for i, name in enumerate(names)
    ]
    text = render(status_view(status_data(collections)), width)
    assert_readable(text, width, names=names)
    assert "$0.15 in, $0.6 out per 1M tokens" in text and "1 run · last 2024-05-02 08:00" in text
    empty = render(status_view(status_data([])), width)
    assert "no collections yet: run `ragcli ingest PATH`" in empty


@pytest.mark.parametrize("width", WIDTHS)
def test_ingest_and_removal_name_every_file(width):
    report = {
        "collection": "docs",
        **{f"files_{s}": 1 for s in ("new", "changed", "unchanged", "skipped", "failed")},
        "files_removed": 0,
        "chunks_added": 12,
        "chunks_removed": 3,
        "seconds": 1.25,
        "files": [
            {"path": INVITE, "status": "failed", "reason": "not valid UTF-8 at byte 1024"},
            {"path": TOKENS, "status": "skipped", "reason": "empty file"},
            {"path": PDF, "status": "new", "reason": ""},
        ],
        "recovered": [],
    }
    text = render(ingest_view(report), width)
    assert_readable(text, width, names=(INVITE, TOKENS))
    assert "empty file" in text and "not valid UTF-8 at byte 1024" in text
    removed = {
        "collection": "docs",
        "dry_run": True,
        "chunks_removed": 9,
        "files": [{"path": p, "chunks": 3} for p in NAMES],
    }
    text = render(removal_view(removed), width)
    assert_readable(text, width)
    assert "would remove 3 files · 9 chunks" in text


# -- trace -----------------------------------------------------------------------------


@pytest.mark.parametrize("width", WIDTHS)
def test_trace_keeps_file_names_in_step_details_whole(width):
    result = ask_result("both", **ASK_CASES["both"]).to_json_dict()
    text = render(trace_view(sample_trace(result), cost=0.002), width)
    assert_readable(text, width)
    for title in ("Steps", "1. retrieve: chunks", "2. grade: grades", "Reflection rounds"):
        assert title in text
    assert "⚠ the grader's" in text  # a step's notes show under its decision
    # The thresholds in force wait for `trace --all`, so a run's trace fits a screen.
    assert "crag.relevant" not in text and "ragcli trace --all" in text
    full = render(trace_view(sample_trace(result), cost=0.002, full=True), width)
    assert_readable(full, width)
    assert "crag.relevant" in full and "tos.qna_mid_threshold" in full
    assert "812 ms · 1 model call · 0+0 tokens · 0 web searches · ~$0.002" in text


def test_trace_of_an_older_run_still_shows():
    old = {"reflection_details": {"history": [{"round": 1}], "approved": "maybe"}}
    text = render(trace_view(sample_trace(old)), 80)
    assert "Reflection rounds" not in text and "retrieve" in text  # the steps still tell it


@pytest.mark.parametrize("width", WIDTHS)
def test_trace_list_is_one_line_per_run(width):
    rows = [
        {
            "id": f"{n:012x}",
            "created_at": "2024-05-01T10:22:33+00:00",
            "mode": "crag",
            "question": QUESTION * 2,
            "total_ms": 812.4,
            "answer_type": "answer",
            "answer": ANSWER,
        }
        for n in range(3)
    ]
    text = render(trace_list(rows), width)
    runs = [line for line in text.splitlines() if line.startswith("0000000000")]
    assert len(runs) == 3 and all(line.rstrip().endswith("812") for line in runs)
    assert all("…" in line for line in runs)
    found = render(trace_search_view("invitation", rows), width)
    assert "Runs matching 'invitation'" in found
    assert len([line for line in found.splitlines() if line.startswith("0000000000")]) == 3


def test_trace_diff_marks_what_differs():
    side = {"name": "grade", "scores": {"relevance": 0.81}, "threshold": {"relevant": 0.7}}
    data = {
        "a": "aaa",
        "b": "bbb",
        "summary": [{"field": "mode", "a": "crag", "b": "crag", "differs": False}],
        "steps": [
            {
                "a": {**side, "decision": "relevant", "ms": 10.0},
                "b": {**side, "scores": {"relevance": 0.52}, "decision": "ambiguous", "ms": 9.0},
                "differs": ["scores", "route"],
            },
            {"a": None, "b": {**side, "decision": "x", "ms": 1.0}, "differs": ["only in B"]},
        ],
        "answers": {"a": "A says **yes**", "b": ""},
        "steps_differing": 2,
    }
    text = render(trace_diff_view(data), 160)
    assert "0.81 vs relevant 0.70 -> relevant" in text and "scores, route" in text
    assert "only in B" in text and "2 of 2 steps differ" in text and "A says yes" in text


# -- compare ---------------------------------------------------------------------------


@pytest.mark.parametrize("width", WIDTHS)
def test_compare_keeps_file_names_in_answers_whole(width):
    cited = f"Accept it from your notifications [1] {INVITE}, and see [2] {PDF}, p. 3."
    rows = [
        {
            "mode": mode,
            "answer_type": kind,
            "route": "grade: ambiguous: documents+web" if mode == "crag" else "retrieve > generate",
            "score": 0.55,
            "threshold": 0.7 if mode == "crag" else None,
            "llm_calls": 2,
            "prompt_tokens": 900,
            "completion_tokens": 60,
            "web_searches": 1,
            "ms": 640.0,
            "trace_id": f"{mode}0000",
            "answer": cited,
            "estimated_cost_usd": 0.0004,
        }
        for mode, kind in (("standard", "answer"), ("crag", "limited"), ("agentic", "answer"))
    ]
    rows.append({"mode": "tos", "answer_type": "failed", "error": "HTTP 500 from the model"})
    text = render(compare_view(QUESTION, rows), width)
    assert_readable(text, width, names=(INVITE, PDF))
    for word in ("mode", "answer type", "route", "calls", "ms", "cost"):
        assert word in text
    assert "0.55 vs 0.70" in text and "~$0.0004" in text
    assert "tos · failed" in text and "HTTP 500 from the model" in text


# -- eval, layout, format --------------------------------------------------------------


def test_eval_and_calibration_reports():
    report = {
        "dataset": "scifact",
        "split": "test",
        "queries": 300,
        "documents": 5183,
        "collection": "eval-scifact",
        "ingest": {"new": 0, "changed": 0, "unchanged": 5183, "removed": 0},
        "results": {"hybrid": {"nDCG@10": 0.7331, "Recall@10": 0.85}},
        "seconds": {"hybrid": 12.0},
    }
    text = render(eval_view(report), 80)
    assert "Retrieval quality" in text and "0.7331" in text and "5183 documents" in text
    calibration = {
        "calibration": {"features": ["cosine", "bm25"], "weights": [4.0, 1.5], "bias": -2.0},
        "bands": {"high": 0.7, "low": 0.4},
        "questions": 6,
        "retrieval": {"mode": "hybrid", "top_k": 5},
        "before": {"answerable_high": 1, "answerable": 3, "unanswerable_low": 2, "unanswerable": 3},
        "after": {"answerable_high": 3, "answerable": 3, "unanswerable_low": 3, "unanswerable": 3},
        "precision_recall": [
            {
                "threshold": 0.5,
                "accepted": 4,
                "correct": 3,
                "unanswerable_accepted": 1,
                "precision": 0.75,
                "recall": 1.0,
            }
        ],
        "saved_to": "store/calibration.json",
    }
    text = render(calibration_view(calibration), 80)
    assert "Precision and recall per threshold" in text and "calibration.json" in text
    assert "answerable aggregating >= 0.7: 3/3" in text


def test_a_name_wider_than_the_terminal_is_the_only_thing_that_wraps():
    name = "docs/" + "very-long-folder-name/" * 5 + "file.md"  # 122 characters
    table = FitTable(
        [Col("file", kind="key"), Col("chunks", justify="right"), Col("hash", drop=1)],
        [[name, "3", "abcdef12"], ["short.md", "1", "12345678"]],
    )
    lines = render(table, 80).splitlines()
    assert all(len(line.rstrip()) <= 80 for line in lines)
    assert "".join(line.split()[0] for line in lines[2:4]) == name  # wrapped, nothing lost
    assert lines[2].split()[1:] == ["3", "abcdef12"]  # and the other columns stay


def test_format_cost_keeps_small_amounts_readable():
    assert format_cost(0.000123) == "~$0.000123"
    assert format_cost(1.5) == "~$1.5000"
    assert format_cost(0) == "~$0"


VIEWS = Path(__file__).resolve().parent.parent / "ragcli" / "views"
# What a view may import from ragcli: other views, the typed results, the trace records,
# and the text layer (a typed answer as Markdown, with a view's support marks in it).
ALLOWED = (
    "ragcli.views",
    "ragcli.pipeline.results",
    "ragcli.trace.recorder",
    "ragcli.models",
    "ragcli.documents.model",  # `show`: a stored document
    "ragcli.text.",
)


def test_views_import_only_data_models_and_each_other_without_cycles():
    graph: dict[str, set[str]] = {}
    for path in VIEWS.glob("*.py"):
        module = f"ragcli.views.{path.stem}"
        imported = {
            node.module
            for node in ast.walk(ast.parse(path.read_text()))
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("ragcli")
        }
        for name in imported:
            details = name.startswith("ragcli.pipeline.modes.") and name.endswith(".details")
            assert details or name.startswith(ALLOWED), f"{module} imports {name}"
        graph[module] = {name for name in imported if name.startswith("ragcli.views")}

    def visit(module: str, path: tuple[str, ...]) -> None:
        assert module not in path, " -> ".join((*path, module))
        for name in graph.get(module, ()):
            visit(name, (*path, module))

    for module in graph:
        visit(module, ())


@pytest.mark.parametrize("width", [24, 40, 60, 100, 200])
def test_every_view_fits_any_width(width):
    views = [
        ask_view(ask_result("both", **ASK_CASES["both"]), sample_trace(), cost=0.01),
        ask_view(ask_result("tos", **ASK_CASES["tos"])),
        trace_view(sample_trace(ask_result("both", **ASK_CASES["both"]).to_json_dict())),
        sources_view(file_rows(), None),
        status_view(status_data([{"name": "docs", "files": 1, "chunks": 2, "last_ingest": None}])),
    ]
    for view in views:
        text = render(view, width)
        assert all(len(line.rstrip()) <= width for line in text.splitlines()), text
    if width >= 70:  # the longest name fits: it stays whole whatever else gives way
        assert_readable(render(views[0], width), width)


@pytest.mark.parametrize("width", WIDTHS)
def test_a_synthesized_answer_keeps_its_questions_and_sources_on_their_own_lines(width):
    """agentic's sections: the sub-question in bold, its answer, a "Sources:" line, joined
    by single line breaks (one block each); none of them runs into the next."""
    from ragcli.views.answer import answer_panel

    answer = (
        "**What is the web port?**\nThe web port is 7420. [1]\n"
        "Sources: [1] docs/configuration.md\n\n"
        "**Which port serves metrics?**\nMetrics are served on port 9420. [2]\n"
        "Sources: [2] docs/admin_guide.pdf, p. 3"
    )
    shown = render(answer_panel(answer, "answer"), width)
    lines = [line.strip("│ ") for line in shown.splitlines()]
    for line in ("What is the web port?", "Which port serves metrics?"):
        assert line in lines
    assert "Sources: [1] docs/configuration.md" in lines
    assert "Sources: [2] docs/admin_guide.pdf, p. 3" in lines
