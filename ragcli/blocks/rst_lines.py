"""Where each block of a reST page sits in its file, for `lines N–M` citations: docutils
gives a block's first line (not a title's, nor the last line of anything), so a title is
found by its adornment and a block reaches to the line before the next one."""

from __future__ import annotations

import re

from ragcli.blocks.model import Block

ADORNMENT = re.compile(r"^([!-/:-@\[-`{-~])\1+\s*$")


def title_starts(lines: list[str], titles: list[str]) -> list[int | None]:
    """Each section title's first line (1-based; an overline's, if it has one), found by
    the title's line followed by an adornment, in order; None for one not found."""
    starts: list[int | None] = []
    cursor = 0
    for title in titles:
        wanted = " ".join(title.split())
        for index in range(cursor, len(lines) - 1):
            if " ".join(lines[index].split()) == wanted and ADORNMENT.match(lines[index + 1]):
                over = index > 0 and ADORNMENT.match(lines[index - 1]) is not None
                starts.append(index if over else index + 1)
                cursor = index + 2
                break
        else:
            starts.append(None)
    return starts


def block_lines(
    lines: list[str], blocks: list[Block], first_lines: list[int | None]
) -> dict[int, tuple[int, int]]:
    """Each block's lines (id of the block: first and last, 1-based): from its first line
    to the line before the next block's, blank lines at either end left out. A block whose
    first line is unknown, or out of order, shares the lines of the block before it, which
    then reach to the next known one: a citation may be wider than the text, never miss it."""
    known: list[tuple[int, int]] = []  # (index in blocks, first line)
    for index, first in enumerate(first_lines):
        if first is not None and (not known or first > known[-1][1]) and first <= len(lines):
            known.append((index, first))
    found: dict[int, tuple[int, int]] = {}
    if not known:
        return found
    ends = [first for _, first in known[1:]] + [len(lines) + 1]
    following = [index for index, _ in known[1:]] + [len(blocks)]
    for (index, first), after, stop in zip(known, ends, following, strict=True):
        span = _trimmed(lines, first - 1, after - 1)
        for block in blocks[index:stop]:
            found[id(block)] = span
    return found


def _trimmed(lines: list[str], start: int, end: int) -> tuple[int, int]:
    """Lines start..end-1 (0-based) as 1-based first and last, blank lines at either end
    left out."""
    while start < end and not lines[start].strip():
        start += 1
    while end > start and not lines[end - 1].strip():
        end -= 1
    return start + 1, max(start + 1, end)
