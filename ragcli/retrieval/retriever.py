"""Query-time retrieval: dense (Chroma), BM25, or both fused.

Whatever the mode, `RetrievedChunk.score` is the cosine similarity between the query and
the chunk (all-MiniLM-L6-v2), the scale every threshold in config.yaml is set on; the mode
only decides which chunks are returned and in what order. `component_scores` says what
each retriever thought: "dense" (cosine), "bm25" (raw BM25, 0.0 when no query term
matches) and, in hybrid mode, "fused" (the fusion score the order follows).

A retriever built with a `scope` (retrieval/filters.py) searches only the files its filter
admits, in every collection the run searches: both retrievers are restricted before they
rank, so the top_k are the best of the admitted chunks.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Collection
from typing import Any

import numpy as np

from ragcli.embedding.embedder import Embedder, embed_queries
from ragcli.errors import ConfigError, RagcliError
from ragcli.languages.coverage import BUNDLED_LANGUAGES, covers
from ragcli.languages.detect import detect_query
from ragcli.models import ChunkMetadata, RetrievedChunk
from ragcli.retrieval import expansion
from ragcli.retrieval.expansion import Hyde, Ranking
from ragcli.retrieval.filters import Scope
from ragcli.retrieval.fusion import reciprocal_rank_fusion, weighted_score_fusion
from ragcli.retrieval.headings import HeadingVectors, lifted
from ragcli.retrieval.sections import Location, locations
from ragcli.store.vectors import VectorStore
from ragcli.trace.recorder import current_step

MODES = ("dense", "bm25", "hybrid")
READ_ATTEMPTS = 10
# Seconds, times the attempt number (9 s in all): an ingest batch writes in < 1 s on an
# idle machine, and several on a loaded or slow one.
READ_RETRY_PAUSE = 0.2

log = logging.getLogger("ragcli")


class Retriever:
    def __init__(
        self,
        store: VectorStore,
        embedder: Embedder,
        collection: str,
        mode: str = "dense",
        lexical: Any = None,  # LexicalIndexes: needed by the bm25 and hybrid modes
        options: Any = None,  # RetrievalSettings: fusion method, weights, candidate depth
        scope: Callable[[str], Scope] | None = None,  # a filter's files in a collection
        heading_embedder: Any = None,  # embeds heading paths (default: `embedder`)
        # The languages the embedder covers (languages/coverage.py); None: every one.
        languages: Collection[str] | None = BUNDLED_LANGUAGES,
    ):
        self.store = store
        self.embedder = embedder
        self.collection = collection
        self.mode = mode  # dense | bm25 | hybrid (retrieval.mode)
        self.lexical = lexical
        if options is None:
            from ragcli.config import RetrievalSettings

            options = RetrievalSettings()
        self.options = options
        self._scope_of = scope
        self._scopes: dict[str, Scope] = {}
        self._allowed: dict[str, set[str]] = {}
        self._locations: dict[str, list[Location] | None] = {}
        self._heading_vectors = HeadingVectors(heading_embedder or embedder)
        self.languages = languages
        # The languages of queries this retriever ranked mostly by BM25, because the
        # embedder does not cover them: a run says so once (RunContext.result, search).
        self.uncovered: set[str] = set()

    def scope(self, collection: str | None = None) -> Scope | None:
        """The files the filter admits in a collection (resolved once per retriever), or
        None when the retriever is not filtered."""
        name = collection or self.collection
        if self._scope_of is None:
            return None
        if name not in self._scopes:
            self._scopes[name] = self._scope_of(name)
        return self._scopes[name]

    def _allowed_ids(self, name: str, where: dict[str, Any]) -> set[str]:
        """The chunk ids of the admitted files: what the BM25 index may return."""
        if name not in self._allowed:
            self._allowed[name] = set(self.store.ids_where(name, where))
        return self._allowed[name]

    def keywords_pending(self, collection: str | None = None, mode: str | None = None) -> bool:
        """Whether a search of the collection in `mode` answered from the dense retriever
        alone, because this machine is still building its BM25 index (lexical_build)."""
        if (mode or self.mode) == "dense" or self.lexical is None:
            return False
        return self.lexical.building(collection or self.collection)

    def search(
        self,
        query: str,
        top_k: int,
        collection: str | None = None,
        mode: str | None = None,
        hyde: Hyde | None = None,
        expand: bool = True,
    ) -> list[RetrievedChunk]:
        """The top_k chunks. `hyde`: a hypothetical passage the dense retriever ranks by
        too (retrieval/expansion.py); `retrieval.expand: prf` expands every search but
        those with `expand` False (a FAQ's questions matched to a question).

        A read that races an ingest in another process can find the store between two of
        its writes (Chroma: "Error finding id"); searching is read-only, so it is tried
        again after a pause."""
        from chromadb.errors import InternalError

        for attempt in range(1, READ_ATTEMPTS + 1):
            try:
                return self._search(query, top_k, collection, mode, hyde, expand)
            except InternalError as exc:
                if attempt == READ_ATTEMPTS:
                    raise
                log.warning("retrieval read the store mid-write (%s); trying again", exc)
                time.sleep(READ_RETRY_PAUSE * attempt)
                # The client keeps the vector index it loaded, so the same read would fail
                # again: reopened, it sees the store as the writer has left it by now.
                self.store.refresh(force=True)
        raise AssertionError("unreachable")

    def _search(
        self,
        query: str,
        top_k: int,
        collection: str | None,
        mode: str | None,
        hyde: Hyde | None = None,
        expand: bool = True,
    ) -> list[RetrievedChunk]:
        mode = mode or self.mode
        name = collection or self.collection
        if mode not in MODES:
            raise ConfigError(f"retrieval.mode: {mode!r} is not one of {', '.join(MODES)}")
        scope = self.scope(name)
        if scope is not None and scope.empty:
            return []  # the filter admits nothing here: never widened to everything
        where = scope.where() if scope is not None else None
        vector = embed_queries(self.embedder, [query])[0]  # every chunk is scored by the question
        ranking = Ranking(vector, query)
        if hyde is not None:
            passage = self.embedder.embed([hyde.passage])[0]
            ranking = expansion.with_passage(query, vector, passage, hyde)
        prf = expand and self.options.expand == "prf"
        index = None
        if mode != "dense":
            if self.lexical is None:
                raise ConfigError(f"retrieval.mode {mode!r} needs the store's BM25 index")
            index = self.lexical.searchable(name, self.store)
            if index is None:  # being built in the background on this machine (said once)
                if mode == "bm25":
                    raise RagcliError(
                        f"the keyword (BM25) index of collection {name!r} is still being "
                        "built on this machine: try again when `ragcli sync` ends, or use "
                        "--retriever dense"
                    )
                mode = "dense"
        if mode == "dense" and not prf and ranking.vector is vector:
            if self.options.heading_weight > 0:
                return self._dense(name, vector, vector, top_k, where)
            return self.store.query(name, vector.tolist(), top_k, where)
        allowed = None if where is None or index is None else self._allowed_ids(name, where)
        if prf:
            ranking = self._feedback(name, mode, ranking, index, where, allowed)
        if mode == "dense":  # ranked by the expanded vector, scored by the question
            return self._dense(name, ranking.vector, vector, top_k, where)
        assert index is not None
        if mode == "bm25":
            hits = index.search(ranking.keywords, top_k, allowed)
            chunks = self._fetch(name, [i for i, _ in hits], vector)
            for chunk, (_, bm25) in zip(chunks, hits, strict=True):
                chunk.component_scores = {"bm25": round(bm25, 4), **chunk.component_scores}
            return chunks
        return self._hybrid(name, ranking, vector, top_k, index, where, allowed)

    def _feedback(
        self,
        name: str,
        mode: str,
        ranking: Ranking,
        index: Any,
        where: dict[str, Any] | None,
        allowed: set[str] | None,
    ) -> Ranking:
        """Pseudo-relevance feedback: the dense query moves towards a first search's best
        chunks (retrieval/expansion.py), recorded in the running trace step. A BM25-only
        search is left as it is (no dense query to move)."""
        depth = expansion.FEEDBACK_DEPTH
        if mode == "bm25":
            return ranking
        if mode == "dense":
            first = self.store.nearest(name, ranking.vector.tolist(), depth, where)
        else:
            dense, bm25 = self.candidate_scores(
                name, ranking.keywords, ranking.vector, depth, index, where, allowed
            )
            first = dict(self._fuse(dense, bm25, self.dense_weight(ranking.keywords, index)))
        best = sorted(first, key=first.__getitem__, reverse=True)[: expansion.FEEDBACK_CHUNKS]
        if not best:
            return ranking
        stored = self.store.chunks_by_id(name, best)  # text, embedding, metadata
        vector = expansion.rocchio(ranking.vector, [stored[i][1] for i in best if i in stored])
        step = current_step()
        if step is not None:  # what moved the query, for the trace
            step.details["expansion"] = [
                {
                    "method": "prf",
                    "feedback": rank,
                    "source_file": stored[i][2].get("source_file"),
                    "heading": stored[i][2].get("heading"),
                    "first_search_score": round(first[i], 4),
                }
                for rank, i in enumerate(best, 1)
                if i in stored
            ]
        return Ranking(vector, ranking.keywords)

    def dense_weight(self, query: str, index: Any) -> float:
        """The fusion's dense weight for a query: retrieval.dense_weight, or
        retrieval.uncovered_dense_weight when the query's language (told among the
        collection's main languages) is one the embedder does not cover."""
        language = self.query_language(query, index)
        if covers(self.languages, language):
            return self.options.dense_weight
        self.uncovered.add(language)
        return self.options.uncovered_dense_weight

    def query_language(self, query: str, index: Any) -> str:
        """The query's language among the collection's main languages ("" when the index
        knows none: one built before languages)."""
        return detect_query(query, index.main_languages() if index is not None else [])

    def _fuse(
        self, dense: dict[str, float], bm25: dict[str, float], dense_weight: float
    ) -> list[tuple[str, float]]:
        weights = {"dense": dense_weight, "bm25": 1.0 - dense_weight}
        if self.options.fusion == "rrf":
            return reciprocal_rank_fusion(
                {"dense": list(dense), "bm25": list(bm25)}, k=self.options.rrf_k, weights=weights
            )
        return weighted_score_fusion({"dense": dense, "bm25": bm25}, weights)

    def _hybrid(
        self,
        name: str,
        ranking: Ranking,
        vector: np.ndarray,
        top_k: int,
        index: Any,
        where: dict[str, Any] | None = None,
        allowed: set[str] | None = None,
    ):
        """Both retrievers' candidates for the ranking, fused; each returned chunk scored
        by its cosine with the question (`vector`), whatever the ranking's vector."""
        depth = max(self.options.candidates, top_k)
        keywords = ranking.keywords
        dense_scores, bm25_scores = self.candidate_scores(
            name, keywords, ranking.vector, depth, index, where, allowed
        )
        headings = self._headings(name, dense_scores, ranking.vector)
        ranked = lifted(dense_scores, headings, self.options.heading_weight)
        fused = self._fuse(ranked, bm25_scores, self.dense_weight(keywords, index))[:top_k]
        # Both component scores for every returned chunk (rrf: also where one retriever
        # did not rank it within its candidates).
        by_id = {c.chunk_id: c for c in self._fetch(name, [i for i, _ in fused], vector)}
        lacking_bm25 = [i for i, _ in fused if i not in bm25_scores]
        bm25_scores.update(index.scores_for(keywords, lacking_bm25))
        expanded = ranking.vector is not vector
        chunks = []
        for chunk_id, score in fused:
            chunk = by_id.get(chunk_id)
            if chunk is None:  # deleted from Chroma since the BM25 index was read
                continue
            if not expanded:
                chunk.score = dense_scores.get(chunk_id, chunk.score)
            chunk.component_scores = {
                "dense": chunk.score,
                "bm25": round(bm25_scores.get(chunk_id, 0.0), 4),
                "fused": round(score, 6),
            }
            if expanded:  # the cosine that ranked it, with the expanded query's vector
                chunk.component_scores["dense_expanded"] = round(dense_scores.get(chunk_id, 0.0), 4)
            if chunk_id in headings:
                chunk.component_scores["heading"] = headings[chunk_id]
            chunks.append(chunk)
        return chunks

    def _headings(self, name: str, dense: dict[str, float], vector: np.ndarray) -> dict[str, float]:
        """The cosine of each candidate's heading path with the ranking's vector, for the
        candidates that have one (none when retrieval.heading_weight is 0)."""
        if self.options.heading_weight <= 0:
            return {}
        headings = self.store.headings(name, list(dense))
        if not headings:
            return {}
        texts = sorted(set(headings.values()))
        similarity = dict(zip(texts, cosines(self._heading_vectors(texts), vector), strict=True))
        return {chunk_id: similarity[text] for chunk_id, text in headings.items()}

    def _dense(
        self,
        name: str,
        by: np.ndarray,
        vector: np.ndarray,
        top_k: int,
        where: dict[str, Any] | None,
    ) -> list[RetrievedChunk]:
        """Dense retrieval ranked by `by` (the question's vector or an expanded one), each
        chunk scored by the question's `vector`. With the heading lift on, the nearest
        `retrieval.candidates` are reordered by their lifted cosines."""
        lift = self.options.heading_weight > 0
        depth = max(self.options.candidates, top_k) if lift else top_k
        nearest = self.store.nearest(name, by.tolist(), depth, where)
        headings = self._headings(name, nearest, by)
        best = list(lifted(nearest, headings, self.options.heading_weight))[:top_k]
        chunks = self._fetch(name, best, vector)
        for chunk in chunks:
            if by is not vector:
                chunk.component_scores["dense_expanded"] = round(nearest[chunk.chunk_id], 4)
            if chunk.chunk_id in headings:
                chunk.component_scores["heading"] = headings[chunk.chunk_id]
        return chunks

    def candidate_scores(
        self,
        name: str,
        query: str,
        vector: np.ndarray,
        depth: int,
        index: Any,
        where: dict[str, Any] | None = None,
        allowed: set[str] | None = None,
    ) -> tuple[dict[str, float], dict[str, float]]:
        """Each retriever's `depth` best chunks by id, best first: (dense cosines, raw BM25).
        Scores only; text is read for the chunks returned. With weighted fusion a candidate
        that only one retriever ranked gets its real score from the other too: fusing
        that rather than a 0 ranks SciFact train better (docs/retrieval.md)."""
        dense_scores = self.store.nearest(name, vector.tolist(), depth, where)
        bm25_scores = dict(index.search(query, depth, allowed))
        if self.options.fusion == "weighted":
            only_bm25 = [i for i in bm25_scores if i not in dense_scores]
            dense_scores.update(self._similarities(name, only_bm25, vector))
            lacking = [i for i in dense_scores if i not in bm25_scores]
            bm25_scores.update(index.scores_for(query, lacking))
        return dense_scores, bm25_scores

    def _similarities(self, name: str, ids: list[str], vector: np.ndarray) -> dict[str, float]:
        """Cosine with the query of chunks the dense search did not rank, by id."""
        stored = self.store.embeddings(name, ids)
        if not stored:
            return {}
        return dict(zip(stored, cosines(np.stack(list(stored.values())), vector), strict=True))

    def fetch(self, query: str, ids: list[str], collection: str | None = None):
        """Chunks by id, in the order given, scored by cosine with `query` as search scores
        them (a signal lifting chunks the search did not return)."""
        vector = embed_queries(self.embedder, [query])[0]
        return self._fetch(collection or self.collection, ids, vector)

    def locations(self, collection: str | None = None) -> list[Location] | None:
        """Each chunk's file and heading in the collection (the filter's files only), or
        None when the collection is too large to read whole (retrieval/sections.py)."""
        name = collection or self.collection
        if name not in self._locations:
            scope = self.scope(name)
            if scope is not None and scope.empty:
                self._locations[name] = []
            else:
                where = scope.where() if scope is not None else None
                self._locations[name] = locations(self.store, name, where)
        return self._locations[name]

    def term_weights(self, query: str, collection: str | None = None) -> dict[str, float]:
        """The BM25 idf of each of the query's terms in the collection; empty when the
        collection has no keyword index yet."""
        name = collection or self.collection
        if self.lexical is None:
            return {}
        index = self.lexical.searchable(name, self.store)
        return {} if index is None else index.term_idf(query)

    def _fetch(self, name: str, ids: list[str], vector: np.ndarray) -> list[RetrievedChunk]:
        """Chunks by id, in the order given, scored by cosine with the query."""
        collection = self.store.collection(name)
        if collection is None or not ids:
            return []
        got = collection.get(ids=ids, include=["documents", "metadatas", "embeddings"])
        if not got["ids"]:
            return []
        similarities = cosines(np.asarray(got["embeddings"], dtype=np.float32), vector)
        found = {}
        for chunk_id, text, meta, similarity in zip(
            got["ids"], got["documents"], got["metadatas"], similarities, strict=True
        ):
            found[chunk_id] = RetrievedChunk(
                content=text,
                score=similarity,
                metadata=ChunkMetadata(**meta),
                component_scores={"dense": similarity},
            )
        return [found[i] for i in ids if i in found]


def cosines(matrix: np.ndarray, vector: np.ndarray) -> list[float]:
    """Each row's cosine with `vector`, rounded as scores are shown."""
    norms = np.linalg.norm(matrix, axis=1) * float(np.linalg.norm(vector))
    return [round(float(c), 4) for c in (matrix @ vector) / np.where(norms > 0, norms, 1.0)]
