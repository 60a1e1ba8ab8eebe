"""Persisted BM25 index for one collection, built on bm25s.

bm25s cannot update a matrix in place. So the index is the matrix as last built plus a
delta (bm25/delta.py): a change adds to the delta, and only a delta grown past a
small share of the collection is merged, rebuilding the matrix from the saved tokens. A
one-file change at a million chunks saves in seconds, not the five minutes of a rebuild.
Queries load the saved matrix, ids and terms memory-mapped and never rebuild it: at a
million chunks, parsing them as JSON was two of a cold ask's seconds.

On-disk layout (``directory`` is one collection)::

    CURRENT            name of the live generation; replaced atomically
    gen-XXXXXXXX/      one complete, immutable snapshot
        meta.json      format version, BM25 parameters, the matrix's mean document length
        ids.*          the matrix's ids in row order, and id -> row (string_table.py)
        terms.*        term -> bm25s token id, read instead of bm25s's JSON vocabulary
        tokens.*       each row's stemmed tokens, read for a merge or a changed document
        bm25/          bm25s files (absent when no document has a token)
        delta.json     documents added or replaced since the matrix, rows they hide

A generation that only changes the delta hard-links the matrix files of the one before.
save() writes a new generation into a temporary directory, fsyncs it, renames it into place
and then swaps CURRENT, so a process killed at any moment leaves the previous snapshot live.
One writer per collection at a time; readers may run concurrently with it. A reader maps
every file of the generation it loads at once, since the writer's next save removes it
(a first-format generation's tokens.json excepted: it is read on first need). A long-lived
reader (the MCP server) calls refresh() to move to the generation another process saved.
One index object may be shared by threads: a lock serialises its use (a refresh swaps the
matrix and its ids together). Texts become tokens in ragcli/terms.py, which the offline
answers' terms share.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import threading
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, Protocol

import bm25s
import numpy as np

from ragcli.atomic import write_text_atomically
from ragcli.bm25.delta import Delta, Statistics
from ragcli.bm25.string_table import StringColumn, StringLookup
from ragcli.languages.analyzers import LEGACY, analyze, analyzer_of, query_terms
from ragcli.terms import index_terms
from ragcli.words import INDEX_STOPWORDS, QUERY_STOPWORDS

FORMAT_VERSION = 2
READABLE_FORMATS = (1, 2)  # 1: ids in meta.json, tokens.json, terms in bm25s's vocabulary
_CURRENT = "CURRENT"
_GEN_PREFIX = "gen-"
_TMP_PREFIX = ".tmp-"
_OWN_FILES = ("meta.json", "delta.json")  # a generation's own; the rest is the matrix's


TOKEN_CACHE_SIZE = 50_000  # texts whose tokens are kept (a few MB)
# A language of fewer of the collection's chunks is not one of its main languages, whose
# analyzers tokenize a query and among which a query's language is told: a few chunks
# misread as another language (SciFact: 2 of 5,183 abstracts as German or Esperanto) must
# not add that language's terms to every English question, nor make one that language.
MAIN_LANGUAGE_SHARE = 0.05


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
        # Tokens of texts scored one at a time (answer sentences, queries), and of a batch
        # primed ahead of them.
        self._token_cache: dict[str, list[str]] = {}
        self._query_cache: dict[str, list[str]] = {}  # a query's content terms
        self._lock = threading.RLock()
        self._loaded = False
        self._generation: str | None = None  # the CURRENT name loaded or last saved
        self._reset()

    def _reset(self) -> None:
        """Forget the loaded generation: the next use loads the live one."""
        self._loaded = False
        # The matrix: rows, their ids and tokens, the terms, as loaded or last built.
        self._row_ids: Sequence[str] = []
        self._row_of: Lookup | None = None  # id -> matrix row, built on first need
        self._terms: Lookup = {}  # term -> bm25s token id
        self._retriever: bm25s.BM25 | None = None
        self._row_tokens: Callable[[int], list[str]] = _no_tokens
        self._avg_len: float | None = None  # the matrix's mean document length
        self._matrix_dir: Path | None = None  # the saved files of this matrix, to link
        self._format = FORMAT_VERSION
        # Its documents' languages, each counted as it was indexed (a deletion is not
        # taken off): their analyzers (languages/analyzers.py) each tokenize a query, and
        # the query's language is told among the main ones. None before languages.
        self._languages: Counter[str] = Counter()
        self._counted: Counter[str] = Counter()  # those of documents added since the load
        self._analyzers: set[str] = {LEGACY}
        # What changed since the matrix was built; saved beside it until a merge.
        self._delta = Delta()
        self._hidden_rows: np.ndarray | None = None
        self._dirty = False  # edits not yet saved

    # ---- public API -------------------------------------------------------------------------

    def upsert(self, ids: list[str], texts: list[str], languages: list[str] | None = None) -> None:
        """Add or replace documents, each tokenized by the analyzer of its language (the
        chunk's metadata `language`; unknown: English). Visible to search() at once;
        persisted by save()."""
        if len(ids) != len(texts):
            raise ValueError(f"upsert: {len(ids)} ids but {len(texts)} texts")
        if not ids:
            return
        languages = languages or [""] * len(ids)
        analyzers = [analyzer_of(language) for language in languages]
        with self._lock:
            self._ensure_loaded()
            if not self._analyzers.issuperset(analyzers):
                self._analyzers.update(analyzers)
                self._query_cache.clear()  # a query is tokenized by one more analyzer
            tokens = index_terms(texts, INDEX_STOPWORDS, analyzers)
            for doc_id, tokens_of, language in zip(ids, tokens, languages, strict=True):
                if language and self._tokens_of_id(doc_id) is None:
                    self._counted[language] += 1
                    self._languages[language] += 1
                self._put(doc_id, tokens_of)

    def copy(self, ids: list[str], sources: list[str], texts: list[str]) -> None:
        """Add documents with the texts of indexed ones (the chunks of a renamed file): the
        tokens of `sources` are reused, and only a source not indexed is tokenized."""
        with self._lock:
            self._ensure_loaded()
            known = [self._tokens_of_id(source) for source in sources]
            unindexed = [i for i, tokens in enumerate(known) if tokens is None]
            if unindexed:
                fresh = self._tokenize([texts[i] for i in unindexed])
                for i, fresh_tokens in zip(unindexed, fresh, strict=True):
                    known[i] = fresh_tokens
            for doc_id, tokens in zip(ids, known, strict=True):
                assert tokens is not None
                self._put(doc_id, tokens)

    def delete(self, ids: Iterable[str]) -> None:
        with self._lock:
            self._ensure_loaded()
            for doc_id in ids:
                if self._delta.drop(doc_id, self._matrix_row(doc_id) is not None):
                    self._changed()

    def save(self) -> None:
        """Persist pending changes atomically; a no-op when nothing changed."""
        with self._lock:
            self._save()

    def refresh(self) -> bool:
        """Move to the generation another process saved since this one was loaded,
        dropping what this reader repaired in memory (the new one holds it). True when
        it moved. A writer never needs this: the store lock makes it the only writer."""
        with self._lock:
            live = self._live_name()
            if not self._loaded or live == self._generation:
                return False
            self._reset()
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
        if k <= 0:
            return []
        allowed = None if allowed is None else set(allowed)
        query_terms = self._query_terms(query)
        found: list[tuple[float, int, str]] = []  # (-score, order, id)
        token_ids = self._token_ids(query_terms)
        if self._retriever is not None and token_ids:
            scores = self._retriever.get_scores_from_ids(token_ids)
            hit = scores > 0
            if self._delta.hidden:
                hit[self._hidden()] = False
            if allowed is not None:
                hit &= self._mask(allowed)
            top = np.flatnonzero(hit)  # usually a small share of the collection
            if len(top) > k:
                top = top[np.argpartition(-scores[top], k - 1)[:k]]
            found = [(-float(scores[i]), i, self._row_ids[i]) for i in top.tolist()]
        if self._delta.added:
            after = len(self._row_ids)  # equal scores in row order, as a merge leaves them
            for doc_id, score in self._delta.scores(query_terms, self._statistics()).items():
                if score > 0 and (allowed is None or doc_id in allowed):
                    row = self._matrix_row(doc_id)
                    place = after + self._delta.rank(doc_id) if row is None else row
                    found.append((-score, place, doc_id))
        found.sort()
        return [(doc_id, -negative) for negative, _, doc_id in found[:k]]

    def _rows(self) -> Lookup:
        """id -> matrix row: saved with the generation, or built once per rebuilt matrix."""
        if self._row_of is None:
            rows: dict[str, int] = {doc_id: row for row, doc_id in enumerate(self._row_ids)}
            self._row_of = rows
        return self._row_of

    def _matrix_row(self, doc_id: str) -> int | None:
        return self._rows().get(doc_id)

    def _mask(self, allowed: set[str]) -> np.ndarray:
        """Which matrix rows hold an allowed id."""
        rows = self._rows()
        mask = np.zeros(len(self._row_ids), dtype=bool)
        found = (rows.get(i) for i in allowed)
        mask[[row for row in found if row is not None]] = True
        return mask

    def _hidden(self) -> np.ndarray:
        """The matrix rows the delta deleted or replaced."""
        if self._hidden_rows is None:
            found = (self._matrix_row(doc_id) for doc_id in self._delta.hidden)
            self._hidden_rows = np.array([r for r in found if r is not None], dtype=np.int64)
        return self._hidden_rows

    def scores_for(self, query: str, ids: Iterable[str]) -> dict[str, float]:
        """Raw BM25 score of each given id (0.0 when it shares no term or is unknown)."""
        with self._lock:
            return self._scores_for(query, ids)

    def _scores_for(self, query: str, ids: Iterable[str]) -> dict[str, float]:
        self._ensure_searchable()
        wanted = list(ids)
        query_terms = self._query_terms(query)
        token_ids = self._token_ids(query_terms)
        result = dict.fromkeys(wanted, 0.0)
        if self._retriever is not None and token_ids:
            scores = self._retriever.get_scores_from_ids(token_ids)
            for doc_id in wanted:
                row = self._matrix_row(doc_id)
                if row is not None and doc_id not in self._delta.hidden:
                    result[doc_id] = float(scores[row])
        if self._delta.added and any(doc_id in self._delta.added for doc_id in wanted):
            delta = self._delta.scores(query_terms, self._statistics())
            for doc_id in wanted:
                if doc_id in self._delta.added:
                    result[doc_id] = delta.get(doc_id, 0.0)
        return result

    def _token_ids(self, query_terms: list[str]) -> list[int]:
        found = (self._terms.get(t) for t in query_terms)
        return [token_id for token_id in found if token_id is not None]

    def terms(self, text: str) -> set[str]:
        """The distinct index terms of a text (lowercased, stopwords out, stemmed)."""
        with self._lock:
            return set(self._tokens_of(text))

    def term_idf(self, query: str) -> dict[str, float]:
        """Lucene BM25 idf of each distinct term of `query` in this collection; a term the
        collection never uses has document frequency 0, so the largest idf."""
        with self._lock:
            self._ensure_searchable()
            stats = self._statistics()
            return {term: stats.idf(term) for term in dict.fromkeys(self._query_terms(query))}

    def _query_terms(self, query: str) -> list[str]:
        """The terms of a question's content words. The index drops only a few stopwords,
        so "what", "does" and "how" would count as terms: rare in prose, they weigh as much
        as the name a question asks about, and a chunk matched on them ranks with one that
        holds the name. A query of function words only ("what is it") keeps them all."""
        found = self._query_cache.get(query)
        if found is None:
            found = index_terms([query], QUERY_STOPWORDS)[0] or index_terms([query])[0]
            analyzers = self._main_analyzers()
            if analyzers != {LEGACY}:  # and by the analyzer of each main language
                found += query_terms(query, analyzers)
            # A word said twice is one term: "X increases X expression" is not about X twice
            # as much (SciFact train, 5 folds: hybrid nDCG@10 0.7386 → 0.7418, docs/retrieval.md).
            found = list(dict.fromkeys(found))
            if len(self._query_cache) > TOKEN_CACHE_SIZE:
                self._query_cache.clear()
            self._query_cache[query] = found
        return found

    def _statistics(self) -> Statistics:
        """The matrix's: every document, in the matrix or the delta, is scored with them."""
        retriever = self._retriever
        indptr = retriever.scores["indptr"] if retriever is not None else np.zeros(1, np.int64)

        def frequency(term: str) -> int:
            row = self._terms.get(term)
            if row is None or not 0 <= row < len(indptr) - 1:
                return 0
            return int(indptr[row + 1]) - int(indptr[row])  # the length of its CSC column

        return Statistics(
            documents=len(self._row_ids),
            average_length=self._average_length(),
            k1=float(retriever.k1) if retriever is not None else self._k1,
            b=float(retriever.b) if retriever is not None else self._b,
            frequency=frequency,
        )

    def score_text(self, query: str, text: str) -> float:
        """BM25 of any text (a sentence, a web page) as if it were one more document of
        this collection: its idf and average length, the lucene formula the index uses."""
        with self._lock:  # the statistics read the matrix, which a refresh may swap
            self._ensure_searchable()
            stats = self._statistics()
            counts = Counter(self._tokens_of(text))
            length = sum(counts.values())
            found = [t for t in dict.fromkeys(self._query_terms(query)) if t in counts]
            return sum((stats.idf(t) * stats.saturation(counts[t], length) for t in found), 0.0)

    def _average_length(self) -> float:
        if self._avg_len is None:  # a generation saved before meta.json recorded the figure
            self._avg_len = _mean_length(self._row_tokens(r) for r in range(len(self._row_ids)))
        return max(self._avg_len, 1.0)

    def ids(self) -> list[str]:
        with self._lock:
            self._ensure_loaded()
            added, hidden = self._delta.added, self._delta.hidden
            # In the order a merge gives them: a replaced document keeps its row.
            kept = [doc_id for doc_id in self._row_ids if doc_id not in hidden or doc_id in added]
            return kept + [doc_id for doc_id in added if doc_id not in hidden]

    def __len__(self) -> int:
        with self._lock:
            self._ensure_loaded()
            delta = self._delta
            return len(self._row_ids) - len(delta.hidden) + len(delta.added)

    # ---- internals --------------------------------------------------------------------------

    def _put(self, doc_id: str, tokens: list[str]) -> None:
        # Re-ingesting unchanged text must not change the index.
        if self._tokens_of_id(doc_id) != tokens:
            self._delta.put(doc_id, tokens, self._matrix_row(doc_id) is not None)
            self._changed()

    def _tokens_of_id(self, doc_id: str) -> list[str] | None:
        """The indexed tokens of a document; None when it is not indexed."""
        if doc_id in self._delta.added:
            return self._delta.added[doc_id]
        row = self._matrix_row(doc_id)
        if row is None or doc_id in self._delta.hidden:
            return None
        return self._row_tokens(row)

    def _changed(self) -> None:
        self._dirty = True
        self._hidden_rows = None

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

    def languages(self) -> dict[str, int]:
        """The collection's languages and their documents as indexed, most first."""
        with self._lock:
            self._ensure_loaded()
            return dict(self._languages.most_common())

    def main_languages(self) -> list[str]:
        """The languages of at least MAIN_LANGUAGE_SHARE of the documents, most first."""
        counts = self.languages()
        total = sum(counts.values())
        return [code for code, n in counts.items() if n >= MAIN_LANGUAGE_SHARE * total]

    def _main_analyzers(self) -> set[str]:
        return {LEGACY, *map(analyzer_of, self.main_languages())}

    def _tokenize(self, texts: list[str]) -> list[list[str]]:
        """Tokens of texts of no known language (answer sentences, a copy's lost source):
        the legacy analysis and each other analyzer's of the collection, one after the
        other, so a sentence shares terms with a query whatever its language."""
        found = index_terms(texts)
        for analyzer in sorted(self._main_analyzers() - {LEGACY}):
            for tokens, more in zip(found, analyze(texts, analyzer), strict=True):
                tokens.extend(more)
        return found

    def _live_name(self) -> str | None:
        try:
            return (self.directory / _CURRENT).read_text(encoding="utf-8").strip()
        except FileNotFoundError:
            return None

    def _ensure_loaded(self) -> None:
        if not self._loaded:
            self._load_generation()

    def _ensure_searchable(self) -> None:
        self._ensure_loaded()
        if self._delta.due(len(self._row_ids)):
            self._merge()  # a writer's large unsaved change: score it as the matrix does

    def _load_generation(self) -> None:
        try:
            self._read_generation()
        except FileNotFoundError:
            # A concurrent save() swapped CURRENT and removed the generation we had just
            # resolved; the new one is complete, so read again once.
            self._reset()
            self._read_generation()
        self._loaded = True

    def _read_generation(self) -> None:
        name = self._live_name()
        gen = None if name is None else self.directory / name
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
        self._format, self._matrix_dir = version, gen
        self._languages = Counter(meta.get("languages", {}))
        self._analyzers = {LEGACY, *map(analyzer_of, self._languages)}
        # Saved with the generation: reading every document's tokens for it took seconds
        # per cold process at 100k chunks, growing with the collection.
        self._avg_len = meta.get("average_length")
        if version == 1:
            self._row_ids = meta["ids"]
            self._terms = self._retriever.vocab_dict if self._retriever else {}
            self._row_tokens = _json_tokens(gen / "tokens.json", self._row_ids)
            return
        self._row_of = StringLookup(gen, "ids")
        self._row_ids = self._row_of.column
        self._terms = StringLookup(gen, "terms")
        self._row_tokens = _column_tokens(gen)
        delta = gen / "delta.json"
        if delta.exists():
            self._delta = Delta.from_json(json.loads(delta.read_text(encoding="utf-8")))

    def _merge(self) -> None:
        """Rebuild the matrix in memory with the delta in it."""
        added, hidden = self._delta.added, self._delta.hidden
        tokens = {}
        for row, doc_id in enumerate(self._row_ids):  # a replaced document keeps its row
            if doc_id in added:
                tokens[doc_id] = added[doc_id]
            elif doc_id not in hidden:
                tokens[doc_id] = self._row_tokens(row)
        tokens.update(added)
        rows = list(tokens.values())
        self._row_ids, self._row_of = list(tokens), None
        self._row_tokens = rows.__getitem__
        self._avg_len = _mean_length(rows)
        self._retriever, self._terms, self._matrix_dir = None, {}, None
        # bm25s cannot index a corpus without a single token (e.g. only stopwords); such a
        # collection keeps its ids but matches nothing.
        if any(rows):
            retriever = bm25s.BM25(k1=self._k1, b=self._b, method="lucene")
            retriever.index(rows, show_progress=False)
            self._retriever, self._terms = retriever, retriever.vocab_dict
        self._delta = Delta()
        self._hidden_rows = None

    def _save(self) -> None:
        if not self._dirty:
            return
        if self._matrix_dir is not None and self._live_name() != self._generation:
            self._rebase()
            if not self._dirty:
                return  # the other process saved these very changes
        whole = (
            self._matrix_dir is None
            or self._format != FORMAT_VERSION
            or self._delta.due(len(self._row_ids))
        )
        if whole and self._delta:
            self._merge()
        self.directory.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=_TMP_PREFIX, dir=self.directory))
        try:
            if whole:
                self._write_matrix(tmp)
            else:
                assert self._matrix_dir is not None
                _link_matrix(self._matrix_dir, tmp)
            self._write_own_files(tmp)
            _fsync_tree(tmp)
            gen_name = _GEN_PREFIX + tmp.name[len(_TMP_PREFIX) :]
            os.rename(tmp, self.directory / gen_name)
            _fsync_dir(self.directory)
            write_text_atomically(self.directory / _CURRENT, gen_name + "\n")
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        self._dirty = False
        self._generation, self._matrix_dir = gen_name, self.directory / gen_name
        self._format = FORMAT_VERSION
        self._remove_stale_generations(keep=gen_name)

    def _rebase(self) -> None:
        """Another process saved since this one loaded: replay this one's changes on the
        live generation, so that saving them does not drop that process's."""
        added = dict(self._delta.added)
        deleted = self._delta.hidden - added.keys()
        counted = self._counted
        self._reset()
        self._load_generation()
        self._counted = counted
        self._languages.update(counted)
        self._analyzers.update(map(analyzer_of, counted))
        for doc_id, tokens in added.items():
            self._put(doc_id, tokens)
        for doc_id in deleted:
            if self._delta.drop(doc_id, self._matrix_row(doc_id) is not None):
                self._changed()

    def _write_matrix(self, gen: Path) -> None:
        StringLookup.write(gen, "ids", self._row_ids)
        # Written right after a merge: the vocabulary of the matrix built in memory.
        vocab = self._retriever.vocab_dict if self._retriever is not None else {}
        StringLookup.write(gen, "terms", list(vocab), list(vocab.values()))
        rows = range(len(self._row_ids))
        StringColumn.write(gen, "tokens", (" ".join(self._row_tokens(r)) for r in rows))
        if self._retriever is not None:
            self._retriever.save(gen / "bm25", show_progress=False)

    def _write_own_files(self, gen: Path) -> None:
        meta: dict[str, Any] = {
            "format": FORMAT_VERSION,
            "k1": self._k1,
            "b": self._b,
            "average_length": self._average_length(),
            "languages": dict(self._languages.most_common()),
        }
        (gen / "meta.json").write_text(json.dumps(meta), encoding="utf-8")
        delta = json.dumps(self._delta.to_json(), ensure_ascii=False)
        (gen / "delta.json").write_text(delta, encoding="utf-8")

    def _remove_stale_generations(self, keep: str) -> None:
        # Old generations may still be memory-mapped by a reader; on POSIX that mapping stays
        # valid after unlink. Leftover temp dirs come from writers that were killed.
        for entry in self.directory.iterdir():
            stale_gen = entry.name.startswith(_GEN_PREFIX) and entry.name != keep
            if entry.is_dir() and (stale_gen or entry.name.startswith(_TMP_PREFIX)):
                shutil.rmtree(entry, ignore_errors=True)


