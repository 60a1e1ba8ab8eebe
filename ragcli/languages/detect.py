"""A text's language, by lingua (lingua-language-detector: its models ship in the wheel, so
nothing is downloaded). The chunker stores each chunk's as metadata `language` (an ISO
639-1 code); a text lingua is not sure of (code, a table of numbers, a few words) gets "",
which the analyzers read as the legacy English one.

Chunks are detected in lingua's low-accuracy mode (trigrams only): on texts of a chunk's
length it is as accurate, and it loads and runs several times faster. A query is short, so
it is detected in high-accuracy mode among the languages its collection holds only.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Collection, Sequence
from functools import cache
from typing import Any

import regex

# lingua reads the letters of a chunk's first characters: enough for its language (it is
# reliable past ~120 characters), and detection costs ~6 % of the embedding this way
# rather than ~9 % for 1,000 (SciFact abstracts, one run).
SAMPLE_CHARACTERS = 300
# Below this relative distance between the two likeliest languages lingua says nothing.
MINIMUM_DISTANCE = 0.1
# A text of fewer letters is not told (lingua is reliable past ~120 characters): the
# sample corpus's title chunk "Driftwood Q3 2024 review" was read as Indonesian, and would
# have been stemmed so. A character of a script written without spaces (Han, kana, Thai)
# is about a word, and counts as WORD_LETTERS.
MINIMUM_LETTERS = 50
WORD_LETTERS = 3
_LETTER = regex.compile(r"\p{L}")
_WORD_LETTER = regex.compile(r"[\p{Han}\p{Hiragana}\p{Katakana}\p{Thai}]")
_FENCED = re.compile(r"^(```|~~~).*?^\1", re.M | re.S)  # code blocks say nothing of it
_lock = threading.Lock()


def _code(language: Any) -> str:
    return language.iso_code_639_1.name.lower() if language is not None else ""


@cache
def _chunk_detector() -> Any:
    from lingua import LanguageDetectorBuilder

    return (
        LanguageDetectorBuilder.from_all_languages()
        .with_low_accuracy_mode()
        .with_minimum_relative_distance(MINIMUM_DISTANCE)
        .build()
    )


def detect_languages(texts: Sequence[str]) -> list[str]:
    """Each text's language code, "" where lingua is not sure."""
    if not texts:
        return []
    samples = [_FENCED.sub(" ", text)[:SAMPLE_CHARACTERS] for text in texts]
    told = [i for i, sample in enumerate(samples) if _letters(sample) >= MINIMUM_LETTERS]
    found = [""] * len(samples)
    if told:
        with _lock:  # the detector is built once per process
            detector = _chunk_detector()
        languages = detector.detect_languages_in_parallel_of([samples[i] for i in told])
        for i, language in zip(told, languages, strict=True):
            found[i] = _code(language)
    return found


def _letters(text: str) -> int:
    return len(_LETTER.findall(text)) + (WORD_LETTERS - 1) * len(_WORD_LETTER.findall(text))


@cache
def _query_detector(languages: frozenset[str]) -> Any:
    from lingua import IsoCode639_1, Language, LanguageDetectorBuilder

    known = [Language.from_iso_code_639_1(getattr(IsoCode639_1, c.upper())) for c in languages]
    return LanguageDetectorBuilder.from_languages(*known).build()


def detect_query(query: str, among: Collection[str]) -> str:
    """The language of a query, among the languages its collection holds (`among`); the
    only one when it holds one, "" when it holds none that lingua knows."""
    known = frozenset(c for c in among if _known(c))
    if len(known) < 2:
        return next(iter(known), "")
    with _lock:
        detector = _query_detector(known)
    return _code(detector.detect_language_of(query))


@cache
def _known(code: str) -> bool:
    from lingua import IsoCode639_1

    return bool(code) and hasattr(IsoCode639_1, code.upper())
