"""One self-contained HTML page for one run or several side by side: question, answer with
its citations and support marks, the mode's flow with the path taken, the steps, and the
retrieved chunks. Inline CSS, SVG and a few lines of JS: it opens with no network."""

from __future__ import annotations

import re
from html import escape
from pathlib import Path
from typing import Any

from ragcli.report.flow import flows, step_nodes
from ragcli.report.svg import flow_svg
from ragcli.trace.recorder import Trace

CSS = """
:root { --ink:#1f2933; --muted:#6b7785; --line:#d5dbe1; --path:#0b6bcb; --ok:#1a7f37;
        --warn:#b54708; --bad:#b42318; --bg:#f6f8fa; }
* { box-sizing: border-box; }
body { margin:0; font:14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif;
       color:var(--ink); background:#fff; }
header.page { padding:14px 24px; border-bottom:1px solid var(--line); background:var(--bg); }
header.page h1 { font-size:18px; margin:0; }
header.page p { margin:2px 0 0; color:var(--muted); }
.runs { display:grid; gap:0; grid-auto-flow:column; grid-auto-columns:minmax(640px, 1fr);
        overflow-x:auto; }
.run { padding:16px 24px 32px; border-right:1px solid var(--line); min-width:0; }
.run:last-child { border-right:0; }
.run h2 { font-size:16px; margin:0 0 4px; display:flex; gap:8px; align-items:center;
          flex-wrap:wrap; }
.meta { color:var(--muted); font-size:12px; margin:0 0 12px; }
.badge { font-size:12px; font-weight:600; padding:1px 8px; border-radius:10px;
         background:#e8eef4; }
.badge.t-answer { background:#dcfce7; color:var(--ok); }
.badge.t-limited, .badge.t-unverified, .badge.t-handoff { background:#fef3c7; color:var(--warn); }
.badge.t-not_covered, .badge.t-failed, .badge.t-stopped { background:#fee4e2; color:var(--bad); }
h3 { font-size:13px; text-transform:uppercase; letter-spacing:.04em; color:var(--muted);
     margin:18px 0 6px; }
.question { font-size:15px; font-weight:600; }
.answer-text { background:var(--bg); border:1px solid var(--line); border-radius:8px;
          padding:10px 12px; white-space:pre-wrap; }
.s-ok { border-bottom:2px solid #9ad3a8; }
.s-bad { background:#fee4e2; border-bottom:2px solid var(--bad); }
.s-uncited { background:#fef3c7; }
a.cite { color:var(--path); text-decoration:none; font-size:12px; vertical-align:super; }
.legend { font-size:12px; color:var(--muted); margin-top:4px; }
.legend span { margin-right:12px; }
.diagram { overflow-x:auto; border:1px solid var(--line); border-radius:8px; padding:4px;
           background:#fff; }
.rule { margin:6px 0; font-size:13px; }
svg.flow { display:block; max-width:100%; height:auto; font-size:11px; }
svg .node rect, svg .node polygon { fill:#fff; stroke:#c3cbd3; stroke-width:1.2; }
svg .node text { text-anchor:middle; fill:#9aa5b1; }
svg .node .label { font-weight:600; font-size:12px; }
svg .node.taken rect, svg .node.taken polygon { fill:#e7f1fc; stroke:var(--path);
                                                 stroke-width:2.2; }
svg .node.taken text { fill:var(--ink); }
svg .node.taken.kind-decision polygon { fill:#fff4e5; stroke:#c4710c; }
svg .node.taken.kind-end rect, svg .node.taken.kind-start rect { fill:#0b6bcb; }
svg .node.taken.kind-end text, svg .node.taken.kind-start text { fill:#fff; }
svg .node.hot rect, svg .node.hot polygon { stroke-width:3.5; }
svg .edge path { fill:none; stroke:#d0d6dc; stroke-width:1.3; stroke-dasharray:4 3; }
svg .edge.taken path { stroke:var(--path); stroke-width:2.6; stroke-dasharray:none; }
svg .edge-label { fill:#9aa5b1; font-size:10px; }
svg .edge.taken .edge-label { fill:var(--path); font-weight:600; }
svg .arrow-taken { fill:var(--path); } svg .arrow-idle { fill:#c3cbd3; }
table { border-collapse:collapse; width:100%; font-size:12px; }
th, td { text-align:left; padding:4px 6px; border-bottom:1px solid var(--line);
         vertical-align:top; }
th { color:var(--muted); font-weight:600; }
td.num { text-align:right; font-variant-numeric:tabular-nums; white-space:nowrap; }
tr.hot td { background:#e7f1fc; }
.file { font-family:ui-monospace, SFMono-Regular, Menlo, monospace; font-size:11.5px;
        word-break:break-all; }
.preview { color:var(--muted); }
.file .dir { color:var(--muted); font-size:10.5px; }
td.parts { white-space:nowrap; color:var(--muted); }
.badge { line-height:18px; }
details summary { cursor:pointer; color:var(--muted); margin:6px 0; }
.summary td, .summary th { font-size:13px; }
.overview { padding:12px 24px; border-bottom:1px solid var(--line); }
"""