def _no_tokens(row: int) -> list[str]:
    raise IndexError(row)


def _column_tokens(gen: Path) -> Callable[[int], list[str]]:
    """A generation's tokens by row. Mapped now, while the generation is live: a writer's
    save may remove its files before a reader first needs them (the mapping outlives the
    unlink). Mapping reads nothing; a row is decoded only when asked for."""
    column = StringColumn(gen, "tokens")

    def tokens(row: int) -> list[str]:
        return column[row].split()

    return tokens


def _json_tokens(path: Path, row_ids: Sequence[str]) -> Callable[[int], list[str]]:
    """A format-1 generation's tokens by row, parsed on first need (its next save merges)."""
    parsed: dict[str, list[str]] = {}

    def tokens(row: int) -> list[str]:
        if not parsed:
            parsed.update(json.loads(path.read_text(encoding="utf-8")))
        return parsed[row_ids[row]]

    return tokens


def _link_matrix(source: Path, target: Path) -> None:
    """The matrix files of generation `source` in `target`, hard-linked (copied where the
    file system has no links): a save that only changes the delta writes no matrix."""
    for path in source.rglob("*"):
        if not path.is_file() or path.parent == source and path.name in _OWN_FILES:
            continue
        destination = target / path.relative_to(source)
        destination.parent.mkdir(parents=True, exist_ok=True)
        try:
            os.link(path, destination)
        except OSError:
            shutil.copy2(path, destination)


def _fsync_tree(gen: Path) -> None:
    for path in gen.rglob("*"):
        if path.is_file():
            _fsync_file(path)
        elif path.is_dir():
            _fsync_dir(path)
    _fsync_dir(gen)


def _mean_length(documents: Iterable[list[str]]) -> float:
    lengths = [len(tokens) for tokens in documents]
    return sum(lengths) / len(lengths) if lengths else 1.0


def _fsync_file(path: Path) -> None:
    with open(path, "rb") as f:
        os.fsync(f.fileno())


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
