"""A model's Markdown answer read once into a typed answer (ragcli/answer.py): its
blocks by markdown-it-py (the raw inline Markdown of each: the chunks' reader,
blocks/markdown.py, normalises emphasis and links away), a paragraph's sentences by the one
sentence splitter (text/sentences.py), each with the sources it cites (text/citations.py).
What the model wrote is kept as it wrote it, its citations aside; a citation after a
sentence's stop, or on a line of its own after a code block, belongs to what it follows.
ragcli's own texts that quote no source (a curated FAQ answer) are read the same way."""

from __future__ import annotations

import re
from dataclasses import replace
from functools import lru_cache

from markdown_it import MarkdownIt

from ragcli.answer import Answer, AnswerPart, PartKind
from ragcli.ingest.loaders.tables import row_line
from ragcli.text.citations import CITATIONS_RUN, cited_numbers, strip_citations
from ragcli.text.sentences import split_cited_sentences

LEADING_CITATIONS = re.compile(r"^" + CITATIONS_RUN.pattern)
SPACE_BEFORE_STOP = re.compile(r"\s+([.!?,;:])")
AFTER_CITATION_STOP = re.compile(r"[.!?,;:]+")
SOURCES_LINE = re.compile(r"^\*{0,2}Sources?:", re.I)


def parse_answer(text: str, kind: PartKind = "statement") -> Answer:
    """`text` as parts: each sentence of a paragraph (`kind`), list item, table row, code
    block and heading, with the sources it cites. Inline Markdown (bold, links, code
    spans) is kept as written."""
    parts: list[AnswerPart] = []
    items: list[tuple[str, bool]] = []  # each open list item: its marker, whether it has a part
    header: list[str] | None = None
    cells: list[str] = []
    opens = False  # the next part starts a paragraph
    before = ""  # the type of the token before
    for token in _reader().parse(text.replace("\r\n", "\n")):
        if token.type == "list_item_open":
            items.append((f"{token.info}{token.markup}", False))
            opens = opens or (bool(parts) and parts[-1].kind != "list_item")
        elif token.type == "list_item_close":
            items.pop()
        elif token.type in ("fence", "code_block"):
            language = token.info.strip() or None
            code = AnswerPart(token.content.rstrip("\n"), "code", language=language)
            parts.append(replace(code, new_paragraph=bool(parts)))
        elif token.type == "table_open":
            header, opens = None, bool(parts)
        elif token.type == "tr_open":
            cells = []
        elif token.type == "tr_close":
            if header is None:
                header = cells
            elif line := row_line(header, cells):
                row = AnswerPart(strip_citations(line), "row", _cites(line))
                parts.append(replace(row, new_paragraph=opens))
                opens = False
        elif token.type == "inline" and before in ("th_open", "td_open"):
            cells.append(token.content)
        elif token.type == "inline" and before == "heading_open":
            title = AnswerPart(strip_citations(token.content), "heading")
            parts.append(replace(title, new_paragraph=bool(parts)))
        elif token.type == "inline" and items:
            parts += _item(parts, items, " ".join(token.content.split()), opens)
            opens = False
        elif token.type == "inline":
            parts += _paragraph(parts, token.content, kind, bool(parts))
        before = token.type
    return Answer(tuple(parts))


@lru_cache(maxsize=1)
def _reader() -> MarkdownIt:
    return MarkdownIt("commonmark").enable("table")


def _item(
    parts: list[AnswerPart], items: list[tuple[str, bool]], text: str, opens: bool
) -> list[AnswerPart]:
    """A list item's parts: its text with its marker, each citation kept where the model
    wrote it (the stretches after the first go on its line, as one claim with it); an
    item's later paragraph goes on its line too."""
    marker, has_part = items[-1]
    items[-1] = (marker, True)
    text = _cite_earlier(parts, text)
    found: list[AnswerPart] = []
    for body, cites in _stretches(text):
        if found or has_part:
            found.append(AnswerPart(_plain(body), "list_item", cites, same_sentence=True))
        else:
            found.append(
                AnswerPart(f"{marker} {_plain(body)}", "list_item", cites, new_paragraph=opens)
            )
    return found


def _paragraph(parts: list[AnswerPart], text: str, kind: PartKind, opens: bool) -> list[AnswerPart]:
    """A paragraph's sentences; a line break in a model's answer ends a sentence (a model
    does not hard-wrap), and a line of sources ("Sources: [1] a.md") names its files."""
    found: list[AnswerPart] = []
    for number, line in enumerate(text.split("\n")):
        line = " ".join(line.split())
        if SOURCES_LINE.match(line) and (files := _source_list(line)):
            found += [replace(files[0], new_line=number > 0), *files[1:]]
            continue
        first = True
        for sentence in split_cited_sentences(line):
            sentence = _cite_earlier(found or parts, sentence)
            for stretch, (body, cites) in enumerate(_stretches(sentence)):
                part = AnswerPart(
                    _plain(body),
                    kind,
                    cites,
                    new_paragraph=opens and not found,
                    new_line=first and number > 0,
                    same_sentence=stretch > 0,
                )
                found.append(part)
                first = False
    return found


def _source_list(line: str) -> list[AnswerPart]:
    """A "Sources: [1] a.md; [2] b.md" line as one part per file, each citing its number
    (so renumbering the answer renumbers the line); none when no file has a number."""
    body = SOURCES_LINE.sub("", line).strip(" *")
    files = []
    cites = list(CITATIONS_RUN.finditer(body))
    for at, citation in enumerate(cites):
        end = cites[at + 1].start() if at + 1 < len(cites) else len(body)
        label = body[citation.end() : end].strip(" ;,")
        if label:
            files.append(AnswerPart(label, "source_list", _cites(citation.group())))
    return files


def _stretches(sentence: str) -> list[tuple[str, tuple[int, ...]]]:
    """A sentence's stretches of text, each with the citations written right after it
    ("Port 7420 [1], metrics 9420 [2]."): a citation inside a sentence stays where the
    model wrote it. The stop or comma right after a citation ends the stretch before it."""
    found: list[tuple[str, tuple[int, ...]]] = []
    start = 0
    for citation in CITATIONS_RUN.finditer(sentence):
        stop = AFTER_CITATION_STOP.match(sentence, citation.end())
        end = stop.end() if stop else citation.end()
        body = sentence[start : citation.start()] + (stop.group() if stop else "")
        cites = _cites(citation.group())
        if body.strip():
            found.append((body.strip(), cites))
        elif found:  # "[1] [2]" or "[1]." after a stretch: more of its citations
            text, earlier = found[-1]
            found[-1] = (text + body.strip(), tuple(dict.fromkeys((*earlier, *cites))))
        start = end
    if rest := sentence[start:].strip():
        found.append((rest, ()))
    return found


def _cite_earlier(parts: list[AnswerPart], text: str) -> str:
    """`text` without the citations it opens with, which are added to the part before it
    ("… 7420. [1] The next …" split after the stop; "[3]" under a code block)."""
    leading = LEADING_CITATIONS.match(text)
    if leading is None:
        return text
    if parts:
        last = parts[-1]
        sources = tuple(dict.fromkeys((*last.sources, *cited_numbers(leading.group(0)))))
        parts[-1] = replace(last, sources=sources)
    return text[leading.end() :].strip()


def _cites(text: str) -> tuple[int, ...]:
    return tuple(cited_numbers(text))


def _plain(text: str) -> str:
    """The text without its citations: "… 7420 [1]." reads "… 7420."."""
    return SPACE_BEFORE_STOP.sub(r"\1", strip_citations(text))
