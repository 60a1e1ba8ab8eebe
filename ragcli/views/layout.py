"""Tables that fit the width they are drawn at, and plain lines for pipes.

A FitTable decides its layout when Rich renders it (`options.max_width`), so a view stays
pure and still adapts to any terminal. Rich on its own squeezes every column evenly, which
at 80 columns breaks file names into fragments; here each column says what it may give up:

- "key" columns (file names, URLs, setting names) keep their full width; they wrap only
  when nothing else is left to give up (a name wider than the whole terminal);
- "fixed" columns (numbers, labels, ids) keep their width too, but may be dropped;
- "flex" columns (previews, reasons, questions) shrink to their minimum, then wrap at
  words, or are cut with "…" when they read on one line.

When the natural widths do not fit, the column with the highest `drop` rank goes first, and a
line under the table names what was left out."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from rich import box
from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, RenderResult
from rich.measure import Measurement
from rich.segment import Segment
from rich.table import Table
from rich.text import Text

Cell = str | Text
# Between two columns: one column of right padding and the blank divider of SIMPLE_HEAD.
GAP = 2


@dataclass(frozen=True)
class Col:
    header: str
    kind: Literal["key", "fixed", "flex"] = "fixed"
    justify: Literal["left", "right"] = "left"
    drop: int = 0  # 0: always shown; otherwise the highest rank is dropped first
    min_width: int = 12  # flex columns only: the narrowest they shrink to
    wrap: bool = True  # flex columns only: wrap at words, or one line cut with "…"


def _cell(value: Cell) -> Text:
    # Plain strings are never parsed as markup: a file named [draft].md stays as it is.
    return value if isinstance(value, Text) else Text(value)


def _width(text: Text, first_line: bool = False) -> int:
    lines = text.plain.split("\n")
    return max(cell_len(line) for line in (lines[:1] if first_line else lines))


class FitTable:
    def __init__(self, columns: Sequence[Col], rows: Sequence[Sequence[Cell]], title: str = ""):
        self.columns = list(columns)
        self.rows = [[_cell(value) for value in row] for row in rows]
        self.title = title
        headers = [Text(c.header) for c in self.columns]
        cells = [[headers[i], *(row[i] for row in self.rows)] for i in range(len(self.columns))]
        self.natural = [max(_width(t) for t in column) for column in cells]
        # Below this a key column breaks its first line: a file name, not a heading under it.
        self.floor = [max(_width(t, first_line=True) for t in column) for column in cells]
        self.minimum = [
            min(self.natural[i], max(c.min_width, cell_len(c.header)))
            if c.kind == "flex"
            else self.natural[i]
            for i, c in enumerate(self.columns)
        ]

    def _room(self, shown: list[int], width: int) -> int:
        return width - GAP * (len(shown) - 1)

    def plan(self, width: int) -> tuple[dict[int, int], list[int]]:
        """The width of each column shown, and the columns dropped, at this total width."""
        shown = list(range(len(self.columns)))
        dropped: list[int] = []
        minimum = [self._least(i, width) for i in range(len(self.columns))]
        while sum(minimum[i] for i in shown) > self._room(shown, width):
            droppable = [i for i in shown if self.columns[i].drop > 0]
            if not droppable:
                break
            victim = max(droppable, key=lambda i: (self.columns[i].drop, i))
            shown.remove(victim)
            dropped.append(victim)
        # Dropping a wide column can leave room for a narrower one dropped before it.
        for victim in reversed(dropped[:-1]):
            trial = sorted([*shown, victim])
            if sum(minimum[i] for i in trial) <= self._room(trial, width):
                shown, dropped = trial, [i for i in dropped if i != victim]
        widths = {i: minimum[i] for i in shown}
        excess = sum(widths.values()) - self._room(shown, width)
        if excess > 0:
            excess = self._squeeze(widths, dropped, excess)
        if excess < 0:
            self._grow(widths, -excess)
        return widths, sorted(dropped)

    def _least(self, i: int, width: int) -> int:
        """The narrowest column i may be before anything is dropped for it. A name whose lines
        under it (a URL under a title) are wider than the table asks only for its first
        line; a name wider than the whole table wraps whatever gives way, so it asks for
        half and the other columns stay."""
        if self.columns[i].kind != "key" or self.natural[i] <= width:
            return self.minimum[i]
        return self.floor[i] if self.floor[i] <= width else width // 2

    def _grow(self, widths: dict[int, int], spare: int) -> None:
        """Give the spare width to the columns below their natural width (flex columns, and
        names too wide to fit), the smallest needs filled first."""
        hungry = sorted(
            (i for i in widths if widths[i] < self.natural[i]),
            key=lambda i: self.natural[i] - widths[i],
        )
        while spare > 0 and hungry:
            share = max(1, spare // len(hungry))
            for i in list(hungry):
                add = min(share, self.natural[i] - widths[i], spare)
                widths[i] += add
                spare -= add
                if widths[i] >= self.natural[i]:
                    hungry.remove(i)

    def _squeeze(self, widths: dict[int, int], dropped: list[int], excess: int) -> int:
        """Too wide with nothing droppable left. Lines under a name (a heading under a file)
        wrap first; then the other columns go, last first, so that a name breaks only when
        it is wider than the whole table; then the widest column narrows."""
        keys = [i for i in widths if self.columns[i].kind == "key"]
        for i in keys:
            give = max(0, min(excess, widths[i] - self.floor[i]))
            widths[i] -= give
            excess -= give
        others = [i for i in widths if i not in keys]
        while excess > 0 and keys and others:
            victim = others.pop()
            excess -= widths.pop(victim) + GAP
            dropped.append(victim)
        while excess > 0:
            widest = max(widths, key=lambda i: widths[i])
            if widths[widest] <= 1:
                break
            widths[widest] -= 1
            excess -= 1
        return excess

    def _one_line(self, i: int) -> bool:
        return self.columns[i].kind == "flex" and not self.columns[i].wrap

    def _table(self, widths: dict[int, int]) -> Table:
        # Rows that take several lines are set apart by a blank line, or they run together.
        wrapping = [i for i in widths if not self._one_line(i)]
        multiline = any(
            "\n" in row[i].plain or _width(row[i]) > widths[i]
            for row in self.rows
            for i in wrapping
        )
        table = Table(
            box=box.SIMPLE_HEAD,
            show_edge=False,
            pad_edge=False,
            padding=(0, 1, 0, 0),
            show_lines=multiline,
        )
        for i in widths:
            column = self.columns[i]
            one_line = self._one_line(i)
            table.add_column(
                column.header,
                justify=column.justify,
                width=widths[i],
                no_wrap=one_line,
                overflow="ellipsis" if one_line else "fold",
            )
        for row in self.rows:
            table.add_row(*(row[i] for i in widths))
        return table

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        widths, dropped = self.plan(options.max_width)
        if self.title:
            yield Text(self.title, style="bold")
        yield self._table(widths)
        if dropped:
            names = ", ".join(self.columns[i].header for i in dropped)
            yield Text(f"hidden at {options.max_width} columns: {names}", style="dim")

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        natural = sum(self.natural) + GAP * (len(self.columns) - 1)
        kept = [i for i, c in enumerate(self.columns) if not c.drop]
        least = sum(self.minimum[i] for i in kept) + GAP * max(len(kept) - 1, 0)
        return Measurement(least, natural).with_maximum(options.max_width)


class PlainLines:
    """Lines written exactly as given: no wrapping, no styles, tabs kept. Print with
    `console.print(view, soft_wrap=True)` (Rich crops other output to the width) or
    write `str(view)`."""

    def __init__(self, lines: Sequence[str]):
        self.lines = list(lines)

    def __str__(self) -> str:
        return "".join(line + "\n" for line in self.lines)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        for line in self.lines:
            yield Segment(line)
            yield Segment.line()


def pairs(rows: Sequence[tuple[str, Cell]]) -> Table:
    """Label / value lines, the labels in bold: headers of a report."""
    grid = Table.grid(padding=(0, 2))
    grid.add_column(style="bold", no_wrap=True)
    grid.add_column(overflow="fold")
    for label, value in rows:
        grid.add_row(label, _cell(value))
    return grid
