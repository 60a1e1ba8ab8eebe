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

A chunk in another language is indexed with its language's analyzer
(ragcli/languages/analyzers.py); English and every language without one of its own keep
the analysis below, so their tokens are those every stored index holds.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Collection, Iterable, Sequence
from typing import TYPE_CHECKING

import regex

from ragcli.languages.analyzers import LEGACY, SEGMENTED_RUN, analyze, segmented_words
from ragcli.words import INDEX_STOPWORDS, STOPWORDS

if TYPE_CHECKING:
    import Stemmer

# The index's words: runs of word characters, any script ("Zürich" one word, "don't" two);
# bm25s's pattern (\b\w\w+\b) is this one less the single characters.
WORD_RUN = re.compile(r"\w+")
# An answer's words: "don't", "state-of-the-art" and "is_eager" are one word each, in any
# script with its combining marks ("Zürich", "हिन्दी"); a run of Chinese, Japanese or Thai
# is not a word but a run of several (segmented_words).
WORD = regex.compile(r"[^\W_][\w\p{M}'-]*")

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
    """An answer's words of a text, lower-cased; those of its Chinese, Japanese and Thai
    runs by their analyzers, after the others."""
    if not SEGMENTED_RUN.search(text):
        return [w.lower() for w in WORD.findall(text)]
    words = [w.lower() for w in WORD.findall(SEGMENTED_RUN.sub(" ", text))]
    return words + segmented_words(text)


def index_terms(
    texts: Iterable[str],
    stopwords: Collection[str] = INDEX_STOPWORDS,
    analyzers: Sequence[str] | None = None,
) -> list[list[str]]:
    """Each text's BM25 tokens, in order: words of two characters or more, `stopwords` out,
    stemmed. Each distinct word of the batch is stemmed once (a batch of chunks repeats
    most of its words). `analyzers`: each text's (languages/analyzers.py); the legacy
    English one for all when not given."""
    texts = list(texts)
    if analyzers is not None and any(a != LEGACY for a in analyzers):
        found: list[list[str]] = [[] for _ in texts]
        for analyzer in set(analyzers):
            at = [i for i, a in enumerate(analyzers) if a == analyzer]
            batch = [texts[i] for i in at]
            tokens = _legacy(batch, stopwords) if analyzer == LEGACY else analyze(batch, analyzer)
            for i, tokens_of in zip(at, tokens, strict=True):
                found[i] = tokens_of
        return found
    return _legacy(texts, stopwords)


def _legacy(texts: list[str], stopwords: Collection[str]) -> list[list[str]]:
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
