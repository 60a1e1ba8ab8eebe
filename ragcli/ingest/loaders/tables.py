"""Rows of a table as text a retriever can match and a reader can quote: each row after
the header becomes `header: value; header: value`, so a value keeps the name of its
column wherever the chunker cuts."""

from __future__ import annotations

from collections.abc import Sequence


def cell_text(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))  # spreadsheets store 2024 as 2024.0
    return " ".join(str(value).split())


def header_names(row: Sequence[object]) -> list[str]:
    """Column names from a header row; a blank one is named by its column letter."""
    names = []
    for index, value in enumerate(row):
        text = cell_text(value)
        names.append(text or column_letter(index))
    return names


def column_letter(index: int) -> str:
    letters = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        letters = chr(65 + rest) + letters
    return letters


def row_line(headers: Sequence[str], row: Sequence[object]) -> str:
    """`header: value; …` for the row's non-empty cells ('' when all are empty)."""
    parts = []
    for index, value in enumerate(row):
        text = cell_text(value)
        if not text:
            continue
        name = headers[index] if index < len(headers) else column_letter(index)
        # A table's empty corner cell names nothing: its column holds the rows' names.
        parts.append(f"{name}: {text}" if name and name != text else text)
    return "; ".join(parts)


def table_lines(rows: Sequence[Sequence[object]]) -> list[str]:
    """A small table (a Word or slide table): its first row names the columns."""
    rows = [row for row in rows if any(cell_text(v) for v in row)]
    if not rows:
        return []
    if len(rows) == 1:
        return ["; ".join(cell_text(v) for v in rows[0] if cell_text(v))]
    headers = header_names(rows[0])
    return [line for row in rows[1:] if (line := row_line(headers, row))]
