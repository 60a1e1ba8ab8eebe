"""Word .docx with python-docx: paragraphs under their headings (the heading path is the
section's heading, as for Markdown), tables as `header: value` rows, text boxes and
comments kept. A heading is known by its outline level, the paragraph's own or its
style's, so a localized style (id `2`, name `Überschrift 2`) is found as `Heading2` is."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ragcli.ingest.loaders.base import LoadedFile, LoadError, Section
from ragcli.ingest.loaders.containers import check_zip, library_error
from ragcli.ingest.loaders.properties import core_properties, title_as_text
from ragcli.ingest.loaders.tables import table_lines

HEADING_STYLE = re.compile(r"^(?:heading|überschrift|titre|título)\s*(\d)$", re.IGNORECASE)


def load_docx(path: Path) -> LoadedFile:
    check_zip(path, "Word document")
    import docx
    from docx.opc.exceptions import PackageNotFoundError

    try:
        document = docx.Document(str(path))
        sections = _sections(document)
        sections += _comments(document)
    except LoadError:
        raise
    except PackageNotFoundError:
        raise LoadError("corrupt Word document (not a .docx package)") from None
    except Exception as exc:  # python-docx and lxml raise many kinds on damaged files
        raise library_error("Word document", exc) from None
    properties = core_properties(document)
    title_as_text(sections, properties.get("title"), path)
    return LoadedFile("docx", sections, metadata=properties)


# w:outlineLvl 0-8 are heading levels 1-9; 9 is body text.
BODY_TEXT = 9
BODY = -1  # what _outline_level says of body text


def _level(paragraph: Any) -> int | None:
    """The outline level of a heading paragraph (1 for a top heading, 0 for the title),
    else None: the paragraph's own w:outlineLvl, else its style's, else the style's
    built-in kind (Title, heading N), along the chain of styles it is based on."""
    own = _outline_level(paragraph._p.pPr)
    if own is not None:
        return own if own != BODY else None
    try:
        style = paragraph.style
    except (KeyError, AttributeError):
        return None
    seen: set[str] = set()  # a chain that loops back on itself ends
    while style is not None and style.style_id not in seen:
        seen.add(style.style_id)
        level = _outline_level(style.element.pPr)
        if level is not None:
            return level if level != BODY else None
        name = (style.name or "").strip()
        if name.lower() == "title":
            return 0
        match = HEADING_STYLE.match(name)
        if match:
            return int(match.group(1))
        style = style.base_style
    return None


def _outline_level(properties: Any) -> int | None:
    """The heading level a w:pPr's w:outlineLvl gives (1-9), BODY for body text, None
    when it sets none."""
    from docx.oxml.ns import qn

    found = properties.find(qn("w:outlineLvl")) if properties is not None else None
    value = found.get(qn("w:val")) if found is not None else None
    if value is None or not value.strip().isdigit():
        return None
    return int(value) + 1 if int(value) < BODY_TEXT else BODY


def _text_boxes(paragraph: Any) -> list[str]:
    """Text in shapes anchored to the paragraph. Word writes each shape twice (DrawingML
    and a VML fallback), so repeated text is kept once."""
    from docx.oxml.ns import qn

    texts: list[str] = []
    for box in paragraph._p.iter(qn("w:txbxContent")):
        text = "\n".join(
            "".join(t.text or "" for t in p.iter(qn("w:t"))) for p in box.iter(qn("w:p"))
        ).strip()
        if text and text not in texts:
            texts.append(text)
    return texts


def _sections(document: Any) -> list[Section]:
    from docx.table import Table
    from docx.text.paragraph import Paragraph

    sections: list[Section] = []
    path: list[tuple[int, str]] = []
    body: list[str] = []

    def flush() -> None:
        text = "\n\n".join(body).strip()
        if text:
            heading = " > ".join(title for _, title in path) or None
            sections.append(Section(text, heading=heading))
        body.clear()

    for block in document.iter_inner_content():
        if isinstance(block, Paragraph):
            level = _level(block)
            text = block.text.strip()
            if level is not None and text:
                flush()
                path[:] = [(lvl, title) for lvl, title in path if lvl < level]
                path.append((level, text))
                continue
            if text:
                body.append(text)
            body.extend(_text_boxes(block))
        elif isinstance(block, Table):
            body.append("\n".join(table_lines(_table_rows(block))))
    flush()
    return sections


def _table_rows(table: Any) -> list[list[str]]:
    rows = []
    for row in table.rows:
        cells: list[str] = []
        previous = None
        for cell in row.cells:
            # A merged cell comes back once per grid column it spans: keep it once.
            if cell._tc is previous:
                continue
            previous = cell._tc
            cells.append(cell.text)
        rows.append(cells)
    return rows


def _comments(document: Any) -> list[Section]:
    try:
        comments = list(document.comments)
    except Exception:  # a document without a comments part
        return []
    lines = []
    for comment in comments:
        text = " ".join(p.text for p in comment.paragraphs).strip()
        if text:
            author = (comment.author or "").strip()
            lines.append(f"{author}: {text}" if author else text)
    return [Section("\n".join(lines), heading="Comments")] if lines else []
