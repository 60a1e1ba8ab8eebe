"""`ragcli show PATH[:START-END]`: a stored document, or a range of it, as it was read."""

from typing import Annotated

import typer

from ragcli.cli import common
from ragcli.cli.common import make_settings, print_json
from ragcli.cli.options import ConfigOpt, JsonOpt, StoreOpt
from ragcli.completion import complete_collection


def show(
    path: Annotated[
        str,
        typer.Argument(
            metavar="PATH[:START-END]",
            help="An ingested file (its path, or the end of it: policies/refund.md), and "
            "optionally a range: lines of a text file, pages of a PDF, slides, rows "
            "(as citations print it: guide.md:12-40).",
        ),
    ],
    collection: Annotated[
        str | None,
        typer.Option(
            "--collection",
            "-c",
            metavar="NAME",
            autocompletion=complete_collection,
            help="Look only in this collection (default: the default one, then the others).",
        ),
    ] = None,
    outline: Annotated[
        bool, typer.Option("--outline", help="Only the heading outline, not the text.")
    ] = False,
    as_json: JsonOpt = False,
    store: StoreOpt = None,
    config: ConfigOpt = None,
) -> None:
    """Print a stored document as it was read, with its heading outline.

    The text is what ingest stored, put back together from its chunks (their overlaps
    taken out). A range shows the parts holding those lines, pages or slides; a document
    with no places (plain text, Word) counts lines of the text shown."""
    from ragcli import service
    from ragcli.views.show import show_view

    settings = make_settings(config, store, {})
    document = service.show_document(settings, path, collection)
    if as_json:
        data = document.model_dump(mode="json")
        data["text"] = document.text
        if outline:
            data.pop("sections")
        print_json(data)
        return
    common.console.print(show_view(document, outline), soft_wrap=not common.console.is_terminal)
