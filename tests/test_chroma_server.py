"""The client/server path: a real `chroma run` on 127.0.0.1, with ingest, ask, prune and
crash recovery through Chroma's HTTP client, and one ingesting store per collection."""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ragcli.cli import app
from ragcli.ingest.runner import chunk_id
from tests.support.embedding_servers import free_port
from tests.support.storecheck import cli_env, ragcli

runner = CliRunner()
QUESTION = "How long can I get a refund for an annual plan?"


@pytest.fixture(scope="module")
def chroma_url(tmp_path_factory):
    # The `chroma` of the virtualenv running the tests (it need not be on PATH, nor be the
    # checkout's own .venv: a worktree shares its main checkout's).
    chroma = str(Path(sys.executable).parent / "chroma")
    if not Path(chroma).exists():
        chroma = shutil.which("chroma") or chroma
    data = tmp_path_factory.mktemp("chroma-server")
    port = free_port()
    server = subprocess.Popen(
        [chroma, "run", "--path", str(data), "--host", "127.0.0.1", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 180  # slack for a loaded machine; ~5 s when idle
    while True:
        try:
            with urllib.request.urlopen(f"{url}/api/v2/heartbeat", timeout=1) as reply:
                if reply.status == 200:
                    break
        except OSError:
            pass
        assert server.poll() is None, "chroma run exited"
        assert time.monotonic() < deadline, "chroma run did not answer its heartbeat"
        time.sleep(0.3)
    yield url
    server.terminate()
    server.wait(timeout=20)


def server_chunks(url: str, collection: str) -> dict[str, dict]:
    import chromadb

    port = int(url.rsplit(":", 1)[1])
    client = chromadb.HttpClient(host="127.0.0.1", port=port)
    got = client.get_collection(collection).get(include=["metadatas"])
    return dict(zip(got["ids"], got["metadatas"], strict=True))


def expected_ids(store: Path, collection: str) -> set[str]:
    import sqlite3

    db = sqlite3.connect(store / "manifest.sqlite")
    rows = db.execute(
        "SELECT path, sha256, chunk_count FROM files WHERE collection = ?", (collection,)
    ).fetchall()
    return {chunk_id(p, sha, i) for p, sha, n in rows for i in range(n)}


@pytest.mark.server
def test_ingest_ask_prune_and_ownership_through_a_server(chroma_url, tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "refunds.md").write_text(
        "# Refunds\nAnnual plans can be refunded within 30 days of purchase.\n"
    )
    (docs / "sync.md").write_text("# Sync\nThe sync agent retries every 90 seconds.\n")
    env = {"RAGCLI_STORE__URL": chroma_url, "RAGCLI_STORE__COLLECTION": "team-docs"}
    mine = str(tmp_path / "mine")
    result = runner.invoke(app, ["ingest", str(docs), "--store", mine, "--json"], env=env)
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["files_new"] == 2
    assert not (Path(mine) / "chroma").exists()  # the vectors are on the server
    assert set(server_chunks(chroma_url, "team-docs")) == expected_ids(Path(mine), "team-docs")

    # Anyone can ask from anywhere: a fresh directory with nothing but the URL.
    elsewhere = str(tmp_path / "elsewhere")
    asked = runner.invoke(app, ["ask", QUESTION, "--store", elsewhere, "--json"], env=env)
    assert asked.exit_code == 0, asked.output
    answer = json.loads(asked.stdout)
    assert "30 days" in answer["answer"]
    assert answer["sources"][0]["metadata"]["source_file"].endswith("refunds.md")

    # But only the owning store ingests: another manifest would not know these chunks.
    other = runner.invoke(app, ["ingest", str(docs), "--store", elsewhere], env=env)
    assert other.exit_code == 2
    assert "is ingested from" in other.output and str(Path(mine).resolve()) in other.output

    (docs / "sync.md").unlink()
    pruned = runner.invoke(
        app, ["ingest", str(docs), "--store", mine, "--prune", "--json"], env=env
    )
    assert pruned.exit_code == 0, pruned.output
    assert json.loads(pruned.stdout)["files_removed"] == 1
    remaining = server_chunks(chroma_url, "team-docs")
    assert {Path(m["source_file"]).name for m in remaining.values()} == {"refunds.md"}
    assert set(remaining) == expected_ids(Path(mine), "team-docs")


@pytest.mark.server
def test_every_machine_sees_what_built_a_shared_collection(chroma_url, tmp_path):
    """The embedding identity is in the collection on the server, not in one machine's
    store directory: a machine that never ingested is refused the other precision."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "ferries.md").write_text("# Ferries\nThe night ferry leaves at 22:15.\n")
    env = {"RAGCLI_STORE__URL": chroma_url, "RAGCLI_STORE__COLLECTION": "int8-docs"}
    int8 = {**env, "RAGCLI_EMBEDDING__PRECISION": "int8"}
    built = runner.invoke(app, ["ingest", str(docs), "--store", str(tmp_path / "a")], env=int8)
    assert built.exit_code == 0, built.output
    elsewhere = ["--store", str(tmp_path / "b")]
    refused = runner.invoke(app, ["ask", "When does the night ferry leave?", *elsewhere], env=env)
    assert refused.exit_code == 2
    assert "built with int8 embeddings and embedding.precision is fp32" in refused.output
    asked = runner.invoke(
        app, ["ask", "When does the night ferry leave?", *elsewhere, "--json"], env=int8
    )
    assert asked.exit_code == 0 and "22:15" in json.loads(asked.stdout)["answer"]


@pytest.mark.server
def test_a_killed_ingest_against_a_server_is_repaired(chroma_url, tmp_path):
    from tests.support.corpus import make_corpus, write_doc

    docs = tmp_path / "docs"
    make_corpus(docs, [1, 2, 3])
    store = tmp_path / "store"
    env = cli_env(RAGCLI_STORE__URL=chroma_url, RAGCLI_STORE__COLLECTION="crash-docs")
    args = ("ingest", str(docs), "--store", str(store), "--json")
    assert ragcli(*args, cwd=tmp_path, env=env).returncode == 0
    write_doc(docs / "doc2.md", 202)
    killed = ragcli(*args, cwd=tmp_path, env={**env, "RAGCLI_CRASH_AT": "after_upsert:1"})
    assert killed.returncode == -signal.SIGKILL
    assert len(server_chunks(chroma_url, "crash-docs")) > len(expected_ids(store, "crash-docs"))
    rerun = ragcli(*args, cwd=tmp_path, env=env)
    assert rerun.returncode == 0, rerun.stderr
    report = json.loads(rerun.stdout)
    assert report["files_changed"] == 1 and report["recovered"]
    assert set(server_chunks(chroma_url, "crash-docs")) == expected_ids(store, "crash-docs")


def test_an_unreachable_server_is_one_line(tmp_path):
    env = {"RAGCLI_STORE__URL": f"http://127.0.0.1:{free_port()}"}
    for args in (["ask", QUESTION], ["ingest", str(tmp_path)]):
        result = runner.invoke(app, [*args, "--store", str(tmp_path / "s")], env=env)
        assert result.exit_code == 1
        assert result.output.strip().startswith("error: store.url http://127.0.0.1:")
        assert "no Chroma server answers there" in result.output


class TokenGuard:
    """A reverse proxy in front of a Chroma server that wants `header: value` on every
    request, as the proxy that guards a team's server does."""

    def __init__(self, upstream: str, header: str | None, value: str = ""):
        import threading
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        self.refused = 0
        self.seen: list[tuple[str, str, bytes | None]] = []  # method, path, body
        guard = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def _forward(self):
                if header is not None and self.headers.get(header) != value:
                    guard.refused += 1
                    self.send_response(401)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length) if length else None
                guard.seen.append((self.command, self.path, body))
                request = urllib.request.Request(
                    upstream + self.path,
                    data=body,
                    method=self.command,
                    headers={"Content-Type": self.headers.get("content-type", "application/json")},
                )
                try:
                    with urllib.request.urlopen(request, timeout=60) as reply:
                        status, payload = reply.status, reply.read()
                except urllib.error.HTTPError as error:
                    status, payload = error.code, error.read()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = _forward

        self.server = ThreadingHTTPServer(("127.0.0.1", free_port()), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.mark.server
def test_a_guarded_server_tenant_and_database(chroma_url, tmp_path):
    """store.token goes in the header the guarding proxy wants (never printed); tenant and
    database place the collection; a wrong token or tenant is one line."""
    import chromadb
    from chromadb.config import Settings as ChromaSettings

    port = int(chroma_url.rsplit(":", 1)[1])
    admin = chromadb.AdminClient(
        ChromaSettings(
            chroma_api_impl="chromadb.api.fastapi.FastAPI",
            chroma_server_host="127.0.0.1",
            chroma_server_http_port=port,
            anonymized_telemetry=False,
        )
    )
    admin.create_tenant("acme")
    admin.create_database("handbook", tenant="acme")
    guard = TokenGuard(chroma_url, "X-Chroma-Token", "s3cret-token")
    try:
        docs = tmp_path / "docs"
        docs.mkdir()
        (docs / "ferries.md").write_text("# Ferries\nThe night ferry leaves at 22:15.\n")
        env = {
            "RAGCLI_STORE__URL": guard.url,
            "RAGCLI_STORE_TOKEN": "s3cret-token",
            "RAGCLI_STORE__TOKEN_HEADER": "X-Chroma-Token",
            "RAGCLI_STORE__TENANT": "acme",
            "RAGCLI_STORE__DATABASE": "handbook",
        }
        store = ["--store", str(tmp_path / "a")]
        built = runner.invoke(app, ["ingest", str(docs), *store], env=env)
        assert built.exit_code == 0, built.output
        placed = chromadb.HttpClient(
            host="127.0.0.1", port=port, tenant="acme", database="handbook"
        )
        assert "docs" in [c.name for c in placed.list_collections()]
        default = chromadb.HttpClient(host="127.0.0.1", port=port)
        assert "docs" not in [c.name for c in default.list_collections()]

        shown = runner.invoke(app, ["config", *store], env=env)
        assert "s3cret" not in shown.output

        wrong = runner.invoke(
            app,
            ["ask", "When does the night ferry leave?", *store],
            env={**env, "RAGCLI_STORE_TOKEN": "guess"},
        )
        assert wrong.exit_code != 0 and guard.refused > 0
        assert "refused the credentials" in wrong.output and "guess" not in wrong.output
        lost = runner.invoke(
            app,
            ["ask", "When does the night ferry leave?", *store],
            env={**env, "RAGCLI_STORE__TENANT": "nobody"},
        )
        assert lost.exit_code != 0 and "no tenant 'nobody'" in lost.output, lost.output
    finally:
        guard.close()


def chunk_reads(proxy: TokenGuard, url: str, collection: str) -> list[int | None]:
    """The reads of `collection` a client made through `proxy` to index its chunks (ids
    alone, or texts with their language): how many ids each asked for, None for a read of
    the whole collection. A search ends by reading the results it shows (texts and
    metadata, the last such read): that one is not indexing and is left out."""
    import chromadb

    port = int(url.rsplit(":", 1)[1])
    uuid = str(chromadb.HttpClient(host="127.0.0.1", port=port).get_collection(collection).id)
    requests = [
        json.loads(body)
        for method, path, body in proxy.seen
        if method == "POST" and path.endswith(f"/{uuid}/get") and body
    ]
    proxy.seen.clear()
    shown = [i for i, request in enumerate(requests) if request.get("ids") is not None]
    if shown and "metadatas" in (requests[shown[-1]].get("include") or []):
        del requests[shown[-1]]  # the results the search showed
    reads = []
    for request in requests:
        include = request.get("include") or []
        if "metadatas" in include and "documents" not in include:
            continue  # a lookup of metadata (sections, a file's first chunk), not indexing
        wanted = request.get("ids")
        reads.append(None if wanted is None else len(wanted))
    return reads


def ferries_and_trains(tmp_path: Path) -> Path:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "ferries.md").write_text("# Ferries\nThe night ferry leaves at 22:15.\n")
    (docs / "trains.md").write_text("# Trains\nThe sleeper train departs from platform 9.\n")
    return docs


def bm25_files(proxy: TokenGuard, env: dict[str, str], store: list[str], query: str) -> list[str]:
    """The files a BM25 search finds, with the proxy's record of reads cleared first."""
    proxy.seen.clear()
    found = runner.invoke(app, ["search", query, "--retriever", "bm25", "--json", *store], env=env)
    assert found.exit_code in (0, 5), found.output
    hits = json.loads(found.stdout)["results"] if found.exit_code == 0 else []
    return [Path(hit["file"]).name for hit in hits]


@pytest.mark.server
def test_a_second_machine_reads_the_collection_once_then_only_the_changes(chroma_url, tmp_path):
    """Machine B asks against the collection machine A ingests. Its first ask builds and
    saves B's BM25 index (one listing of the collection); later asks read nothing more
    than the change log until A changes something, and then only the changed chunks."""
    docs = ferries_and_trains(tmp_path)
    proxy = TokenGuard(chroma_url, None)
    try:
        env = {"RAGCLI_STORE__URL": proxy.url, "RAGCLI_STORE__COLLECTION": "synced-docs"}
        a, b = ["--store", str(tmp_path / "a")], ["--store", str(tmp_path / "b")]
        assert runner.invoke(app, ["ingest", str(docs), *a], env=env).exit_code == 0

        def search_on_b(query: str) -> list[str]:
            return bm25_files(proxy, env, b, query)

        assert search_on_b("sleeper platform") == ["trains.md"]
        first = chunk_reads(proxy, chroma_url, "synced-docs")
        assert None in first  # the first ask on B lists the collection, once
        assert (tmp_path / "b" / "lexical" / "synced-docs" / "sync.json").exists()

        assert search_on_b("night ferry") == ["ferries.md"]
        # Saved on B: no read of the collection at all.
        assert chunk_reads(proxy, chroma_url, "synced-docs") == []

        # A rewrites a file (the same number of chunks) and adds one.
        (docs / "trains.md").write_text("# Trains\nThe sleeper train departs from quay 4.\n")
        (docs / "buses.md").write_text("# Buses\nThe airport bus runs every 20 minutes.\n")
        changed = runner.invoke(app, ["ingest", str(docs), *a, "--json"], env=env)
        assert changed.exit_code == 0, changed.output
        assert search_on_b("quay") == ["trains.md"]
        reads = chunk_reads(proxy, chroma_url, "synced-docs")
        assert None not in reads and sum(reads) == 2  # the two new chunks' texts, no more
        assert search_on_b("platform") == []  # the old version left B's index too
        assert search_on_b("airport bus") == ["buses.md"]
        assert chunk_reads(proxy, chroma_url, "synced-docs") == []
    finally:
        proxy.close()


@pytest.mark.server
def test_the_change_log_is_trimmed_and_a_machine_behind_it_lists_the_collection(
    chroma_url, tmp_path, monkeypatch
):
    """The log keeps no more ids than the collection holds (one id per record here): the
    oldest records go, the newest one trimmed is the floor, and a machine whose index is
    older than the floor lists the collection instead of missing a change."""
    import chromadb

    from ragcli.bm25 import change_log as lexical_log

    monkeypatch.setattr(lexical_log, "IDS_PER_RECORD", 1)
    docs = ferries_and_trains(tmp_path)
    proxy = TokenGuard(chroma_url, None)
    try:
        env = {"RAGCLI_STORE__URL": proxy.url, "RAGCLI_STORE__COLLECTION": "trimmed-docs"}
        a, b = ["--store", str(tmp_path / "a")], ["--store", str(tmp_path / "b")]
        assert runner.invoke(app, ["ingest", str(docs), *a], env=env).exit_code == 0

        def search_on_b(query: str) -> list[str]:
            return bm25_files(proxy, env, b, query)

        assert search_on_b("sleeper platform") == ["trains.md"]
        # Two changes B does not see; each leaves the chunk count as it was, so only the
        # floor tells B that the first one (trimmed) is missing from what it can read.
        (docs / "trains.md").write_text("# Trains\nThe sleeper train departs from quay 4.\n")
        assert runner.invoke(app, ["ingest", str(docs), *a], env=env).exit_code == 0
        (docs / "ferries.md").write_text("# Ferries\nThe late ferry leaves the harbour.\n")
        assert runner.invoke(app, ["ingest", str(docs), *a], env=env).exit_code == 0

        client = chromadb.HttpClient(host="127.0.0.1", port=int(chroma_url.rsplit(":", 1)[1]))
        log = client.get_collection(lexical_log.LOG_COLLECTION)
        kept = log.get(where={"collection": "trimmed-docs"})["ids"]
        assert len(kept) == 2  # the last change: one chunk removed, one added
        floor = client.get_collection("trimmed-docs").metadata[lexical_log.FLOOR_KEY]
        assert floor < min(kept)

        assert search_on_b("quay") == ["trains.md"]
        assert None in chunk_reads(proxy, chroma_url, "trimmed-docs")  # listed, once
        assert search_on_b("platform") == [] and search_on_b("night") == []
        assert search_on_b("harbour") == ["ferries.md"]
        assert chunk_reads(proxy, chroma_url, "trimmed-docs") == []
    finally:
        proxy.close()


@pytest.mark.server
def test_a_new_machine_builds_a_large_index_in_the_background(
    chroma_url, tmp_path, monkeypatch, caplog
):
    """Above lexical_build.FOREGROUND_CHUNKS (lowered here), a machine's first ask does
    not wait for its BM25 index: it answers from the dense retriever, says so once, and a
    detached `ragcli sync` builds and saves the index; `ragcli sync` waits for it."""
    from ragcli.bm25 import build as lexical_build

    monkeypatch.setattr(lexical_build, "FOREGROUND_CHUNKS", 1)
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "ferries.md").write_text("# Ferries\nThe night ferry leaves at 22:15.\n")
    (docs / "trains.md").write_text("# Trains\nThe sleeper train departs from platform 9.\n")
    (docs / "buses.md").write_text("# Buses\nThe airport bus runs every 20 minutes.\n")
    env = {"RAGCLI_STORE__URL": chroma_url, "RAGCLI_STORE__COLLECTION": "big-docs"}
    assert runner.invoke(app, ["ingest", str(docs), "--store", str(tmp_path / "a")], env=env)
    b = tmp_path / "b"
    index_dir = b / "lexical" / "big-docs"

    # A build already running (its lock held): dense answers, bm25 refused in one line.
    held = lexical_build.BuildLock(index_dir)
    assert held.try_acquire()
    try:
        hybrid = runner.invoke(
            app, ["search", "sleeper train", "--json", "--store", str(b)], env=env
        )
        assert hybrid.exit_code == 0, hybrid.output
        hits = json.loads(hybrid.stdout)["results"]
        assert Path(hits[0]["file"]).name == "trains.md" and hits[0]["bm25"] is None
        assert "being built on this machine in the background (3 chunks" in caplog.text
        bm25 = runner.invoke(
            app, ["search", "sleeper", "--retriever", "bm25", "--store", str(b)], env=env
        )
        assert bm25.exit_code == 1
        assert bm25.output.strip().startswith("error: the keyword (BM25) index")
        # The trace says which retriever answered, and why.
        asked = runner.invoke(
            app,
            ["ask", "Where does the sleeper train depart?", "--json", "--store", str(b)],
            env=env,
        )
        assert asked.exit_code == 0, asked.output
        run = json.loads(asked.stdout)["trace_id"]
        shown = runner.invoke(app, ["trace", run, "--json", "--store", str(b)], env=env)
        step = next(s for s in json.loads(shown.stdout)["steps"] if s["name"] == "retrieve")
        assert step["details"]["retriever"] == "dense", step
        assert step["decision"].endswith("dense only: BM25 index being built")
        assert not (index_dir / "sync.json").exists()
    finally:
        held.close()

    # No build running: the first ask starts one, detached, and `ragcli sync` waits for it.
    caplog.clear()
    first = runner.invoke(app, ["search", "airport", "--json", "--store", str(b)], env=env)
    assert first.exit_code == 0 and "in the background" in caplog.text
    deadline = time.monotonic() + 90
    while not (index_dir / "sync.json").exists():  # the detached builder saves it
        assert time.monotonic() < deadline, (index_dir / "build.log").read_text()
        time.sleep(0.5)
    synced = runner.invoke(app, ["sync", "--json", "--store", str(b)], env=env)
    assert synced.exit_code == 0, synced.output
    assert json.loads(synced.stdout) | {"seconds": 0} == {
        "collection": "big-docs",
        "chunks": 3,
        "added": 0,
        "removed": 0,
        "seconds": 0,
    }  # the builder had done it all
    later = runner.invoke(
        app, ["search", "airport", "--retriever", "bm25", "--json", "--store", str(b)], env=env
    )
    assert later.exit_code == 0
    assert Path(json.loads(later.stdout)["results"][0]["file"]).name == "buses.md"
    asked = runner.invoke(
        app, ["ask", "When does the airport bus run?", "--json", "--store", str(b)], env=env
    )
    run = json.loads(asked.stdout)["trace_id"]
    shown = runner.invoke(app, ["trace", run, "--json", "--store", str(b)], env=env)
    step = next(s for s in json.loads(shown.stdout)["steps"] if s["name"] == "retrieve")
    assert "retriever" not in step["details"] and "dense only" not in step["decision"], step


