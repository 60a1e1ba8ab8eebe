"""HTML: the visible text of a page, under its title."""

from __future__ import annotations

import re
from pathlib import Path

from ragcli.ingest.loaders.base import LoadedFile, Section
from ragcli.ingest.loaders.encoding import read_text


def load_html(path: Path) -> LoadedFile:
    text, notes = read_text(path)
    return LoadedFile("html", html_sections(text), notes=notes)


def html_sections(text: str) -> list[Section]:
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(text, "html.parser")
    title = soup.title.get_text(strip=True) if soup.title else None
    for hidden in soup(["script", "style", "noscript", "template", "head", "svg"]):
        hidden.decompose()
    visible = soup.get_text("\n")
    # Collapse the blank runs left by markup into paragraph breaks.
    lines = [re.sub(r"[ \t\xa0]+", " ", line).strip() for line in visible.splitlines()]
    body = re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()
    return [Section(body, heading=title or None)]
