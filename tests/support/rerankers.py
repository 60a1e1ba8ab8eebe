"""Real rerankers for the tests, with no weights downloaded: a cross-encoder folder made
from the bundled all-MiniLM-L6-v2 encoder with a fixed, randomly initialised one-label
classification head (transformers' BertForSequenceClassification, seeded), saved with its
tokenizer. Infinity serves it at /rerank (a one-label sequence classifier is a reranker
to Infinity) and sentence-transformers' CrossEncoder loads the same folder, so a test
compares ragcli's order with one computed independently. Its scores are arbitrary but
fixed: a test can tell the engine's order from the fused one, not judge relevance.

RerankStub answers /rerank as scripted (faults, TEI's shape, wrong JSON), for what no
real engine here does on demand."""

from __future__ import annotations

import json
import subprocess
import time
from collections import deque
from pathlib import Path
from typing import Any

from tests.support.embedding_servers import start_infinity
from tests.support.stubs import Fault, StubServer

SEED = 1234
HEAD_STD = 0.1  # the head's weights: logits spread over a few units, no ties
RERANKER_NAME = "test-reranker"


def build_cross_encoder(folder: Path) -> Path:
    """The bundled encoder under a seeded random one-label head, saved in `folder`."""
    import torch
    from transformers import AutoTokenizer, BertForSequenceClassification

    from ragcli.embedding.embedder import bundled_model_dir

    if (folder / "config.json").is_file():
        return folder
    torch.manual_seed(SEED)
    source = bundled_model_dir()
    model = BertForSequenceClassification.from_pretrained(str(source), num_labels=1)
    with torch.no_grad():
        generator = torch.Generator().manual_seed(SEED)
        head = model.classifier
        head.weight.copy_(torch.randn(head.weight.shape, generator=generator) * HEAD_STD)
        head.bias.zero_()
    folder.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(str(folder))
    AutoTokenizer.from_pretrained(str(source)).save_pretrained(str(folder))
    return folder


def cross_encoder_scores(folder: Path, query: str, passages: list[str]) -> list[float]:
    """The folder's scores computed by sentence-transformers directly, not by ragcli."""
    from sentence_transformers import CrossEncoder

    encoder = CrossEncoder(str(folder), device="cpu", local_files_only=True)
    return [float(s) for s in encoder.predict([(query, p) for p in passages])]


def start_infinity_reranker(folder: Path, log: Path) -> tuple[subprocess.Popen, str]:
    """Infinity serving the folder as RERANKER_NAME; (process, base url)."""
    return start_infinity(folder, log, name=RERANKER_NAME)


def stop(process: subprocess.Popen) -> None:
    process.terminate()
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()


def cohere_answer(scores: list[float]) -> dict[str, Any]:
    """A Cohere-shaped answer, best first as engines send it."""
    order = sorted(range(len(scores)), key=lambda i: -scores[i])
    return {"results": [{"index": i, "relevance_score": scores[i]} for i in order]}


def by_length(body: dict) -> list[float]:
    """A scripted reranker's scores: longer passages first, whatever the fused order."""
    passages = body.get("documents") or body.get("texts") or []
    return [float(len(p)) for p in passages]


class RerankStub(StubServer):
    """/rerank on 127.0.0.1: each request takes the next queued reply (a Fault, a body, or
    a function of the request), else `default`, which scores passages by length."""

    def __init__(self) -> None:
        super().__init__()
        self.queue: deque[Any] = deque()
        self.requests: list[dict] = []
        self.paths: list[str] = []
        self.headers: list[dict] = []
        self.default: Any = lambda body: cohere_answer(by_length(body))

    def enqueue(self, *replies: Any) -> None:
        self.queue.extend(replies)

    def handle(self, path: str, body: dict, headers: dict) -> tuple[int, dict, str]:
        self.requests.append(body)
        self.paths.append(path)
        self.headers.append({k.lower(): v for k, v in headers.items()})
        reply = self.queue.popleft() if self.queue else self.default
        if callable(reply) and not isinstance(reply, Fault):
            reply = reply(body)
        if isinstance(reply, Fault):
            time.sleep(reply.delay)
            return reply.status, {"Content-Type": "application/json", **reply.headers}, reply.body
        text = reply if isinstance(reply, str) else json.dumps(reply)
        return 200, {"Content-Type": "application/json"}, text


def tei(body: dict) -> Any:
    """text-embeddings-inference's /rerank as it behaves: `{query, texts}` answered with a
    bare list of `{index, score}`; a body without `texts` refused with 422."""
    if "texts" not in body:
        message = "Failed to deserialize the JSON body into the target type: missing field `texts`"
        return Fault(422, json.dumps({"error": message, "error_type": "Validation"}))
    scores = by_length(body)
    return [{"index": i, "score": s} for i, s in sorted(enumerate(scores), key=lambda x: -x[1])]
