"""Embeddings from a real serving engine: Infinity on 127.0.0.1 serving the bundled
all-MiniLM-L6-v2 folder, directly and behind a fault-injecting proxy (413 on large batches,
429 bursts, a dropped connection, a slow reply, a server that keeps failing)."""

from __future__ import annotations

import subprocess
import sys
import time

import numpy as np
import pytest

from ragcli import service
from ragcli.errors import RagcliError
from ragcli.store.embedder import bundled_model_dir, make_embedder
from ragcli.store.server_embedder import EmbeddingServerError, ServerEmbedder, ServerOptions
from tests.conftest import SAMPLE, settings_for
from tests.embedding_servers import INFINITY, FaultProxy, start_infinity

pytestmark = pytest.mark.skipif(
    not INFINITY.exists(), reason="Infinity is not installed: run scripts/install_infinity.sh"
)

TEXTS = [
    "Annual plans can be refunded within 30 days of purchase.",
    "The Rhine flows from the Swiss Alps to the North Sea.",
    "Use --json to print the result as JSON.",
    "Mitochondria are the powerhouse of the cell.",
    "A short one.",
    "Passwords are reset from the account page; a link is sent by email.",
] * 7  # 42 texts: several batches of 8


@pytest.fixture(scope="module")
def infinity(tmp_path_factory):
    log = tmp_path_factory.mktemp("infinity") / "infinity.log"
    process, url = start_infinity(bundled_model_dir(), log)
    yield url
    process.terminate()
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()


@pytest.fixture
def proxy(infinity):
    proxy = FaultProxy(infinity)
    yield proxy
    proxy.close()


@pytest.fixture(scope="module")
def local_vectors():
    settings = settings_for(service.Path("unused"))
    return make_embedder(settings.embedding).embed(TEXTS)


def server(url: str, **options) -> ServerEmbedder:
    values = {"url": url, "model": "all-MiniLM-L6-v2", "batch_size": 8, "concurrency": 2}
    values.update(options)
    return ServerEmbedder(ServerOptions(**values))


def cosines(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.sum(a * b, axis=1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))


def test_infinity_vectors_match_the_local_onnx_model(infinity, local_vectors):
    vectors = server(infinity).embed(TEXTS)
    assert vectors.shape == local_vectors.shape == (len(TEXTS), 384)
    assert cosines(vectors, local_vectors).min() >= 0.999
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


def test_a_batch_too_large_is_halved_and_the_smaller_size_kept(proxy, local_vectors):
    proxy.faults.max_inputs = 3
    embedder = server(proxy.url, batch_size=8, concurrency=1)
    vectors = embedder.embed(TEXTS)
    assert cosines(vectors, local_vectors).min() >= 0.999
    assert 413 in proxy.faults.statuses
    assert max(proxy.faults.seen) <= 3
    assert embedder.batch_size == 2  # 8 -> 4 -> 2: it no longer asks with 8
    refused = proxy.faults.statuses.count(413)
    embedder.embed(TEXTS[:8])
    assert proxy.faults.statuses.count(413) == refused  # the next call sends what fits


def test_429_bursts_a_dropped_connection_and_a_slow_reply_are_retried(proxy, local_vectors):
    proxy.faults.too_many_requests = 3
    proxy.faults.drop = 1
    proxy.faults.slow, proxy.faults.delay = 1, 3.0
    embedder = server(proxy.url, timeout=1.0, concurrency=1)
    vectors = embedder.embed(TEXTS)
    assert cosines(vectors, local_vectors).min() >= 0.999
    assert proxy.faults.statuses.count(429) == 3
    assert embedder.retries >= 5  # three 429s, one drop, one timeout


def test_a_server_that_keeps_failing_ends_in_one_line(proxy):
    proxy.faults.fail_always = 503
    embedder = server(proxy.url, max_retries=2)
    with pytest.raises(EmbeddingServerError) as raised:
        embedder.embed(TEXTS[:4])
    message = str(raised.value)
    assert "\n" not in message
    assert proxy.url in message and "HTTP 503" in message and "3 tries" in message


def test_a_server_that_is_down_is_named(tmp_path):
    from tests.embedding_servers import free_port

    embedder = server(f"http://127.0.0.1:{free_port()}", max_retries=1)
    with pytest.raises(RagcliError, match="cannot connect"):
        embedder.embed(["hello"])


def test_close_stops_a_retry_at_once(proxy):
    proxy.faults.fail_always = 429
    proxy.faults.retry_after = "20"
    embedder = server(proxy.url)
    started = time.monotonic()
    timer = __import__("threading").Timer(0.5, embedder.close)
    timer.start()
    with pytest.raises(EmbeddingServerError, match="stopped"):
        embedder.embed(["hello"])
    assert time.monotonic() - started < 3


