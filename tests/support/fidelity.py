"""What a page says against what its chunks hold: the code spans and code blocks, read by a
plain CommonMark parser independent of ragcli's readers, and the words of its prose
(tests/test_fidelity.py, tests/test_fidelity_pages.py; scripts/reading_fidelity.py
measures the same over folders)."""

from __future__ import annotations

import re
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path

WORD = re.compile(r"[A-Za-z]+")


@lru_cache(maxsize=1)
def plain_parser():
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark", {"html": True}).enable("table")


def code_of(markdown: str) -> tuple[list[str], list[str]]:
    """The code spans and the fenced code blocks' texts of Markdown, as CommonMark reads
    them."""
    spans: list[str] = []
    blocks: list[str] = []
    for token in plain_parser().parse(markdown):
        if token.type == "fence":
            blocks.append(token.content)
        elif token.type == "inline":
            spans.extend(c.content for c in token.children or [] if c.type == "code_inline")
    return spans, blocks


def chunk_code(texts: list[str]) -> tuple[list[str], list[str]]:
    """The code spans of chunks, and their code blocks' lines in order."""
    spans: list[str] = []
    lines: list[str] = []
    for text in texts:
        found_spans, found_blocks = code_of(text)
        spans.extend(found_spans)
        for block in found_blocks:
            lines.extend(block.rstrip("\n").split("\n"))
    return spans, lines


def missing_lines(block: str, lines: list[str]) -> list[str]:
    """The lines of `block` not found, in order, among `lines` (blank lines aside: a block
    cut between chunks loses the blank line at the cut)."""
    position = 0
    missing = []
    for line in block.rstrip("\n").split("\n"):
        if not line.strip():
            continue
        try:
            position = lines.index(line, position) + 1
        except ValueError:
            missing.append(line)
    return missing


def words(text: str) -> set[str]:
    return {w.lower() for w in WORD.findall(text)}


@lru_cache(maxsize=1)
def chunker():
    from ragcli.embedding.embedder import bundled_model_dir
    from ragcli.embedding.wordpieces import TokenCounter
    from ragcli.ingest.chunker import Chunker

    return Chunker(TokenCounter(bundled_model_dir()))


def chunk_texts_of_file(path: Path) -> list[str]:
    """The chunks ingest makes of a file (loaded and chunked, not embedded)."""
    from ragcli.ingest.loaders import load

    return [chunk.text for chunk in chunker().chunk(load(path).sections)]


@contextmanager
def time_limit(seconds: int) -> Iterator[None]:
    """Fails what runs longer than `seconds` (a reader that hangs), on the main thread."""

    def expired(signum, frame):  # noqa: ARG001
        raise TimeoutError(f"took longer than {seconds} s")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def shared_eval() -> Path | None:
    """../shared/eval beside the repository, or beside an ancestor (a git worktree nested
    deeper); RAGCLI_SHARED_EVAL names it elsewhere."""
    import os

    named = os.environ.get("RAGCLI_SHARED_EVAL")
    if named:
        return Path(named) if Path(named).is_dir() else None
    for parent in Path(__file__).resolve().parents:
        if (parent / "shared" / "eval").is_dir():
            return parent / "shared" / "eval"
    return None
