"""A stored document put back together: its sections (each the text of its chunks without
their overlaps), its heading outline, and a listing of a collection's documents. What
`ragcli show --json` prints and the MCP tools `get` and `list` return."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from ragcli.models import Record


class DocumentPart(Record):
    """What one stored chunk adds to its section: its text without the part it repeats
    from the chunk before it (the chunker's overlap) and without a repeated heading line."""

    chunk_id: str
    chunk_index: int
    locator: str | None = None
    text: str
    # What goes between the part before it and this one: "" for a section's first part,
    # else the break the chunker cut at (a blank line between blocks, a line break between
    # rows or list items, a space inside a paragraph).
    joiner: str = ""


class DocumentSection(Record):
    heading: str | None = None  # its heading path, "Policy > Refunds"; None before any
    locator: str | None = None  # where it sits: "lines 7–20", "page 3", "slide 4"
    page: int | None = None
    text: str
    parts: list[DocumentPart] = Field(default_factory=list, exclude=True)  # for ranges


class OutlineEntry(Record):
    """A heading of the document, in order, at its depth (1 for a top-level heading)."""

    heading: str
    level: int
    locator: str | None = None  # where its first section sits


class StoredDocument(Record):
    path: str  # as stored: an absolute path, `beir:ID`, a URL
    collection: str
    file_type: str
    chunks: int
    pages: int | None = None
    sha256: str = ""
    ingested_at: str = ""
    title: str | None = None  # the first heading, or the stored title
    # The document's own metadata stored with its chunks (front matter, properties).
    metadata: dict[str, Any] = Field(default_factory=dict)
    outline: list[OutlineEntry] = Field(default_factory=list)
    sections: list[DocumentSection] = Field(default_factory=list)
    # The whole document's size in characters, and what was asked for and shown.
    chars: int = 0
    requested: str | None = None  # "lines 12–40" for a range; None: the whole document
    shown_chars: int = 0
    # Why less than asked for is shown: the range matched nothing, or the size bound cut
    # it; `next` is the request that continues where it was cut ("PATH:41-80").
    note: str | None = None
    next: str | None = None

    @property
    def text(self) -> str:
        """The sections' text, one blank line between them."""
        return "\n\n".join(section.text for section in self.sections)


class DocumentEntry(Record):
    """One document of a listing: what the manifest knows and its stored metadata."""

    path: str
    file_type: str
    chunks: int
    pages: int | None = None
    title: str | None = None
    ingested_at: str = ""
    modified_at: str = ""
    sha256: str = ""
    metadata: dict[str, Any] = Field(default_factory=dict)


class DocumentList(Record):
    collection: str
    total: int  # documents in the collection
    offset: int
    limit: int
    documents: list[DocumentEntry] = Field(default_factory=list)
    next_offset: int | None = None  # None: this page is the last
