"""The web search provider factory and the Tavily provider through `tavily-python`."""

from __future__ import annotations

import pytest

from ragcli.config import load_settings
from ragcli.errors import ConfigError
from ragcli.web import WebSearchError, chosen_web, make_web
from ragcli.web.tavily import TavilyProvider
from tests.support.stubs import TavilyStub, WebHit


def settings(**values):
    return load_settings(None, values, environ={})


def test_factory_picks_tavily_only_when_a_key_is_set():
    assert chosen_web(settings()) == "none" and make_web(settings()) is None
    keyed = settings(**{"web.api_key": "tvly-x"})
    assert chosen_web(keyed) == "tavily" and isinstance(make_web(keyed), TavilyProvider)
    off = settings(**{"web.api_key": "tvly-x", "web.provider": "none"})
    assert make_web(off) is None
    env = load_settings(None, {}, environ={"TAVILY_API_KEY": "tvly-env"})
    assert chosen_web(env) == "tavily"


def test_explicit_tavily_without_a_key_is_a_clear_config_error():
    with pytest.raises(ConfigError, match="web.provider: tavily needs TAVILY_API_KEY"):
        make_web(settings(**{"web.provider": "tavily"}))


def test_results_are_capped_and_unusable_ones_skipped():
    hits = [
        {"title": "no url", "url": "", "content": "x", "score": 0.9},
        WebHit("Empty", "https://example.com/empty", "", 0.5).__dict__,
        WebHit("Long", "https://example.com/long", "word " * 1000, "n/a").__dict__,
    ]
    with TavilyStub(hits) as web:
        provider = make_web(
            settings(
                **{"web.api_key": "tvly-x", "web.base_url": web.url, "web.max_content_chars": 100}
            )
        )
        results = provider.search("anything", 3)
    assert [r.url for r in results] == ["https://example.com/long"]
    assert len(results[0].content) == 100 and results[0].score == 0.0


def test_a_reply_without_results_is_a_search_error():
    with TavilyStub({"detail": "nothing"}) as web:
        provider = make_web(settings(**{"web.api_key": "tvly-x", "web.base_url": web.url}))
        # tavily-python fills in an empty list; a non-list is ours to reject.
        assert provider.search("q", 3) == []
    with TavilyStub({"results": "oops"}) as web:
        provider = make_web(settings(**{"web.api_key": "tvly-x", "web.base_url": web.url}))
        with pytest.raises(WebSearchError, match="without a results list"):
            provider.search("q", 3)
