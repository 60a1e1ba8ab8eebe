"""What a web search provider returns, and how it fails."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True)
class WebResult:
    title: str
    url: str
    content: str
    score: float = 0.0


class WebSearchError(Exception):
    """A search that did not return results: the message names the cause in one line."""


class WebSearchProvider(Protocol):
    name: str

    def search(self, query: str, max_results: int) -> list[WebResult]: ...
