"""`ragcli eval` and `ragcli calibrate`: retrieval scored on a BEIR dataset, the modes on
labelled questions, and the relevance calibration fitted on them."""

from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer

from ragcli.cli import common
from ragcli.cli.common import make_settings, print_json, start_logging
from ragcli.cli.options import CollectionOpt, ConfigOpt, ExpandOpt, JsonOpt, StoreOpt, VerboseOpt
from ragcli.completion import complete_collection, complete_mode, complete_retriever
from ragcli.errors import ExitCode, RagcliError
from ragcli.pipeline.modes.registry import CHOICES


def evaluate(
    dataset_dir: Annotated[
        Path,
        typer.Argument(
            metavar="DIR|FILE",
            help="BEIR dataset (corpus.jsonl[.gz], queries.jsonl, qrels/), or a labelled "
            "question file (YAML, JSON, JSON Lines) to run the modes on.",
        ),
    ],
    retriever: Annotated[
        list[str] | None,
        typer.Option(
            "--retriever",
            "-r",
            metavar="NAME",
            autocompletion=complete_retriever,
            help="dense, bm25 or hybrid; repeat for several (default: all).",
        ),
    ] = None,
    split: Annotated[
        str, typer.Option("--split", metavar="NAME", help="The qrels/NAME.tsv to score.")
    ] = "test",
    collection: Annotated[
        str | None,
        typer.Option(
            "--collection",
            "-c",
            metavar="NAME",
            help="Collection (default eval-DIRNAME).",
            autocompletion=complete_collection,
        ),
    ] = None,
    baseline: Annotated[
        Path | None,
        typer.Option(
            "--baseline",
            metavar="FILE",
            help="An earlier `eval --json`: exit 7 when nDCG@10 or Recall@10 drops.",
        ),
    ] = None,
    tolerance: Annotated[
        float,
        typer.Option("--tolerance", metavar="X", min=0.0, help="The drop allowed (0..1)."),
    ] = 0.01,
    expand: ExpandOpt = None,
    folds: Annotated[
        int | None,
        typer.Option(
            "--folds",
            metavar="K",
            min=2,
            help="Also nDCG@10 and Recall@10 on K folds of the queries: their mean and spread.",
        ),
    ] = None,
    modes: Annotated[
        list[str] | None,
        typer.Option(
            "--mode",
            "-m",
            metavar="MODE",
            autocompletion=complete_mode,
            help="With a question file: the modes to run (repeatable; default all, and auto).",
        ),
    ] = None,
    rerank: Annotated[
        str | None,
        typer.Option(
            "--rerank",
            metavar="PROVIDER[:MODEL]",
            help="Also score with this reranker (engine, cross-encoder, llm; the rest of "
            "its settings from retrieval.rerank): rows NAME+rerank and the change.",
        ),
    ] = None,
    keep_identical_ids: Annotated[
        bool,
        typer.Option(
            "--keep-identical-ids",
            help="Count a retrieved document whose id is the query's (BEIR drops it).",
        ),
    ] = False,
    as_json: JsonOpt = False,
    store: StoreOpt = None,
    config: ConfigOpt = None,
    verbose: VerboseOpt = False,
) -> None:
    """Score retrieval on a BEIR dataset, or every mode on a labelled question file.

    On a BEIR dataset: nDCG@10, Recall@10, Recall@100, MRR@10, a retrieved document
    whose id is the query's dropped as BEIR does (--keep-identical-ids keeps it). With --baseline, a
    quality gate for CI: exits 7 when a retriever's nDCG@10 or Recall@10 is more than
    --tolerance below the baseline's. With --rerank, each retriever (or mode) is also
    scored with that reranker, beside the same run without it.

    Given a labelled question file instead, runs each mode on its questions over the
    store and scores answered, limited, missed and declined against the labels, and the
    expected evidence found in the answers."""
    import functools

    from ragcli import service
    from ragcli.views.eval import eval_view

    start_logging(verbose)
    if dataset_dir.is_file():
        if keep_identical_ids:
            raise RagcliError("--keep-identical-ids applies to a BEIR dataset", ExitCode.USAGE)
        _eval_questions(dataset_dir, modes, collection, as_json, store, config, rerank)
        return
    if modes:
        raise RagcliError("--mode applies to a question file, not a BEIR dataset", ExitCode.USAGE)
    settings = make_settings(config, store, {"retrieval.expand": expand})
    run = functools.partial(
        service.eval_dataset,
        settings,
        dataset_dir,
        retriever,
        split,
        collection,
        folds,
        baseline=baseline,
        tolerance=tolerance,
        rerank=rerank,
        keep_identical_ids=keep_identical_ids,
    )
    data, passed = _with_eval_progress(run) if common.console.is_terminal and not as_json else run()
    print_json(data) if as_json else common.console.print(eval_view(data))
    if not passed:
        raise typer.Exit(int(ExitCode.REGRESSION))


def _eval_questions(
    path: Path,
    modes: list[str] | None,
    collection: str | None,
    as_json: bool,
    store: Path | None,
    config: Path | None,
    rerank: str | None = None,
) -> None:
    from ragcli import service
    from ragcli.views.eval_questions import eval_questions_view

    settings = make_settings(config, store, {"store.collection": collection})
    chosen = list(dict.fromkeys(modes or CHOICES))
    if not common.console.is_terminal or as_json:
        report = service.eval_questions(settings, path, chosen, rerank=rerank)
    else:
        report = _with_stage_bars(
            lambda update: service.eval_questions(settings, path, chosen, update, rerank=rerank),
            lambda mode: f"questions · {mode}",
        )
    if as_json:
        print_json(report.model_dump(mode="json"))
    else:
        common.console.print(eval_questions_view(report))


def _with_eval_progress(run: Any) -> Any:
    """`run(progress=...)` under `ragcli eval DIR`'s bars: the corpus ingest, then each
    retriever's queries."""
    return _with_stage_bars(
        lambda update: run(progress=update),
        lambda stage: "ingest corpus" if stage == "ingest" else f"queries · {stage}",
    )


def _with_stage_bars(run: Callable[[Any], Any], describe: Callable[[str], str]) -> Any:
    """`run(update)` with a progress bar a stage, labelled `describe(stage)`: `update(stage,
    done, total)` moves the stage's bar."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=common.console,
        transient=True,
    ) as progress:
        tasks: dict[str, Any] = {}

        def update(stage: str, done: int, total: int) -> None:
            if stage not in tasks:
                tasks[stage] = progress.add_task(describe(stage), total=total)
            progress.update(tasks[stage], completed=done, total=total)

        return run(update)


def calibrate(
    labelled_file: Annotated[
        Path,
        typer.Argument(
            metavar="FILE", help="YAML/JSON/JSONL of {question, source}; no source = unanswerable."
        ),
    ],
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Report the fit without saving it in the store.")
    ] = False,
    collection: CollectionOpt = None,
    as_json: JsonOpt = False,
    store: StoreOpt = None,
    config: ConfigOpt = None,
) -> None:
    """Fit the extractive relevance calibration on your own labelled questions."""
    from ragcli import service
    from ragcli.views.eval import calibration_view

    settings = make_settings(config, store, {"store.collection": collection})
    report = service.calibrate(settings, labelled_file, save=not dry_run)
    print_json(report) if as_json else common.console.print(calibration_view(report))
