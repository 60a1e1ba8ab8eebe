"""PDF: each page's text layer with pypdf (`page N`); a page without one (a scan) is
rendered at 300 dpi with pypdfium2 and read by OCR (`page N (OCR)`). A PDF with an outline
(bookmarks) gives each page the heading path of the last entry starting on or before it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from ragcli.ingest.loaders.base import LoadedFile, LoadError, LoadOptions, Section
from ragcli.ingest.loaders.ocr import MAX_SIDE, empty_pages_note, iter_ocr_pages
from ragcli.ingest.loaders.properties import pdf_properties, title_as_text

OCR_DPI = 300
# A page whose text layer has fewer letters than this is treated as having none: a scan
# often carries a stray page number or a scanner's stamp as text.
MIN_LETTERS = 10
# A scan's text is out of reach with OCR off: the file failed, it is not empty.
NO_TEXT_LAYER = "PDF has no text layer and OCR is off (ingest.ocr: off)"


def load_pdf(path: Path, options: LoadOptions, stopping: Callable[[], bool]) -> LoadedFile:
    sections, properties = _text_layer(path)
    pages = len(sections)
    if options.ocr == "force":
        scanned = list(range(1, pages + 1))
    else:
        scanned = [s.page for s in sections if _letters(s.text) < MIN_LETTERS and s.page]
    notes: list[str] = []
    sections = _with_tables(path, sections, set(scanned), notes, stopping)
    ocr_pages = 0
    if scanned and options.ocr == "off":
        if len(scanned) == pages:
            notes.append(NO_TEXT_LAYER)
    elif scanned:
        by_page = {s.page: s for s in sections if not s.rows}  # each page's text, not its tables
        for number, text in _ocr(path, scanned, options, stopping):
            section = by_page[number]
            # OCR replaces a stray text layer, unless the layer said more than OCR read.
            if len(text) >= len(section.text.strip()):
                section.text, section.locator = text, f"page {number} (OCR)"
            ocr_pages += 1
        notes += empty_pages_note(sections, pages)
        if ocr_pages:
            notes.insert(0, f"OCR read {ocr_pages} of {pages} pages")
    title_as_text(sections, properties.get("title"), path)  # after OCR, which replaces text
    return LoadedFile(
        "pdf", sections, pages=pages, notes=notes, ocr_pages=ocr_pages, metadata=properties
    )


def _with_tables(
    path: Path,
    sections: list[Section],
    scanned: set[int],
    notes: list[str],
    stopping: Callable[[], bool],
) -> list[Section]:
    """`sections` with each ruled table read as rows after its page's text, and that
    text without the table's words (pdf_tables.py)."""
    from ragcli.ingest.loaders.pdf_tables import read_tables, ruled_pages, table_sections

    try:
        ruled = [n for n in ruled_pages(path, len(sections)) if n not in scanned]
        found, empty = read_tables(path, ruled, stopping) if ruled else ([], [])
    except Exception as exc:  # pdfplumber (pdfminer) meets damage pypdf read past
        notes.append(f"tables not read ({type(exc).__name__}: {str(exc)[:60]}); text kept")
        return sections
    if empty:
        which = ", ".join(str(n) for n in empty)
        label = "page" if len(empty) == 1 else "pages"
        notes.append(f"{label} {which}: ruled like a table, but none found (read as text)")
    tables = {page.number: page for page in found}
    result: list[Section] = []
    for section in sections:
        result.append(section)
        page = tables.get(section.page or 0)
        if page is not None:
            section.text = page.text
            result += table_sections(section.heading, page.number, page.tables)
    return result


def _letters(text: str) -> int:
    return sum(1 for char in text if char.isalnum())


def _text_layer(path: Path) -> tuple[list[Section], dict[str, Any]]:
    """Each page's text, and the document's properties."""
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    try:
        reader = PdfReader(path)
        if reader.is_encrypted:
            try:
                if not reader.decrypt(""):
                    raise LoadError("encrypted PDF (needs a password)")
            except LoadError:
                raise
            except Exception:
                raise LoadError("encrypted PDF (needs a password)") from None
        headings = _outline_starts(reader)
        sections = []
        for number, page in enumerate(reader.pages, start=1):
            heading = next((path for first, path in reversed(headings) if first <= number), None)
            text = page.extract_text() or ""
            sections.append(Section(text, page=number, heading=heading, locator=f"page {number}"))
        return sections, pdf_properties(reader)
    except LoadError:
        raise
    except (PdfReadError, ValueError, KeyError, TypeError, OSError) as exc:
        raise LoadError(f"corrupt PDF ({type(exc).__name__}: {str(exc)[:80]})") from None
    except Exception as exc:  # pypdf raises a wide range of errors on damaged files
        raise LoadError(f"corrupt PDF ({type(exc).__name__})") from None


def _outline_starts(reader: Any) -> list[tuple[int, str]]:
    """(first page, heading path) of each outline entry, by first page. pypdf lists an
    entry's children as a list right after it. A damaged outline is no outline."""
    starts: list[tuple[int, str]] = []

    def walk(items: list[Any], path: list[str]) -> None:
        previous: str | None = None
        for item in items:
            if isinstance(item, list):
                walk(item, path + [previous] if previous else path)
                continue
            previous = " ".join(str(getattr(item, "title", "") or "").split()) or None
            page = reader.get_destination_page_number(item)
            if previous and page is not None and page >= 0:
                starts.append((page + 1, " > ".join(path + [previous])))

    try:
        walk(reader.outline, [])
    except Exception:  # pypdf raises many kinds on a damaged outline
        return []
    return sorted(starts, key=lambda start: start[0])  # stable: outline order within a page


def _ocr(
    path: Path, pages: list[int], options: LoadOptions, stopping: Callable[[], bool]
) -> list[tuple[int, str]]:
    import pypdfium2 as pdfium

    try:
        document = pdfium.PdfDocument(str(path))
    except pdfium.PdfiumError as exc:
        raise LoadError(f"cannot render PDF for OCR ({str(exc)[:80]})") from None

    def render(number: int) -> Any:
        page = document[number - 1]
        # 300 dpi, but a poster-sized page is rendered no larger than OCR can use.
        scale = min(OCR_DPI / 72, MAX_SIDE / max(page.get_size() + (1.0,)))
        try:
            return page.render(scale=scale, grayscale=True).to_pil()
        finally:
            page.close()

    try:
        return list(iter_ocr_pages(path, pages, render, options, stopping))
    finally:
        document.close()
