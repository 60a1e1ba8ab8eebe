"""The repository's paths, settings for a test store, the offline backend over it, and the
quote check of offline answers."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ragcli.config import Settings, load_settings

if TYPE_CHECKING:
    from ragcli.llm.extractive import ExtractiveBackend

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "sample_corpus"


def settings_for(store: Path, **overrides) -> Settings:
    """Settings for `store`, untouched by the user's config and environment."""
    values = {"store.path": str(store)}
    values.update(overrides)
    return load_settings(None, values, environ={})


def offline_backend(store: Path) -> ExtractiveBackend:
    """The extractive backend with the bundled embedder and calibration, and no BM25
    index: what the offline answer tests feed chunks to directly."""
    from ragcli import service
    from ragcli.llm.extractive import ExtractiveBackend

    settings = settings_for(store)
    return ExtractiveBackend(
        service.embedder(settings), settings.llm, service.calibration(settings)
    )


def quoted_in(quote: str, source: str) -> bool:
    """`quote`, a piece of an offline answer, is text of `source` as a reader sees it
    (ragcli/llm/segment.py: hard wraps undone, a table's row as `Key: a; Default: b`),
    quoted as it is or as a list item (`- Key: a; Default: b`)."""
    from ragcli.llm.segment import plain_text

    quote = " ".join(quote.split())
    seen = " ".join(plain_text(source).split())
    flat = " ".join(source.split())
    return any(q in seen or q in flat for q in (quote, quote.removeprefix("- ")))


def generated(backend, question: str, chunks) -> str:
    """The offline answer as the reader sees it (Markdown)."""
    from ragcli.text.markdown import render

    return render(backend.generate(question, chunks))


def doc_chunk(number: int, heading: str, content: str):
    """A retrieved chunk `c{number}` of version.md under `heading`, for feeding the offline
    backend directly."""
    from ragcli.models import ChunkMetadata, RetrievedChunk

    return RetrievedChunk(
        content=content,
        score=0.5,
        metadata=ChunkMetadata(
            chunk_id=f"c{number}", source_file="version.md", file_type="md", heading=heading
        ),
    )
