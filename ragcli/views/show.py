"""`ragcli show`: a stored document as it was read. A line saying what it is, its heading
outline, then its text, section by section; a section whose text does not open with its
heading (a PDF page, a slide) is preceded by a dim line naming its place. Piped, the
same lines without styles, never cut at a width."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.rule import Rule
from rich.text import Text

from ragcli.documents.model import StoredDocument
from ragcli.views.format import display_path, plural, when


def document_header(document: StoredDocument) -> Text:
    facts = [
        document.file_type,
        plural(document.chunks, "chunk"),
        *([plural(document.pages, "page")] if document.pages else []),
        f"ingested {when(document.ingested_at)}",
        f"collection {document.collection}",
    ]
    line = Text(display_path(document.path), style="bold")
    if document.requested:
        line.append(f" · {document.requested}", style="bold")
    line.append(" · " + " · ".join(facts), style="dim")
    return line


def outline_view(document: StoredDocument) -> RenderableType:
    """One line a heading, indented by its depth, with where its first section sits."""
    if not document.outline:
        return Text("No headings: the document has no outline.", style="dim")
    lines = [Text("Outline", style="bold")]
    for entry in document.outline:
        line = Text("  " * entry.level + entry.heading)
        if entry.locator:
            line.append(f" · {entry.locator}", style="dim")
        lines.append(line)
    return Group(*lines)


def show_view(document: StoredDocument, outline_only: bool = False) -> RenderableType:
    parts: list[RenderableType] = [document_header(document)]
    if document.title and not document.outline:
        parts.append(Text(f"title: {document.title}", style="dim"))
    if document.metadata:
        shown = "; ".join(f"{key}: {_value(value)}" for key, value in document.metadata.items())
        parts.append(Text(shown, style="dim"))
    if document.requested is None or outline_only:  # a range is shown without it
        parts.append(outline_view(document))
    if outline_only:
        return Group(*parts)
    parts.append(Rule(style="dim"))
    for number, section in enumerate(document.sections):
        if number:
            parts.append(Text(""))
        if section.heading is None or not _opens_with_heading(section.text):
            place = section.locator or (f"page {section.page}" if section.page else "")
            if place and (number or len(document.sections) > 1):
                parts.append(Text(f"── {place} ──", style="dim"))
        parts.append(Text(section.text))
    if not document.sections:
        parts.append(Text("(no text stored)", style="dim"))
    if document.note:
        parts.append(Text(f"note: {document.note}", style="yellow"))
    return Group(*parts)


def _opens_with_heading(text: str) -> bool:
    return text.startswith("#")


def _value(value: object) -> str:
    return ", ".join(str(v) for v in value) if isinstance(value, list) else str(value)
