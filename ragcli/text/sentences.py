"""The one sentence splitter: a paragraph's text (line breaks read as spaces) into its
sentences. Chunks are segmented with it (llm/segment.py), a model's answer is parsed with
it (llm/answer_parse.py), and a modal statement is looked for in each of its sentences
(triplets.py). Beside it, the chunker's cut points in a long paragraph (CHUNK_CUT)."""

from __future__ import annotations

import re

import regex

# A stop after an abbreviation ends no sentence: after dotted letters ("(e.g. DNS failure,
# …)", "a.k.a. CA bundle") or one of these words, which a name or a number follows ("St.
# Gallen", "Fig. 3", "ca. 22,000 BP", "Gen. Patton").
ABBREVIATIONS = (
    *("vs.", "cf.", "Cf.", "ca.", "c.", "approx.", "Fig.", "Figs.", "No.", "Nos.", "Vol."),
    *("pp.", "Mr.", "Mrs.", "Ms.", "Dr.", "Prof.", "St.", "Mt.", "Gen.", "Col.", "Capt."),
    *("Lt.", "Gov.", "Sen.", "Rev."),
)
NOT_AFTER_ABBREVIATION = r"(?<!\b[A-Za-z]\.[A-Za-z]\.)" + "".join(
    rf"(?<!\b{re.escape(word)})" for word in ABBREVIATIONS
)
# Where a sentence may end: after . ! or ?, or after one and a closing bracket or quote
# (straight or curly: "… a newline.)", "… said “stop.”"). Hindi's danda (।) and the
# Arabic question mark (؟) are such stops too.
AFTER_STOP = r"(?:(?<=[.!?।؟])|(?<=[.!?।؟][)\]\"'”’]))"
# A sentence ends at such a stop before a capital (any script's), a digit, a quote or a
# bracket, or a letter of a script without capitals (Arabic, Devanagari): "e.g. the" and
# "3.5 times" stay whole. Chinese and Japanese end one at 。！？ with no space after it,
# and Thai, which has no full stop, at a space between Thai words.
SENTENCE_END = regex.compile(
    rf"{AFTER_STOP}{NOT_AFTER_ABBREVIATION}\s+(?=[\"'(\[`*“‘]?[\p{{Lu}}\p{{Lo}}0-9])"
    r"|(?<=[。！？][」』”’）)]?)\s*(?=\S)"
    r"|(?<=\p{Thai})\s+(?=\p{Thai})"
)


# In an answer, a citation closes its sentence when a new one follows it: "… there's a
# shortcut for it: [2] A primary key …", "… simple. 🎉 [1] Of course …".
AFTER_CITATION = regex.compile(r"(?<=\d\])\s+(?=(?:\*\*)?[\"'(\[`*“‘]?[\p{Lu}\p{Lo}0-9])")


# Where the chunker may cut a paragraph too long for its window: after every stop and at
# every line break. Coarser than a sentence's end (it knows no abbreviation and cuts
# before a lower-case word too), and kept so: where it cuts decides what each stored chunk
# holds, and moving a chunk boundary is a chunking change, measured on its own (READINGS).
CHUNK_CUT = re.compile(r"(?<=[.!?])\s+|\n+")


def split_sentences(text: str) -> list[str]:
    """The sentences of `text`, each stripped, none empty. The caller splits paragraphs,
    list items and code blocks apart first, and joins a paragraph's lines where a line
    break is a space."""
    return [s.strip() for s in SENTENCE_END.split(text) if s.strip()]


def split_cited_sentences(text: str) -> list[str]:
    """The sentences of an answer's text, each with the citations that follow it."""
    return [piece for s in split_sentences(text) for piece in AFTER_CITATION.split(s) if piece]


def chunk_cuts(text: str) -> list[str]:
    """The pieces the chunker packs a too-long paragraph from (CHUNK_CUT), each stripped,
    none empty."""
    return [s.strip() for s in CHUNK_CUT.split(text) if s.strip()]


# A sentence's first word as an ordinary capitalised word ("Allow", "It's", not "PEP",
# "HTTPX", "`Converter`" or "McKinney"): what may be lower-cased when the sentence goes on
# another.
ORDINARY_CAPITAL = regex.compile(r"^\s*\p{Lu}\p{Ll}+(?:['’]\p{Ll}+)?(?![\w'’-])")


def continuing(sentence: str) -> str:
    """`sentence` written to follow a colon ("Changed in version 2.0: allow a dict."): its
    first word lower-cased when it is an ordinary capitalised word; an acronym, a name in
    code or a word with capitals inside keeps its case ("…: PEP 695 type aliases …")."""
    text = sentence.lstrip()
    if not ORDINARY_CAPITAL.match(text):
        return text
    return text[:1].lower() + text[1:]
