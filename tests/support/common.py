"""The repository's paths, settings for a test store, and the quote check of offline answers."""

from __future__ import annotations

from pathlib import Path

from ragcli.config import Settings, load_settings

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "sample_corpus"


def settings_for(store: Path, **overrides) -> Settings:
    """Settings for `store`, untouched by the user's config and environment."""
    values = {"store.path": str(store)}
    values.update(overrides)
    return load_settings(None, values, environ={})


def quoted_in(quote: str, source: str) -> bool:
    """`quote`, a piece of an offline answer, is text of `source` (hard wraps undone). A
    Markdown table row is quoted as a list item (`- a | b`) of the source's `| a | b |`."""
    quote, source = " ".join(quote.split()), " ".join(source.split())
    if quote.startswith("- ") and " | " in quote:
        return f"| {quote[2:]} |" in source or quote in source
    return quote in source
