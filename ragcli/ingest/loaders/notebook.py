"""Jupyter notebooks (.ipynb): Markdown and code cells, one section each (`cell N`, counted
from 1 over all cells as Jupyter shows them); outputs are left out (they are results,
often large, rarely prose). Read as JSON: nbformat would add a dependency for no gain."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ragcli.blocks.markdown import read_markdown
from ragcli.blocks.model import CodeBlock, Heading
from ragcli.blocks.render import render
from ragcli.ingest.loaders.base import LoadedFile, LoadError, Section
from ragcli.ingest.loaders.encoding import read_text


def load_notebook(path: Path) -> LoadedFile:
    text, notes = read_text(path)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise LoadError(f"notebook is not valid JSON (line {exc.lineno}: {exc.msg})") from None
    cells = data.get("cells") if isinstance(data, dict) else None
    if not isinstance(cells, list):
        # nbformat 3 kept cells under worksheets[0].cells
        sheets = data.get("worksheets") if isinstance(data, dict) else None
        cells = sheets[0].get("cells") if isinstance(sheets, list) and sheets else None
    if not isinstance(cells, list):
        raise LoadError("not a Jupyter notebook (no cells)")
    language = _language(data)
    sections: list[Section] = []
    heading: str | None = None
    for number, cell in enumerate(cells, start=1):
        if not isinstance(cell, dict):
            continue
        kind = cell.get("cell_type")
        source = _source(cell.get("source", cell.get("input", "")))
        if not source.strip() or kind not in ("markdown", "code"):
            continue
        if kind == "markdown":
            blocks = tuple(read_markdown(source).blocks)
            # A cell's own heading names the cells after it, as in Jupyter's outline.
            heading = next((b.title for b in blocks if isinstance(b, Heading)), heading)
        else:
            blocks = (CodeBlock(language, source.rstrip("\n")),)
        sections.append(
            Section(render(blocks), heading=heading, locator=f"cell {number}", blocks=blocks)
        )
    return LoadedFile("ipynb", sections, notes=notes)


def _source(value: Any) -> str:
    if isinstance(value, list):
        return "".join(str(part) for part in value)
    return str(value or "")


def _language(data: Any) -> str:
    metadata = data.get("metadata") if isinstance(data, dict) else None
    info = metadata.get("language_info") if isinstance(metadata, dict) else None
    name = info.get("name") if isinstance(info, dict) else None
    return str(name) if isinstance(name, str) else ""
