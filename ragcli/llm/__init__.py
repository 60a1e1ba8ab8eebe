"""Model backends behind one interface; `make_llm` picks one from the settings."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ragcli.config import Settings
from ragcli.embedding.embedder import Embedder
from ragcli.errors import ConfigError
from ragcli.llm.base import LLMBackend
from ragcli.llm.calibration import Calibration


def chosen_provider(settings: Settings) -> str:
    provider = settings.llm.provider
    if provider == "auto":
        return "openai" if (settings.llm.api_key or settings.llm.base_url) else "extractive"
    return provider


def make_llm(
    settings: Settings,
    embedder: Embedder,
    calibration: Calibration,
    term_stats: Callable[[], Any] | None = None,
) -> LLMBackend:
    """The backend in force; the extractive one is always built, as the openai backend's
    fallback for replies it cannot use."""
    from ragcli.llm.extractive import ExtractiveBackend

    extractive = ExtractiveBackend(embedder, settings.llm, calibration, term_stats=term_stats)
    if chosen_provider(settings) == "extractive":
        return extractive
    if not (settings.llm.api_key or settings.llm.base_url):
        raise ConfigError(
            "llm.provider: openai needs OPENAI_API_KEY or llm.base_url "
            "(an OpenAI-compatible server such as Ollama)"
        )
    from ragcli.llm.openai_backend import OpenAIBackend

    return OpenAIBackend(settings.llm, fallback=extractive)
