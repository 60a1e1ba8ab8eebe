"""`ragcli trace`: how a run was made, a list or search of runs, a diff of two."""

from typing import Annotated

import typer

from ragcli.cli import common
from ragcli.cli.common import make_settings, print_json, write_report
from ragcli.cli.options import ConfigOpt, HtmlOpt, JsonOpt, StoreOpt
from ragcli.errors import ExitCode, RagcliError


def trace(
    trace_id: Annotated[
        str | None,
        typer.Argument(metavar="ID", help="Run id (a prefix is enough), or `diff A B`."),
    ] = None,
    more_ids: Annotated[
        list[str] | None,
        typer.Argument(metavar="A B", help="With `diff`: the two run ids.", show_default=False),
    ] = None,
    list_runs: Annotated[bool, typer.Option("--list", help="List recent runs.")] = False,
    show_all: Annotated[
        bool, typer.Option("--all", "-a", help="Also show every threshold in force.")
    ] = False,
    search: Annotated[
        str | None,
        typer.Option(
            "--search", "-s", metavar="TEXT", help="List runs whose question or answer has TEXT."
        ),
    ] = None,
    limit: Annotated[
        int, typer.Option("--limit", "-n", metavar="N", help="How many runs --list shows.")
    ] = 20,
    conversation_id: Annotated[
        str | None,
        typer.Option(
            "--conversation", metavar="ID", help="List a conversation's turns (a prefix is enough)."
        ),
    ] = None,
    as_json: JsonOpt = False,
    html: HtmlOpt = None,
    store: StoreOpt = None,
    config: ConfigOpt = None,
) -> None:
    """Show how a run was made: every score, threshold, route and iteration.

    `ragcli trace diff A B` puts two runs' steps side by side and marks what differs.
    `--html FILE` writes the run (or both runs of a diff) as one page that draws the route."""
    from ragcli import service
    from ragcli.views import trace as views

    settings = make_settings(config, store)
    if html is not None and (list_runs or search is not None or conversation_id is not None):
        raise RagcliError("--html draws a run or a diff, not a list of runs", ExitCode.USAGE)
    if trace_id == "diff" or more_ids:
        if trace_id != "diff" or len(more_ids or []) != 2:
            raise RagcliError("compare two runs with `ragcli trace diff ID_A ID_B`", ExitCode.USAGE)
        from ragcli.trace.diff import diff_traces

        first, second = (more_ids or [])[:2]
        pair = [service.find_trace(settings, first), service.find_trace(settings, second)]
        if html is not None:
            write_report(html, pair, as_json)
            return
        data = diff_traces(*pair)
        print_json(data) if as_json else common.console.print(views.trace_diff_view(data))
        return
    traces = service.trace_store(settings)
    if conversation_id is not None:
        conversation = service.continue_conversation(settings, conversation_id)
        turns = traces.conversation(conversation.id)
        if as_json:
            print_json([views.turn_row(t) for t in turns])
        else:
            common.console.print(views.conversation_view(conversation.id, turns))
        return
    if search is not None:
        if not search.strip():
            raise RagcliError("--search: give some text to look for", ExitCode.USAGE)
        rows = traces.search(search, limit)
        if as_json:
            print_json(rows)
        elif rows:
            common.console.print(views.trace_search_view(search, rows))
        else:
            common.console.print(
                f"no run's question or answer contains {search!r}", highlight=False
            )
        return
    if list_runs:
        rows = traces.recent(limit)
        print_json(rows) if as_json else common.console.print(views.trace_list(rows))
        return
    record = service.find_trace(settings, trace_id)
    if html is not None:
        write_report(html, [record], as_json)
        return
    if as_json:
        print_json(record.to_dict())
    else:
        usd = service.cost_of(settings, record.backend, record.usage())
        common.console.print(views.trace_view(record, cost=usd, full=show_all))
