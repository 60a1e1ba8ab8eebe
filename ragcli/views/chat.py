"""`ragcli chat`: each answer kept short (the sources and trace are one command away)."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.text import Text

from ragcli.pipeline.results import AskResult
from ragcli.views.answer import answer_panel
from ragcli.views.ask import badge, footer
from ragcli.views.format import answer_style
from ragcli.views.staleness import stale_warning
from ragcli.views.support import support_marks


def chat_answer(result: AskResult, cost: float | None = None) -> RenderableType:
    parts: list[RenderableType] = []
    turn = result.conversation
    if turn is not None and turn.rewritten:
        parts.append(Text(f"searched as: {turn.standalone}", style="cyan"))
        parts.append(Text(f"  ({turn.reason})", style="dim"))
    if result.auto_details is not None:
        auto = result.auto_details
        parts.append(Text(f"auto → {auto.mode}: {auto.reason}", style="bold cyan"))
    marked, footnotes = support_marks(result)
    parts.append(answer_panel(marked, badge(result), answer_style(result.answer_type)))
    parts += footnotes
    parts += [Text(f"⚠ {note}", style="yellow") for note in result.notes]
    warning = stale_warning(result.stale_sources)
    if warning:
        parts.append(warning)
    parts.append(footer(result, cost))
    return Group(*parts)
