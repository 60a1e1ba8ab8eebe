"""A model's Markdown answer read once into a typed answer (ragcli/answer.py): its
blocks by the one Markdown reader (blocks/markdown.py), a paragraph's sentences by the one
sentence splitter (text/sentences.py), each with the sources it cites (text/citations.py).
What the model wrote is kept as it wrote it, its citations aside; a citation after a
sentence's stop, or on a line of its own after a code block, belongs to what it follows.
ragcli's own texts that quote no source (a curated FAQ answer) are read the same way."""

from __future__ import annotations

import re

from ragcli.answer import Answer, AnswerPart, PartKind
from ragcli.blocks.markdown import read_markdown
from ragcli.blocks.model import CodeBlock, Heading, ListItem, Paragraph, Table, flat
from ragcli.ingest.loaders.tables import row_line
from ragcli.text.citations import CITATIONS_RUN, cited_numbers, strip_citations
from ragcli.text.sentences import split_sentences

LEADING_CITATIONS = re.compile(r"^" + CITATIONS_RUN.pattern)
SPACE_BEFORE_STOP = re.compile(r"\s+([.!?,;:])")


def parse_answer(text: str, kind: PartKind = "statement") -> Answer:
    """`text` as parts: each sentence of a paragraph (`kind`), list item, table row, code
    block and heading, with the sources it cites."""
    parts: list[AnswerPart] = []
    document = read_markdown(text.replace("\r\n", "\n"), indented_code=False)
    for block in flat(document.blocks):
        opens = bool(parts)  # the first part of a block starts a paragraph
        if isinstance(block, Heading):
            parts.append(AnswerPart(block.title, "heading", new_paragraph=opens))
        elif isinstance(block, CodeBlock):
            code = AnswerPart(block.text, "code", language=block.language or None)
            parts.append(_opening(code, opens))
        elif isinstance(block, Table):
            for index, row in enumerate(block.rows):
                line = row_line(block.header, row)
                if line:
                    part = AnswerPart(strip_citations(line), "row", tuple(cited_numbers(line)))
                    parts.append(_opening(part, opens and index == 0))
        elif isinstance(block, ListItem):
            item = " ".join(block.text.split())
            item = _cite_earlier(parts, item)
            part = AnswerPart(f"{block.marker} {_plain(item)}", "list_item", _cites(item))
            previous = parts[-1] if parts else None
            parts.append(_opening(part, opens and (previous is None or previous.kind != "list_item")))
        elif isinstance(block, Paragraph):
            first = True
            for sentence in split_sentences(" ".join(block.text.split())):
                sentence = _cite_earlier(parts, sentence)
                if not strip_citations(sentence):
                    continue
                part = AnswerPart(_plain(sentence), kind, _cites(sentence))
                parts.append(_opening(part, opens and first))
                first = False
    return Answer(tuple(parts))


def _opening(part: AnswerPart, opens: bool) -> AnswerPart:
    return AnswerPart(
        part.text, part.kind, part.sources, language=part.language, new_paragraph=opens
    )


def _cite_earlier(parts: list[AnswerPart], text: str) -> str:
    """`text` without the citations it opens with, which are added to the part before it
    ("… 7420. [1] The next …" split after the stop; "[3]" under a code block)."""
    leading = LEADING_CITATIONS.match(text)
    if leading is None:
        return text
    if parts:
        last = parts[-1]
        sources = tuple(dict.fromkeys((*last.sources, *cited_numbers(leading.group(0)))))
        parts[-1] = AnswerPart(
            last.text,
            last.kind,
            sources,
            language=last.language,
            new_paragraph=last.new_paragraph,
        )
    return text[leading.end() :].strip()


def _cites(text: str) -> tuple[int, ...]:
    return tuple(cited_numbers(text))


def _plain(text: str) -> str:
    """The text without its citations: "… 7420 [1]." reads "… 7420."."""
    return SPACE_BEFORE_STOP.sub(r"\1", strip_citations(text))
