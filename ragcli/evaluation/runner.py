"""`ragcli eval`: put a BEIR corpus into its own collection, run its queries through the
retriever in each mode, and score the rankings.

Retrieval returns chunks; a document is ranked where its best chunk is, so a document
split into several chunks is neither favoured nor penalised for its length.
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

    def to_dict(self) -> dict[str, Any]:
        return {
            "dataset": self.dataset,
            "split": self.split,
            "collection": self.collection,
            "queries": self.queries,
            "documents": self.documents,
            "ingest": vars(self.corpus),
            "results": self.results,
            "seconds": self.seconds,
        } | ({"folds": self.folds} if self.folds else {})


def default_collection(dataset_dir: Path) -> str:
    slug = re.sub(r"[^a-zA-Z0-9._-]+", "-", Path(dataset_dir).resolve().name).strip("-._")
    return f"eval-{slug or 'dataset'}"


def rank_documents(chunks: list[RetrievedChunk]) -> list[str]:
    """Document ids in the order of their best chunk."""
    return list(dict.fromkeys(doc_id_of(c.metadata.source_file) for c in chunks))


def run_eval(
    settings: Settings,
    dataset_dir: Path,
    retrievers: list[str],
    split: str = "test",
    collection: str | None = None,
    progress: EvalProgress | None = None,
    folds: int | None = None,
) -> EvalReport:
    import time

    from ragcli import wiring
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
    )
    report.seconds["ingest"] = round(time.perf_counter() - started, 1)
    retriever = Retriever(
        ingestor.store,
        ingestor.embedder,
        collection,
        lexical=ingestor.lexical,
        options=settings.retrieval,
    )
    for mode in retrievers:
        started = time.perf_counter()
        run: dict[str, list[str]] = {}
        for done, (qid, text) in enumerate(dataset.queries.items(), start=1):
            chunks = retriever.search(text, RANK_DEPTH * CHUNKS_PER_DOC, mode=mode)
            run[qid] = rank_documents(chunks)[:RANK_DEPTH]
            if progress:
                progress(mode, done, len(dataset.queries))
        report.results[mode] = evaluate(run, dataset.qrels, METRICS)
        if folds:
            report.folds[mode] = fold_summary(run, dataset.qrels, folds)
        report.seconds[mode] = round(time.perf_counter() - started, 1)
    return report
