"""A table row as text: `header: value; header: value`. The loaders write each row of a
sheet, a CSV file or a Word table so (ingest/loaders/tables.py), a Markdown table's rows
are read so (llm/segment.py), and an answer quotes such a row as a unit."""

from __future__ import annotations

import re

FIELD_SEPARATOR = "; "
# A field: a short column name, ": ", a value. A row is a line of such fields joined by
# "; ", two of them at least.
ROW_FIELD = re.compile(r"^[^\s:;|#>][^:;]{0,47}: \S")


def join_fields(fields: list[str]) -> str:
    return FIELD_SEPARATOR.join(fields)


def is_row_line(line: str) -> bool:
    """A `name: value; name: value` line: a table row as the loaders write it."""
    fields = line.strip().split(FIELD_SEPARATOR)
    named = sum(1 for f in fields if ROW_FIELD.match(f))
    return named >= 2 and bool(ROW_FIELD.match(fields[0]))
