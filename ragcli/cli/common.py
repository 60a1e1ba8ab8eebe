"""What every command shares: the two consoles, the settings with the command line on top,
logging, the search filters, JSON output and the HTML report's one line."""

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console

    from ragcli.config import Settings

# Made by make_consoles, which the app's callback calls before any command: `--help`
# never loads Rich's console. Commands read them as `common.console` and `common.errors`.
console: "Console"
errors: "Console"


def make_consoles() -> None:
    from ragcli.terminal import make_console

    global console, errors
    console, errors = make_console(), make_console(stderr=True)


# The flag behind each setting a command line can set, so an error names it.
FLAG_NAMES = {
    "store.path": "--store",
    "store.collection": "--collection",
    "llm.provider": "--llm",
    "retrieval.top_k": "--top-k",
    "retrieval.hyde": "--hyde",
    "retrieval.expand": "--expand",
    "limits.max_iterations": "--max-iterations",
    "limits.max_web_calls": "--max-web-calls",
    "limits.max_llm_calls": "--max-llm-calls",
    "serve.host": "--host",
    "serve.port": "--port",
}


def make_settings(
    config: Path | None,
    store: Path | None,
    flags: dict[str, Any] | None = None,
    assignments: list[str] | None = None,
) -> "Settings":
    """Settings with the command line on top; named flags win over --set for one key."""
    from ragcli.config import load_settings

    overrides: dict[str, Any] = {}
    if assignments:
        from ragcli.overrides import parse_assignments

        overrides.update(parse_assignments(assignments))
    values = {"store.path": store and str(store), **(flags or {})}
    named = {k: v for k, v in values.items() if v is not None}
    overrides.update(named)
    names = {key: FLAG_NAMES.get(key, key) for key in named}
    return load_settings(config, overrides, override_names=names)


def start_logging(verbose: bool) -> None:
    import logging

    if verbose:
        from rich.logging import RichHandler

        handler = RichHandler(console=errors, show_time=False, show_path=False)
        logging.basicConfig(level=logging.INFO, handlers=[handler], format="%(message)s")
        logging.getLogger("ragcli").setLevel(logging.INFO)
    else:
        logging.basicConfig(level=logging.WARNING, format="warning: %(message)s")
    # pypdf warns about each malformed PDF it meets; the ingest report says it once.
    logging.getLogger("pypdf").setLevel(logging.ERROR)


def search_filters(
    paths: list[str] | None,
    types: list[str] | None,
    since: str | None,
    meta: list[str] | None = None,
):
    from ragcli.retrieval.filters import make_filters

    return make_filters(paths, types, since, meta=meta)


def scope_flags(config: Path | None, store: Path | None, collection: str | None) -> str:
    """The options that chose the store, as typed, for a command we suggest to run next."""
    import shlex

    named = [("--config", config), ("--store", store), ("--collection", collection)]
    return " ".join(f"{flag} {shlex.quote(str(value))}" for flag, value in named if value)


def print_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def export_notice(message: str) -> None:
    errors.print(f"[dim]{message}[/]")


def write_report(path: Path, traces: list, as_json: bool, to_stderr: bool = False) -> None:
    """The page for `traces`; one line says where it went (JSON with --json)."""
    from ragcli.report import check_target
    from ragcli.report.page import write

    check_target(path)
    write(traces, path)
    if as_json and not to_stderr:
        print_json({"html": str(path), "runs": [t.id for t in traces]})
        return
    if len(traces) <= 2:
        runs = ", ".join(f"{t.id} ({t.mode})" for t in traces)
    else:  # a compare: the modes say enough, the ids are on the page
        runs = f"{len(traces)} runs ({', '.join(t.mode for t in traces)})"
    line = f"report written to {path}: {runs}"
    (errors if to_stderr or as_json else console).print(line, highlight=False, soft_wrap=True)
