"""`ragcli ask`: the answer in its panel, the sources it drew on, each mode's block, the
routing steps of its trace, and a footer with what the run cost."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.text import Text

from ragcli.models import RetrievedChunk
from ragcli.pipeline.results import AskResult, BackendInfo
from ragcli.trace.recorder import Trace
from ragcli.views.answer import answer_panel
from ragcli.views.crag import crag_tables
from ragcli.views.documents import documents_line
from ragcli.views.format import answer_style, display_path, format_cost, num, one_line, plural
from ragcli.views.layout import Cell, Col, FitTable
from ragcli.views.reflect import rounds_table
from ragcli.views.staleness import STATE_LABELS, STATE_STYLES, refreshed_note, stale_warning
from ragcli.views.steps import details_tables, steps_table
from ragcli.views.support import support_marks
from ragcli.views.tos import tos_parts

# Step details worth showing with an answer; `ragcli trace` shows them all.
ASK_DETAILS = {"sub_questions"}


def sources_table(
    sources: list[RetrievedChunk],
    grades: dict[str, float] | None = None,
    title: str = "Sources",
    stale: dict[str, str] | None = None,
) -> FitTable:
    """The chunks the answer drew on, numbered as it cites them. A source is its file
    (or URL) over where in it: a page, a slide, rows of a sheet, lines of code, a heading
    or a web page's title. The score that ordered the sources comes first: a grader's grade
    (crag, both), else the fused score of hybrid retrieval, else the similarity; the others
    follow as components. A file changed or deleted since it was ingested (`stale`: path
    -> state) says so."""
    stale = stale or {}
    fused = any(len(s.component_scores) > 1 for s in sources)
    # The score the order follows: the reranker's when it reordered them.
    lead = "rerank" if any("rerank" in s.component_scores for s in sources) else "fused"
    grades = grades or {}
    graded = bool(grades) and all(s.chunk_id in grades for s in sources)
    columns = [Col("#", justify="right")]
    if graded:
        columns.append(Col("grade", justify="right"))
    columns.append(Col("retrieval" if graded else (lead if fused else "score"), justify="right"))
    if fused:
        columns.append(Col("components", drop=2))
    columns += [Col("source", kind="key"), Col("preview", kind="flex", wrap=False, drop=1)]
    rows: list[list[Cell]] = []
    for number, source in enumerate(sources, start=1):
        meta = source.metadata
        where = Text(display_path(meta.url or meta.source_file))
        if meta.commit and not meta.url:  # a repository without a known forge
            where.append(f" @ {meta.commit[:12]}", style="dim")
        place = meta.place_under_heading  # a section's, a slide's, a function's name
        if place:
            where.append("\n" + one_line(place), style="dim")
        if meta.source_file in stale:
            state = stale[meta.source_file]
            where.append("\n" + STATE_LABELS[state], style=STATE_STYLES[state])
        row: list[Cell] = [str(number)]
        if graded:
            row.append(num(grades[source.chunk_id]))
        scores = dict(source.component_scores)
        row.append(num(scores.pop(lead, source.score)))
        if fused:
            row.append("\n".join(f"{k} {num(v)}" for k, v in scores.items()))
        row += [where, one_line(meta.content_preview or source.content[:200])]
        rows.append(row)
    return FitTable(columns, rows, title=title)


def _grades(result: AskResult) -> dict[str, float] | None:
    """Each source's grade, when a grader ranked the sources."""
    crag = result.crag_details
    if crag is None:
        return None
    grades = {row.chunk_id: row.score for row in crag.grades}
    grades.update({row.chunk_id: row.grade for row in crag.web_results if row.grade is not None})
    return grades


def badge(result: AskResult) -> Text:
    style = answer_style(result.answer_type)
    label: str = result.answer_type
    if result.tos_details:
        label += f" · {result.tos_details.answer_type}"
    return Text.assemble((result.mode, "bold"), " · ", (label, style))


def footer(result: AskResult, cost: float | None) -> Text:
    usage = result.usage
    parts = [
        f"{result.timings_ms.get('total', 0):.0f} ms",
        plural(usage.llm_calls, "model call"),
        plural(usage.prompt_tokens + usage.completion_tokens, "token"),
        plural(usage.web_searches, "web search", "web searches"),
    ]
    if cost is not None:
        parts.append(format_cost(cost))
    parts.append(f"trace {result.trace_id}")
    if result.conversation is not None and result.conversation.turn > 1:
        parts.append(f"turn {result.conversation.turn} of {result.conversation.id}")
    return Text(" · ".join(parts), style="dim")


def backend_line(backend: BackendInfo) -> Text:
    named = [
        ("llm", backend.llm),
        ("model", backend.model),
        ("web", backend.web),
        ("embedder", backend.embedder),
    ]
    return Text("backend  " + "  ·  ".join(f"{k}: {v}" for k, v in named if v), style="dim")


def ask_view(
    result: AskResult, trace: Trace | None = None, cost: float | None = None, scope: str = ""
) -> RenderableType:
    """`scope`: the command line's store options, repeated in the refresh commands."""
    parts: list[RenderableType] = []
    if result.auto_details is not None:  # what --mode auto chose, before what it answered
        auto = result.auto_details
        parts.append(Text(f"auto → {auto.mode}: {auto.reason}", style="bold cyan"))
    if result.documents_details is not None:  # what was read whole, and how much of it
        parts.append(documents_line(result.documents_details))
    turn = result.conversation
    if turn is not None and turn.rewritten:  # what was searched for, before the answer
        parts.append(Text(f"searched as: {turn.standalone}", style="cyan"))
        parts.append(Text(f"  ({turn.reason})", style="dim"))
    marked, footnotes = support_marks(result)
    parts.append(answer_panel(marked, badge(result), answer_style(result.answer_type)))
    parts += footnotes
    parts += [Text(f"⚠ {note}", style="yellow") for note in result.notes]
    if result.tos_details:
        parts += tos_parts(result.tos_details)
    if result.sources:
        stale: dict[str, str] = {s.path: s.state for s in result.stale_sources}
        parts.append(sources_table(result.sources, _grades(result), stale=stale))
    parts += [
        t
        for t in (
            stale_warning(result.stale_sources, scope),
            refreshed_note(result.refreshed_sources),
        )
        if t
    ]
    if result.crag_details:
        parts += crag_tables(result.crag_details)
    if result.reflection_details and result.reflection_details.history:
        parts.append(rounds_table(result.reflection_details))
    if trace is not None:
        parts.append(steps_table(trace.steps, title="Routing"))
        parts += details_tables(trace.steps, keys=ASK_DETAILS)
    if result.filters is not None:
        parts.append(Text(f"filter   {result.filters.describe()}", style="dim"))
    parts += [footer(result, cost), backend_line(result.backend)]
    return Group(*parts)
