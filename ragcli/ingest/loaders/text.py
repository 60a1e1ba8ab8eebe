"""Plain text, Markdown (MDX too) and reStructuredText. Markdown and reST are read into
blocks by the parser made for each (ragcli/blocks/) and cut into one section per heading,
each holding its blocks and their normalised Markdown; plain text is one section. A
Markdown page's front matter keys other than its title and description are the file's
metadata.

reST is recognised by its suffix (.rst, .rest); a .txt file is plain text, whatever it
holds (docs/ingest.md, "File formats")."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path

from ragcli.blocks.examples import one_reference_per_example
from ragcli.blocks.model import Admonition, Block, Document, Heading, Table
from ragcli.blocks.render import render
from ragcli.ingest.loaders.base import LoadedFile, NothingOfItsOwn, Section, spans_locator
from ragcli.ingest.loaders.encoding import read_text

# A section longer than this comes in several parts under the same heading, so a huge
# file streams through in bounded memory.
SECTION_CHARS = 1 << 20


def load_text(path: Path, file_type: str) -> LoadedFile:
    text, notes = read_text(path)
    # reST's `:doc:` links, and MyST's `{doc}`, name pages by their path from this file.
    if file_type == "rst":
        return LoadedFile(file_type, rst_sections(text, str(path)), notes=notes)
    if file_type in ("md", "mdx"):
        document = markdown_document(text, str(path), mdx_page=file_type == "mdx" or None)
        sections = _cited_by_lines(document)
        return LoadedFile(file_type, sections, notes=notes, metadata=dict(document.metadata))
    return LoadedFile(file_type, _text_sections(text), notes=notes)


def _text_sections(text: str) -> list[Section]:
    return [Section(text)]


def markdown_sections(text: str) -> list[Section]:
    return _cited_by_lines(markdown_document(text))


def markdown_document(text: str, source: str = "", mdx_page: bool | None = None) -> Document:
    """A Markdown (or MDX) page's blocks, each with its lines; `source`, the file it was
    read from, places the pages its MyST `{doc}` links name."""
    from ragcli.blocks.markdown import read_markdown
    from ragcli.blocks.rst import embedded_rest, linked_title

    def title(is_doc: bool, target: str) -> str:
        return linked_title(is_doc, target, source)

    return read_markdown(
        text,
        lines=True,
        rest=embedded_rest,
        mdx_page=mdx_page,
        link_title=title if source else None,
    )


def rst_sections(text: str, source: str = "") -> list[Section]:
    from ragcli.blocks.rst import read_rst

    document = read_rst(text, source)
    sections = _cited_by_lines(document)
    if not sections and document.lists_pages:
        # An index page: Sphinx shows it as links to the pages it lists, read on their own.
        raise NothingOfItsOwn("only a table of contents (toctree): its pages are read")
    return sections


def _cited_by_lines(document: Document) -> list[Section]:
    """The document's sections, each cited by its lines in the file, and each block's
    lines kept for the chunks cut from it."""
    sections = list(block_sections(document.blocks))
    for section in sections:
        spans = tuple(document.block_lines.get(id(block)) for block in section.blocks or ())
        known = [span for span in spans if span is not None]
        if known:
            section.locator = spans_locator(known)
            section.block_lines = spans
    return sections


def block_sections(blocks: Iterable[Block], max_chars: int = SECTION_CHARS) -> Iterator[Section]:
    """One section per heading: the heading and the blocks under it, with its heading path
    ("Install > Linux"). A heading with nothing under it before the next heading is not a
    section."""
    current: list[Block] = []
    heading: str | None = None
    size = 0

    def flush() -> Iterator[Section]:
        kept = one_reference_per_example(current)
        if any(not isinstance(block, Heading) for block in kept):
            yield Section(render(kept), heading=heading, blocks=tuple(kept))
        current.clear()

    for block in blocks:
        if isinstance(block, Heading):
            yield from flush()
            heading = " > ".join(block.path) or None
            size = 0
        elif size > max_chars:
            yield from flush()
            size = 0
        current.append(block)
        size += _size(block)
    yield from flush()


def _size(block: Block) -> int:
    """About the characters `block` renders to (the cut needs no more than that)."""
    if isinstance(block, Table):
        return sum(len(cell) + 3 for row in (block.header, *block.rows) for cell in row)
    if isinstance(block, Admonition):
        return sum(_size(inner) for inner in block.blocks) + len(block.title) + 12
    if isinstance(block, Heading):
        return len(block.title) + block.level + 1
    return len(block.text) + 8


def iter_sections(path: Path, file_type: str, encoding: str) -> Iterator[Section]:
    """Sections of a large text or Markdown file, read in blocks (see textstream.py)."""
    from ragcli.ingest.textstream import iter_text

    if file_type == "md":
        from ragcli.blocks.markdown import iter_markdown_blocks

        sections: Iterable[Section] = block_sections(
            iter_markdown_blocks(iter_text(path, encoding))
        )
    else:
        sections = (Section(piece) for piece in iter_text(path, encoding))
    return (s for s in sections if s.text.strip())
