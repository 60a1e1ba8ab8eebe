"""What an Office file or a PDF says of itself: its document properties as metadata
(`LoadedFile.metadata`, ragcli/metadata.py), and its title as text where the text lacks it.

Word and PowerPoint files keep them in the package's core properties (docProps/core.xml),
which python-docx and python-pptx read; a PDF in its document information dictionary and
its XMP packet, which pypdf reads. Reading them never fails a file: a damaged property is
left out."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date, datetime
from pathlib import Path
from typing import Any

from ragcli.ingest.loaders.base import Section

# "report.docx", "Microsoft Word - report.docx", "untitled": a tool's placeholder, kept as
# metadata but never made text (nor is a title that is the file's own name).
PLACEHOLDER_TITLE = re.compile(
    r"^(?:untitled\b.*|microsoft \w+ - .*|.*\.(?:docx?|pdf|pptx?|xlsx?|odt|rtf|tex|dvi|txt|md))$",
    re.IGNORECASE,
)
KEYWORD_SEPARATORS = re.compile(r"\s*[;,]\s*")
# The relationship from an OPC package (.docx, .pptx) to its core properties part.
CORE_PROPERTIES = (
    "http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties"
)


def iso(value: Any) -> str | None:
    """A date or time as ISO 8601: 2024-05-01, 2024-05-01T10:00:00+00:00."""
    if isinstance(value, datetime):
        return value.isoformat(timespec="seconds")
    if isinstance(value, date):
        return value.isoformat()
    return None


def keywords(text: Any) -> list[str]:
    """A keywords property ("security; auth, tokens") as its words."""
    if not text:
        return []
    return [word for word in KEYWORD_SEPARATORS.split(str(text).strip()) if word]


def core_properties(document: Any) -> dict[str, Any]:
    """The core properties of a python-docx or python-pptx document, or none when its
    package has no core properties part: both libraries would make up a default one
    ("Word Document", by python-docx), which says nothing of this file."""
    try:
        document.part.package.part_related_by(CORE_PROPERTIES)
    except (KeyError, ValueError):
        return {}
    properties = document.core_properties
    return _gathered(
        {
            "title": lambda: properties.title,
            "author": lambda: properties.author,
            "subject": lambda: properties.subject,
            "keywords": lambda: keywords(properties.keywords),
            "category": lambda: properties.category,
            "description": lambda: properties.comments,
            "language": lambda: properties.language,
            "created": lambda: iso(properties.created),
            "modified": lambda: iso(properties.modified),
        }
    )


def pdf_properties(reader: Any) -> dict[str, Any]:
    """A PDF's title, author, subject, keywords and dates: its information dictionary,
    else its XMP packet."""
    info = _quietly(lambda: reader.metadata)
    xmp = _quietly(lambda: reader.xmp_metadata)
    found = _gathered(
        {
            "title": lambda: info.title,
            "author": lambda: info.author,
            "subject": lambda: info.subject,
            "keywords": lambda: keywords(info.keywords),
            "created": lambda: iso(info.creation_date),
            "modified": lambda: iso(info.modification_date),
        }
        if info is not None
        else {}
    )
    if xmp is not None:
        fallback = _gathered(
            {
                "title": lambda: _language_default(xmp.dc_title),
                "author": lambda: list(xmp.dc_creator or []),
                "subject": lambda: _language_default(xmp.dc_description),
                "keywords": lambda: list(xmp.dc_subject or []),
                "created": lambda: iso(xmp.xmp_create_date),
                "modified": lambda: iso(xmp.xmp_modify_date),
            }
        )
        found = {**fallback, **found}
    return found


def title_as_text(sections: list[Section], title: Any, path: Path) -> None:
    """The document's title opens its first section, unless its text or a heading already
    says it (most do) or the title is a placeholder: a question naming the document by
    its title then finds it."""
    with_text = [section for section in sections if section.text.strip()]
    if not isinstance(title, str) or not with_text or PLACEHOLDER_TITLE.match(title.strip()):
        return  # a file with no text of its own is not given one
    wanted = _words(title)
    if not wanted.strip() or wanted == _words(path.stem):
        return
    for section in sections:
        if wanted in _words(section.text) or wanted in _words(section.heading or ""):
            return
    first = with_text[0]
    first.text = f"{' '.join(title.split())}\n\n{first.text.lstrip()}"


def _words(text: str) -> str:
    """The words of `text`, casefolded, with a space on each side: `" a b "` is in
    `" x a b y "` and not in `" x a by "`."""
    words = re.findall(r"[^\W_]+", text.casefold())
    return f" {' '.join(words)} "


def _language_default(values: Any) -> str | None:
    """XMP's language alternatives ({"x-default": "Title"}): the default, else the first."""
    if not isinstance(values, dict) or not values:
        return None
    return values.get("x-default") or next(iter(values.values()))


def _gathered(getters: dict[str, Callable[[], Any]]) -> dict[str, Any]:
    """Each property that reads as a non-empty value; one that raises is left out."""
    found = {}
    for key, read in getters.items():
        value = _quietly(read)
        if isinstance(value, str):
            value = value.strip()
        if value:
            found[key] = value
    return found


def _quietly(read: Callable[[], Any]) -> Any:
    try:
        return read()
    except Exception:  # libraries raise many kinds on a damaged property: it is left out
        return None
