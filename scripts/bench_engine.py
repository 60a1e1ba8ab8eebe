"""The benchmark row for embedding on a serving engine (scripts/benchmark.py --engine):
`ragcli ingest` through Infinity against the engine's own throughput, measured by a bare
client (plain HTTP requests on threads) with the same batch size and concurrency on the
same chunk texts, in one run. Infinity runs on this machine's CPU, so the engine and the
ingest share its cores: on a GPU machine the engine would have them to itself."""

from __future__ import annotations

import json
import queue
import threading
import time
from pathlib import Path
from typing import Any

BATCH_SIZE = 32
CONCURRENCY = 2


def bare_client(url: str, texts: list[str], batch_size: int, concurrency: int) -> float:
    """Chunks per second a plain client gets from the engine."""
    import httpx

    batches: queue.SimpleQueue[list[str]] = queue.SimpleQueue()
    for start in range(0, len(texts), batch_size):
        batches.put(texts[start : start + batch_size])
    client = httpx.Client(timeout=600, limits=httpx.Limits(max_connections=concurrency))
    body = {"model": "all-MiniLM-L6-v2", "encoding_format": "float"}

    def work() -> None:
        while True:
            try:
                batch = batches.get_nowait()
            except queue.Empty:
                return
            client.post(f"{url}/embeddings", json={**body, "input": batch}).raise_for_status()

    client.post(f"{url}/embeddings", json={**body, "input": texts[:8]})  # warm up
    started = time.perf_counter()
    threads = [threading.Thread(target=work) for _ in range(concurrency)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    seconds = time.perf_counter() - started
    client.close()
    return len(texts) / seconds


def engine_row(
    corpus: Path, texts: list[str], work: Path, env: dict[str, str], run_timed, say
) -> dict[str, Any]:
    """(name, value, target, passed, data) of the row; Infinity is started and stopped."""
    from ragcli.embedding.embedder import bundled_model_dir
    from tests.support.embedding_servers import start_infinity

    say("engine: starting Infinity on 127.0.0.1")
    process, url = start_infinity(bundled_model_dir(), work / "infinity.log")
    try:
        say(f"engine: bare client, {len(texts)} chunks")
        bare = bare_client(url, texts, BATCH_SIZE, CONCURRENCY)
        settings = {
            "RAGCLI_EMBEDDING__PROVIDER": "openai",
            "RAGCLI_EMBEDDING__URL": url,
            "RAGCLI_EMBEDDING__BATCH_SIZE": str(BATCH_SIZE),
            "RAGCLI_EMBEDDING__CONCURRENCY": str(CONCURRENCY),
        }
        engine_env = {**env, **settings}
        store = work / "engine-store"
        warm = work / "engine-warm.md"  # the one-time probe of the server is not measured
        warm.write_text("# Warm\n\nThe probe of the embedding server runs once per store.\n")
        run_timed(["ingest", str(warm), "--store", str(store)], engine_env)
        say("engine: ragcli ingest through it")
        seconds, out = run_timed(
            ["ingest", str(corpus), "--store", str(store), "--json"], engine_env
        )
        added = json.loads(out)["chunks_added"]
    finally:
        process.terminate()
        process.wait(timeout=30)
    rate = added / seconds
    ratio = rate / bare
    return {
        "name": f"ragcli ingest through Infinity (batch {BATCH_SIZE}, {CONCURRENCY} in flight)",
        "value": f"{rate:.1f} chunks/s ({added} chunks in {seconds:.1f} s) = {ratio:.2f} × a "
        f"bare client ({bare:.1f} chunks/s, same texts, batch size and concurrency)",
        "target": "≥ 0.9 × the bare client",
        "passed": ratio >= 0.9,
        "data": {
            "seconds": round(seconds, 2),
            "chunks": added,
            "chunks_per_s": round(rate, 1),
            "bare_client_chunks_per_s": round(bare, 1),
            "ratio_to_bare_client": round(ratio, 3),
        },
    }
