"""Which table rows a question names, for the offline backend.

A row rarely shares much wording with a question about it: "What does the Brontide lamp
cost?" against `Item: Brontide lamp; Price: 349; Currency: EUR` shares two words, and a
question about two rows shares half of itself with each. What ties them is that the
question names a cell of the row, the thing the row is about, as a heading names what
its section is about. A row is named when:

- the question holds every word of one of its cells ("Brontide lamp", "349"; a cell
  of stopwords alone names nothing, and "IT desk" is not named by "desk");
- that value is distinctive: at most half of the rows hold it (a currency column's "EUR"
  names none of them; with a single row, its values do);
- no other named row names more of the question: a row whose named terms are a strict
  subset of another's ("Lamp" in a category column, beside "Brontide lamp") is not.
"""

from __future__ import annotations

from collections import Counter

from ragcli.terms import stems, terms

# The fields of a loader's row (`name: value; name: value`) or the cells of a Markdown row.
FIELD_SEPARATOR = "; "


def cell_values(row: str) -> list[str]:
    """The values of a row's cells, without their column names."""
    text = row.strip()
    if text.startswith("|"):
        return [cell.strip() for cell in text.strip("|").split("|") if cell.strip()]
    values = []
    for field in text.split(FIELD_SEPARATOR):
        name, colon, value = field.partition(": ")
        values.append((value if colon else name).strip())
    return [v for v in values if v]


def named_rows(question: str, rows: list[str]) -> set[int]:
    """The indexes of the rows in `rows` that `question` names (see the module's doc)."""
    asked = set(stems(question))
    if not asked or not rows:
        return set()
    cells = [{frozenset(stems(v)) for v in cell_values(row) if terms(v)} for row in rows]
    holding = Counter(value for row_cells in cells for value in row_cells)
    limit = max(1, len(rows) // 2)
    named: dict[int, frozenset[str]] = {}
    for index, row_cells in enumerate(cells):
        hits = [value for value in row_cells if value <= asked and holding[value] <= limit]
        if hits:
            named[index] = frozenset().union(*hits)
    return {
        index for index, hit in named.items() if not any(hit < other for other in named.values())
    }
