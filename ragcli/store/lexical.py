"""Persisted BM25 index for one collection, built on bm25s.

bm25s cannot update an index in place, so the tokenised documents are persisted next to the
index and the BM25 matrix is rebuilt from them at save() time, only when something changed.
Queries load the saved matrix, ids and terms memory-mapped and never rebuild it: at a million
chunks, parsing them as JSON was two of a cold ask's seconds.

On-disk layout (``directory`` is one collection)::

    CURRENT            name of the live generation; replaced atomically
    gen-XXXXXXXX/      one complete, immutable snapshot
        meta.json      format version, BM25 parameters, mean document length
        ids.*          the ids in matrix row order, and id -> row (string_table.py)
        terms.*        term -> bm25s token id, read instead of bm25s's JSON vocabulary
        tokens.json    {id: [stemmed tokens]} -- only read when the index is modified
        bm25/          bm25s files (absent when the collection is empty)

save() writes a new generation into a temporary directory, fsyncs it, renames it into place
and then swaps CURRENT, so a process killed at any moment leaves the previous snapshot live.
One writer per collection at a time; readers may run concurrently with it. A long-lived
reader (the MCP server) calls refresh() to move to the generation another process saved.
One index object may be shared by threads: a lock serialises its use (the stemmer is not
thread-safe, and a refresh swaps the matrix and its ids together).
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import threading
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, Protocol

import bm25s
import numpy as np
import Stemmer

from ragcli.store.string_table import StringLookup

FORMAT_VERSION = 2
READABLE_FORMATS = (1, 2)  # 1: ids in meta.json, terms in bm25s's vocabulary file
_CURRENT = "CURRENT"
_GEN_PREFIX = "gen-"
_TMP_PREFIX = ".tmp-"


TOKEN_CACHE_SIZE = 50_000  # texts whose tokens are kept (a few MB)


class Lookup(Protocol):
    """str -> int: a dict in the writer, a memory-mapped StringLookup once loaded."""

    def get(self, key: str, default: None = None, /) -> int | None: ...


class LexicalIndex:
    """BM25 over one collection's chunks, addressed by string ids."""

    def __init__(self, directory: Path, *, k1: float = 1.2, b: float = 0.75) -> None:
        # k1/b are only used when (re)building; a loaded index keeps the values it was built with.
        self.directory = Path(directory)
        self._k1 = k1
        self._b = b
        self._stemmer = Stemmer.Stemmer("english")  # not thread-safe: one per index object
        # Tokens of texts scored one at a time (answer sentences, queries): bm25s sets up a
        # progress bar per call, which costs more than tokenizing a sentence.
        self._token_cache: dict[str, list[str]] = {}
        # Query-side state, loaded lazily from the live generation.
        self._loaded = False
        self._row_ids: Sequence[str] = []
        self._terms: Lookup = {}  # term -> bm25s token id
        self._retriever: bm25s.BM25 | None = None
        # Write-side state: only materialised by the first upsert/delete.
        self._tokens: dict[str, list[str]] | None = None
        self._dirty = False  # edits not yet saved
        self._stale = False  # edits not yet reflected in self._retriever
        self._avg_len: float | None = None  # mean document length, for score_text()
        self._generation: str | None = None  # the CURRENT name loaded or last saved
        self._row_of: Lookup | None = None  # id -> matrix row, built on first need
        self._lock = threading.RLock()

    # ---- public API -------------------------------------------------------------------------

    def upsert(self, ids: list[str], texts: list[str]) -> None:
        """Add or replace documents. Visible to search() at once; persisted by save()."""
        with self._lock:
            self._upsert(ids, texts)

    def _upsert(self, ids: list[str], texts: list[str]) -> None:
        if len(ids) != len(texts):
            raise ValueError(f"upsert: {len(ids)} ids but {len(texts)} texts")
        if not ids:
            return
        tokens = self._editable_tokens()
        for doc_id, toks in zip(ids, self._tokenize(texts), strict=True):
            # Re-ingesting unchanged text must not force a re-index at save().
            if tokens.get(doc_id) != toks:
                tokens[doc_id] = toks
                self._dirty = self._stale = True

    def copy(self, ids: list[str], sources: list[str], texts: list[str]) -> None:
        """Add documents with the texts of indexed ones (the chunks of a renamed file): the
        tokens of `sources` are reused, and only a source not indexed is tokenized."""
        with self._lock:
            tokens = self._editable_tokens()
            unindexed = [i for i, source in enumerate(sources) if source not in tokens]
            tokenized: dict[int, list[str]] = {}
            if unindexed:
                fresh = self._tokenize([texts[i] for i in unindexed])
                tokenized = dict(zip(unindexed, fresh, strict=True))
            for i, (doc_id, source) in enumerate(zip(ids, sources, strict=True)):
                toks = tokenized[i] if i in tokenized else tokens[source]
                if tokens.get(doc_id) != toks:
                    tokens[doc_id] = toks
                    self._dirty = self._stale = True

    def delete(self, ids: Iterable[str]) -> None:
        with self._lock:
            self._delete(ids)

    def _delete(self, ids: Iterable[str]) -> None:
        tokens = self._editable_tokens()
        for doc_id in ids:
            if tokens.pop(doc_id, None) is not None:
                self._dirty = self._stale = True

    def save(self) -> None:
        """Persist pending changes atomically; a no-op when nothing changed."""
        with self._lock:
            self._save()

    def _save(self) -> None:
        if not self._dirty:
            return
        if self._stale:
            self._build()
        self.directory.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=_TMP_PREFIX, dir=self.directory))
        try:
            self._write_generation(tmp)
            gen_name = _GEN_PREFIX + tmp.name[len(_TMP_PREFIX) :]
            os.rename(tmp, self.directory / gen_name)
            _fsync_dir(self.directory)
            _atomic_write_text(self.directory / _CURRENT, gen_name + "\n")
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        self._dirty = False
        self._generation = gen_name
        self._remove_stale_generations(keep=gen_name)

    def refresh(self) -> bool:
        """Move to the generation another process saved since this one was loaded,
        dropping what this reader repaired in memory (the new one holds it). True when
        it moved. A writer never needs this: the store lock makes it the only writer."""
        with self._lock:
            live = self._live_name()
            if not self._loaded or live == self._generation:
                return False
            self._tokens, self._dirty, self._stale = None, False, False
            self._avg_len, self._row_of, self._loaded = None, None, False
            self._load_generation()
            return True

    def search(
        self, query: str, k: int, allowed: Iterable[str] | None = None
    ) -> list[tuple[str, float]]:
        """Top-k (id, raw BM25 score), best first; documents sharing no term are left out,
        and so are those not `allowed` (when given): the best k of the allowed ones."""
        with self._lock:
            return self._search(query, k, allowed)

    def _search(self, query: str, k: int, allowed: Iterable[str] | None) -> list[tuple[str, float]]:
        self._ensure_searchable()
        if self._retriever is None or k <= 0:
            return []
        token_ids = self._token_ids(query)
        if not token_ids:
            return []
        scores = self._retriever.get_scores_from_ids(token_ids)
        hit = scores > 0
        if allowed is not None:
            hit &= self._mask(allowed)
        top = np.flatnonzero(hit)  # usually a small share of the collection
        if len(top) > k:
            top = top[np.argpartition(-scores[top], k - 1)[:k]]
        # Best first; equal scores in row (insertion) order.
        top = top[np.lexsort((top, -scores[top]))]
        return [(self._row_ids[i], float(scores[i])) for i in top.tolist()]

    def _rows(self) -> Lookup:
        """id -> matrix row: saved with the generation, or built once per rebuilt matrix."""
        if self._row_of is None:
            rows: dict[str, int] = {doc_id: row for row, doc_id in enumerate(self._row_ids)}
            self._row_of = rows
        return self._row_of

    def _mask(self, allowed: Iterable[str]) -> np.ndarray:
        """Which matrix rows hold an allowed id."""
        rows = self._rows()
        mask = np.zeros(len(self._row_ids), dtype=bool)
        found = (rows.get(i) for i in allowed)
        mask[[row for row in found if row is not None]] = True
        return mask

    def scores_for(self, query: str, ids: Iterable[str]) -> dict[str, float]:
        """Raw BM25 score of each given id (0.0 when it shares no term or is unknown)."""
        with self._lock:
            return self._scores_for(query, ids)

    def _scores_for(self, query: str, ids: Iterable[str]) -> dict[str, float]:
        self._ensure_searchable()
        wanted = list(ids)
        if self._retriever is None or not wanted:
            return dict.fromkeys(wanted, 0.0)
        token_ids = self._token_ids(query)
        if not token_ids:
            return dict.fromkeys(wanted, 0.0)
        scores = self._retriever.get_scores_from_ids(token_ids)
        rows = self._rows()
        found = {d: rows.get(d) for d in wanted}
        return {d: 0.0 if row is None else float(scores[row]) for d, row in found.items()}

    def _token_ids(self, query: str) -> list[int]:
        found = (self._terms.get(t) for t in self._tokenize([query])[0])
        return [token_id for token_id in found if token_id is not None]

    def terms(self, text: str) -> set[str]:
        """The distinct index terms of a text (lowercased, stopwords out, stemmed)."""
        with self._lock:
            return set(self._tokens_of(text))

    def term_idf(self, text: str) -> dict[str, float]:
        """Lucene BM25 idf of each distinct term of `text` in this collection; a term the
        collection never uses has document frequency 0, so the largest idf."""
        with self._lock:
            return self._term_idf(text)

    def _term_idf(self, text: str) -> dict[str, float]:
        self._ensure_searchable()
        n_docs = len(self._row_ids)
        indptr = np.zeros(1, dtype=np.int64)
        if self._retriever is not None:
            indptr = self._retriever.scores["indptr"]
        idf = {}
        for term in self.terms(text):
            row, freq = self._terms.get(term), 0
            if row is not None and 0 <= row < len(indptr) - 1:
                # Its document frequency: the length of its column in the CSC matrix.
                freq = int(indptr[row + 1]) - int(indptr[row])
            idf[term] = float(np.log(1 + (n_docs - freq + 0.5) / (freq + 0.5)))
        return idf

    def score_text(self, query: str, text: str) -> float:
        """BM25 of any text (a sentence, a web page) as if it were one more document of
        this collection: its idf and average length, the lucene formula the index uses."""
        with self._lock:
            idf = self._term_idf(query)
            tokens = self._tokens_of(text)
            average = self._average_length()
        if not tokens or not idf:
            return 0.0
        counts: dict[str, int] = {}
        for token in tokens:
            counts[token] = counts.get(token, 0) + 1
        norm = self._k1 * (1 - self._b + self._b * len(tokens) / average)
        return sum(w * counts[t] / (counts[t] + norm) for t, w in idf.items() if t in counts)

    def _average_length(self) -> float:
        if self._avg_len is None:
            tokens = self._tokens
            if tokens is None:  # a generation saved before meta.json recorded the figure
                gen = self._live_generation()
                tokens = {}
                if gen is not None:
                    tokens = json.loads((gen / "tokens.json").read_text(encoding="utf-8"))
            self._avg_len = _mean_length(tokens)
        return max(self._avg_len, 1.0)

    def ids(self) -> list[str]:
        with self._lock:
            if self._tokens is not None:
                return list(self._tokens)
            self._ensure_searchable()
            return list(self._row_ids)

    def __len__(self) -> int:
        with self._lock:
            if self._tokens is not None:
                return len(self._tokens)
            self._ensure_searchable()
            return len(self._row_ids)

    # ---- internals --------------------------------------------------------------------------

    def prime(self, texts: list[str]) -> None:
        """Tokenize `texts` in one call, ahead of scoring them one by one."""
        with self._lock:
            missing = [t for t in dict.fromkeys(texts) if t not in self._token_cache]
            if missing:
                self._remember(missing, self._tokenize(missing))

    def _tokens_of(self, text: str) -> list[str]:
        found = self._token_cache.get(text)
        if found is None:
            found = self._tokenize([text])[0]
            self._remember([text], [found])
        return found

    def _remember(self, texts: list[str], tokens: list[list[str]]) -> None:
        if len(self._token_cache) > TOKEN_CACHE_SIZE:
            self._token_cache.clear()
        self._token_cache.update(zip(texts, tokens, strict=True))

    def _tokenize(self, texts: list[str]) -> list[list[str]]:
        return bm25s.tokenize(
            texts,
            lower=True,
            stopwords="en",
            stemmer=self._stemmer,
            return_ids=False,
            show_progress=False,
        )

    def _live_name(self) -> str | None:
        try:
            return (self.directory / _CURRENT).read_text(encoding="utf-8").strip()
        except FileNotFoundError:
            return None

    def _live_generation(self) -> Path | None:
        name = self._live_name()
        return None if name is None else self.directory / name

    def _ensure_searchable(self) -> None:
        if self._stale:
            self._build()  # searching in the writer process sees its unsaved edits
        elif not self._loaded:
            self._load_generation()

    def _load_generation(self) -> None:
        try:
            self._read_generation()
        except FileNotFoundError:
            # A concurrent save() swapped CURRENT and removed the generation we had just
            # resolved; the new one is complete, so read again once.
            self._read_generation()
        self._loaded = True

    def _read_generation(self) -> None:
        name = self._live_name()
        gen = None if name is None else self.directory / name
        self._row_ids, self._retriever, self._row_of, self._terms = [], None, None, {}
        self._generation = name
        if gen is None:
            return
        meta = json.loads((gen / "meta.json").read_text(encoding="utf-8"))
        version = meta.get("format")
        if version not in READABLE_FORMATS:
            raise ValueError(f"{gen}: unsupported lexical index format {version}")
        if (gen / "bm25").is_dir():
            # mmap: the query process maps the matrix instead of reading it all in.
            self._retriever = bm25s.BM25.load(
                gen / "bm25", mmap=True, show_progress=False, load_vocab=version == 1
            )
        if version == 1:
            self._row_ids = meta["ids"]
            self._terms = self._retriever.vocab_dict if self._retriever else {}
        else:
            self._row_of = StringLookup(gen, "ids")
            self._row_ids = self._row_of.column
            self._terms = StringLookup(gen, "terms")
        # Saved with the generation: reading every document's tokens for it took seconds
        # per cold process at 100k chunks, growing with the collection.
        self._avg_len = meta.get("average_length")

    def _editable_tokens(self) -> dict[str, list[str]]:
        if self._tokens is None:
            gen = self._live_generation()
            if gen is None:
                self._tokens = {}
            else:
                self._tokens = json.loads((gen / "tokens.json").read_text(encoding="utf-8"))
        return self._tokens

    def _build(self) -> None:
        """Re-index the whole collection in memory from the stored tokens."""
        assert self._tokens is not None  # only stale after an edit, which loads the tokens
        self._row_ids = list(self._tokens)
        self._row_of = None
        self._avg_len = _mean_length(self._tokens)
        self._retriever, self._terms = None, {}
        # bm25s cannot index a corpus without a single token (e.g. only stopwords); such a
        # collection keeps its ids but matches nothing.
        if any(self._tokens.values()):
            retriever = bm25s.BM25(k1=self._k1, b=self._b, method="lucene")
            retriever.index(list(self._tokens.values()), show_progress=False)
            self._retriever, self._terms = retriever, retriever.vocab_dict
        self._loaded = True
        self._stale = False

    def _write_generation(self, gen: Path) -> None:
        meta: dict[str, Any] = {
            "format": FORMAT_VERSION,
            "k1": self._k1,
            "b": self._b,
            "average_length": self._average_length(),
        }
        (gen / "meta.json").write_text(json.dumps(meta), encoding="utf-8")
        StringLookup.write(gen, "ids", self._row_ids)
        # Written right after _build(): the vocabulary of the matrix built in memory.
        vocab = self._retriever.vocab_dict if self._retriever is not None else {}
        StringLookup.write(gen, "terms", list(vocab), list(vocab.values()))
        (gen / "tokens.json").write_text(
            json.dumps(self._tokens, ensure_ascii=False), encoding="utf-8"
        )
        if self._retriever is not None:
            self._retriever.save(gen / "bm25", show_progress=False)
        for path in gen.rglob("*"):
            if path.is_file():
                _fsync_file(path)
            elif path.is_dir():
                _fsync_dir(path)
        _fsync_dir(gen)

    def _remove_stale_generations(self, keep: str) -> None:
        # Old generations may still be memory-mapped by a reader; on POSIX that mapping stays
        # valid after unlink. Leftover temp dirs come from writers that were killed.
        for entry in self.directory.iterdir():
            stale_gen = entry.name.startswith(_GEN_PREFIX) and entry.name != keep
            if entry.is_dir() and (stale_gen or entry.name.startswith(_TMP_PREFIX)):
                shutil.rmtree(entry, ignore_errors=True)


def _mean_length(tokens: dict[str, list[str]]) -> float:
    return sum(len(t) for t in tokens.values()) / len(tokens) if tokens else 1.0


def _fsync_file(path: Path) -> None:
    with open(path, "rb") as f:
        os.fsync(f.fileno())


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _atomic_write_text(path: Path, text: str) -> None:
    tmp = path.with_name(f"{_TMP_PREFIX}{path.name}")
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    _fsync_dir(path.parent)
