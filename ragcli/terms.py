"""Terms: the words a text is about, as retrieval (the BM25 index) and the offline answers
compare them. One tokenizer for both: words lower-cased, stopwords (ragcli/words.py)
dropped, the rest stemmed by the same stemmer.

Two things differ, each for a measured reason. The index keeps every word of two characters
or more but its stopwords (words.INDEX_STOPWORDS), split as bm25s split the documents of
every stored index. Answer terms are content words (words.STOPWORDS out, single digits in)
whose inner apostrophes and hyphens do not split them: split as the index splits, the
offline how-to answers grew longer at no gain (docs/dev-log/offline-backend.md).

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

# The index's words: runs of word characters, any script ("Zürich" one word, "don't" two);
# bm25s's pattern (\b\w\w+\b) is this one less the single characters.
WORD_RUN = re.compile(r"\w+")
# An answer's words: "don't", "state-of-the-art" and "is_eager" are one word each.
WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9'_-]*")

_local = threading.local()


def stemmer() -> Stemmer.Stemmer:
    """This thread's English stemmer."""
    found: Stemmer.Stemmer | None = getattr(_local, "stemmer", None)
    if found is None:
        import Stemmer

        found = _local.stemmer = Stemmer.Stemmer("english")
    return found


def index_words(text: str) -> list[str]:
    """The index's words of a text, lower-cased (before splitting, as bm25s did)."""
    return WORD_RUN.findall(text.lower())


def answer_words(text: str) -> list[str]:
    """An answer's words of a text, lower-cased."""
    return [w.lower() for w in WORD.findall(text)]


def index_terms(
    texts: Iterable[str], stopwords: Collection[str] = INDEX_STOPWORDS
) -> list[list[str]]:
    """Each text's BM25 tokens, in order: words of two characters or more, `stopwords` out,
    stemmed. Each distinct word of the batch is stemmed once (a batch of chunks repeats
    most of its words)."""
    split = [[w for w in index_words(text) if len(w) > 1 and w not in stopwords] for text in texts]
    distinct = list(dict.fromkeys(w for found in split for w in found))
    stem = dict(zip(distinct, stemmer().stemWords(distinct), strict=True))
    return [[stem[w] for w in found] for found in split]


def terms(text: str) -> list[str]:
    """Stemmed content words, in order."""
    found = answer_words(text)
    content = [w for w in found if w not in STOPWORDS and (len(w) > 1 or w.isdigit())]
    return stemmer().stemWords(content)


def stems(text: str) -> list[str]:
    """Stemmed words, in order, stopwords kept (a name's "of" and "IT" are part of it)."""
    return stemmer().stemWords(answer_words(text))
