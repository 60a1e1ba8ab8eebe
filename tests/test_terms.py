"""ragcli/terms.py: one tokenizer for the BM25 index's terms and the offline answers'
terms, stemming with a stemmer per thread."""

from __future__ import annotations

import random
import threading

import bm25s
import Stemmer

from ragcli import terms
from ragcli.terms import index_terms, stemmer
from ragcli.words import INDEX_STOPWORDS, QUERY_STOPWORDS, STOPWORDS
from tests.support.common import SAMPLE

TEXTS = [
    "The Rhine flows through Zürich's neighbours, Basel and Köln: 1,233 km.",
    "Use `is_eager=True` with a state-of-the-art CLI; don't re-run it (see §3.2).",
    "İstanbul ǅemal STRASSE straße ΣΑΣ ① ²³ ١٢٣",
    "a I x 7 the of",
    "",
]


def sample_texts() -> list[str]:
    return TEXTS + [p.read_text(encoding="utf-8") for p in sorted(SAMPLE.rglob("*.md"))]


def bm25s_tokens(texts: list[str], stopwords) -> list[list[str]]:
    """How the stored indexes were tokenized, by bm25s itself."""
    return bm25s.tokenize(
        texts,
        lower=True,
        stopwords=stopwords,
        stemmer=Stemmer.Stemmer("english"),
        return_ids=False,
        show_progress=False,
    )


def test_a_documents_tokens_are_those_bm25s_gave_the_stored_indexes():
    texts = sample_texts()
    assert index_terms(texts) == bm25s_tokens(texts, "en")
    assert [index_terms([t])[0] for t in texts] == bm25s_tokens(texts, "en")


def test_a_querys_tokens_are_those_bm25s_gave_it():
    questions = ["What does Obersee mean?", "How do I sign up before the upgrade?", "what is it"]
    assert index_terms(questions, QUERY_STOPWORDS) == bm25s_tokens(
        questions, sorted(QUERY_STOPWORDS)
    )


def test_the_index_stopwords_are_bm25s_english_list():
    assert set(bm25s.stopwords.STOPWORDS_EN) == INDEX_STOPWORDS


def test_a_word_is_the_same_term_in_retrieval_and_in_answers():
    """Same lower-casing, stopwords and stemmer: a word both split alike (letters and
    digits) is one term, whichever side reads it."""
    for text in sample_texts():
        plain = " ".join(w for w in terms.answer_words(text) if w.isascii() and w.isalnum())
        assert [t for t in terms.terms(plain) if len(t) > 1] == index_terms([plain], STOPWORDS)[0]


def test_an_answer_word_keeps_its_apostrophes_and_hyphens():
    assert terms.terms("The 3 state-of-the-art rivers don't flood") == [
        "3",
        "state-of-the-art",
        "river",
        "don't",
        "flood",
    ]
    assert terms.stems("Head of IT") == ["head", "of", "it"]


def test_each_thread_stems_with_its_own_stemmer():
    assert stemmer() is stemmer()
    seen: list[object] = []
    threads = [threading.Thread(target=lambda: seen.append(stemmer())) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len({id(s) for s in seen} | {id(stemmer())}) == 5


def test_stemming_from_many_threads_gives_what_one_thread_gives():
    words = sorted(
        {
            w
            for text in sample_texts()
            for w in terms.index_words(text)
            if w.isascii() and w.isalnum()
        }
    )
    expected = dict(zip(words, Stemmer.Stemmer("english").stemWords(words), strict=True))
    wrong: list[str] = []

    def hammer(seed: int) -> None:
        shuffled = random.Random(seed).sample(words, len(words))
        for _ in range(30):
            got = terms.stems(" ".join(shuffled))
            if got != [expected[w] for w in shuffled]:
                wrong.append(f"thread {seed}")
                return
            found = index_terms([" ".join(shuffled)], frozenset())[0]
            if found != [expected[w] for w in shuffled if len(w) > 1]:
                wrong.append(f"thread {seed}, index")
                return

    threads = [threading.Thread(target=hammer, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not wrong
