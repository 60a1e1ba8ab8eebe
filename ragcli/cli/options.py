"""The options several commands share, declared once."""

from pathlib import Path
from typing import Annotated

import typer

from ragcli.completion import complete_collection, complete_mode
from ragcli.pipeline.modes.registry import AUTO, MODE_NAMES

ConfigOpt = Annotated[
    Path | None,
    typer.Option("--config", metavar="FILE", help="Configuration file (default ./config.yaml)."),
]
StoreOpt = Annotated[
    Path | None,
    typer.Option(
        "--store",
        metavar="DIR",
        help="Store directory (default .ragcli).",
        envvar="RAGCLI_STORE",
        show_envvar=True,
    ),
]
CollectionOpt = Annotated[
    str | None,
    typer.Option(
        "--collection",
        "-c",
        metavar="NAME",
        help="Collection (default: store.collection).",
        autocompletion=complete_collection,
    ),
]
# `ask` and `chat` give -c to --continue, as `llm -c` does: the collection is long-only there.
LongCollectionOpt = Annotated[
    str | None,
    typer.Option(
        "--collection",
        metavar="NAME",
        help="Collection (default: store.collection).",
        autocompletion=complete_collection,
    ),
]
ModeOpt = Annotated[
    str,
    typer.Option(
        "--mode",
        "-m",
        metavar="MODE",
        autocompletion=complete_mode,
        help=f"One of: {', '.join(MODE_NAMES)}; {AUTO} picks one per question.",
    ),
]
TopKOpt = Annotated[
    int | None,
    typer.Option("--top-k", "-k", metavar="N", min=1, max=100, help="Chunks to retrieve."),
]
HydeOpt = Annotated[
    bool | None,
    typer.Option(
        "--hyde/--no-hyde",
        help="HyDE: the answer model writes a passage to search with (retrieval.hyde).",
        show_default=False,
    ),
]
ExpandOpt = Annotated[
    str | None,
    typer.Option(
        "--expand",
        metavar="HOW",
        help="Offline query expansion: none or prf (retrieval.expand).",
        show_default=False,
    ),
]
LlmOpt = Annotated[
    str | None,
    typer.Option("--llm", metavar="NAME", help="Model backend: auto, openai or extractive."),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON instead of tables.")]
HtmlOpt = Annotated[
    Path | None,
    typer.Option(
        "--html",
        metavar="FILE",
        help="Write the run(s) as one HTML page: answer, the route drawn, steps, chunks.",
        show_default=False,
    ),
]
VerboseOpt = Annotated[bool, typer.Option("--verbose", "-v", help="Log each step.")]
PathOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--path",
        metavar="GLOB",
        help="Only files matching GLOB, gitignore style: 'docs/*.md', '*.pdf' (repeatable).",
    ),
]
TypeOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--type", metavar="TYPE", help="Only files of TYPE: pdf, md, txt ... (repeatable)."
    ),
]
SinceOpt = Annotated[
    str | None,
    typer.Option(
        "--since", metavar="DATE", help="Only files modified since DATE: 2024-05-01, 36h, 7d, 2w."
    ),
]
MetaOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--meta",
        metavar="KEY=VALUE",
        help="Only documents whose metadata (front matter, Word or PDF properties) holds "
        "VALUE under KEY: tag=security, author='Jane Doe', date>=2024-05 (repeatable: the "
        "same key again is any of its values, another key must hold too; `ragcli status` "
        "lists the keys).",
    ),
]
ConversationOpt = Annotated[
    str | None,
    typer.Option(
        "--conversation", metavar="ID", help="Continue conversation ID (a prefix is enough)."
    ),
]
