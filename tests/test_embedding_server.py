"""Embeddings from a real serving engine: Infinity on 127.0.0.1 serving the bundled
all-MiniLM-L6-v2 folder, directly and behind a fault-injecting proxy (413 on large batches,
429 bursts, a dropped connection, a slow reply, a server that keeps failing)."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from ragcli import service
from ragcli.embedding.embedder import bundled_model_dir, make_embedder
from ragcli.embedding.server import EmbeddingServerError, ServerEmbedder, ServerOptions
from ragcli.errors import RagcliError
from tests.support.common import SAMPLE, settings_for
from tests.support.embedding_servers import INFINITY, FaultProxy, start_infinity

pytestmark = [
    pytest.mark.server,  # a real Infinity engine
    pytest.mark.skipif(
        not INFINITY.exists(), reason="Infinity is not installed: run scripts/install_infinity.sh"
    ),
]

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
    settings = settings_for(Path("unused"))
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
    from tests.support.embedding_servers import free_port

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
    assert time.monotonic() - started < 15  # not after the 20 s the server asked to wait


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


def long_files(folder, count: int):
    """`count` Markdown files of about eight chunks each."""
    folder.mkdir()
    for n in range(count):
        paragraphs = [
            f"## Part {p}\n\n"
            + " ".join(
                f"Note {n}.{p}.{w}: the ferry schedule for harbour {n} changes in week {w}."
                for w in range(12)
            )
            for p in range(8)
        ]
        (folder / f"file{n:02d}.md").write_text(f"# File {n}\n\n" + "\n\n".join(paragraphs))


def cli(*args, env, timeout=300):
    return subprocess.run(
        [sys.executable, "-m", "ragcli", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def test_a_server_that_gives_up_mid_ingest_is_one_line_and_what_was_embedded_is_kept(
    proxy, tmp_path
):
    import json
    import os

    docs = tmp_path / "docs"
    long_files(docs, 12)
    env = {
        **os.environ,
        "RAGCLI_EMBEDDING__PROVIDER": "openai",
        "RAGCLI_EMBEDDING__URL": proxy.url,
        "RAGCLI_EMBEDDING__MAX_RETRIES": "1",
        "RAGCLI_EMBEDDING__BATCH_SIZE": "8",
        "RAGCLI_EMBEDDING__CONCURRENCY": "1",
        "RAGCLI_EMBEDDING_API_KEY": "sk-secret-never-printed",
        "RAGCLI_INGEST__WORKERS": "1",
        "RAGCLI_STORE": str(tmp_path / "store"),
    }
    # The probe (12 sentences, 2 requests) and the first window (32+ chunks) get through.
    proxy.faults.fail_after = 2 + 5
    failed = cli("ingest", str(docs), env=env)
    assert failed.returncode != 0
    lines = [line for line in failed.stderr.splitlines() if line.startswith("error:")]
    assert "Traceback" not in failed.stderr and len(lines) == 1, failed.stderr
    assert proxy.url in lines[0] and "HTTP 503" in lines[0] and "left" in lines[0], lines
    assert "sk-secret" not in failed.stderr + failed.stdout
    stored = int(lines[0].split(" file")[0].rsplit(";", 1)[1])
    assert 0 < stored < 12, lines[0]

    proxy.faults.fail_after = None
    proxy.faults.fail_always = None
    again = cli("ingest", str(docs), "--json", env=env)
    assert again.returncode == 0, again.stderr
    report = json.loads(again.stdout)
    assert report["files_unchanged"] == stored and report["files_new"] == 12 - stored, report


def test_ctrl_c_with_requests_in_flight_stops_at_once(proxy, tmp_path):
    import os
    import signal

    docs = tmp_path / "docs"
    long_files(docs, 12)
    env = {
        **os.environ,
        "RAGCLI_EMBEDDING__PROVIDER": "openai",
        "RAGCLI_EMBEDDING__URL": proxy.url,
        "RAGCLI_EMBEDDING__BATCH_SIZE": "8",
        "RAGCLI_INGEST__WORKERS": "1",
        "RAGCLI_STORE": str(tmp_path / "store"),
    }
    first = tmp_path / "first.md"
    first.write_text("# First\n\nThe probe of the server is done with this ingest.\n")
    assert cli("ingest", str(first), env=env).returncode == 0
    proxy.faults.slow, proxy.faults.delay = 1000, 30.0  # every reply waits 30 s
    received = proxy.faults.received
    process = subprocess.Popen(
        [sys.executable, "-m", "ragcli", "ingest", str(docs)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 120
    while proxy.faults.received == received:  # till a request is held by the proxy
        assert time.monotonic() < deadline and process.poll() is None
        time.sleep(0.1)
    time.sleep(0.5)
    started = time.monotonic()
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=60)
    stopped_in = time.monotonic() - started
    assert process.returncode == 130, err
    # Not after the 30 s the held reply takes: the interrupt cancels the request.
    assert stopped_in < 20, f"stopped in {stopped_in:.1f} s: {err}"
    assert "interrupted" in err and "Traceback" not in err


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
    from ragcli.embedding import identity as embedding_identity
    from ragcli.embedding import probe as embedding_probe

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
