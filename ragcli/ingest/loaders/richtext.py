"""Rich text: .rtf with striprtf (its text; RTF keeps no heading structure a reader can
rely on) and OpenDocument .odt with odfpy (paragraphs under their title and headings,
tables as `header: value` rows)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ragcli.ingest.loaders.base import LoadedFile, LoadError, NothingOfItsOwn, Section
from ragcli.ingest.loaders.containers import check_zip, library_error
from ragcli.ingest.loaders.tables import table_lines

DRAWING = "urn:oasis:names:tc:opendocument:xmlns:drawing:1.0"
ANSI_CODEPAGE = re.compile(rb"\\ansicpg(\d+)")


def load_rtf(path: Path) -> LoadedFile:
    data = path.read_bytes()
    if not data.strip():
        raise NothingOfItsOwn("empty file")
    if not data.lstrip().startswith(b"{\\rtf"):
        raise LoadError("not an RTF file (it does not start with {\\rtf)")
    from striprtf.striprtf import rtf_to_text

    # \'xx escapes are bytes in the document's code page (\ansicpg), Windows-1252 if unsaid.
    match = ANSI_CODEPAGE.search(data[:4096])
    encoding = f"cp{match.group(1).decode()}" if match else "cp1252"
    try:
        "".encode(encoding)
    except LookupError:
        encoding = "cp1252"
    try:
        text = rtf_to_text(data.decode("latin-1"), encoding=encoding, errors="replace")
    except Exception as exc:  # striprtf is a parser of untrusted input
        raise library_error("RTF document", exc) from None
    return LoadedFile("rtf", [Section(text)])


def load_odt(path: Path) -> LoadedFile:
    check_zip(path, "OpenDocument text")
    from odf.opendocument import load

    try:
        document = load(str(path))
        sections = _odt_sections(document.text, _title_styles(document))
    except LoadError:
        raise
    except Exception as exc:  # odfpy raises many kinds on damaged files
        raise library_error("OpenDocument text", exc) from None
    return LoadedFile("odt", sections)


def _odt_text(node: Any, comments: list[str]) -> str:
    """A paragraph's text; comments (office:annotation) go to `comments`, not inline."""
    parts: list[str] = []
    for child in node.childNodes:
        if child.nodeType == child.TEXT_NODE:
            parts.append(str(child.data))
            continue
        tag = child.qname[1]
        if tag == "annotation":
            author = "".join(_odt_text(c, []) for c in child.childNodes if c.qname[1] == "creator")
            body = " ".join(_odt_text(c, []) for c in child.childNodes if c.qname[1] == "p")
            if body.strip():
                comments.append(f"{author.strip()}: {body.strip()}" if author else body.strip())
        elif tag == "s":
            parts.append(" " * int(child.getAttribute("c") or 1))
        elif tag == "tab":
            parts.append("\t")
        elif tag == "line-break":
            parts.append("\n")
        elif child.qname[0] == DRAWING:  # a text box or shape in the paragraph: apart
            parts.append(f"\n\n{_odt_text(child, comments).strip()}\n\n")
        elif tag != "annotation-end":
            parts.append(_odt_text(child, comments))
    return "".join(parts)


def _title_styles(document: Any) -> set[str]:
    """The paragraph styles of a document's title: `Title` and automatic styles on it."""
    names = {"Title"}
    for style in document.automaticstyles.childNodes:
        if getattr(style, "qname", (None, None))[1] == "style":
            if style.getAttribute("parentstylename") == "Title":
                names.add(style.getAttribute("name"))
    return names


def _odt_sections(body: Any, title_styles: set[str]) -> list[Section]:
    sections: list[Section] = []
    path: list[tuple[int, str]] = []
    lines: list[str] = []

    def flush() -> None:
        text = "\n\n".join(lines).strip()
        if text:
            heading = " > ".join(title for _, title in path) or None
            sections.append(Section(text, heading=heading))
        lines.clear()

    def walk(node: Any) -> None:
        for child in node.childNodes:
            name = getattr(child, "qname", None)
            if name is None:
                continue
            tag = name[1]
            if tag == "h":
                text = _odt_text(child, comments).strip()
                if text:
                    flush()
                    level = int(child.getAttribute("outlinelevel") or 1)
                    path[:] = [(lvl, title) for lvl, title in path if lvl < level]
                    path.append((level, text))
            elif tag == "p":
                text = _odt_text(child, comments).strip()
                if text and child.getAttribute("stylename") in title_styles:
                    flush()  # the title heads the path, as a Word document's does
                    path[:] = [(0, text)]
                elif text:
                    lines.append(text)
            elif tag == "table":
                lines.append("\n".join(table_lines(_odt_rows(child))))
            elif tag in ("list", "list-item", "section", "frame", "text-box", "list-header"):
                walk(child)
            elif tag in ("sequence-decls", "tracked-changes", "variable-decls"):
                continue
            else:
                walk(child)

    comments: list[str] = []
    walk(body)
    flush()
    if comments:
        sections.append(Section("\n".join(comments), heading="Comments"))
    return sections


def _odt_rows(table: Any) -> list[list[str]]:
    rows: list[list[str]] = []

    def visit(node: Any) -> None:
        for child in node.childNodes:
            name = getattr(child, "qname", None)
            if name is None:
                continue
            if name[1] == "table-row":
                cells = [
                    "\n".join(
                        _odt_text(p, [])
                        for p in cell.childNodes
                        if getattr(p, "qname", (None, None))[1] == "p"
                    )
                    for cell in child.childNodes
                    if getattr(cell, "qname", (None, None))[1] == "table-cell"
                ]
                rows.append(cells)
            else:
                visit(child)

    visit(table)
    return rows
