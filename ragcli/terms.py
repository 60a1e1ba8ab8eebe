"""Terms: the words a text is about, as retrieval (the BM25 index) and the offline answers
compare them. One tokenizer for both, so a term means the same thing in each: the text
lower-cased, split into runs of word characters, stopwords dropped, the rest stemmed.

What differs is only which words count: the index keeps every word of two characters or
more but its stopwords (words.INDEX_STOPWORDS), as bm25s tokenized it when the stored
indexes were built; answer terms are content words (words.STOPWORDS out, single digits in).

A PyStemmer object is not thread-safe and `ragcli serve` answers concurrently, so each
thread stems with its own.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Collection, Iterable
from typing import TYPE_CHECKING

from ragcli.words import INDEX_STOPWORDS, STOPWORDS

if TYPE_CHECKING:
    import Stemmer

# Runs of word characters, any script: "Zürich" is one word, "don't" two, "is_eager" one.
# bm25s's pattern (\b\w\w+\b) is this one less the single characters.
WORD_RUN = re.compile(r"\w+")

_local = threading.local()


def stemmer() -> Stemmer.Stemmer:
    """This thread's English stemmer."""
    found: Stemmer.Stemmer | None = getattr(_local, "stemmer", None)
    if found is None:
        import Stemmer

        found = _local.stemmer = Stemmer.Stemmer("english")
    return found


def words(text: str) -> list[str]:
    """The words of a text, lower-cased (before splitting, as the index always has)."""
    return WORD_RUN.findall(text.lower())


def index_terms(
    texts: Iterable[str], stopwords: Collection[str] = INDEX_STOPWORDS
) -> list[list[str]]:
    """Each text's BM25 tokens, in order: words of two characters or more, `stopwords` out,
    stemmed. Each distinct word of the batch is stemmed once (a batch of chunks repeats
    most of its words)."""
    split = [[w for w in words(text) if len(w) > 1 and w not in stopwords] for text in texts]
    distinct = list(dict.fromkeys(w for found in split for w in found))
    stem = dict(zip(distinct, stemmer().stemWords(distinct), strict=True))
    return [[stem[w] for w in found] for found in split]


def terms(text: str) -> list[str]:
    """Stemmed content words, in order."""
    content = [w for w in words(text) if w not in STOPWORDS and (len(w) > 1 or w.isdigit())]
    return stemmer().stemWords(content)


def stems(text: str) -> list[str]:
    """Stemmed words, in order, stopwords kept (a name's "of" and "IT" are part of it)."""
    return stemmer().stemWords(words(text))
