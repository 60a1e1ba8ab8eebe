"""An answer in its panel, rendered as Markdown: extractive answers quote Markdown sources,
so headings, bold and links read as formatting rather than as `#`, `**` and `[..](..)`.
Citations like `[1]` are not links in Markdown and stay as written."""

from __future__ import annotations

import re
from typing import ClassVar

from rich.console import Console, ConsoleOptions, RenderResult
from rich.markdown import Heading, Markdown
from rich.panel import Panel
from rich.text import Text


class _Heading(Heading):
    """A heading as a bold line at the left: Rich centres (and may box) them, which in a
    panel of quoted text looks like a page title rather than a quote."""

    STYLES: ClassVar[dict[str, str]] = {"h1": "bold underline", "h2": "bold underline"}

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        text = self.text.copy()
        text.justify = "left"
        text.stylize(self.STYLES.get(self.tag, "bold"))
        yield text


class _Markdown(Markdown):
    elements = {**Markdown.elements, "heading_open": _Heading}


# A synthesized answer (agentic) opens each section with the sub-question in bold and
# closes it with a "Sources:" line, joined by single line breaks so the section stays one
# block of text; in Markdown they would run into the sentences around them. The question
# gets a line break, the sources a paragraph of their own (which also ends a quoted list).
BOLD_LINE = re.compile(r"^(\*\*[^*\n]+\*\*)\n(?=\S)", re.M)
SOURCES_LINE = re.compile(r"(?<=\S)\n(?=Sources: )")


def markdown(text: str) -> Markdown:
    text = SOURCES_LINE.sub("\n\n", BOLD_LINE.sub("\\1  \n", text))
    return _Markdown(text)


def answer_panel(
    text: str, title: Text | str, style: str = "", subtitle: Text | str | None = None
) -> Panel:
    return Panel(
        markdown(text or "-"),
        title=title,
        title_align="left",
        subtitle=subtitle,
        subtitle_align="right",
        border_style=style,
    )
