"""Tavily through its own client (`tavily-python`); `web.base_url` points it elsewhere."""

from __future__ import annotations

from typing import Any

from ragcli.config import WebSettings
from ragcli.web.base import WebResult, WebSearchError

DEFAULT_BASE_URL = "https://api.tavily.com"


class TavilyProvider:
    name = "tavily"

    def __init__(self, settings: WebSettings, client: Any = None):
        self.settings = settings
        if client is None:
            from tavily import TavilyClient

            key = settings.api_key.get_secret_value() if settings.api_key else None
            # A key is always passed: without one the client would fall back to its
            # keyless mode, which is not what the user configured.
            client = TavilyClient(api_key=key or "not-needed", api_base_url=settings.base_url)
        self.client = client

    @property
    def where(self) -> str:
        return self.settings.base_url or DEFAULT_BASE_URL

    def search(self, query: str, max_results: int) -> list[WebResult]:
        response = self._call(query, max_results)
        results = response.get("results") if isinstance(response, dict) else None
        if not isinstance(results, list):
            raise WebSearchError(f"Tavily ({self.where}) answered without a results list")
        cap = self.settings.max_content_chars
        found = []
        for item in results[:max_results]:
            if not isinstance(item, dict) or not item.get("url"):
                continue
            content = str(item.get("content") or "").strip()[:cap]
            if not content:
                continue
            found.append(
                WebResult(
                    title=str(item.get("title") or item["url"])[:300],
                    url=str(item["url"]),
                    content=content,
                    score=_as_float(item.get("score")),
                )
            )
        return found

    def _call(self, query: str, max_results: int) -> Any:
        import requests
        from tavily import errors

        where = self.where
        try:
            return self.client.search(
                query,
                search_depth=self.settings.search_depth,
                max_results=max_results,
                timeout=self.settings.timeout,
            )
        except errors.InvalidAPIKeyError:
            raise WebSearchError(f"Tavily ({where}) rejected the API key (HTTP 401)") from None
        except errors.UsageLimitExceededError:
            raise WebSearchError(
                f"Tavily ({where}) rate or usage limit reached (HTTP 429)"
            ) from None
        except errors.ForbiddenError:
            raise WebSearchError(f"Tavily ({where}) refused the request (HTTP 403)") from None
        except errors.BadRequestError as exc:
            raise WebSearchError(
                f"Tavily ({where}) rejected the request (HTTP 400): {exc}"
            ) from None
        except errors.TimeoutError:
            raise WebSearchError(
                f"Tavily ({where}) timed out after {self.settings.timeout:g}s"
            ) from None
        except requests.HTTPError as exc:
            status = exc.response.status_code if exc.response is not None else "?"
            raise WebSearchError(f"Tavily ({where}) answered HTTP {status}") from None
        except requests.ConnectionError:
            raise WebSearchError(f"Tavily ({where}) cannot be reached") from None
        except ValueError:  # a 200 whose body is not JSON (requests' JSONDecodeError)
            raise WebSearchError(
                f"Tavily ({where}) answered with a body that is not JSON"
            ) from None
        except requests.RequestException as exc:
            raise WebSearchError(f"Tavily ({where}) request failed: {type(exc).__name__}") from None


def _as_float(value: Any) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return 0.0
