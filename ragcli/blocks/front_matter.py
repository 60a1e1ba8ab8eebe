"""A page's front matter: the header static site generators read before its Markdown.

Jekyll, MkDocs, Docusaurus, Nextra, Starlight and Hugo write YAML between `---` lines;
Hugo also TOML between `+++` lines and JSON as an object opening the file. Its `title` and
`description` are the page's own words (a generator shows them as the page's heading and
lead), so the reader makes them text; its other keys (tags, categories, keywords, author,
date, ...) are what the page says of itself, kept as metadata (`LoadedFile.metadata`):
keys lower-case, each value a string or a list of strings. Nested tables (Hugo's `menu`,
`params`) and a header that is not valid YAML, TOML or JSON are left out."""

from __future__ import annotations

import datetime as dt
import json
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from markdown_it.rules_block import StateBlock

Metadata = dict[str, str | list[str]]

# The keys that are the page's text, not what it says of itself.
TEXT_KEYS = ("title", "description")
# The lines that open and close a header, by format.
MARKERS = {"---": "yaml", "+++": "toml"}
JSON_OPEN = re.compile(r"^\{\s*$")


@dataclass(frozen=True)
class FrontMatter:
    title: str = ""
    description: str = ""
    metadata: Metadata = field(default_factory=dict)


def read_front_matter(source: str, kind: str) -> FrontMatter:
    """The header's text and metadata; empty for a header that does not parse."""
    data = _parsed(source, kind)
    if not isinstance(data, dict):
        return FrontMatter()
    metadata: Metadata = {}
    for key, value in data.items():
        name = str(key).strip().lower()
        if name in TEXT_KEYS or not name:
            continue
        found = _value(value)
        if found is not None:
            metadata[name] = found
    return FrontMatter(_line(data.get("title")), _line(data.get("description")), metadata)


def _parsed(source: str, kind: str) -> Any:
    try:
        if kind == "toml":
            import tomllib

            return tomllib.loads(source)
        if kind == "json":
            return json.loads(source)
        import yaml

        return yaml.safe_load(source)
    except Exception:  # noqa: BLE001 - yaml, toml and json each raise their own
        return None


def _line(value: Any) -> str:
    return " ".join(str(value).split()) if isinstance(value, str | int | float) else ""


def _scalar(value: Any) -> str | None:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dt.datetime | dt.date | dt.time):
        return value.isoformat()
    if isinstance(value, str | int | float):
        text = " ".join(str(value).split())
        return text or None
    return None


def _value(value: Any) -> str | list[str] | None:
    """A string, or a list of strings (a list of scalars); None for what is neither."""
    if isinstance(value, list | tuple):
        items = [found for item in value if (found := _scalar(item)) is not None]
        return items if items else None
    return _scalar(value)


def front_matter_rule(state: StateBlock, start: int, end: int, silent: bool) -> bool:
    """A header on the page's first line: `---` or `+++` to the same line, or a JSON object
    from a `{` line to the `}` line that closes it. Its token (`front_matter`) carries the
    format in `info` and the header in `content`."""
    if start != 0 or state.blkIndent != 0 or state.parentType != "root":
        return False
    first = _source_line(state, 0).rstrip()
    kind = MARKERS.get(first)
    if kind is None and not JSON_OPEN.match(first):
        return False
    line = 1
    if kind is not None:
        while line < end and _source_line(state, line).rstrip() != first:
            line += 1
        if line >= end:
            return False
        content = state.getLines(1, line, 0, False)
        close = line + 1
    else:
        kind = "json"
        while line < end:
            if _source_line(state, line).rstrip() == "}":
                candidate = state.getLines(0, line + 1, 0, False)
                if isinstance(_parsed(candidate, "json"), dict):
                    break
            line += 1
        if line >= end:
            return False
        content = state.getLines(0, line + 1, 0, False)
        close = line + 1
    if silent:
        return True
    token = state.push("front_matter", "", 0)
    token.info = kind
    token.content = content
    token.map = [0, close]
    token.block = True
    token.hidden = True
    state.line = close
    return True


def _source_line(state: StateBlock, line: int) -> str:
    return state.src[state.bMarks[line] : state.eMarks[line]]
