"""`ragcli eval` and `ragcli calibrate` for the front ends: the evaluation package run over
the store, with the checks of their arguments done before any work."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ragcli.config import Settings
from ragcli.errors import ConfigError, ExitCode, RagcliError
from ragcli.pipeline.results import AskResult
from ragcli.service.asking import ask
from ragcli.service.resources import Resources


def eval_questions(
    settings: Settings,
    path: Path,
    modes: list[str],
    progress: Callable[[str, int, int], None] | None = None,
    rerank: str | None = None,
):
    """`ragcli eval QUESTIONS.yaml`: every mode in `modes` on each labelled question, over
    the store as it is, with the store and model loaded once. With `rerank`
    (`provider[:model]`), each mode also runs with that reranker (rows MODE+rerank) and
    the others without one."""
    from ragcli.evaluation.questions import evaluate, load_questions
    from ragcli.llm import chosen_provider
    from ragcli.pipeline.modes.registry import runnable

    known = runnable()
    unknown = [m for m in modes if m not in known]
    if unknown:
        raise ConfigError(f"--mode {unknown[0]!r}: choose one of {', '.join(known)}")
    load_questions(path)  # a malformed file fails before the store and model load
    runs = {"": settings}
    if rerank:
        runs = {"": without_reranker(settings), RERANKED: with_reranker(settings, rerank)}
    resources = {suffix: Resources(chosen) for suffix, chosen in runs.items()}

    def run(question: str, named: str) -> tuple[AskResult, float]:
        suffix = RERANKED if named.endswith(RERANKED) else ""
        started = time.perf_counter()
        mode = named.removesuffix(RERANKED)
        result = ask(runs[suffix], question, mode, resources=resources[suffix])
        return result, time.perf_counter() - started

    named = [mode + suffix for mode in modes for suffix in runs]
    return evaluate(path, named, run, chosen_provider(settings), progress)


RERANKED = "+rerank"  # the rows of a mode run with `--rerank`'s reranker


def without_reranker(settings: Settings) -> Settings:
    rerank = settings.retrieval.rerank.model_copy(update={"provider": "none"})
    retrieval = settings.retrieval.model_copy(update={"rerank": rerank})
    return settings.model_copy(update={"retrieval": retrieval})


def eval_dataset(
    settings: Settings,
    dataset_dir: Path,
    retrievers: list[str] | None = None,
    split: str = "test",
    collection: str | None = None,
    folds: int | None = None,
    progress: Callable[[str, int, int], None] | None = None,
    baseline: Path | None = None,
    tolerance: float = 0.01,
    rerank: str | None = None,
    keep_identical_ids: bool = False,
) -> tuple[dict[str, Any], bool]:
    """`ragcli eval DIR`: the retrievers (default all) scored on a BEIR dataset; with
    `baseline`, gated against it; with `rerank` (`provider[:model]`, the rest of the
    reranker's settings from retrieval.rerank), each also with that reranker. A retrieved
    document whose id is the query's is dropped unless `keep_identical_ids` (BEIR's rule).
    Returns the report (with its "gate") and whether it passed (True without a baseline)."""
    from ragcli.evaluation import gate
    from ragcli.evaluation.runner import run_eval
    from ragcli.retrieval.retriever import MODES
    from ragcli.store.collections import check_collection_name

    chosen = list(dict.fromkeys(retrievers or MODES))
    unknown = [r for r in chosen if r not in MODES]
    if unknown:
        raise RagcliError(
            f"--retriever {unknown[0]!r}: choose from {', '.join(MODES)}", ExitCode.USAGE
        )
    if collection:
        check_collection_name(collection)
    earlier = gate.load_baseline(baseline) if baseline else None  # checked before the work
    stage = eval_rerank_stage(settings, rerank) if rerank else None
    report = run_eval(
        settings,
        dataset_dir,
        chosen,
        split,
        collection,
        progress=progress,
        folds=folds,
        rerank=stage,
        keep_identical_ids=keep_identical_ids,
    )
    data = report.to_dict()
    if earlier is None or baseline is None:
        return data, True
    verdict = gate.compare(data, earlier, tolerance, str(baseline))
    data["gate"] = verdict.to_dict()
    return data, verdict.passed


def eval_rerank_stage(settings: Settings, spec: str):
    """`--rerank provider[:model]` as a strict rerank stage (a reranker that fails ends
    the eval: its rows would be the fused order's). The llm reranker asks the answer
    model; the run's budget does not apply to an eval's thousands of queries."""
    from ragcli.wiring import rerank_stage

    measured = with_reranker(settings, spec)
    return rerank_stage(measured, lambda: _answer_model(measured), strict=True)


def with_reranker(settings: Settings, spec: str) -> Settings:
    """The settings with `--rerank provider[:model]` in force; the reranker's other
    settings (url, key, candidates) from retrieval.rerank."""
    provider, _, model = spec.partition(":")
    rerank = settings.retrieval.rerank.model_dump()
    rerank.update({"provider": provider.strip()} | ({"model": model.strip()} if model else {}))
    if rerank["provider"] == "none":
        raise RagcliError("--rerank none: name a reranker to measure", ExitCode.USAGE)
    try:
        retrieval = settings.retrieval.model_copy(
            update={"rerank": type(settings.retrieval.rerank).model_validate(rerank)}
        )
    except ValidationError as exc:
        message = exc.errors()[0]["msg"].removeprefix("Value error, ")
        raise RagcliError(f"--rerank {spec}: {message}", ExitCode.USAGE) from None
    return settings.model_copy(update={"retrieval": retrieval})


def _answer_model(settings: Settings):
    from ragcli.llm import make_llm
    from ragcli.wiring import calibration, embedder, sentence_vectors

    return make_llm(settings, sentence_vectors(settings, embedder(settings)), calibration(settings))


def calibrate(settings: Settings, labelled_file: Path, save: bool = True) -> dict[str, Any]:
    """`ragcli calibrate`: the extractive relevance calibration fitted on labelled
    questions over the store's collection; saved in the store unless `save` is False."""
    from ragcli.evaluation.labelled import calibrate as fit_calibration

    return fit_calibration(settings, labelled_file, save=save)