# Hovering a node lights the step rows it stands for, and the other way round.
JS = """
document.querySelectorAll('.run').forEach(function (run) {
  function light(id, on) {
    run.querySelectorAll('[data-node="' + id + '"]').forEach(function (el) {
      el.classList.toggle('hot', on);
    });
  }
  run.querySelectorAll('[data-node]').forEach(function (el) {
    var id = el.getAttribute('data-node');
    el.addEventListener('mouseenter', function () { light(id, true); });
    el.addEventListener('mouseleave', function () { light(id, false); });
  });
});
"""


LEGEND = (
    "<div class='legend'>support check: <span class='s-ok'>supported</span>"
    "<span class='s-bad'>not found in its sources</span>"
    "<span class='s-uncited'>cites nothing</span></div>"
)


def _num(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.3f}".rstrip("0").rstrip(".") if abs(value) < 1000 else f"{value:.0f}"
    return "–" if value is None else escape(str(value))


def _pairs(values: dict[str, Any], sep: str = ", ") -> str:
    return sep.join(f"{escape(str(k))} {_num(v)}" for k, v in values.items() if v is not None)


def answer_html(result: dict[str, Any], anchor: str) -> str:
    """The answer, each checked sentence marked by its support, each [n] a link to its
    source below."""
    text = escape(result.get("answer", ""))
    for row in result.get("support") or []:
        sentence = escape(row.get("sentence", ""))
        if not sentence or sentence not in text:
            continue
        if row.get("uncited"):
            css, note = "s-uncited", "cites no source"
        elif row.get("supported"):
            css, note = "s-ok", f"supported by its sources ({_num(row.get('score'))})"
        else:
            css, note = "s-bad", f"not found in the sources it cites ({_num(row.get('score'))})"
        marked = f'<span class="{css}" title="{escape(note)}">{sentence}</span>'
        text = text.replace(sentence, marked, 1)
    text = re.sub(r"\*\*(.+?)\*\*", r"<b>\1</b>", text)  # agentic's part headings
    return re.sub(r"\[(\d+)\]", rf'<a class="cite" href="#{anchor}-src-\1">[\1]</a>', text)


def _file(path: str, url: str | None = None) -> str:
    """The file's name first (what a reader looks for), its folder after, smaller; a page
    or a repository's file links to its web address."""
    folder, _, name = path.rpartition("/")
    shown = f"<b>{escape(name)}</b>"
    if url and url.startswith(("https://", "http://")):
        shown = f'<a href="{escape(url)}" rel="noreferrer">{shown}</a>'
    return (
        f'<div class="file" title="{escape(path)}">{shown} '
        f'<span class="dir">{escape(folder)}/</span></div>'
    )


def _locator(meta: dict[str, Any]) -> str:
    for key in ("locator", "heading"):
        if meta.get(key):
            return str(meta[key])
    return f"page {meta['page']}" if meta.get("page") else ""


def sources_html(result: dict[str, Any], anchor: str) -> str:
    rows = []
    for n, source in enumerate(result.get("sources") or [], start=1):
        meta = source.get("metadata") or {}
        parts = source.get("component_scores") or {}
        preview = meta.get("content_preview") or (source.get("content") or "")[:120]
        rows.append(
            f'<tr id="{anchor}-src-{n}"><td class="num">[{n}]</td>'
            f"<td>{_file(str(meta.get('source_file', '')), meta.get('url'))}"
            f'<div class="preview">{escape(preview)}</div></td>'
            f"<td>{escape(_locator(meta))}</td>"
            f'<td class="num">{_num(source.get("score"))}</td>'
            f"<td class='parts'>{_pairs(parts, '<br>')}</td></tr>"
        )
    if not rows:
        return "<p class='meta'>no sources</p>"
    return (
        "<table class='sources'><tr><th>#</th><th>file</th><th>where</th><th>score</th>"
        "<th>scores</th></tr>" + "".join(rows) + "</table>"
    )


def steps_html(trace: Trace) -> str:
    rows = []
    for step, node in zip(trace.steps, step_nodes(trace), strict=True):
        rows.append(
            f'<tr data-node="{escape(node)}"><td>{escape(step.name)}</td>'
            f"<td>{_pairs(step.scores)}</td><td>{_pairs(step.threshold)}</td>"
            f"<td>{escape(step.decision)}</td><td class='num'>{step.ms:.0f}</td></tr>"
        )
    return (
        "<table class='steps'><tr><th>step</th><th>scores</th><th>threshold</th>"
        "<th>decision</th><th>ms</th></tr>" + "".join(rows) + "</table>"
    )


