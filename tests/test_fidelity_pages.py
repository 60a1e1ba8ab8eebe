"""The fidelity checks of tests/test_fidelity.py over every real page of the documentation
sets in ../shared/eval (docs/ and typer-docs/): each code span and fenced code block of a
page, as a plain CommonMark parser reads the file, reaches its chunks unchanged; reading
never raises nor hangs; reading twice gives the same chunks. Skipped, with the reason,
where those sets are absent; never passed having checked nothing.

Left out on purpose, and said so by the readers: a content tab's title (`=== "pip"`: a tab
of code reads as its code, after its lead-in), an include directive's body (a reference to
the file it names), MyST directive fences (`{note}` is not code), a MyST role's span (it
reads as its target's name), mkdocstrings' options under `::: module.Name`, a terminal
transcript's colour tags, code inside HTML, and a code line longer than the embedding
window (cut between its words, as the chunker cuts any text that long)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.support.fidelity import (
    chunk_code,
    chunk_texts_of_file,
    chunker,
    code_of,
    missing_lines,
    shared_eval,
    time_limit,
)

EVAL = shared_eval()
SETS = [EVAL / "docs", EVAL / "typer-docs"] if EVAL else []
PAGES = sorted(p for folder in SETS if folder.is_dir() for p in folder.rglob("*.md"))
REASON = "the documentation sets of ../shared/eval (docs/, typer-docs/) are not here"
# What a reader turns into something else on purpose (see the module's docstring).
INCLUDE_LIKE = re.compile(r"\{\*|\{!|--8<--|\{\{#|^\s*:::|\{\{[<%]", re.M)
TAB_TITLE = re.compile(r'^\s*={3}[!+]?\s+"(.*)"\s*$', re.M)
TRANSCRIPTS = ("console", "shell-session", "termynal")
API_OPTIONS = re.compile(r"(?m)^:::[ \t]+[\w.]+[ \t]*\n(?:[ \t]+\S.*\n|[ \t]*\n)*")


def expected_code(text: str) -> tuple[list[str], list[str]]:
    """The spans and blocks of a page that must reach its chunks as written."""
    in_titles = {span for title in TAB_TITLE.findall(text) for span in code_of(title)[0]}
    spans = [span for span in code_of(API_OPTIONS.sub("", text))[0] if span not in in_titles]
    blocks = []
    for token in _fences(text):
        info, body = token.info.strip(), token.content
        if info.startswith("{") or INCLUDE_LIKE.search(body) or not body.strip():
            continue
        if info.split()[:1] and info.split()[0] in TRANSCRIPTS and "<" in body:
            continue
        blocks.append(body)
    return spans, blocks


def _fences(text: str):
    from tests.support.fidelity import plain_parser

    return [t for t in plain_parser().parse(text) if t.type == "fence"]


@pytest.mark.slow
@pytest.mark.skipif(not PAGES, reason=REASON)
def test_every_real_page_keeps_its_code_and_reads_the_same_twice():
    assert len(PAGES) > 300, f"expected the five documentation sets in {SETS}"
    differ = []
    for path in PAGES:
        with time_limit(60):
            texts = chunk_texts_of_file(path)
            assert chunk_texts_of_file(path) == texts, path
        text = path.read_text(encoding="utf-8")
        role_spans = set(re.findall(r"\}`([^`]+)`", text))
        spans, blocks = expected_code(text)
        found_spans, found_lines = chunk_code(texts)
        differ += [f"{path}: `{s}`" for s in spans if s not in found_spans and s not in role_spans]
        window = chunker().budget
        for block in blocks:
            missing = [
                line
                for line in missing_lines(block, found_lines)
                if chunker().counter.count(line) <= window
            ]
            if missing:
                differ.append(f"{path}: block line {missing[0]!r}")
    assert not differ, "\n".join(differ[:20])


def test_the_shared_sets_are_found_from_a_worktree_too():
    """The path logic finds ../shared/eval from /work/main and from a git worktree nested
    deeper alike (or says, by skipping, that it is not there)."""
    if EVAL is None:
        pytest.skip(REASON)
    assert (EVAL / "docs").is_dir() and Path(EVAL).name == "eval"