def test_ingest_and_ask_through_the_engine(proxy, tmp_path):
    proxy.faults.max_inputs = 16
    store = tmp_path / "store"
    settings = settings_for(
        store,
        **{"embedding.provider": "openai", "embedding.url": proxy.url, "embedding.batch_size": 64},
    )
    report = service.ingestor(settings).run([SAMPLE], "docs")
    assert report.count("failed") == 0 and report.chunks_added > 20
    assert max(proxy.faults.seen) <= 16 and 413 in proxy.faults.statuses
    result = service.ask(settings, "How long can I get a refund for an annual plan?", "standard")
    assert result.answer_type == "answer"
    cited = [s.metadata.source_file for s in result.sources]
    assert any("billing" in f or "refund" in f for f in cited), cited
    assert "30 days" in result.answer


def test_the_cli_reports_a_failing_server_in_one_line_and_keeps_what_is_stored(proxy, tmp_path):
    env_settings = {
        "RAGCLI_EMBEDDING__PROVIDER": "openai",
        "RAGCLI_EMBEDDING__URL": proxy.url,
        "RAGCLI_EMBEDDING__MAX_RETRIES": "1",
        "RAGCLI_EMBEDDING_API_KEY": "sk-secret-never-printed",
    }
    import os

    env = {**os.environ, **env_settings, "RAGCLI_STORE": str(tmp_path / "store")}
    first = tmp_path / "first"
    first.mkdir()
    (first / "a.md").write_text("# Alpha\n\nAlpha is the first letter of the Greek alphabet.\n")
    ok = subprocess.run(
        [sys.executable, "-m", "ragcli", "ingest", str(first)], env=env, capture_output=True,
        text=True, timeout=300,
    )
    assert ok.returncode == 0, ok.stderr
    proxy.faults.fail_always = 503
    (first / "b.md").write_text("# Beta\n\nBeta is the second letter.\n")
    failed = subprocess.run(
        [sys.executable, "-m", "ragcli", "ingest", str(first)], env=env, capture_output=True,
        text=True, timeout=300,
    )
    assert failed.returncode != 0
    lines = [line for line in failed.stderr.splitlines() if line.strip()]
    assert "Traceback" not in failed.stderr
    assert any(proxy.url in line and "HTTP 503" in line for line in lines), failed.stderr
    assert "sk-secret" not in failed.stderr + failed.stdout
    proxy.faults.fail_always = None
    again = subprocess.run(
        [sys.executable, "-m", "ragcli", "ingest", str(first), "--json"], env=env,
        capture_output=True, text=True, timeout=300,
    )
    assert again.returncode == 0, again.stderr
    import json

    report = json.loads(again.stdout)
    statuses = {f["path"].rsplit("/", 1)[-1]: f["status"] for f in report["files"]}
    assert report["files_unchanged"] == 1 and statuses == {"b.md": "new"}, report


def test_unnormalised_vectors_are_normalised(proxy, local_vectors):
    proxy.faults.scale = 3.5
    vectors = server(proxy.url).embed(TEXTS)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert cosines(vectors, local_vectors).min() >= 0.999


def served(store, url: str, **more):
    values = {"embedding.provider": "openai", "embedding.url": url}
    values.update(more)
    return settings_for(store, **values)


def test_a_server_whose_vectors_differ_from_the_model_it_names_is_refused(proxy, tmp_path):
    proxy.faults.shuffle = True
    settings = served(tmp_path / "store", proxy.url)
    with pytest.raises(RagcliError) as refused:
        service.ingestor(settings).run([SAMPLE / "docs" / "backups_and_restore.md"], "docs")
    message = str(refused.value)
    assert "lowest cosine" in message and "0.99 needed" in message and proxy.url in message
    assert service.vector_store(settings).count("docs") == 0  # refused before any write


def test_a_collection_built_on_the_server_is_shared_with_the_local_model(proxy, tmp_path):
    """The identity lives in the collection: the same model locally may ask and extend it;
    another model may do neither, and says which and how to switch."""
    from ragcli.store import embedding_identity, embedding_probe

    store = tmp_path / "store"
    settings = served(store, proxy.url)
    service.ingestor(settings).run([SAMPLE / "docs" / "backups_and_restore.md"], "docs")
    probes = (store / embedding_probe.FILE).read_text()
    assert proxy.url in probes  # checked once, remembered
    built = embedding_identity.built_with(service.vector_store(settings), store, "docs")
    assert built == embedding_identity.Identity("openai", "all-MiniLM-L6-v2", "fp32", 384, True)
    assert not (store / embedding_identity.FILE).exists()  # nothing machine-local

    local = settings_for(store)
    result = service.search(local, "restore a backup")
    assert result.results[0].file.endswith("backups_and_restore.md")
    report = service.ingestor(local).run([SAMPLE / "policies" / "refund_policy.md"], "docs")
    assert report.count("failed") == 0 and report.chunks_added > 0

    other = served(store, proxy.url, **{"embedding.model": "bge-small-en-v1.5"})
    with pytest.raises(RagcliError) as refused:
        service.search(other, "restore a backup")
    message = str(refused.value)
    assert "a server's all-MiniLM-L6-v2" in message and "bge-small-en-v1.5" in message
    assert "embedding.model" in message and "re-ingesting" in message
