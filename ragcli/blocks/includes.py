"""Directives that pull another file (or an API page) into a documentation page.

Site generators expand them when they build the site; a copy of the sources holds only
the directive. Each becomes a short include block ("code example from src/app.py",
"API reference: pydantic.BaseModel"), never noise in a sentence, and the file it names is
never read (it may lie outside the ingested folder, or not exist in the copy at all).

One pattern per toolchain, each the directive's own syntax on a line of its own:
- FastAPI / SQLModel (mkdocs-macros):  `{* ../docs_src/app/tutorial001.py hl[3] *}`
- markdown-include:                    `{!./docs_src/tutorial001.py[ln:1-8]!}`
- pymdownx.snippets:                   `--8<-- "docs/examples/model.py"`
- mdBook:                              `{{#include ../listings/main.rs:here}}`,
                                       `{{#rustdoc_include ...}}`, `{{#playground ...}}`
- mkdocstrings:                        `::: pydantic.BaseModel` (an API page, not a file)
reStructuredText's `.. literalinclude::` and autodoc directives are docutils directives
(rst.py)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import PurePosixPath

DIRECTIVE = re.compile(
    r"^\s*(?:"
    r"\{\*\s*(?P<macro>[^\s*]+)[^*]*\*\}"
    r"|\{!\s*(?P<include>[^\s!\[]+)(?:\[[^\]]*\])?\s*!\}"
    r"|-{2,}8<-{2,}\s*[\"']?(?P<snippet>[^\"'\s]+)[\"']?"
    r"|\{\{#(?:include|rustdoc_include|playground)\s+(?P<mdbook>[^\s}]+)[^}]*\}\}"
    r"|:::\s+(?P<api>[A-Za-z_][\w.]*)"
    r")\s*$"
)
# The part of an mdBook path after the file: `main.rs:anchor`, `main.rs:3:9`.
ANCHOR = re.compile(r"(\.[A-Za-z0-9]{1,8}):.*$")
LANGUAGES = {
    ".py": "python",
    ".rs": "rust",
    ".toml": "toml",
    ".js": "javascript",
    ".ts": "typescript",
    ".json": "json",
    ".yaml": "yaml",
    ".yml": "yaml",
    ".sh": "bash",
    ".md": "markdown",
    ".html": "html",
    ".css": "css",
    ".go": "go",
    ".java": "java",
    ".c": "c",
    ".rb": "ruby",
    ".sql": "sql",
}


@dataclass(frozen=True)
class Include:
    target: str  # a file's path as written, or an API object's dotted name
    api: bool  # an API page (`::: module.Name`), not a file

    @property
    def language(self) -> str:
        return "" if self.api else LANGUAGES.get(PurePosixPath(self.target).suffix.lower(), "")


def include_of(line: str) -> Include | None:
    """The include a line is, or None when it is not one."""
    match = DIRECTIVE.match(line)
    if match is None:
        return None
    if match.group("api"):
        return Include(match.group("api"), api=True)
    target = next(g for g in match.group("macro", "include", "snippet", "mdbook") if g)
    return Include(ANCHOR.sub(r"\1", target), api=False)


def includes_in(text: str) -> list[Include]:
    """The includes among the lines of `text` (code, a paragraph's lines)."""
    return [found for line in text.split("\n") if (found := include_of(line)) is not None]
