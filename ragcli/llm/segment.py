"""A chunk's text into the units an answer can quote, from its blocks (ragcli/blocks/):
sentences of a paragraph (hard-wrapped lines joined: a line break inside a paragraph is a
space), a list item, a table row (`name: value; name: value`, as the loaders write the
rows of sheets and Word tables, and as a table's block gives them), a code block whole, a
heading on its own. Without this, a wrapped sentence is cut at every line end and quoted
in halves, and a sheet's rows run together into one "sentence".

The text is read by the one Markdown reader (blocks/markdown.py): a chunk's text is the
normalised Markdown the chunker wrote, or, in a store ingested before, the file's own."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Literal

from ragcli.blocks.markdown import read_markdown
from ragcli.blocks.model import Block, CodeBlock, Heading, ListItem, Paragraph, Table, flat
from ragcli.blocks.render import fenced
from ragcli.ingest.loaders.tables import row_line
from ragcli.text.rows import is_row_line
from ragcli.text.sentences import split_sentences

WORDS = re.compile(r"\w+")
UnitKind = Literal["sentence", "item", "row", "code", "heading"]

# A list item's sentence of fewer words than this is a fragment of the one before it:
# "(Default 100)", "Defaults to `500`.", "Optional, defaults to `None`."
FRAGMENT_WORDS = 5
# A list item up to this long is one unit, whatever its sentences (two lines of a page).
WHOLE_ITEM_CHARS = 300


@dataclass(frozen=True)
class Unit:
    text: str
    kind: UnitKind
    # The block it comes from (a code block's language and include target, a heading's
    # level and title); None for none.
    block: Block | None = field(default=None, compare=False)
    # The first sentence of the first paragraph under a heading: what a reference page
    # writes about the heading's subject without naming it again (llm/subject.py).
    opens_section: bool = False


def units(text: str) -> list[Unit]:
    return list(_segmented(text))


# An answer segments a chunk again for each lead-in it sizes and quotes, and the next
# answer often retrieves the same chunks: the last texts' units are kept (units are frozen).
@lru_cache(maxsize=512)
def _segmented(text: str) -> tuple[Unit, ...]:
    document = read_markdown(text.replace("\r\n", "\n"), indented_code=False)
    found: list[Unit] = []
    after_heading = False
    for block in flat(document.blocks):
        found.extend(block_units(block, opens_section=after_heading))
        after_heading = isinstance(block, Heading)
    return tuple(u for u in found if len(u.text.strip()) > 1)


def sentence_texts(text: str) -> list[str]:
    return [u.text for u in units(text)]


def plain_text(text: str) -> str:
    """The text a reader sees: its units, markup rendered (a link as its text), one a line.
    What "found word for word in a source" is checked against."""
    return "\n".join(u.text for u in units(text))


def block_units(block: Block, opens_section: bool = False) -> list[Unit]:
    if isinstance(block, Heading):
        return [Unit(f"{'#' * block.level} {block.title}", "heading", block)]
    if isinstance(block, ListItem):
        text = " ".join(block.text.split())
        # A step of a numbered list is quoted whole: a procedure's steps are its units
        # ("2. Run `dw admin restore …`. You will be asked for the passphrase …"). So is a
        # short item: its later sentences are about the item's subject, and quoted alone
        # they lose it ("`compresslevel` - Used during GZip compression. It is an integer
        # ranging from 1 to 9. Defaults to `9`.").
        if block.marker[:1].isdigit() or len(text) <= WHOLE_ITEM_CHARS:
            return [Unit(f"{block.marker} {text}", "item", block)]
        # A longer item is a paragraph in a list: its first sentence is the item, the
        # others sentences of their own (introduced() quotes them together).
        # A fragment ("(Default 100)", "Defaults to `500`.") stays with the sentence
        # before it: it is what a question about the default asks for.
        sentences: list[str] = []
        for sentence in split_sentences(text):
            if sentences and len(WORDS.findall(sentence)) < FRAGMENT_WORDS:
                sentences[-1] += f" {sentence}"
            elif sentence.strip():
                sentences.append(sentence)
        first, *rest = sentences or [""]
        return [Unit(f"{block.marker} {first}", "item", block)] + [
            Unit(sentence, "sentence", block) for sentence in rest
        ]
    if isinstance(block, CodeBlock):
        return [Unit(fenced(block), "code", block)]
    if isinstance(block, Table):
        lines = (row_line(block.header, row) for row in block.rows)
        return [Unit(line, "row", block) for line in lines if line]
    if isinstance(block, Paragraph):
        return _paragraph_units(block, opens_section)
    return []


def _paragraph_units(block: Paragraph, opens_section: bool) -> list[Unit]:
    """Sentences of the paragraph's lines joined, and each row line a row of its own."""
    found: list[Unit] = []
    lines: list[str] = []

    def flush() -> None:
        joined = " ".join(" ".join(lines).split())
        lines.clear()
        for sentence in split_sentences(joined):
            first = opens_section and not found
            found.append(Unit(sentence, "sentence", block, first))

    for line in block.text.split("\n"):
        if is_row_line(line):
            flush()
            found.append(Unit(line.strip(), "row", block))
        else:
            lines.append(line)
    flush()
    return found
