"""`ragcli serve`, driven by the official MCP client as an agent would: over stdio (the
server a subprocess) and over streamable HTTP on 127.0.0.1. What the agent sees: the
tools with their input and output schemas, structured results, filters, errors as tool
errors (the server keeps serving), the bearer token, and 20 concurrent asks while an
ingest runs in another process."""

from __future__ import annotations

import asyncio
import json
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from contextlib import asynccontextmanager
from pathlib import Path
from typing import get_args

import jsonschema
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from ragcli.pipeline.modes.registry import runnable
from ragcli.pipeline.results import json_schema
from ragcli.serve.tools import ModeName
from tests.support.common import SAMPLE
from tests.support.embedding_servers import free_port, wait_listening
from tests.support.storecheck import cli_env, ragcli

MODES = runnable()
QUESTION = "How long is the refund window for annual plans?"
SECRET_KEY = "sk-never-shown-4711"


def stdio_server(store: Path, cwd: Path) -> StdioServerParameters:
    env = cli_env(OPENAI_API_KEY=SECRET_KEY, RAGCLI_LLM__PROVIDER="extractive")
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "ragcli", "serve", "--store", str(store)],
        env=env,
        cwd=str(cwd),
    )


class HttpServer:
    """`ragcli serve --http` in a subprocess, stopped on exit."""

    def __init__(self, store: Path, cwd: Path, *args: str, **env: str):
        self.port = free_port()
        command = [sys.executable, "-m", "ragcli", "serve", "--http", "--port", str(self.port)]
        self.process = subprocess.Popen(
            [*command, "--store", str(store), *args],
            cwd=cwd,
            env=cli_env(**env),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.url = f"http://127.0.0.1:{self.port}/mcp"

    def __enter__(self) -> HttpServer:
        wait_listening(self.process, self.port, 60)
        return self

    def __exit__(self, *exc) -> None:
        self.process.terminate()
        self.process.wait(timeout=30)


@asynccontextmanager
async def http_client(url: str, token: str | None = None):
    headers = {"Authorization": f"Bearer {token}"} if token else None
    async with create_mcp_http_client(headers=headers) as http:
        async with Client(streamable_http_client(url, http_client=http)) as client:
            yield client


def test_mode_names_in_the_schema_are_the_registrys():
    assert list(get_args(ModeName)) == list(MODES)


@pytest.mark.server
def test_over_stdio_each_tool_its_schema_a_filter_and_errors_as_tool_errors(sample_store, tmp_path):
    async def scenario() -> None:
        async with Client(stdio_server(sample_store, tmp_path)) as client:
            tools = {tool.name: tool for tool in (await client.list_tools()).tools}
            assert set(tools) == {"search", "ask", "sources", "trace", "get", "list"}
            for tool in tools.values():
                assert tool.description and tool.output_schema
                assert tool.annotations and tool.annotations.read_only_hint
            ask_in = tools["ask"].input_schema
            assert ask_in["required"] == ["question"]
            assert ask_in["properties"]["mode"]["enum"] == list(MODES)
            search_in = tools["search"].input_schema["properties"]
            assert {"query", "top_k", "retriever", "paths", "types", "since"} <= set(search_in)
            assert set(tools["ask"].output_schema["properties"]) >= {
                "answer",
                "answer_type",
                "sources",
                "trace_id",
            }

            found = await client.call_tool(
                "search", {"query": "back up the server", "types": ["pdf"], "top_k": 3}
            )
            assert not found.is_error
            hits = found.structured_content["results"]
            assert len(hits) == 3 and all(h["file_type"] == "pdf" for h in hits)
            assert all(h["locator"].startswith("page ") for h in hits)  # the PDF's pages
            assert found.structured_content["filters"]["types"] == ["pdf"]

            answered = await client.call_tool("ask", {"question": QUESTION})
            assert not answered.is_error
            result = answered.structured_content
            assert result["answer_type"] == "answer" and "30 days" in result["answer"]
            assert Path(result["sources"][0]["metadata"]["source_file"]).name == (
                "refund_policy.md"
            )
            explained = await client.call_tool("trace", {"trace_id": result["trace_id"][:6]})
            steps = [s["name"] for s in explained.structured_content["steps"]]
            assert explained.structured_content["id"] == result["trace_id"]
            assert steps == ["retrieve", "generate", "support"]

            listed = (await client.call_tool("sources", {"collection": "docs"})).structured_content
            names = {Path(f["path"]).name for f in listed["files"]}
            on_disk = {p.name for p in (SAMPLE / "docs").iterdir()} | {
                p.name for p in (SAMPLE / "policies").iterdir()
            }
            assert names == on_disk  # every document of the sample corpus, nothing else

            # Whole documents: a page of the collection, then one document, cut to size.
            page = (await client.call_tool("list", {"limit": 5})).structured_content
            assert page["total"] == len(on_disk) and len(page["documents"]) == 5
            assert page["next_offset"] == 5 and page["documents"][0]["path"].endswith(".pdf")
            titled = {Path(d["path"]).name: d["title"] for d in page["documents"]}
            assert titled["backups_and_restore.md"]
            doc = await client.call_tool("get", {"path": "refund_policy.md", "start": 7, "end": 17})
            got = doc.structured_content
            assert got["requested"] == "lines 7–17" and got["note"] is None
            assert [s["heading"].split(" > ")[-1] for s in got["sections"]] == [
                "Annual plans",
                "Monthly plans",
            ]
            cut = (
                await client.call_tool("get", {"path": "terms_of_service.md", "max_chars": 1000})
            ).structured_content
            assert cut["shown_chars"] <= 1000 < cut["chars"]
            assert cut["next"].startswith("terms_of_service.md:") and cut["next"] in cut["note"]
            absent = await client.call_tool("get", {"path": "nothing.md"})
            assert absent.is_error and "not an ingested file" in absent.content[0].text

            wrong = await client.call_tool("ask", {"question": QUESTION, "mode": "turbo"})
            assert wrong.is_error
            assert all(name in wrong.content[0].text for name in MODES)
            nothing = await client.call_tool("search", {"query": "x", "paths": ["nowhere/"]})
            assert nothing.is_error and "no ingested file" in nothing.content[0].text
            unknown = await client.call_tool("trace", {"trace_id": "fffffff"})
            assert unknown.is_error and "no run matches 'fffffff'" in unknown.content[0].text
            # Still serving after the errors.
            again = await client.call_tool("search", {"query": "refund", "top_k": 1})
            assert not again.is_error and len(again.structured_content["results"]) == 1

            everything = json.dumps([answered.structured_content, explained.structured_content])
            assert SECRET_KEY not in everything  # keys never reach a client

    asyncio.run(scenario())


@pytest.mark.server
def test_every_structured_result_matches_its_tools_declared_output_schema(sample_store, tmp_path):
    """As a client that checks structured content against the tool's outputSchema (the
    TypeScript SDK, the MCP Inspector) does: every mode of ask, and search, sources and
    trace. ask declares the schema `ragcli schema` publishes."""

    async def scenario() -> None:
        async with Client(stdio_server(sample_store, tmp_path)) as client:
            tools = {tool.name: tool for tool in (await client.list_tools()).tools}
            declared = {name: tool.output_schema for name, tool in tools.items()}

            calls = [("ask", {"question": QUESTION, "mode": mode}) for mode in MODES]
            calls += [("search", {"query": "refund"}), ("sources", {}), ("list", {})]
            calls += [("get", {"path": "admin_guide.pdf", "start": 2, "end": 2})]
            results = []
            for name, arguments in calls:
                result = await client.call_tool(name, arguments)
                assert not result.is_error, (name, arguments, result.content)
                results.append((name, arguments, result.structured_content))
            trace_ids = [content["trace_id"] for name, _, content in results if name == "ask"]
            for trace_id in trace_ids:
                result = await client.call_tool("trace", {"trace_id": trace_id})
                assert not result.is_error, result.content
                results.append(("trace", {"trace_id": trace_id}, result.structured_content))

            rejected = []
            for name, arguments, content in results:
                jsonschema.Draft202012Validator.check_schema(declared[name])
                validator = jsonschema.Draft202012Validator(declared[name])
                rejected += [(name, arguments, e.message) for e in validator.iter_errors(content)]
            assert not rejected

            published = {k: v for k, v in json_schema().items() if k not in ("$schema", "title")}
            assert {k: v for k, v in declared["ask"].items() if k != "title"} == published

    asyncio.run(scenario())


@pytest.mark.server
def test_a_missing_store_is_a_clear_tool_error(tmp_path):
    async def scenario() -> None:
        async with Client(stdio_server(tmp_path / "nowhere", tmp_path)) as client:
            tools = {tool.name for tool in (await client.list_tools()).tools}
            assert tools == {"search", "ask", "sources", "trace", "get", "list"}
            for name, arguments in [("search", {"query": "x"}), ("ask", {"question": "x"})]:
                failed = await client.call_tool(name, arguments)
                assert failed.is_error, name
                assert "run `ragcli ingest PATH` first" in failed.content[0].text
            listed = await client.call_tool("sources", {})
            assert listed.is_error and "no files ingested" in listed.content[0].text

    asyncio.run(scenario())


@pytest.mark.server
def test_http_beyond_this_machine_needs_a_token_and_checks_it(sample_store, tmp_path):
    refused = ragcli(
        "serve",
        "--http",
        "--host",
        "0.0.0.0",
        "--store",
        str(sample_store),
        cwd=tmp_path,
        timeout=60,
    )
    assert refused.returncode == 2
    assert "needs a bearer token" in refused.stderr and "Traceback" not in refused.stderr

    token = "open-sesame-1234"
    with HttpServer(sample_store, tmp_path, "--host", "0.0.0.0", RAGCLI_SERVE_TOKEN=token) as srv:
        import httpx2

        ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
        for headers in ({}, {"Authorization": "Bearer wrong"}):
            answer = httpx2.post(srv.url, json=ping, headers=headers, timeout=10)
            assert answer.status_code == 401

        async def scenario() -> None:
            async with http_client(srv.url, token) as client:
                found = await client.call_tool("search", {"query": "refund", "top_k": 2})
                assert not found.is_error
                text = json.dumps(found.structured_content)
                assert token not in text and len(found.structured_content["results"]) == 2

        asyncio.run(scenario())


@pytest.mark.server
@pytest.mark.timeout(900)  # an ingest of its own in another process, under load
def test_twenty_concurrent_asks_over_http_while_an_ingest_runs(sample_store, tmp_path):
    """Each ask completes with its own trace; afterwards the warm server finds what the
    ingest added (its store and BM25 index follow another process's writes)."""
    extra = tmp_path / "extra"
    extra.mkdir()
    for i in range(80):
        (extra / f"note_{i:02}.md").write_text(
            f"# Lighthouse log {i}\n\nThe keeper of lighthouse {i} logs the quasar "
            f"observations every night. " + "Fog and storms are recorded too. " * 40
        )
    with HttpServer(sample_store, tmp_path) as srv:
        ingest = subprocess.Popen(
            [sys.executable, "-m", "ragcli", "ingest", str(extra), "--store", str(sample_store)],
            cwd=tmp_path,
            env=cli_env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        wait_for_first_batch(sample_store, ingest)

        async def one_ask(i: int) -> dict:
            async with http_client(srv.url) as client:
                answered = await client.call_tool("ask", {"question": f"{QUESTION} ({i})"})
                assert not answered.is_error, answered.content[0].text
                return answered.structured_content

        async def scenario() -> list[dict]:
            return await asyncio.gather(*(one_ask(i) for i in range(20)))

        assert ingest.poll() is None  # the asks start while the ingest writes
        results = asyncio.run(scenario())
        assert ingest.wait(timeout=300) == 0, ingest.stderr.read()
        trace_ids = {r["trace_id"] for r in results}
        assert len(trace_ids) == 20
        assert all(r["answer_type"] == "answer" for r in results)

        async def after() -> None:
            async with http_client(srv.url) as client:
                for trace_id in trace_ids:
                    record = await client.call_tool("trace", {"trace_id": trace_id})
                    assert record.structured_content["question"].startswith(QUESTION)
                for retriever in ("dense", "bm25"):
                    found = await client.call_tool(
                        "search", {"query": "quasar lighthouse keeper", "retriever": retriever}
                    )
                    names = {Path(h["file"]).name for h in found.structured_content["results"]}
                    assert names and all(n.startswith("note_") for n in names), retriever

        asyncio.run(after())


QUESTIONS = (
    QUESTION,
    "How do I restore a backup?",
    "Which port does live sync use?",
    "When do scheduled backups run?",
    "What is the web port?",
    "Can I get a refund on a monthly plan?",
)


def answer_of(content: dict) -> tuple:
    """What an ask answered, without what differs between runs (the trace id, timings)."""
    sources = [(s["metadata"]["chunk_id"], s["score"]) for s in content["sources"]]
    return content["answer"], content["answer_type"], sources


def test_concurrent_asks_answer_as_sequential_ones_do(sample_store, tmp_path):
    """Asks in parallel share the server's warm resources (BM25 indexes, stemming, the
    embedder) across threads; each must answer as it does alone."""
    with HttpServer(sample_store, tmp_path) as srv:

        async def one_ask(question: str) -> tuple:
            async with http_client(srv.url) as client:
                answered = await client.call_tool("ask", {"question": question})
                assert not answered.is_error, answered.content[0].text
                return answer_of(answered.structured_content)

        async def one_at_a_time() -> list[tuple]:
            return [await one_ask(q) for q in QUESTIONS]

        async def in_parallel() -> list[tuple]:
            return list(await asyncio.gather(*(one_ask(q) for q in QUESTIONS * 3)))

        sequential = asyncio.run(one_at_a_time())
        concurrent = asyncio.run(in_parallel())
    assert all(answer for answer, _, _ in sequential)
    assert concurrent == sequential * 3


def wait_for_first_batch(store: Path, ingest: subprocess.Popen) -> None:
    """Until the ingest has stored some of its files (rows in the manifest)."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and ingest.poll() is None:
        db = sqlite3.connect(store / "manifest.sqlite", timeout=5)
        try:
            stored = db.execute("SELECT count(*) FROM files WHERE path LIKE '%note_%'")
            if stored.fetchone()[0]:
                return
        except sqlite3.OperationalError:  # the ingest is creating the table
            pass
        finally:
            db.close()
        time.sleep(0.1)
    raise AssertionError(
        f"the ingest stored nothing: {ingest.stderr.read() if ingest.stderr else ''}"
    )


@pytest.mark.server
def test_host_and_port_without_http_or_a_busy_port_are_one_line_errors(tmp_path):
    lone = ragcli("serve", "--port", "9999", cwd=tmp_path, timeout=60)
    assert lone.returncode == 2 and "--host and --port go with --http" in lone.stderr
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = str(taken.getsockname()[1])
        busy = ragcli("serve", "--http", "--port", port, cwd=tmp_path, timeout=60)
    assert busy.returncode == 2 and f"--port {port}: cannot listen on 127.0.0.1" in busy.stderr
    assert "Traceback" not in busy.stderr and "ragcli MCP server on" not in busy.stderr


@pytest.mark.server
def test_ctrl_c_stops_a_stdio_server_at_once(tmp_path):
    server = subprocess.Popen(
        [sys.executable, "-m", "ragcli", "serve", "--store", str(tmp_path / "s")],
        cwd=tmp_path,
        env=cli_env(),
        stdin=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert "on stdio" in server.stderr.readline()  # serving, reading stdin
    server.send_signal(signal.SIGINT)
    assert server.wait(timeout=10) == 130
