"""Web search providers behind one interface; `make_web` picks one from the settings."""

from __future__ import annotations

from ragcli.config import Settings
from ragcli.errors import ConfigError
from ragcli.web.base import WebResult, WebSearchError, WebSearchProvider

__all__ = ["WebResult", "WebSearchError", "WebSearchProvider", "chosen_web", "make_web"]

ENABLE_HINT = "set TAVILY_API_KEY (or web.api_key) to let ragcli search the web with Tavily"


def chosen_web(settings: Settings) -> str:
    """The provider in force: "tavily" or "none"."""
    provider = settings.web.provider
    if provider == "auto":
        return "tavily" if settings.web.api_key else "none"
    return provider


def make_web(settings: Settings) -> WebSearchProvider | None:
    """The configured provider, or None when web search is off."""
    if chosen_web(settings) == "none":
        return None
    if not (settings.web.api_key or settings.web.base_url):
        raise ConfigError("web.provider: tavily needs TAVILY_API_KEY (or web.api_key)")
    from ragcli.web.tavily import TavilyProvider

    return TavilyProvider(settings.web)
