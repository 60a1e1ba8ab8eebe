"""The block model: one reading of a document's structure, whatever its format.

Markdown (markdown.py), reStructuredText (rst.py) and HTML (html.py) are each read by the
parser made for them into these blocks; the chunker cuts blocks, and the offline backend,
sentence segmentation and support marks read them back from a chunk's text (render.py
writes blocks as normalised Markdown, which markdown.py reads into the same blocks).

Inline markup is rendered to text when a block is made: links to their text, roles to
their target's name, emphasis dropped; code spans stay code, in backticks."""

from __future__ import annotations

from dataclasses import dataclass, field

# What an include block of an API page (`::: module.Name`) says before the page's name.
API_REFERENCE = "API reference: "
INCLUDED_TEXT = "text included from "


@dataclass(frozen=True)
class Heading:
    level: int  # 1 for a document's title
    title: str  # as a reader sees it: no `#`s, no `{ #anchor }`, inline markup rendered
    path: tuple[str, ...]  # the titles above it and its own, outermost first


@dataclass(frozen=True)
class Paragraph:
    text: str  # one line: hard wraps are spaces


@dataclass(frozen=True)
class ListItem:
    text: str  # the item's paragraphs, one line
    marker: str = "-"  # "-" or, in an ordered list, "1." / "2)"
    depth: int = 0  # 0 for a top-level list, 1 for a list inside an item, ...


@dataclass(frozen=True)
class CodeBlock:
    language: str  # "" when unknown
    text: str  # the code, without fences
    # A directive that pulls in another file (`{* src/app.py *}`, `{{#include x.rs}}`,
    # `.. literalinclude:: x.py`) or an API page (`::: module.Name`, `.. autoclass::`):
    # what it names. `text` then says so ("code example from src/app.py"); the file itself
    # is never read.
    include: str | None = None

    @property
    def is_reference(self) -> bool:
        return self.include is not None

    @property
    def includes_file(self) -> bool:
        """An include of a file, not of an API page."""
        return self.include is not None and not self.text.startswith(API_REFERENCE)


@dataclass(frozen=True)
class Table:
    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]


@dataclass(frozen=True)
class Admonition:
    kind: str  # note, tip, warning, ... (lower case)
    title: str  # "" when the block has none of its own
    blocks: tuple[Block, ...] = ()


Block = Heading | Paragraph | ListItem | CodeBlock | Table | Admonition


@dataclass
class Document:
    blocks: list[Block]
    # What the page says of itself in its front matter (blocks/front_matter.py): tags,
    # author, date, ...; keys lower-case, values a string or a list of strings.
    metadata: dict[str, str | list[str]] = field(default_factory=dict)
    # Each block's lines in the file (id of the block: first and last, 1-based), for
    # `lines N–M` citations of a section or of a chunk cut from one; empty when unknown.
    block_lines: dict[int, tuple[int, int]] = field(default_factory=dict)


def include_text(target: str, api: bool = False, text: bool = False) -> str:
    """What an include block says in place of what it includes: an API page, a page's text
    (reST's `.. include::` of a document), else a code example."""
    if api:
        return f"{API_REFERENCE}{target}"
    return f"{INCLUDED_TEXT}{target}" if text else f"code example from {target}"


def flat(blocks: list[Block] | tuple[Block, ...]) -> list[Block]:
    """The blocks with each admonition's blocks in its place (its kind and title dropped)."""
    found: list[Block] = []
    for block in blocks:
        if isinstance(block, Admonition):
            found.extend(flat(block.blocks))
        else:
            found.append(block)
    return found
