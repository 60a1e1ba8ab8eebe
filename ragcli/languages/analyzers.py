"""BM25 analyzers: how a text of one language becomes index terms.

A chunk is indexed with the analyzer of the language detected at ingest (its metadata
`language`), and a query with every analyzer its collection holds, so a German question
meets German stems and a Chinese one Chinese words (ragcli/terms.py, bm25/index.py).

- `en`, the analyzer every index was built with before languages: runs of word
  characters, bm25s's English stopwords, the English Snowball stemmer. It stays exactly
  that (SciFact's tokens do not move), and it is the analyzer of any language without
  one of its own.
- a Snowball language (German, Spanish, Russian, Arabic, Hindi …, those PyStemmer has):
  words with their combining marks (a Devanagari vowel sign is not a word character to
  Python's `re`: "हिन्दी" fell apart into consonants), lower-cased, that language's
  stopwords where bm25s has a list, its stemmer.
- Chinese: words from jieba's dictionary (it ships with jieba), in its search mode (a long
  word and the words inside it: "中华人民共和国" is also "共和国"), which ranked best.
- Japanese and Thai: overlapping character bigrams of each run of kanji and kana, or of
  Thai, the classic analyzer of scripts without spaces; measured against dictionary
  tokenizers (docs/retrieval.md, "Languages"), which ranked no better.
In the three segmented languages a run of another script keeps the English analysis, so
`API接口` is `api` and `接口`.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Collection, Iterable
from functools import cache

import regex

LEGACY = "en"

# ISO 639-1 codes and the PyStemmer algorithm of each (Stemmer.algorithms()).
SNOWBALL = {
    "ar": "arabic",
    "hy": "armenian",
    "eu": "basque",
    "ca": "catalan",
    "cs": "czech",
    "da": "danish",
    "nl": "dutch",
    "en": "english",
    "eo": "esperanto",
    "et": "estonian",
    "fi": "finnish",
    "fr": "french",
    "de": "german",
    "el": "greek",
    "hi": "hindi",
    "hu": "hungarian",
    "id": "indonesian",
    "ga": "irish",
    "it": "italian",
    "lt": "lithuanian",
    "ne": "nepali",
    "nb": "norwegian",
    "nn": "norwegian",
    "fa": "persian",
    "pl": "polish",
    "pt": "portuguese",
    "ro": "romanian",
    "ru": "russian",
    "sr": "serbian",
    "st": "sesotho",
    "es": "spanish",
    "sv": "swedish",
    "ta": "tamil",
    "tr": "turkish",
    "yi": "yiddish",
}
SEGMENTED = ("zh", "ja", "th")

# bm25s's stopword lists, by the names its tokenizer takes (English is words.py's).
_BM25S_STOPWORDS = {
    "da": "STOPWORDS_DANISH",
    "nl": "STOPWORDS_DUTCH",
    "fr": "STOPWORDS_FRENCH",
    "de": "STOPWORDS_GERMAN",
    "it": "STOPWORDS_ITALIAN",
    "nb": "STOPWORDS_NORWEGIAN",
    "nn": "STOPWORDS_NORWEGIAN",
    "pt": "STOPWORDS_PORTUGUESE",
    "ru": "STOPWORDS_RUSSIAN",
    "es": "STOPWORDS_SPANISH",
    "sv": "STOPWORDS_SWEDISH",
    "tr": "STOPWORDS_TURKISH",
}

# A word: letters and digits with their combining marks.
WORD = regex.compile(r"[\w\p{M}]+")
# A run of one segmented script, or a word of any other ("API接口": "API", then "接口").
_SCRIPTS = {"zh": r"\p{Han}", "ja": r"[\p{Han}\p{Hiragana}\p{Katakana}ー]", "th": r"\p{Thai}"}
_RUNS = {
    language: regex.compile(rf"({script}+)|((?:(?!{script})[\w\p{{M}}])+)")
    for language, script in _SCRIPTS.items()
}

# A run of a script written without spaces between words (Chinese, Japanese, Thai).
SEGMENTED_RUN = regex.compile(r"[\p{Han}\p{Hiragana}\p{Katakana}ー]+|\p{Thai}+")
_KANA = regex.compile(r"[\p{Hiragana}\p{Katakana}]")

_local = threading.local()


def analyzer_of(language: str | None) -> str:
    """The analyzer a text of `language` (an ISO 639-1 code; "" or None: unknown) is
    indexed with."""
    if language and (language in SEGMENTED or language in SNOWBALL):
        return language
    return LEGACY


def stemmer(language: str):
    """This thread's Snowball stemmer of `language` (PyStemmer's are not thread-safe)."""
    stemmers = getattr(_local, "stemmers", None)
    if stemmers is None:
        stemmers = _local.stemmers = {}
    found = stemmers.get(language)
    if found is None:
        import Stemmer

        found = stemmers[language] = Stemmer.Stemmer(SNOWBALL[language])
    return found


@cache
def stopwords(analyzer: str) -> frozenset[str]:
    """The words an analyzer leaves out (none where bm25s has no list: idf weighs them)."""
    name = _BM25S_STOPWORDS.get(analyzer)
    if name is None:
        return frozenset()
    import bm25s.stopwords

    return frozenset(getattr(bm25s.stopwords, name))


def analyze(texts: list[str], analyzer: str) -> list[list[str]]:
    """Each text's terms under a non-legacy analyzer (terms.py has the legacy one)."""
    if analyzer in SEGMENTED:
        return [_segmented(text, analyzer) for text in texts]
    drop = stopwords(analyzer)
    split = [[w for w in WORD.findall(t.lower()) if len(w) > 1 and w not in drop] for t in texts]
    return _stemmed(split, analyzer)


