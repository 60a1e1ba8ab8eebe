"""`retrieval.rerank.provider: engine`: Infinity on 127.0.0.1 serving the test
cross-encoder folder at /rerank (ragcli must return the order sentence-transformers'
CrossEncoder computes on the same folder), the faults a real engine is put through by
the fault proxy (429 bursts, a dropped connection), and the answers a scripted /rerank
gives on demand (5xx, a reply slower than the timeout, JSON that is not a rerank result,
nobody listening, TEI's request shape, a batch refused as too large). Whatever the
fault, the answer comes, from the fused order, with one warning line; the trace says the
reranker was skipped."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import time

import pytest

from ragcli import service
from ragcli.config import RerankSettings
from ragcli.retrieval.rerank.engine import EngineReranker, read_scores, rerank_endpoint
from tests.support.common import settings_for
from tests.support.embedding_servers import INFINITY, FaultProxy, free_port
from tests.support.rerankers import (
    RERANKER_NAME,
    RerankStub,
    by_length,
    cross_encoder_scores,
    start_infinity_reranker,
    stop,
    tei,
)
from tests.support.stubs import Fault

QUESTION = "How long do I have to ask for a refund of an annual plan?"
PASSAGES = [
    "Annual plans can be refunded within 30 days of purchase.",
    "The Rhine flows from the Swiss Alps to the North Sea.",
    "Use --json to print the result as JSON.",
    "Refunds go back to the card that paid, within ten working days.",
    "Passwords are reset from the account page; a link is sent by email.",
]

needs_infinity = pytest.mark.skipif(
    not INFINITY.exists(), reason="Infinity is not installed: run scripts/install_infinity.sh"
)


@pytest.fixture(scope="module")
def infinity(tmp_path_factory, cross_encoder_folder):
    log = tmp_path_factory.mktemp("infinity-rerank") / "infinity.log"
    process, url = start_infinity_reranker(cross_encoder_folder, log)
    yield url
    stop(process)


@pytest.fixture
def stub():
    with RerankStub() as server:
        yield server


def engine_settings(store, url: str, **more):
    values = {
        "retrieval.rerank.provider": "engine",
        "retrieval.rerank.url": url,
        "retrieval.rerank.model": RERANKER_NAME,
        "retrieval.rerank.timeout": 2.0,
        "retrieval.rerank.max_retries": 2,
    }
    return settings_for(store, **(values | more))


def reranker(url: str, **more) -> EngineReranker:
    values = {"provider": "engine", "url": url, "model": RERANKER_NAME, **more}
    return EngineReranker(RerankSettings(**values))


def steps_named(settings, result, name):
    trace = service.saved_trace(settings, result.trace_id)
    assert trace is not None
    return [s for s in trace.steps if s.name == name]


def warnings_of(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]


# -- a real engine ----------------------------------------------------------------------


@pytest.mark.server
@needs_infinity
@pytest.mark.parametrize("suffix", ["", "/"])
def test_infinity_scores_as_the_cross_encoder_does(infinity, cross_encoder_folder, suffix):
    got = reranker(infinity + suffix).scores(QUESTION, PASSAGES)
    expected = cross_encoder_scores(cross_encoder_folder, QUESTION, PASSAGES)
    assert got == pytest.approx(expected, abs=1e-4)
    assert len(set(expected)) == len(expected)  # an order to check, no ties


@pytest.mark.server
@needs_infinity
def test_ask_through_infinity_answers_from_the_engines_order(
    infinity, cross_encoder_folder, sample_store
):
    # 30 chunks through a CPU engine on a busy machine can take seconds.
    settings = engine_settings(sample_store, infinity, **{"retrieval.rerank.timeout": 60})
    result = service.ask(settings, QUESTION, "standard")
    (retrieve,) = steps_named(settings, result, "retrieve")
    (rerank,) = steps_named(settings, result, "rerank")
    ids = [c["chunk_id"] for c in retrieve.details["chunks"]]
    got = service.vector_store(settings).collection("docs").get(ids=ids)
    texts = dict(zip(got["ids"], got["documents"], strict=True))
    expected = cross_encoder_scores(cross_encoder_folder, QUESTION, [texts[i] for i in ids])
    best_first = [ids[i] for i in sorted(range(len(ids)), key=lambda i: -expected[i])]
    assert [s.chunk_id for s in result.sources] == best_first[:5]
    assert best_first[:5] != ids[:5]  # the engine's order is not the fused one
    assert rerank.inputs["reranker"] == f"engine {RERANKER_NAME}"
    assert rerank.decision.startswith("reordered 30 candidates")


@pytest.mark.server
@needs_infinity
def test_429s_and_a_dropped_connection_are_retried_and_the_engine_still_reranks(
    infinity, cross_encoder_folder, sample_store, caplog
):
    proxy = FaultProxy(infinity)
    try:
        proxy.faults.too_many_requests = 2
        proxy.faults.drop = 1
        settings = engine_settings(
            sample_store,
            proxy.url,
            **{"retrieval.rerank.timeout": 60, "retrieval.rerank.max_retries": 3},
        )
        with caplog.at_level(logging.WARNING, logger="ragcli"):
            result = service.ask(settings, QUESTION, "standard")
        assert proxy.faults.statuses.count(429) == 2
        assert proxy.faults.statuses[-1] == 200
    finally:
        proxy.close()
    assert not warnings_of(caplog)
    (rerank,) = steps_named(settings, result, "rerank")
    assert rerank.decision.startswith("reordered")
    assert all("rerank" in s.component_scores for s in result.sources)


# -- scripted faults --------------------------------------------------------------------


def assert_skipped(settings, result, caplog, reason: str):
    plain = service.ask(settings_for(settings.store.path), QUESTION, "standard")
    assert result.answer == plain.answer
    assert [s.chunk_id for s in result.sources] == [s.chunk_id for s in plain.sources]
    assert all("rerank" not in s.component_scores for s in result.sources)
    warnings = warnings_of(caplog)
    assert len(warnings) == 1, warnings
    assert warnings[0].startswith("reranker skipped") and reason in warnings[0], warnings[0]
    (rerank,) = steps_named(settings, result, "rerank")
    assert rerank.decision.startswith("skipped: ") and reason in rerank.decision
    assert rerank.details["skipped"]


def test_a_reranker_that_keeps_failing_is_skipped(stub, sample_store, caplog):
    stub.default = Fault(503, '{"error": "overloaded"}')
    settings = engine_settings(sample_store, stub.url)
    with caplog.at_level(logging.WARNING, logger="ragcli"):
        result = service.ask(settings, QUESTION, "standard")
    assert_skipped(settings, result, caplog, "HTTP 503")
    assert len(stub.requests) == 3  # max_retries 2: three tries, then the fused order


def test_a_reranker_slower_than_its_timeout_is_skipped_in_bounded_time(stub, sample_store, caplog):
    stub.default = Fault(200, json.dumps({"results": []}), delay=3.0)
    settings = engine_settings(
        sample_store,
        stub.url,
        **{"retrieval.rerank.timeout": 0.5, "retrieval.rerank.max_retries": 1},
    )
    started = time.monotonic()
    with caplog.at_level(logging.WARNING, logger="ragcli"):
        result = service.ask(settings, QUESTION, "standard")
    assert time.monotonic() - started < 8
    assert_skipped(settings, result, caplog, "no answer within 0.5 s")


@pytest.mark.parametrize(
    "reply, reason",
    [
        ("<html>Bad gateway</html>", "not a rerank result"),
        ({"results": [{"index": 0, "relevance_score": 0.5}]}, "29 of 30 passages unscored"),
        ({"results": [{"index": 99, "relevance_score": 0.5}]}, "index 99 out of range"),
        ({"data": "nope"}, "no results list"),
    ],
)
def test_a_reranker_answering_nonsense_is_skipped(stub, sample_store, caplog, reply, reason):
    stub.default = reply
    settings = engine_settings(sample_store, stub.url)
    with caplog.at_level(logging.WARNING, logger="ragcli"):
        result = service.ask(settings, QUESTION, "standard")
    assert_skipped(settings, result, caplog, reason)


def test_a_reranker_nobody_serves_is_skipped(sample_store, caplog):
    settings = engine_settings(sample_store, f"http://127.0.0.1:{free_port()}")
    with caplog.at_level(logging.WARNING, logger="ragcli"):
        result = service.ask(settings, QUESTION, "reflect")
    warnings = warnings_of(caplog)
    assert len(warnings) == 1 and "cannot connect" in warnings[0], warnings
    reranks = steps_named(settings, result, "rerank")
    assert reranks and all(s.decision.startswith("skipped") for s in reranks)
    # A second retrieval of the run does not wait for the dead server again.
    assert all("earlier in this run" in s.decision for s in reranks[1:])


def test_teis_shape_is_detected_once_and_kept(stub, sample_store):
    stub.default = tei
    settings = engine_settings(sample_store, stub.url)
    warm = service.Resources(settings)
    first = service.ask(settings, QUESTION, "standard", resources=warm)
    assert [("texts" in r) for r in stub.requests] == [False, True]
    service.ask(settings, "How do I reset my password?", "standard", resources=warm)
    assert [("texts" in r) for r in stub.requests] == [False, True, True]
    scores = [s.component_scores["rerank"] for s in first.sources]
    assert scores == sorted(scores, reverse=True)
    assert [len(s.content) for s in first.sources] == sorted(
        (len(s.content) for s in first.sources), reverse=True
    )


@pytest.mark.parametrize("api, shape", [("tei", "texts"), ("cohere", "documents")])
def test_the_shape_set_is_the_one_sent(stub, api, shape):
    stub.default = lambda body: (
        tei(body) if api == "tei" else {"results": [{"index": 0, "relevance_score": 1.0}]}
    )
    reranker(stub.url, api=api).scores("q", ["only passage"])
    assert shape in stub.requests[0] and len(stub.requests) == 1


def test_a_server_refusing_both_shapes_names_the_setting(stub):
    from ragcli.retrieval.rerank.base import RerankError

    stub.default = Fault(422, '{"detail": "model not found"}')
    with pytest.raises(RerankError, match="refused both request shapes.*retrieval.rerank.api"):
        reranker(stub.url).scores("q", ["a", "b"])


def test_a_batch_refused_as_too_large_is_split_and_the_size_kept(stub):
    def at_most_eight(body):
        documents = body["documents"]
        if len(documents) > 8:
            return Fault(413, '{"error": "too many documents"}')
        return {"data": [{"index": i, "relevance_score": s} for i, s in enumerate(by_length(body))]}

    stub.default = at_most_eight
    engine = reranker(stub.url)
    passages = [f"passage {'x' * n}" for n in range(30)]
    scores = engine.scores("q", passages)
    assert scores == [float(len(p)) for p in passages]
    assert engine.max_documents == 7  # 30 -> 15 -> 7
    refused = [len(r["documents"]) for r in stub.requests if len(r["documents"]) > 8]
    engine.scores("q", passages)
    assert [len(r["documents"]) for r in stub.requests if len(r["documents"]) > 8] == refused


@pytest.mark.parametrize(
    "url, path",
    [
        ("{}", "/rerank"),
        ("{}/v1", "/v1/rerank"),
        ("{}/v2/", "/v2/rerank"),
        ("{}/v1/rerank", "/v1/rerank"),
    ],
)
def test_the_url_is_the_api_base_and_the_key_a_bearer_token(stub, url, path):
    engine = EngineReranker(
        RerankSettings(
            provider="engine", url=url.format(stub.url), model="m", api_key="sk-rr-secret"
        )
    )
    engine.scores("q", ["a", "b"])
    assert stub.paths == [path]
    assert stub.headers[0]["authorization"] == "Bearer sk-rr-secret"
    assert rerank_endpoint(url.format("http://h")) == "http://h" + path


def test_every_answer_shape_is_read():
    assert read_scores(
        {"results": [{"index": 1, "relevance_score": 0.2}, {"index": 0, "relevance_score": 0.9}]}, 2
    ) == [0.9, 0.2]
    assert read_scores(
        {"data": [{"index": 0, "relevance_score": 1}, {"index": 1, "relevance_score": 0}]}, 2
    ) == [1.0, 0.0]
    assert read_scores([{"index": 1, "score": 3.5}, {"index": 0, "score": -1.0}], 2) == [-1.0, 3.5]


@pytest.mark.slow
def test_the_command_line_gets_its_answer_and_one_warning_line(stub, sample_store):
    stub.default = Fault(500, '{"error": "boom"}')
    env = {
        **os.environ,
        "RAGCLI_STORE": str(sample_store),
        "RAGCLI_RETRIEVAL__RERANK__PROVIDER": "engine",
        "RAGCLI_RETRIEVAL__RERANK__URL": stub.url + "/v1",
        "RAGCLI_RETRIEVAL__RERANK__MODEL": RERANKER_NAME,
        "RAGCLI_RETRIEVAL__RERANK__MAX_RETRIES": "1",
        "RAGCLI_RERANK_API_KEY": "sk-never-printed",
    }
    for extra in ([], ["--json"]):
        run = subprocess.run(
            [sys.executable, "-m", "ragcli", "ask", QUESTION, *extra],
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert run.returncode == 0, run.stderr
        lines = run.stderr.strip().splitlines()
        assert len(lines) == 1, run.stderr
        assert lines[0].startswith("warning: reranker skipped (reranker http://127.0.0.1:")
        assert "/v1/rerank: HTTP 500" in lines[0] and "the fused order is kept" in lines[0]
        assert "sk-never-printed" not in run.stdout + run.stderr
        if extra:
            data = json.loads(run.stdout)
            assert data["sources"] and "rerank" not in data["sources"][0]["component_scores"]
        else:
            assert "30 days" in run.stdout