@pytest.mark.server
def test_warm_searches_on_a_server_count_the_collection_once_and_see_new_chunks(
    chroma_url, tmp_path
):
    """Counting a collection is a scan on the server (0.2-0.3 s at a million chunks) and a
    warm search counted it three times: a server's count is now kept for a while, and a
    change another machine logged is still seen at the next search."""
    from ragcli import service
    from ragcli.config import load_settings

    docs = ferries_and_trains(tmp_path)
    proxy = TokenGuard(chroma_url, None)
    try:
        env = {"RAGCLI_STORE__URL": proxy.url, "RAGCLI_STORE__COLLECTION": "counted-docs"}
        a = ["--store", str(tmp_path / "a")]
        assert runner.invoke(app, ["ingest", str(docs), *a], env=env).exit_code == 0
        settings = load_settings(
            None,
            {
                "store.path": str(tmp_path / "b"),
                "store.url": proxy.url,
                "store.collection": "counted-docs",
                "llm.provider": "extractive",
            },
            environ={},
        )
        warm = service.Resources(settings)
        proxy.seen.clear()
        for query in ["night ferry", "sleeper train", "platform", "ferry", "train"]:
            assert service.search(settings, query, resources=warm).results
        counts = [path for _, path, _ in proxy.seen if path.split("?")[0].endswith("/count")]
        assert len(counts) == 1, counts

        (docs / "buses.md").write_text("# Buses\nThe airport bus runs every 20 minutes.\n")
        assert runner.invoke(app, ["ingest", str(docs), *a], env=env).exit_code == 0
        found = service.search(settings, "airport bus", resources=warm, mode="bm25")
        assert [Path(r.file).name for r in found.results] == ["buses.md"]
    finally:
        proxy.close()
