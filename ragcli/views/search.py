"""`ragcli search`: the ranked chunks. In a terminal, one block per chunk: its file, its
place (lines, page) with the heading it is under, the score the ranking follows (the
reranker's when one reordered them, else fused in hybrid retrieval, else the retriever's
own) before the others, and the start of its text. Piped, one chunk per line with
tab-separated fields (rank, ranking score, dense, bm25, file, place, text), so `cut` and
`grep` work."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from ragcli.models import SearchHit, SearchResult, with_heading
from ragcli.views.format import NONE, display_path, milliseconds, num, one_line, plural
from ragcli.views.layout import PlainLines
from ragcli.views.staleness import STATE_LABELS, STATE_STYLES, refreshed_note, stale_warning

PLAIN_TEXT_CHARS = 300  # of a chunk's text on its piped line; --json has all of it
SNIPPET_CHARS = 200  # of a chunk's text in a terminal: two or three lines


def _ranked_by(hit: SearchHit, retriever: str) -> str:
    if hit.rerank is not None:
        return "rerank"
    return {"hybrid": "fused", "bm25": "bm25"}.get(retriever, "dense")


def _ranking_score(hit: SearchHit, retriever: str) -> float | None:
    return getattr(hit, _ranked_by(hit, retriever))


def _scores(hit: SearchHit, retriever: str) -> str:
    """The score the ranking follows first, then the other stages' scores."""
    ranked_by = _ranked_by(hit, retriever)
    named = {"rerank": hit.rerank, "fused": hit.fused, "dense": hit.dense, "bm25": hit.bm25}
    order = [ranked_by] + [name for name in named if name != ranked_by]
    shown = [f"{name} {num(named[name])}" for name in order if named[name] is not None]
    lift = hit.heading_cosine
    if lift is not None and (hit.dense is None or lift > hit.dense):  # it lifted the chunk
        shown.append(f"heading {num(lift)}")
    return " · ".join(shown)


def summary(result: SearchResult) -> Text:
    files = len(result.files())
    parts = [
        f"{plural(len(result.results), 'chunk')} from {plural(files, 'file')}",
        result.retriever,
        f"collection {result.collection}",
        milliseconds(result.timings_ms.get("total", 0.0)),
    ]
    if result.filters is not None:
        parts.insert(1, f"filter {result.filters.describe()}")
    if result.rerank is not None:
        rerank = result.rerank
        done = "skipped" if rerank.skipped else f"{rerank.candidates} candidates"
        parts.insert(2, f"reranked by {rerank.reranker} ({done})")
    return Text(" · ".join(parts), style="dim")


def search_view(result: SearchResult, plain: bool = False, scope: str = "") -> RenderableType:
    """Each chunk as a block: its file, where in it, its scores, the start of its text.
    `plain` (stdout is not a terminal): print with `console.print(view, soft_wrap=True)`,
    so no line is cut at the width Rich assumes for a pipe; the stale-file warning then
    goes to stderr (`stale_notes`). `scope`: the store options, for the refresh commands."""
    if plain:
        return _plain(result)
    if not result.results:
        return Group(Text(f"no chunk matches {result.query!r}"), summary(result))
    stale = {s.path: s.state for s in result.stale_sources}
    grid = Table.grid(padding=(0, 1))
    grid.add_column(justify="right", no_wrap=True)
    grid.add_column(overflow="fold")
    for number, hit in enumerate(result.results):
        body = Text(display_path(hit.file), style="bold")
        if hit.file in stale:
            state = stale[hit.file]
            body.append(f"  ({STATE_LABELS[state]})", style=STATE_STYLES[state])
        if hit.locator:
            body.append("\n" + one_line(with_heading(hit.locator, hit.heading)), style="cyan")
        body.append("\n" + _scores(hit, result.retriever), style="dim")
        if filtered := _filtered_metadata(hit, result):
            body.append("\n" + filtered, style="magenta")
        body.append("\n" + _snippet(hit.text))
        if number < len(result.results) - 1:
            body.append("\n")
        grid.add_row(Text(f"{hit.rank}.", style="bold"), body)
    return Group(grid, Text(""), *stale_notes(result, scope), summary(result))


def stale_notes(result: SearchResult, scope: str = "") -> list[Text]:
    """The stale-file warning, the note of a --refresh, and the search's own notes (a
    language the embedder does not cover), each when there is one."""
    notes = (
        stale_warning(result.stale_sources, scope, again="search"),
        refreshed_note(result.refreshed_sources, before="searching"),
    )
    found = [note for note in notes if note is not None]
    return found + [Text(f"⚠ {note}", style="yellow") for note in result.notes]


def _filtered_metadata(hit: SearchHit, result: SearchResult) -> str:
    """The hit's metadata under the keys a --meta filter named: why it was let in."""
    if result.filters is None or not result.filters.meta or not hit.doc_metadata:
        return ""
    named = result.filters.meta_keys()
    shown = [
        f"{key}: {value if isinstance(value, str) else ', '.join(value)}"
        for key, value in hit.doc_metadata.items()
        if key in named
    ]
    return one_line(" · ".join(shown))


def _snippet(text: str) -> str:
    flat = one_line(text)
    if len(flat) <= SNIPPET_CHARS:
        return flat
    return flat[:SNIPPET_CHARS].rsplit(" ", 1)[0] + " …"


def _plain(result: SearchResult) -> PlainLines:
    lines = []
    for hit in result.results:
        fields = [
            str(hit.rank),
            num(_ranking_score(hit, result.retriever), 4),
            num(hit.dense, 4),
            num(hit.bm25, 4),
            display_path(hit.file),
            one_line(with_heading(hit.locator, hit.heading)) or NONE,
            one_line(hit.text)[:PLAIN_TEXT_CHARS],
        ]
        lines.append("\t".join(fields))
    return PlainLines(lines)


def files_view(result: SearchResult) -> PlainLines:
    """`--files`: the distinct files, best first, one a line (for xargs)."""
    return PlainLines([display_path(path) for path in result.files()])
