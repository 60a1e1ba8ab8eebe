"""Labelled questions for `ragcli calibrate`: read them, retrieve for each, and turn the
retrieved chunks into the extractive backend's relevance features.

Accepted files (YAML, JSON or JSON Lines):
- a list of {question, source, expect}: `source` is the file that answers it (a path
  relative to anywhere above it is enough, e.g. docs/a.md); no source (or null) =
  unanswerable; the optional `expect` is text the answering chunk contains, which narrows
  "from the source" down to the chunks that hold the answer;
- or a mapping with `answerable: [{question, source}, ...]` and `unanswerable:
  [{question}, ...]`, as in tests/data/labelled_questions.yaml.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

from ragcli.errors import ConfigError
from ragcli.llm.calibration import LabelledQuestion

Labelled = tuple[str, str | None, str | None]  # question, source (None: unanswerable), expect


def load_labelled(path: Path) -> list[Labelled]:
    """(question, relevant source or None, expected text or None) triples."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read ({exc.strerror or exc})") from None
    try:
        if path.suffix == ".jsonl":
            data: Any = [json.loads(line) for line in text.splitlines() if line.strip()]
        else:
            data = yaml.safe_load(text)  # JSON is YAML too
    except (json.JSONDecodeError, yaml.YAMLError):
        raise ConfigError(f"{path}: not valid YAML, JSON or JSON Lines") from None
    if isinstance(data, dict) and ("answerable" in data or "unanswerable" in data):
        items = list(data.get("answerable") or []) + [
            {"question": item.get("question") if isinstance(item, dict) else item}
            for item in data.get("unanswerable") or []
        ]
    elif isinstance(data, list):
        items = data
    else:
        raise ConfigError(
            f"{path}: expected a list of {{question, source}} or answerable/unanswerable lists"
        )
    pairs = []
    for n, item in enumerate(items, start=1):
        if not isinstance(item, dict) or not str(item.get("question") or "").strip():
            raise ConfigError(f"{path}: item {n} has no question")
        source, expect = item.get("source"), item.get("expect")
        pairs.append(
            (
                str(item["question"]).strip(),
                str(source) if source else None,
                str(expect) if source and expect else None,
            )
        )
    if not pairs:
        raise ConfigError(f"{path}: no questions")
    return pairs


def answers(chunk: Any, source: str | None, expect: str | None) -> bool:
    """The chunk comes from the relevant source (and holds the expected text, if given)."""
    if source is None:
        return False
    wanted = source.replace("\\", "/").lstrip("./")
    path = chunk.metadata.source_file
    if not (path == wanted or path.endswith("/" + wanted)):
        return False
    return expect is None or expect.lower() in chunk.content.lower()


def label_questions(
    pairs: list[Labelled],
    retrieve: Callable[[str], list[Any]],
    features: Callable[[str, str], tuple[float, ...]],
    progress: Callable[[int, int], None] | None = None,
) -> list[LabelledQuestion]:
    labelled = []
    for done, (question, source, expect) in enumerate(pairs, start=1):
        chunks = retrieve(question)
        labelled.append(
            LabelledQuestion(
                question=question,
                answerable=source is not None,
                features=[features(question, c.content) for c in chunks],
                from_source=[answers(c, source, expect) for c in chunks],
            )
        )
        if progress:
            progress(done, len(pairs))
    return labelled


def calibrate(
    settings: Any,
    path: Path,
    save: bool = True,
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """Fit the relevance calibration on labelled questions over the store's collection and
    report it against the calibration in force before."""
    from ragcli import wiring
    from ragcli.llm.calibration import (
        STORE_FILE,
        Calibration,
        band_accuracy,
        fit,
        precision_recall,
    )
    from ragcli.llm.extractive import ExtractiveBackend

    pairs = load_labelled(path)
    if all(source is None for _, source, _ in pairs) or all(source for _, source, _ in pairs):
        raise ConfigError(
            f"{path}: needs both answerable (with a source) and unanswerable questions"
        )
    collection = settings.store.collection
    store = wiring.vector_store(settings, must_exist=True)
    if store.count(collection) == 0:
        raise ConfigError(f"collection {collection!r} is empty: run `ragcli ingest PATH` first")
    embedder = wiring.embedder(settings)
    retriever = wiring.retriever(settings, store, embedder, collection)
    backend = ExtractiveBackend(
        embedder,
        settings.llm,
        wiring.calibration(settings),
        term_stats=wiring.term_stats(retriever),
    )
    top_k = settings.retrieval.top_k
    labelled = label_questions(
        pairs, lambda q: retriever.search(q, top_k), backend.features, progress
    )
    before = backend.calibration
    about = (
        f"logistic fit by `ragcli calibrate {Path(path).name}` on {len(pairs)} questions, "
        f"{settings.retrieval.mode} retrieval top-{top_k}"
    )
    fitted = fit(labelled, about=about)
    crag = settings.crag
    target = wiring.store_dir(settings) / STORE_FILE
    if save:
        fitted.save(target)
    return {
        "questions": len(pairs),
        "retrieval": {"mode": settings.retrieval.mode, "top_k": top_k},
        "calibration": fitted.to_dict(),
        "saved_to": str(target) if save else None,
        "bands": {"high": crag.relevant_threshold, "low": crag.ambiguous_threshold},
        "before": band_accuracy(
            labelled, before, crag.relevant_threshold, crag.ambiguous_threshold
        ),
        "after": band_accuracy(labelled, fitted, crag.relevant_threshold, crag.ambiguous_threshold),
        "precision_recall": precision_recall(labelled, fitted),
        "bundled": Calibration.bundled().to_dict(),
    }
