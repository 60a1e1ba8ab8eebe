"""The command line: parse options, call the service layer, hand the result to a view.

This module makes the app, its global options and its one-line errors, and lists the
commands in the order `--help` shows them; each command lives in the module of its group
(ingest, ask, search, serve, trace, status, show, evaluate), on top of `options` and `common`.
A `RagcliError` raised by any command is printed once, as one line, by `RagcliGroup`,
and ends in its exit code.

`ragcli --help` imports every module here, so they keep it cheap: no `from __future__
import annotations` (Typer would evaluate every annotation string), names imported only
for type checking quoted, and Rich, logging, the service and views imported inside the
commands (tests/test_help_imports.py)."""

import os
import sys
from typing import Annotated, Any

import typer
from typer.core import TyperArgument, TyperGroup

from ragcli import __version__
from ragcli.cli import ask, common, evaluate, ingest, search, serve, show, status, trace
from ragcli.errors import ExitCode, RagcliError


class RagcliGroup(TyperGroup):
    """Turns a domain error into its message and exit code, for every command and for
    tests that drive the app with CliRunner; commands list in the order people use them."""

    def invoke(self, ctx: Any) -> Any:
        try:
            return super().invoke(ctx)
        except RagcliError as error:
            from rich.markup import escape

            common.errors.print(
                f"[red]error:[/] {escape(str(error))}", highlight=False, soft_wrap=True
            )
            raise typer.Exit(int(error.exit_code)) from None


# Typer labels each argument in --help with its Python type (`QUESTION <str>`,
# `PATH... <list[Path]>`); the metavar alone is the convention.
TyperArgument.display_type_rich = lambda self, ctx: None  # type: ignore[method-assign]

app = typer.Typer(
    name="ragcli",
    cls=RagcliGroup,
    help="Retrieval-augmented answers from your own files.",
    no_args_is_help=True,
    add_completion=True,
    pretty_exceptions_enable=False,
    # Plain Click help: conventional metavars, and --help starts without Rich's Markdown.
    rich_markup_mode=None,
)


def _version(value: bool) -> None:
    if value:
        print(f"ragcli {__version__}")
        raise typer.Exit()


@app.callback()
def main_options(
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_version, is_eager=True, help="Show the version and exit."
        ),
    ] = False,
) -> None:
    """Retrieval-augmented answers from your own files."""
    common.make_consoles()


# The commands, in the order `ragcli --help` lists them.
app.command()(ingest.ingest)
app.command()(ask.ask)
app.command()(ask.chat)
app.command()(search.search)
app.command()(serve.serve)
app.command()(trace.trace)
app.command()(status.status)
app.command()(status.sources)
app.command()(show.show)
app.command()(ingest.sync)
app.command("rm")(ingest.remove)
app.command()(ask.compare)
app.command("eval")(evaluate.evaluate)
app.command()(evaluate.calibrate)
app.command("config")(status.show_config)
app.command()(status.schema)


def main() -> None:
    try:
        app()
    except Exception as exc:  # a bug, not a user error: still one line, unless asked for more
        if os.environ.get("RAGCLI_DEBUG"):
            raise
        from rich.markup import escape

        from ragcli.terminal import make_console

        make_console(stderr=True).print(
            f"[red]error:[/] unexpected {type(exc).__name__}: {escape(str(exc))[:300]} "
            "(set RAGCLI_DEBUG=1 for the traceback)",
            highlight=False,
            soft_wrap=True,
        )
        sys.exit(int(ExitCode.FAILURE))
