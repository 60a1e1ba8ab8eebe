"""`ragcli eval`: put a BEIR corpus into its own collection, run its queries through the
retriever in each mode, and score the rankings.

Retrieval returns chunks; a document is ranked where its best chunk is, so a document
split into several chunks is neither favoured nor penalised for its length.

By BEIR's rule (also MTEB's and Pyserini's), a retrieved document whose id is the query's
own id is dropped before scoring: ArguAna's queries are corpus documents, and each would
otherwise find itself first. `keep_identical_ids` turns the rule off.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ragcli.config import Settings
from ragcli.evaluation.beir import load_beir
from ragcli.evaluation.corpus import CorpusReport, doc_id_of, ingest_corpus
from ragcli.evaluation.folds import fold_summary
from ragcli.evaluation.metrics import evaluate
from ragcli.models import RetrievedChunk

METRICS = ("nDCG@10", "Recall@10", "Recall@100", "MRR@10")
RANK_DEPTH = 100  # documents ranked per query: the deepest cut-off reported
CHUNKS_PER_DOC = 3  # chunks retrieved per ranked document, so RANK_DEPTH documents survive

# (stage, done, total): stage is "ingest" or the retriever being evaluated
EvalProgress = Callable[[str, int, int], None]


@dataclass
class EvalReport:
    dataset: str
    split: str
    collection: str
    queries: int
    documents: int
    corpus: CorpusReport
    results: dict[str, dict[str, float]] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)
    folds: dict[str, dict[str, Any]] = field(default_factory=dict)  # --folds: per retriever
    # --rerank: the reranker, its candidates, and each retriever's metrics with it minus
    # without it (the rows RETRIEVER+rerank of `results`).
    rerank: dict[str, Any] = field(default_factory=dict)
    # BEIR's rule: whether a document with the query's id was dropped, and per row how
    # many queries found their own id among their documents (dropped or kept).
    identical_ids: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return (
            {
                "dataset": self.dataset,
                "split": self.split,
                "collection": self.collection,
                "queries": self.queries,
                "documents": self.documents,
                "ingest": vars(self.corpus),
                "results": self.results,
                "seconds": self.seconds,
                "identical_ids": self.identical_ids,
            }
            | ({"folds": self.folds} if self.folds else {})
            | ({"rerank": self.rerank} if self.rerank else {})
        )


def default_collection(dataset_dir: Path) -> str:
    slug = re.sub(r"[^a-zA-Z0-9._-]+", "-", Path(dataset_dir).resolve().name).strip("-._")
    return f"eval-{slug or 'dataset'}"


def rank_documents(chunks: list[RetrievedChunk]) -> list[str]:
    """Document ids in the order of their best chunk."""
    return list(dict.fromkeys(doc_id_of(c.metadata.source_file) for c in chunks))


def without_self(ranked: list[str], query_id: str, drop: bool) -> tuple[list[str], bool]:
    """Whether the query's own id is among the ranked documents, and the ranking without
    it when `drop` (BEIR's ignore_identical_ids)."""
    found = query_id in ranked
    if not (found and drop):
        return ranked, found
    return [doc for doc in ranked if doc != query_id], True


def reranked_documents(stage: Any, query: str, chunks: list[RetrievedChunk]) -> list[str]:
    """Document ids with the first `candidates` chunks reordered by the reranker and the
    rest after them in the fused order, as an ask would see them."""
    pool = stage.options.candidates
    top = stage.apply(query, chunks[:pool], pool).chunks
    return rank_documents(top + chunks[pool:])


def run_eval(
    settings: Settings,
    dataset_dir: Path,
    retrievers: list[str],
    split: str = "test",
    collection: str | None = None,
    progress: EvalProgress | None = None,
    folds: int | None = None,
    rerank: Any = None,
    keep_identical_ids: bool = False,
) -> EvalReport:
    """`rerank`: a strict RerankStage; each retriever is then also scored with it, on the
    same retrieved candidates (rows RETRIEVER+rerank). Unless `keep_identical_ids`, a
    document whose id is the query's is dropped from its ranking (BEIR's rule)."""
    import time

    from ragcli import wiring
    from ragcli.languages.coverage import embedder_languages
    from ragcli.retrieval.retriever import Retriever

    dataset = load_beir(Path(dataset_dir), split)
    collection = collection or default_collection(dataset_dir)
    ingestor = wiring.ingestor(settings)
    started = time.perf_counter()
    corpus_report = ingest_corpus(
        ingestor,
        dataset.corpus,
        collection,
        progress=(lambda done, total: progress("ingest", done, total)) if progress else None,
    )
    report = EvalReport(
        dataset=str(dataset_dir),
        split=split,
        collection=collection,
        queries=len(dataset.queries),
        documents=len(dataset.corpus),
        corpus=corpus_report,
        identical_ids={"dropped": not keep_identical_ids, "self_hits": {}},
    )
    report.seconds["ingest"] = round(time.perf_counter() - started, 1)
    retriever = Retriever(
        ingestor.store,
        ingestor.embedder,
        collection,
        lexical=ingestor.lexical,
        options=settings.retrieval,
        languages=embedder_languages(settings.embedding),
    )
    for mode in retrievers:
        started = time.perf_counter()
        runs: dict[str, dict[str, list[str]]] = {mode: {}}
        named = f"{mode}+rerank"
        if rerank is not None:
            runs[named] = {}
        reranking = 0.0
        self_hits = dict.fromkeys(runs, 0)
        drop = not keep_identical_ids
        for done, (qid, text) in enumerate(dataset.queries.items(), start=1):
            # One document more for a query that is a corpus document: its own may be
            # among them and dropped (BEIR's top_k + 1).
            depth = RANK_DEPTH + (drop and qid in dataset.corpus)
            chunks = retriever.search(text, depth * CHUNKS_PER_DOC, mode=mode)
            ranked, found = without_self(rank_documents(chunks), qid, drop)
            runs[mode][qid] = ranked[:RANK_DEPTH]
            self_hits[mode] += found
            if rerank is not None:
                began = time.perf_counter()
                ranked, found = without_self(reranked_documents(rerank, text, chunks), qid, drop)
                runs[named][qid] = ranked[:RANK_DEPTH]
                self_hits[named] += found
                reranking += time.perf_counter() - began
            if progress:
                progress(named if rerank is not None else mode, done, len(dataset.queries))
        retrieving = time.perf_counter() - started - reranking
        for name, run in runs.items():
            report.results[name] = evaluate(run, dataset.qrels, METRICS)
            if folds:
                report.folds[name] = fold_summary(run, dataset.qrels, folds)
        report.seconds[mode] = round(retrieving, 1)
        report.identical_ids["self_hits"].update(self_hits)
        if rerank is not None:
            report.seconds[named] = round(retrieving + reranking, 1)
    if rerank is not None:
        report.rerank = rerank_summary(report, rerank, retrievers)
    return report


def rerank_summary(report: EvalReport, stage: Any, retrievers: list[str]) -> dict[str, Any]:
    """The reranker and, per retriever, each metric with it minus without it."""
    return {
        "reranker": stage.label,
        "candidates": stage.options.candidates,
        "delta": {
            mode: {
                metric: round(report.results[f"{mode}+rerank"][metric] - value, 6)
                for metric, value in report.results[mode].items()
            }
            for mode in retrievers
        },
    }
