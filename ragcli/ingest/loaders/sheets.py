"""Spreadsheets (.xlsx .xls .ods) and delimited text (.csv .tsv that are not QnA files):
a sheet at a time, rows as `header: value` lines, a few rows per section so the locator
(`Sheet1, rows 20–45`) points at the rows a chunk came from.

python-calamine (Rust) reads all three workbook formats about 17 times faster than
openpyxl, but holds a whole sheet in memory; a sheet whose XML is larger than
STREAM_SHEET_BYTES is read with openpyxl in read-only mode instead, which streams it."""

from __future__ import annotations

import csv
import zipfile
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

from ragcli.ingest.loaders.base import LoadedFile, LoadError, Section, rows_locator
from ragcli.ingest.loaders.containers import check_zip, library_error
from ragcli.ingest.loaders.tables import cell_text, header_names, row_line

# Characters of row text per section: about one chunk, so a chunk's row range is exact.
SECTION_CHARS = 700
# Uncompressed sheet XML above which an .xlsx sheet is streamed with openpyxl (calamine
# needs some 1.7 bytes of memory per byte of sheet XML).
STREAM_SHEET_BYTES = 64 << 20
KINDS = {"xlsx": "Excel workbook", "xls": "Excel workbook", "ods": "OpenDocument spreadsheet"}


def load_workbook(path: Path, file_type: str) -> LoadedFile:
    kind = KINDS[file_type]
    if file_type != "xls":
        check_zip(path, kind)
    if file_type == "xlsx" and _largest_sheet(path) > STREAM_SHEET_BYTES:
        sections = _read_openpyxl(path, kind)
    else:
        sections = _read_calamine(path, kind)
    return LoadedFile(file_type, sections)


def _largest_sheet(path: Path) -> int:
    with zipfile.ZipFile(path) as archive:
        sizes = [m.file_size for m in archive.infolist() if m.filename.startswith("xl/worksheets/")]
    return max(sizes, default=0)


def _read_calamine(path: Path, kind: str) -> list[Section]:
    from python_calamine import CalamineWorkbook, PasswordError

    try:
        workbook = CalamineWorkbook.from_path(str(path))
        sections: list[Section] = []
        for name in workbook.sheet_names:
            sheet = workbook.get_sheet_by_name(name)
            # calamine skips leading empty rows; `start` says where its first row sits.
            first_row = (sheet.start or (0, 0))[0] + 1
            sections += sheet_sections(name, sheet.iter_rows(), first_row)
        workbook.close()
    except PasswordError:
        raise LoadError(f"password-protected {kind} (save it without a password)") from None
    except LoadError:
        raise
    except Exception as exc:  # calamine reports damage as several error types
        raise library_error(kind, exc) from None
    return sections


def _read_openpyxl(path: Path, kind: str) -> list[Section]:
    import openpyxl

    try:
        workbook = openpyxl.load_workbook(path, read_only=True, data_only=True)
        sections: list[Section] = []
        for sheet in workbook.worksheets:
            rows = sheet.iter_rows(values_only=True)
            sections += sheet_sections(sheet.title, rows, 1)
        workbook.close()
    except Exception as exc:
        raise library_error(kind, exc) from None
    return sections


def workbook_rows(path: Path, file_type: str) -> Iterator[tuple[str, Iterator[Sequence[object]]]]:
    """(name, rows) of each sheet of a workbook, for a QnA workbook (qna.py). An .xlsx is
    streamed with openpyxl in read-only mode, so finding its header reads only its start
    however many rows it has; .xls and .ods are read by calamine."""
    kind = KINDS[file_type]
    if file_type != "xls":
        check_zip(path, kind)
    try:
        if file_type == "xlsx":
            import openpyxl

            workbook = openpyxl.load_workbook(path, read_only=True, data_only=True)
            try:
                for sheet in workbook.worksheets:
                    yield sheet.title, sheet.iter_rows(values_only=True)
            finally:
                workbook.close()
        else:
            from python_calamine import CalamineWorkbook

            book = CalamineWorkbook.from_path(str(path))
            try:
                for name in book.sheet_names:
                    yield name, book.get_sheet_by_name(name).iter_rows()
            finally:
                book.close()
    except LoadError:
        raise
    except Exception as exc:  # damage, a password: the libraries raise many types
        raise library_error(kind, exc) from None


def sheet_sections(
    sheet: str | None, rows: Iterable[Sequence[object]], first_row: int = 1
) -> list[Section]:
    return list(iter_sheet_sections(sheet, rows, first_row))


def iter_sheet_sections(
    sheet: str | None, rows: Iterable[Sequence[object]], first_row: int = 1
) -> Iterator[Section]:
    """Rows after the first non-empty one (the header), grouped into sections; each
    section keeps the row number of each of its lines."""
    headers: list[str] | None = None
    lines: list[str] = []
    numbers: list[int] = []
    size = 0

    def section() -> Section:
        return Section(
            "\n".join(lines),
            heading=sheet,
            locator=rows_locator(sheet, numbers, span=True),
            rows=tuple(numbers),
        )

    for number, row in enumerate(rows, start=first_row):
        if headers is None:
            if any(cell_text(v) for v in row):
                headers = header_names(row)
                header_row = number
            continue
        line = row_line(headers, row)
        if not line:
            continue
        if lines and size + len(line) > SECTION_CHARS:
            yield section()
            lines, numbers, size = [], [], 0
        lines.append(line)
        numbers.append(number)
        size += len(line) + 1
    if lines:
        yield section()
    elif headers is not None:  # a sheet of one row: the row itself is the content
        lines, numbers = ["; ".join(h for h in headers)], [header_row]
        yield section()


def load_delimited(path: Path, file_type: str) -> LoadedFile:
    """A .csv or .tsv read as a table (QnA-shaped ones never get here: see qna.py)."""
    from ragcli.ingest.textstream import iter_lines, scan_text

    encoding, notes = scan_text(path)
    lines = iter_lines(path, encoding)
    if file_type == "tsv":
        dialect: type[csv.Dialect] | csv.Dialect = csv.excel_tab
    else:
        dialect = _sniff(path, encoding)
    try:
        sections = sheet_sections(None, csv.reader(lines, dialect))
    except csv.Error as exc:
        raise LoadError(f"not valid CSV ({exc})") from None
    return LoadedFile(file_type, sections, notes=notes)


def _sniff(path: Path, encoding: str) -> type[csv.Dialect] | csv.Dialect:
    """Comma, semicolon (Excel in much of Europe), tab or pipe, from the file's start."""
    from ragcli.ingest.textstream import iter_text

    sample = next(iter_text(path, encoding), "")[:65536]
    try:
        return csv.Sniffer().sniff(sample, delimiters=",;\t|")
    except csv.Error:
        return csv.excel