def retrieved_html(trace: Trace) -> str:
    """Every chunk each retrieval returned, with its file, locator and scores."""
    blocks = []
    for number, step in enumerate(trace.steps, start=1):
        chunks = step.details.get("chunks") or []
        if not chunks:
            continue
        rows = "".join(
            f"<tr><td class='num'>{_num(c.get('sub'))}</td>"
            f"<td>{_file(str(c.get('source_file', '')), c.get('url'))}</td>"
            f"<td>{escape(_locator(c))}</td><td class='num'>{_num(c.get('score'))}</td>"
            f"<td>{_pairs(c.get('component_scores') or {})}</td></tr>"
            for c in chunks
        )
        query = step.inputs.get("query") or step.inputs.get("collection") or ""
        blocks.append(
            f"<details><summary>step {number} {escape(step.name)}: {len(chunks)} chunks"
            f"{' for ' + escape(repr(query)) if query else ''}</summary>"
            "<table><tr><th>sub</th><th>file</th><th>where</th><th>score</th>"
            f"<th>component scores</th></tr>{rows}</table></details>"
        )
    return "".join(blocks) or "<p class='meta'>no retrieval</p>"


def run_html(trace: Trace, index: int) -> str:
    anchor = f"run{index}"
    result = trace.result or {"answer": trace.answer, "sources": trace.sources}
    usage = trace.usage()
    kind = trace.answer_type or "-"
    diagrams = []
    for flow in flows(trace):
        rule = f'<p class="rule">rule: <b>{escape(flow.rule)}</b></p>' if flow.rule else ""
        diagrams.append(f'{rule}<div class="diagram">{flow_svg(flow)}</div>')
    limits = [s for s in trace.steps if s.name == "limit"]
    stopped = "".join(f"<p class='rule'>stopped: {escape(s.decision)}</p>" for s in limits)
    return (
        f'<section class="run" id="{anchor}" data-mode="{escape(trace.mode)}" '
        f'data-trace="{escape(trace.id)}">'
        f'<h2>{escape(trace.mode)} <span class="badge t-{escape(kind)}">{escape(kind)}</span></h2>'
        f'<p class="meta">run {escape(trace.id)} · {escape(trace.created_at[:19])} · '
        f"{trace.total_ms:.0f} ms · {usage['llm_calls']} model calls · "
        f"{usage['prompt_tokens'] + usage['completion_tokens']} tokens · "
        f"{usage['web_searches']} web searches · {escape(trace.backend.get('model', ''))}</p>"
        f"<h3>Question</h3><div class='question'>{escape(trace.question)}</div>"
        + (
            f"<p class='meta'>searched as: {escape(trace.standalone)}</p>"
            if trace.standalone
            else ""
        )
        + f"<h3>Answer</h3><div class='answer-text'>{answer_html(result, anchor)}</div>"
        + (LEGEND if result.get("support") else "")
        + f"<h3>Route</h3>{''.join(diagrams)}{stopped}"
        f"<h3>Sources</h3>{sources_html(result, anchor)}"
        f"<h3>Steps</h3>{steps_html(trace)}"
        f"<h3>Retrieved chunks</h3>{retrieved_html(trace)}"
        "</section>"
    )


def summary_html(traces: list[Trace]) -> str:
    """Several runs: one line each before the columns."""
    from ragcli.compare import deciding_step

    rows = []
    for n, trace in enumerate(traces):
        step = deciding_step(trace)
        route = f"{step.name}: {step.decision}" if step else ""
        rows.append(
            f"<tr><td><a href='#run{n}'>{escape(trace.mode)}</a></td>"
            f"<td>{escape(trace.answer_type)}</td><td>{escape(route)}</td>"
            f"<td class='num'>{trace.total_ms:.0f}</td></tr>"
        )
    return (
        "<div class='overview'><table class='summary'><tr><th>mode</th><th>outcome</th>"
        "<th>deciding step</th><th>ms</th></tr>" + "".join(rows) + "</table></div>"
    )


def render(traces: list[Trace], title: str = "") -> str:
    first = traces[0]
    heading = title or (
        f"ragcli run {first.id}" if len(traces) == 1 else f"ragcli: {len(traces)} runs"
    )
    subtitle = escape(first.question) if len({t.question for t in traces}) == 1 else ""
    summary = summary_html(traces) if len(traces) > 1 else ""
    runs = "".join(run_html(t, n) for n, t in enumerate(traces))
    return (
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        f"<title>{escape(heading)}</title><style>{CSS}</style></head><body>"
        f"<header class='page'><h1>{escape(heading)}</h1><p>{subtitle}</p></header>"
        f"{summary}<main class='runs'>{runs}</main><script>{JS}</script></body></html>"
    )


def write(traces: list[Trace], path: Path, title: str = "") -> Path:
    """Write the page; an unwritable path is a one-line ConfigError, never a traceback."""
    from ragcli.errors import ConfigError

    try:
        path.write_text(render(traces, title), encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"--html {path}: cannot write: {exc.strerror or exc}") from None
    return path
