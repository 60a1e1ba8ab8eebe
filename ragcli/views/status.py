"""`ragcli status`: the store, its collections, and the backends in force."""

from __future__ import annotations

from typing import Any

from rich.console import Group, RenderableType
from rich.text import Text

from ragcli.views.format import plural, when
from ragcli.views.layout import Cell, Col, FitTable, pairs


def _settings_lines(data: dict[str, Any]) -> list[tuple[str, Cell]]:
    store, llm, web, emb = data["store"], data["llm"], data["web"], data["embedder"]
    where = store["path"] + ("" if store["exists"] else "  (not created yet)")
    if store["chroma"] != "local":
        where += f"  · chroma server {store['chroma']}"
    model = llm["model"] + (f" at {llm['base_url']}" if llm["base_url"] else "")
    price = llm.get("price_per_1m_tokens")
    priced = f"${price['input']:g} in, ${price['output']:g} out per 1M tokens" if price else "-"
    traces = data["traces"]
    return [
        ("store", where),
        ("collection", f"{store['default_collection']} (default for ingest and ask)"),
        ("last ingest", when(data["last_ingest"])),
        ("embedder", f"{emb['model']} · {emb['backend']} · {emb['device']}"),
        ("retrieval", _retrieval(data["retrieval"])),
        ("model", f"{llm['provider']} · {model} · key {llm['api_key']}"),
        ("price", priced),
        ("web search", f"{web['provider']} · key {web['api_key']}"),
        ("traces", f"{plural(traces['runs'], 'run')} · last {when(traces['last_run'])}"),
    ]


def _retrieval(retrieval: dict[str, Any]) -> str:
    line = f"{retrieval['mode']} · top {retrieval['top_k']}"
    rerank = retrieval.get("rerank")  # absent from reports of earlier versions
    if rerank:
        where = f" at {rerank['url']}" if rerank.get("url") else ""
        line += (
            f" · reranked by {rerank['provider']} {rerank['model']}{where} "
            f"({rerank['candidates']} candidates)"
        )
    return line


def collections_table(collections: list[dict[str, Any]]) -> FitTable:
    columns = [
        Col("collection", kind="key"),
        Col("files", justify="right"),
        Col("chunks", justify="right"),
        Col("languages", kind="flex", drop=2, min_width=10),
        Col("last ingest", drop=1),
    ]
    rows: list[list[Cell]] = [
        [
            item["name"],
            str(item["files"]),
            "?" if item["chunks"] is None else str(item["chunks"]),
            language_mix(item.get("languages") or {}),  # absent from earlier reports
            when(item["last_ingest"]),
        ]
        for item in collections
    ]
    return FitTable(columns, rows, title="Collections")


def language_mix(languages: dict[str, int], shown: int = 3) -> str:
    """`de 80% · en 15% · 2 more`: a collection's chunks by language, most first ("?": not
    detected; "-": none of its files was ingested since languages were detected)."""
    total = sum(languages.values())
    if not total:
        return "-"
    parts = [
        f"{code} {max(1, round(100 * n / total))}%" for code, n in list(languages.items())[:shown]
    ]
    if len(languages) > shown:
        parts.append(f"{len(languages) - shown} more")
    return " · ".join(parts)


def remote_table(roots: list[dict[str, Any]]) -> FitTable:
    """Each site and repository with its last sync: its commit or page count, its errors."""
    columns = [
        Col("remote root", kind="key"),
        Col("collection", drop=2),
        Col("stored", justify="right"),
        Col("last sync", drop=1),
        Col("errors", kind="flex"),
    ]
    rows: list[list[Cell]] = []
    for root in roots:
        kind = "pages" if root["kind"] == "site" else "files"
        stored = plural(root["documents"], kind[:-1])
        if root["revision"]:
            stored += f" @ {root['revision'][:12]}"
        errors = root.get("errors") or []
        said = (
            f"{root['failed']} failed: {errors[0]}"
            if root["failed"] and errors
            else (errors[0] if errors else "none")
        )
        if len(errors) > 1:
            said += f" (+{len(errors) - 1} more)"
        rows.append([root["root"], root["collection"], stored, when(root["synced_at"]), said])
    return FitTable(columns, rows, title="Remote roots")


def metadata_table(collections: list[dict[str, Any]]) -> FitTable | None:
    """The metadata keys each collection's documents hold (what `--meta KEY=VALUE` can
    name), with how many files hold each and its commonest values; None when none do."""
    rows: list[list[Cell]] = [
        [
            item["name"],
            entry["key"],
            str(entry["files"]),
            str(entry["values"]),
            ", ".join(entry["examples"]),
        ]
        for item in collections
        for entry in item.get("metadata") or []  # absent from reports of earlier versions
    ]
    if not rows:
        return None
    columns = [
        Col("collection", drop=1),
        Col("key", kind="key"),
        Col("files", justify="right"),
        Col("values", justify="right"),
        Col("commonest", kind="flex", wrap=False),
    ]
    return FitTable(columns, rows, title="Metadata (--meta KEY=VALUE)")


def status_view(data: dict[str, Any]) -> RenderableType:
    parts: list[RenderableType] = [pairs(_settings_lines(data))]
    if data["store"].get("error"):
        error = data["store"]["error"]
        parts.append(Text(f"⚠ chunk counts unavailable: {error}", style="yellow"))
    if data["collections"]:
        parts.append(collections_table(data["collections"]))
        metadata = metadata_table(data["collections"])
        if metadata is not None:
            parts.append(metadata)
    else:
        parts.append(Text("no collections yet: run `ragcli ingest PATH`", style="yellow"))
    if data.get("remote"):  # absent from reports of earlier versions
        parts.append(remote_table(data["remote"]))
    return Group(*parts)
