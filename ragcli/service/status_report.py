"""What `ragcli status` reports: the store, its collections, and the backends in force.

Reads only: a missing store is reported, never created (the manifest and the trace store
read their own tables read-only). Chroma is imported only to count chunks; no embedding
model is loaded."""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path
from typing import Any

from ragcli.config import Settings
from ragcli.metadata import key_summary
from ragcli.remote.state import root_summaries
from ragcli.store.manifest import collection_metadata, collection_summaries
from ragcli.wiring import store_dir, trace_store


def _redacted(secret: Any) -> str:
    return "set (redacted)" if secret else "not set"


def _chroma_counts(settings: Settings, directory: Path) -> tuple[dict[str, int], str | None]:
    """Chunks per collection, or the reason they cannot be counted."""
    if not settings.store.url and not (directory / "chroma").is_dir():
        return {}, None
    try:
        from ragcli.store.vectors import ChromaServer, VectorStore

        store = VectorStore(directory, ChromaServer.of(settings.store))
        return {name: store.count(name) for name in store.collection_names()}, None
    except Exception as exc:  # an unreachable server or a damaged store: say so, go on
        return {}, str(exc).splitlines()[0] if str(exc) else type(exc).__name__


def _price(settings: Settings, provider: str) -> dict[str, float] | None:
    from ragcli.cost import price_for

    price = price_for(settings.prices, settings.llm.model) if provider == "openai" else None
    return price.model_dump() if price else None


def status(settings: Settings) -> dict[str, Any]:
    from ragcli.llm import chosen_provider
    from ragcli.web import chosen_web

    directory = store_dir(settings)
    files = collection_summaries(directory / "manifest.sqlite")
    metadata = collection_metadata(directory / "manifest.sqlite")
    chunks, chroma_error = _chroma_counts(settings, directory)
    collections = [
        {
            "name": name,
            "chunks": chunks.get(name),
            "files": files.get(name, {}).get("files", 0),
            "last_ingest": files.get(name, {}).get("last_ingest"),
            # Chunks per language ("?": not detected), for files ingested since detection.
            "languages": files.get(name, {}).get("languages", {}),
            # The metadata keys its documents hold, for `--meta`: files holding each, and
            # the commonest values.
            "metadata": [asdict(item) for item in key_summary(metadata.get(name, []))],
        }
        for name in sorted(set(files) | set(chunks))
    ]
    ingests = [c["last_ingest"] for c in collections if c["last_ingest"]]
    llm = settings.llm
    provider = chosen_provider(settings)
    return {
        "store": {
            "path": str(directory.resolve()),
            "exists": directory.is_dir(),
            "chroma": settings.store.url or "local",
            "default_collection": settings.store.collection,
            "error": chroma_error,
        },
        "collections": collections,
        # Sites and repositories ingested, each with its last sync (ragcli/remote/).
        "remote": root_summaries(directory / "manifest.sqlite"),
        "last_ingest": max(ingests) if ingests else None,
        "embedder": {
            "model": settings.embedding.model,
            "backend": settings.embedding.backend,
            "device": settings.embedding.device,
        },
        "retrieval": {
            "mode": settings.retrieval.mode,
            "top_k": settings.retrieval.top_k,
            "rerank": _reranker(settings),
        },
        "llm": {
            "provider": provider,
            "model": llm.model if provider == "openai" else "none (quotes the sources)",
            "base_url": llm.base_url or ("api.openai.com" if provider == "openai" else None),
            "api_key": _redacted(llm.api_key),
            "price_per_1m_tokens": _price(settings, provider),
        },
        "web": {
            "provider": chosen_web(settings),
            "base_url": settings.web.base_url,
            "api_key": _redacted(settings.web.api_key),
        },
        "traces": trace_store(settings).summary(),
    }


def _reranker(settings: Settings) -> dict[str, Any] | None:
    """The reranker in force, None when off; its key redacted."""
    rerank = settings.retrieval.rerank
    if rerank.provider == "none":
        return None
    model = rerank.model or (settings.llm.model if rerank.provider == "llm" else None)
    return {
        "provider": rerank.provider,
        "model": model,
        "url": rerank.url,
        "candidates": rerank.candidates,
        "api_key": _redacted(rerank.api_key) if rerank.provider == "engine" else None,
    }