def _stemmed(split: list[list[str]], language: str) -> list[list[str]]:
    """Each distinct word of the batch stemmed once."""
    distinct = list(dict.fromkeys(w for words in split for w in words))
    stem = dict(zip(distinct, stemmer(language).stemWords(distinct), strict=True))
    return [[stem[w] for w in words] for words in split]


def _segmented(text: str, analyzer: str) -> list[str]:
    segment = SEGMENTERS[analyzer]
    found: list[str] = []
    for match in _RUNS[analyzer].finditer(text.lower()):
        run, word = match.groups()
        if run:
            found.extend(w for w in segment(run) if w.strip())
        elif len(word) > 1:
            found.extend(_stemmed([[word]], "en")[0])
    return found


def bigrams(run: str) -> list[str]:
    """Overlapping character bigrams; a run of one character is itself."""
    if len(run) < 2:
        return [run]
    return [run[i : i + 2] for i in range(len(run) - 1)]


def _jieba(run: str) -> Iterable[str]:
    return _jieba_tokenizer().lcut_for_search(run)


@cache
def _jieba_tokenizer():
    import jieba

    jieba.setLogLevel(logging.WARNING)  # its "Building prefix dict" lines on stderr
    tokenizer = jieba.Tokenizer()
    tokenizer.initialize()
    return tokenizer


SEGMENTERS: dict[str, Callable[[str], Iterable[str]]] = {
    "zh": _jieba,
    "ja": bigrams,
    "th": bigrams,
}


def segmented_words(text: str) -> list[str]:
    """The words of a text's Chinese, Japanese and Thai runs, by their script, for texts of
    no known language (an answer's sentences): Thai and text with kana by their analyzers,
    other Han by Chinese's."""
    japanese = bool(_KANA.search(text))
    found: list[str] = []
    for run in SEGMENTED_RUN.findall(text):
        analyzer = "th" if regex.match(r"\p{Thai}", run) else "ja" if japanese else "zh"
        found.extend(w for w in SEGMENTERS[analyzer](run) if w.strip())
    return found


def query_terms(query: str, analyzers: Collection[str]) -> list[str]:
    """A query's terms under each non-legacy analyzer, in order, each term once."""
    found: list[str] = []
    for analyzer in sorted(set(analyzers) - {LEGACY}):
        found.extend(analyze([query], analyzer)[0])
    return list(dict.fromkeys(found))
