#!/usr/bin/env python
"""What ingest makes of documentation pages, compared with what the pages say.

    .venv/bin/python scripts/reading_fidelity.py [FOLDER ...] [--json]

For every file under each folder (default: ../shared/eval/docs/* and typer-docs), loaded
and chunked as `ragcli ingest` does (no embedding): files read, skipped and failed (with
the reasons), chunks, the chunks holding raw markup (ragcli/evaluation/markup.py), and the
code: each code span and fenced code block of a Markdown page, found by a plain CommonMark
parser independent of ragcli's reader, is looked for in the file's chunks, read by the same
plain parser (a span as a span, a block's lines in order among the chunks' code lines,
blank lines aside). Left out as the readers leave them out on purpose
(tests/test_fidelity_pages.py): blocks an include directive turns into a reference, MyST
directive fences (`{note}`: not code), a span after `}` (a MyST role's: its target's name),
a content tab's title, mkdocstrings' options, a code line longer than the window. Raw
markup is counted without ragcli's own rendering of admonitions (`> [!NOTE]`).

Run it with PYTHONPATH set to another tree to measure that tree's reading (the script
itself only reads ragcli's public loader and chunker)."""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MARKDOWN = {".md", ".markdown", ".mdx"}


def shared_eval() -> Path | None:
    for parent in ROOT.parents:
        if (parent / "shared" / "eval").is_dir():
            return parent / "shared" / "eval"
    return None


def plain_parser():
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark", {"html": True}).enable("table")


def code_of(text: str) -> tuple[list[str], list[tuple[str, str]]]:
    """The code spans and fenced blocks ((info, text)) of Markdown `text`, by a plain
    CommonMark parse."""
    spans: list[str] = []
    blocks: list[tuple[str, str]] = []
    for token in plain_parser().parse(text):
        if token.type == "fence":
            blocks.append((token.info.strip(), token.content))
        elif token.type == "inline":
            previous = ""
            for child in token.children or []:
                if child.type == "code_inline" and not previous.endswith("}"):
                    spans.append(child.content)
                previous = child.content if child.type == "text" else ""
    return spans, blocks


INCLUDE_LIKE = re.compile(r"\{\*|\{!|--8<--|\{\{#|^\s*:::|\{\{[<%]", re.M)
# Left out on purpose, as tests/test_fidelity_pages.py does: a content tab's title, and
# mkdocstrings' options under `::: module.Name`.
TAB_TITLE = re.compile(r'^\s*={3}[!+]?\s+"(.*)"\s*$', re.M)
API_OPTIONS = re.compile(r"(?m)^:::[ \t]+[\w.]+[ \t]*\n(?:[ \t]+\S.*\n|[ \t]*\n)*")
# ragcli's own rendering of an admonition (`> [!NOTE] Title`), not the source's markup.
OWN_CALLOUT = re.compile(r"\[![A-Z][A-Z0-9-]*\]")


def checked_blocks(blocks: list[tuple[str, str]]) -> list[str]:
    """The fenced blocks that must reach the chunks as they are."""
    kept = []
    for info, text in blocks:
        if info.startswith("{") and not info.startswith("{code"):
            continue  # a MyST directive (`{note}`), or `{eval-rst}`: not a code block
        if INCLUDE_LIKE.search(text) or not text.strip():
            continue
        if info.split()[:1] in (["console"], ["shell-session"], ["termynal"]) and "<" in text:
            continue  # a terminal transcript's colour tags are dropped on purpose
        kept.append(text.rstrip("\n"))
    return kept


def is_subsequence(lines: list[str], among: list[str]) -> bool:
    """`lines` in order among `among`, blank lines aside (a block cut in parts between
    lines loses the blank line at the cut)."""
    position = 0
    for line in (line for line in lines if line.strip()):
        try:
            position = among.index(line, position) + 1
        except ValueError:
            return False
    return True


def measure(folders: list[Path]) -> dict:
    from ragcli.embedding.embedder import bundled_model_dir
    from ragcli.embedding.wordpieces import TokenCounter
    from ragcli.evaluation.markup import raw_markup
    from ragcli.ingest.chunker import Chunker
    from ragcli.ingest.loaders import LoadError, NothingOfItsOwn, file_type_of, load

    chunker = Chunker(TokenCounter(bundled_model_dir()))
    totals: Counter[str] = Counter()
    reasons: Counter[str] = Counter()
    markup: Counter[str] = Counter()
    differed: list[str] = []
    for folder in folders:
        paths = [folder] if folder.is_file() else sorted(folder.rglob("*"))
        for path in (p for p in paths if p.is_file()):
            if file_type_of(path) is None and path.suffix.lower() not in MARKDOWN:
                continue
            totals["files"] += 1
            try:
                chunks = chunker.chunk(load(path).sections)
            except NothingOfItsOwn as error:
                totals["skipped"] += 1
                reasons[f"skipped: {error}"] += 1
                continue
            except LoadError as error:
                totals["failed"] += 1
                reasons[f"failed: {error}"] += 1
                continue
            totals["read"] += 1
            totals["chunks"] += len(chunks)
            for chunk in chunks:
                kinds = raw_markup(OWN_CALLOUT.sub("", chunk.text))
                totals["chunks_with_markup"] += bool(kinds)
                markup.update(kinds)
            if path.suffix.lower() not in MARKDOWN:
                continue
            source = path.read_text(encoding="utf-8", errors="replace")
            titles = {s for title in TAB_TITLE.findall(source) for s in code_of(title)[0]}
            source_spans, source_blocks = code_of(API_OPTIONS.sub("", source))
            source_spans = [span for span in source_spans if span not in titles]
            chunk_spans: Counter[str] = Counter()
            chunk_lines: list[str] = []
            for chunk in chunks:
                spans, blocks = code_of(chunk.text)
                chunk_spans.update(spans)
                for _, text in blocks:
                    chunk_lines.extend(text.rstrip("\n").split("\n"))
            for span in source_spans:
                totals["spans"] += 1
                if span not in chunk_spans:
                    totals["spans_differ"] += 1
                    differed.append(f"{path.relative_to(folder.parent)}: span `{span}`")
            for block in checked_blocks(source_blocks):
                totals["blocks"] += 1
                lines = [
                    line
                    for line in block.split("\n")
                    if chunker.counter.count(line) <= chunker.budget  # else cut, as all text
                ]
                if not is_subsequence(lines, chunk_lines):
                    totals["blocks_differ"] += 1
                    first = block.split("\n")[0][:60]
                    differed.append(f"{path.relative_to(folder.parent)}: block `{first}`")
    return {
        "totals": dict(totals),
        "reasons": dict(reasons),
        "markup": dict(markup),
        "differed": differed,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folders", nargs="*", type=Path)
    parser.add_argument("--json", action="store_true", help="the whole result as JSON")
    parser.add_argument("--show", type=int, default=20, help="differences listed")
    args = parser.parse_args()
    folders = args.folders
    if not folders:
        found = shared_eval()
        if found is None:
            raise SystemExit("reading_fidelity: ../shared/eval not found; name folders")
        folders = [*sorted(p for p in (found / "docs").iterdir() if p.is_dir())]
        folders.append(found / "typer-docs")
    result = measure(folders)
    if args.json:
        json.dump(result, sys.stdout, indent=1)
        print()
        return
    print(json.dumps(result["totals"]))
    for reason, count in sorted(result["reasons"].items()):
        print(f"  {count:4d}  {reason}")
    print("raw markup kinds:", json.dumps(result["markup"]))
    for line in result["differed"][: args.show]:
        print("  differs:", line)


if __name__ == "__main__":
    main()
