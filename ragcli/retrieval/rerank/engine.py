"""A serving engine's rerank endpoint (`retrieval.rerank.provider: engine`).

Two request shapes are in use. Infinity, vLLM, llama.cpp's server, Cohere and Jina take
Cohere's `{model, query, documents, top_n}` at `/rerank` (`/v1/rerank`, Cohere v2's
`/v2/rerank`: the url names the base, so `…/v1` works) and answer `results: [{index,
relevance_score}]` (older Infinity builds: `data`); text-embeddings-inference takes
`{query, texts}` and answers a bare list `[{index, score}]`. Answers are read whatever
their shape. The request's shape is `retrieval.rerank.api`; with `auto` (the default)
Cohere's is sent first and, if the server refuses it as malformed (400, 422), TEI's once;
the one answered is kept for the process. Trying costs one refused request on a TEI
server, once, where a guess from the url or the model name would be wrong for any server
behind a proxy or under another name.

Faults are handled as the embedding server's (engine_http.py): 429, 5xx, timeouts and
dropped connections retried with backoff, a request refused as too large (413; 422 once
the shape is known) split in halves and the smaller size kept."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ragcli.config import RerankSettings
from ragcli.engine_http import EngineClient, detail, send_fitting
from ragcli.retrieval.rerank.base import RerankError, checked

MALFORMED = (400, 422)  # what a server answers to a body of the other shape
SHAPES = {"cohere": "Cohere's {query, documents}", "tei": "TEI's {query, texts}"}


def rerank_endpoint(url: str) -> str:
    """`{url}/rerank`, unless the url names the endpoint already."""
    base = url.rstrip("/")
    return base if base.endswith("/rerank") else base + "/rerank"


class EngineReranker:
    provider = "engine"

    def __init__(self, options: RerankSettings):
        assert options.url and options.model  # RerankSettings requires both for an engine
        self.model = options.model
        self.api = options.api
        self.shape: str | None = None if options.api == "auto" else options.api
        self.max_documents: int | None = None  # lowered when the server refuses a size
        self.endpoint = rerank_endpoint(options.url)
        self._http = EngineClient(
            "reranker",
            self.endpoint,
            api_key=options.api_key.get_secret_value() if options.api_key else None,
            timeout=options.timeout,
            max_retries=options.max_retries,
            error=RerankError,
        )

    def close(self) -> None:
        self._http.close()

    def scores(self, query: str, passages: Sequence[str]) -> list[float]:
        passages = list(passages)
        size = self.max_documents or len(passages) or 1
        found: list[float] = []
        for start in range(0, len(passages), size):
            scored: list[float] = send_fitting(
                passages[start : start + size],
                lambda part: self._send(query, part),
                _joined,
                self._one_too_large,
                self._smaller,
            )
            found += scored
        return checked(found, len(passages), f"reranker {self.endpoint}")

    def _smaller(self, half: int) -> None:
        self.max_documents = max(1, min(self.max_documents or half, half))

    def _one_too_large(self, passage: str) -> RerankError:
        return RerankError(
            f"reranker {self.endpoint} refused one passage of {len(passage)} characters "
            "as too large"
        )

    def _send(self, query: str, passages: list[str]) -> list[float] | None:
        """The passages' scores; None when the server refused them as too large."""
        shape = self.shape or "cohere"
        response = self._http.post(self._body(shape, query, passages), accept={200, 413, 422, 400})
        status = response.status_code
        if status == 200:
            self.shape = shape
            return self._parse(response, len(passages))
        if self.shape is None and status in MALFORMED:  # auto: is this a TEI server?
            other = self._http.post(self._body("tei", query, passages), accept={200, 413, 422, 400})
            if other.status_code == 200:
                self.shape = "tei"
                return self._parse(other, len(passages))
            raise self._http.fail(
                f"refused both request shapes (HTTP {status} to {SHAPES['cohere']}, HTTP "
                f"{other.status_code} to {SHAPES['tei']}): check retrieval.rerank.model, "
                "or set retrieval.rerank.api"
            )
        if status == 413 or (status == 422 and self.shape is not None):
            return None
        raise self._http.fail(f"HTTP {status} to {SHAPES[shape]}{detail(response)}")

    def _body(self, shape: str, query: str, passages: list[str]) -> dict[str, Any]:
        if shape == "tei":
            return {"query": query, "texts": passages, "truncate": True}
        return {"model": self.model, "query": query, "documents": passages, "top_n": len(passages)}

    def _parse(self, response: Any, expected: int) -> list[float]:
        who = f"reranker {self.endpoint}"
        try:
            return read_scores(response.json(), expected)
        except ValueError as exc:
            raise RerankError(f"{who}: the answer is not a rerank result ({exc})") from None


def read_scores(data: Any, expected: int) -> list[float]:
    """Scores in the passages' order from any of the answers' shapes: `{results: [...]}`,
    `{data: [...]}` or a bare list, each row `{index, relevance_score | score}`."""
    rows = data.get("results", data.get("data")) if isinstance(data, dict) else data
    if not isinstance(rows, list):
        raise ValueError("no results list")
    scores: list[float | None] = [None] * expected
    for row in rows:
        if not isinstance(row, dict):
            raise ValueError("a result is not an object")
        index, score = row.get("index"), row.get("relevance_score", row.get("score"))
        if not isinstance(index, int) or not 0 <= index < expected:
            raise ValueError(f"index {index!r} out of range")
        if not isinstance(score, int | float) or isinstance(score, bool):
            raise ValueError(f"score {score!r} is not a number")
        scores[index] = float(score)
    missing = [i for i, s in enumerate(scores) if s is None]
    if missing:
        raise ValueError(f"{len(missing)} of {expected} passages unscored")
    return [s for s in scores if s is not None]


def _joined(first: list[float], second: list[float]) -> list[float]:
    return first + second
