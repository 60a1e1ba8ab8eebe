"""`ragcli status`, `ragcli sources`, `ragcli config` and `ragcli schema`: what the store
holds and what is in force."""

import sys

from ragcli.cli import common
from ragcli.cli.common import make_settings, print_json
from ragcli.cli.options import CollectionOpt, ConfigOpt, JsonOpt, StoreOpt


def status(as_json: JsonOpt = False, store: StoreOpt = None, config: ConfigOpt = None) -> None:
    """The store, its collections, and the model, embedder and web search in force."""
    from ragcli import service
    from ragcli.views.status import status_view

    data = service.status(make_settings(config, store))
    print_json(data) if as_json else common.console.print(status_view(data))


def sources(
    collection: CollectionOpt = None,
    as_json: JsonOpt = False,
    store: StoreOpt = None,
    config: ConfigOpt = None,
) -> None:
    """List the ingested files: chunks, pages, content hash and ingest time."""
    from dataclasses import asdict

    from ragcli import service
    from ragcli.views.sources import sources_view

    rows = [asdict(r) for r in service.ingested_files(make_settings(config, store), collection)]
    if as_json:
        print_json(rows)
    elif rows:
        plain = not common.console.is_terminal  # piped: one file a line, never cut at 80 columns
        common.console.print(sources_view(rows, collection, plain=plain), soft_wrap=plain)
    else:
        where = f"collection {collection!r}" if collection else "the store"
        common.console.print(f"no files ingested in {where}", highlight=False)


def show_config(as_json: JsonOpt = False, store: StoreOpt = None, config: ConfigOpt = None) -> None:
    """Print the configuration in force (secrets redacted)."""
    data = make_settings(config, store).redacted()
    if as_json:
        print_json(data)
    else:
        import yaml

        sys.stdout.write(yaml.safe_dump(data, sort_keys=False))


def schema() -> None:
    """Print the JSON Schema of `ragcli ask --json` (and of a trace's result)."""
    from ragcli.pipeline.results import json_schema

    print_json(json_schema())
