"""The curve to a million chunks: stores of growing size, on this machine and on a Chroma
server the script starts, and at each size what a user waits for.

    .venv/bin/python scripts/scale.py                           # 10k and 100k, local and server
    .venv/bin/python scripts/scale.py --sizes 1000000 --where local
    .venv/bin/python scripts/scale.py --json                    # the same figures as JSON

Corpus: SciFact abstracts (../shared/eval/scifact), public text, cut into passages of about
120 words, ten passages (one chunk each) per Markdown file, every passage made unique by a
marker. Vectors: a fast path that skips the model (a hash of each text seeds a random unit
vector; said in the output), since a million chunks through the model take a night here and
embedding throughput is measured elsewhere (scripts/benchmark.py, scripts/bench_engine.py).
Questions are embedded by the real model, so search and ask cost what they cost a user.

Per store: the build, size on disk, the BM25 index's build (from the stored texts, as a
second machine's first ask does) and load, warm `search` and `ask` p50/p95 through `ragcli
serve` (the official MCP client, stdio) with the server's resident memory, a cold `ragcli
ask` process, an unchanged re-ingest and one with a file changed, `status` and `sources`;
on a server also a machine that never ingested: its first ask, how long after it its BM25
index is ready (`ragcli sync` waits for the builder that ask started), and a later ask.

    .venv/bin/python scripts/scale.py --sizes 1000000 --where shared --work /work/scale

`shared` serves a copy of a local store's Chroma data (kept with --work) through `chroma
run` and measures that machine-new-to-the-server at sizes too slow to build twice.
"""

from __future__ import annotations

import argparse
import asyncio
import gzip
import hashlib
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

PASSAGE_WORDS = 120
PASSAGES_PER_FILE = 10
FILES_PER_FOLDER = 1000
DIMENSION = 384
CALLS = 30  # timed calls per tool through serve, after one warm-up of each
COLLECTION = "scale"
QUESTIONS = [
    "What is the effect of vitamin D on bone density?",
    "How does insulin resistance develop in obesity?",
    "Which genes are associated with breast cancer risk?",
    "What role do T cells play in autoimmune disease?",
    "Does aspirin reduce the risk of heart attack?",
    "How do microRNAs regulate gene expression?",
    "What causes antibiotic resistance in bacteria?",
    "Is smoking linked to lung cancer mortality?",
    "How does the gut microbiome affect immunity?",
    "What is the function of p53 in tumour suppression?",
]


def shared_eval() -> Path:
    for parent in REPO.parents:
        if (parent / "shared" / "eval" / "scifact").is_dir():
            return parent / "shared" / "eval" / "scifact"
    raise SystemExit("scale: ../shared/eval/scifact not found")


def passages(corpus: Path) -> list[str]:
    """A BEIR corpus's texts (SciFact's abstracts) cut into passages of about
    PASSAGE_WORDS words."""
    out = []
    with gzip.open(corpus, "rt", encoding="utf-8") as lines:
        for line in lines:
            words = json.loads(line)["text"].split()
            for start in range(0, len(words) - 40, PASSAGE_WORDS):
                out.append(" ".join(words[start : start + PASSAGE_WORDS]))
    return out


def write_corpus(folder: Path, chunks: int, corpus: Path) -> int:
    """Markdown files of PASSAGES_PER_FILE sections each; returns the files written."""
    texts = passages(corpus)
    files = max(1, chunks // PASSAGES_PER_FILE)
    for number in range(files):
        sections = []
        for k in range(PASSAGES_PER_FILE):
            n = number * PASSAGES_PER_FILE + k
            sections.append(f"## Record {n}\n\n{texts[n % len(texts)]} Marker r{n:07d}.\n")
        path = folder / f"part-{number // FILES_PER_FOLDER:04d}" / f"doc-{number:06d}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"# Document {number}\n\n" + "\n".join(sections), encoding="utf-8")
    return files


class HashVectors:
    """The fast path: a unit vector seeded by each text's hash, in the place of the model.
    It takes the bundled model's identity, so that the real model may query the store."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.precision = "fp32"
        self.dimension = DIMENSION
        self.batch_size = 1024
        self.embedded = 0

    def embed(self, texts: list[str]) -> np.ndarray:
        out = np.empty((len(texts), DIMENSION), dtype=np.float32)
        for row, text in enumerate(texts):
            seed = int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "big")
            vector = np.random.default_rng(seed).standard_normal(DIMENSION)
            out[row] = vector / np.linalg.norm(vector)
        self.embedded += len(texts)
        return out


@dataclass
class Figures:
    """One store's figures; None where not measured (shown as –)."""

    size: int
    where: str
    files: int = 0
    chunks: int = 0
    build_s: float | None = None
    disk_mb: float | None = None
    lexical_build_s: float | None = None
    lexical_load_s: float | None = None
    search_p50_ms: float | None = None
    search_p95_ms: float | None = None
    ask_p50_ms: float | None = None
    ask_p95_ms: float | None = None
    serve_rss_mb: float | None = None
    cold_ask_s: float | None = None
    reingest_s: float | None = None
    changed_reingest_s: float | None = None
    status_s: float | None = None
    sources_s: float | None = None
    second_first_ask_s: float | None = None
    second_index_ready_s: float | None = None
    second_later_ask_s: float | None = None
    notes: list[str] = field(default_factory=list)


def env_for(store: Path, url: str | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAGCLI_")}
    env |= {
        "RAGCLI_STORE": str(store),
        "RAGCLI_STORE__PATH": str(store),
        "RAGCLI_STORE__COLLECTION": COLLECTION,
        "RAGCLI_LLM__PROVIDER": "extractive",
        "PYTHONPATH": str(REPO),
    }
    if url:
        env["RAGCLI_STORE__URL"] = url
    return env


def timed_run(args: list[str], env: dict[str, str], cwd: Path) -> float:
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "ragcli", *args],
        env=env,
        cwd=cwd,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    seconds = time.perf_counter() - started
    if done.returncode not in (0, 5):
        raise SystemExit(f"scale: ragcli {' '.join(args)} failed: {done.stderr.strip()[-400:]}")
    return seconds


def build(docs: Path, store: Path, url: str | None) -> float:
    """Ingest `docs` in this process through ragcli's own ingest, vectors from HashVectors."""
    from ragcli import service
    from ragcli.config import load_settings

    here = Path.cwd()
    os.chdir(docs.parent)  # no config.yaml there: the defaults, as the timed commands see
    try:
        settings = load_settings(None, environ=env_for(store, url))
        writer = service.ingestor(settings, emb=HashVectors(settings.embedding.model))
        started = time.perf_counter()
        writer.run([docs], COLLECTION)
        seconds = time.perf_counter() - started
        writer.manifest.close()
    finally:
        os.chdir(here)
    return seconds


def lexical_timings(store: Path, url: str | None, work: Path) -> tuple[float, float]:
    """Seconds to build the BM25 index from the stored texts into a fresh directory (what a
    machine new to a server does once), and to load the saved one and answer a query."""
    from ragcli.bm25.sync import LexicalIndexes
    from ragcli.store.vectors import ChromaServer, VectorStore

    vectors = VectorStore(store, ChromaServer(url) if url else None)
    fresh = work / "lexical-build"
    shutil.rmtree(fresh, ignore_errors=True)
    started = time.perf_counter()
    indexes = LexicalIndexes(fresh)
    indexes.reconcile(COLLECTION, vectors)
    indexes.index(COLLECTION).save()
    built = time.perf_counter() - started
    shutil.rmtree(fresh, ignore_errors=True)
    return built, lexical_load_s(store)


def lexical_load_s(store: Path) -> float:
    """Seconds to load a store's saved BM25 index and answer a query with it."""
    from ragcli.bm25.index import LexicalIndex
    from ragcli.bm25.sync import lexical_dir

    started = time.perf_counter()
    LexicalIndex(lexical_dir(store, COLLECTION)).search(QUESTIONS[0], 10)
    return time.perf_counter() - started


def recorder(figures: Figures, say):
    """Keep and show each figure as it comes: a long run stopped midway still leaves what
    it measured in its log."""

    def record(**values: float) -> None:
        for key, value in values.items():
            setattr(figures, key, value)
            say(f"{figures.size:,} chunks, {figures.where}: {key} = {value:.3f}")

    return record


def serve_timings(env: dict[str, str], work: Path) -> dict[str, float]:
    """search and ask p50/p95 through `ragcli serve` and its resident memory after them."""
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(
        command=sys.executable, args=["-m", "ragcli", "serve"], env=env, cwd=str(work)
    )
    asked = (QUESTIONS * (CALLS // len(QUESTIONS) + 1))[:CALLS]

    async def timed(client: Any, tool: str, arguments: dict[str, Any]) -> float:
        started = time.perf_counter()
        result = await client.call_tool(tool, arguments)
        if result.is_error:
            raise SystemExit(f"scale: MCP {tool} failed: {result.content[0].text}")
        return (time.perf_counter() - started) * 1000

    async def session() -> dict[str, float]:
        with open(work / "serve.log", "w") as log:
            async with Client(stdio_client(params, errlog=log)) as client:
                await timed(client, "search", {"query": asked[0]})
                await timed(client, "ask", {"question": asked[0]})
                search = [await timed(client, "search", {"query": q}) for q in asked]
                ask = [await timed(client, "ask", {"question": q}) for q in asked]
                rss = serve_rss()
        return {
            "search_p50_ms": percentile(search, 0.5),
            "search_p95_ms": percentile(search, 0.95),
            "ask_p50_ms": percentile(ask, 0.5),
            "ask_p95_ms": percentile(ask, 0.95),
            "serve_rss_mb": rss,
        }

    return asyncio.run(session())


def serve_rss() -> float:
    """Resident memory (MB) of this process's `ragcli serve` child."""
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            fields = dict(
                line.split(":", 1) for line in status.read_text().splitlines() if ":" in line
            )
            cmdline = (status.parent / "cmdline").read_bytes().replace(b"\0", b" ")
        except OSError:
            continue
        if int(fields["PPid"]) == os.getpid() and b"ragcli serve" in cmdline:
            return int(fields["VmRSS"].split()[0]) / 1024
    return float("nan")


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def disk_mb(*paths: Path) -> float:
    total = 0
    for path in paths:
        for entry in path.rglob("*"):
            if entry.is_file() and not entry.is_symlink():
                total += entry.stat().st_blocks * 512
    return total / 2**20


class ChromaRun:
    """`chroma run` on 127.0.0.1 with its data in `data`."""

    def __init__(self, data: Path) -> None:
        # The virtualenv running this script has chromadb, so its `chroma` (not on PATH
        # when the venv is not activated, nor at REPO/.venv in a worktree).
        chroma = str(Path(sys.executable).parent / "chroma")
        if not Path(chroma).exists():
            chroma = shutil.which("chroma") or str(REPO / ".venv" / "bin" / "chroma")
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        self.data = data
        self.url = f"http://127.0.0.1:{port}"
        self.process = subprocess.Popen(
            [chroma, "run", "--path", str(data), "--host", "127.0.0.1", "--port", str(port)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"{self.url}/api/v2/heartbeat", timeout=1):
                    return
            except OSError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit("scale: chroma run did not start") from None
                time.sleep(0.3)

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=60)


def measure_shared(size: int, work: Path, say) -> Figures:
    """The local store's Chroma data, copied and served by `chroma run`, asked by a machine
    that never ingested: the 1M server figures without a second multi-hour build (Chroma
    server and local mode keep the same files). Build and re-ingest figures are the local
    store's."""
    figures = Figures(size, "shared")
    record = recorder(figures, say)
    local = work / "store-local"
    if not (local / "scale-build.json").is_file():
        raise SystemExit(f"scale: --where shared serves the local store: build {local} first")
    data = work / "chroma-from-local"
    if not data.is_dir():
        say(f"{size:,} chunks, shared: copying the local store's Chroma data")
        shutil.copytree(local / "chroma", data)
    server = ChromaRun(data)
    machine = work / "store-second-machine"
    shutil.rmtree(machine, ignore_errors=True)  # a machine new to the server, every run
    env = env_for(machine, server.url)
    try:
        from ragcli.store.vectors import ChromaServer, VectorStore

        figures.chunks = VectorStore(machine, ChromaServer(server.url)).count(COLLECTION)
        record(disk_mb=disk_mb(data))
        record(second_first_ask_s=timed_run(["ask", QUESTIONS[2]], env, work))
        record(second_index_ready_s=timed_run(["sync"], env, work))
        record(second_later_ask_s=timed_run(["ask", QUESTIONS[3]], env, work))
        record(cold_ask_s=timed_run(["ask", QUESTIONS[1]], env, work))
        say(f"{size:,} chunks, shared: serve")
        record(**serve_timings(env, work))
        record(status_s=timed_run(["status"], env, work))  # `sources` lists what it ingested
        record(lexical_load_s=lexical_load_s(machine))
    finally:
        server.stop()
    return figures


def measure(size: int, where: str, work: Path, corpus: Path, say) -> Figures:
    if where == "shared":
        return measure_shared(size, work, say)
    figures = Figures(size, where)
    record = recorder(figures, say)
    docs = work / "docs"
    if not docs.is_dir():
        say(f"{size:,} chunks: writing the corpus")
        write_corpus(docs, size, corpus)
    figures.files = sum(1 for _ in docs.rglob("*.md"))
    store = work / f"store-{where}"
    server = ChromaRun(work / "chroma-server") if where == "server" else None
    url = server.url if server else None
    try:
        built = store / "scale-build.json"  # a store kept with --work is measured again
        if built.is_file():
            say(f"{size:,} chunks, {where}: reusing the store built earlier")
            figures.build_s = json.loads(built.read_text())["build_s"]
        else:
            say(f"{size:,} chunks, {where}: building (fast-path vectors)")
            figures.build_s = build(docs, store, url)
            built.write_text(json.dumps({"build_s": figures.build_s}))
        env = env_for(store, url)
        from ragcli.store.vectors import ChromaServer, VectorStore

        figures.chunks = VectorStore(store, ChromaServer(url) if url else None).count(COLLECTION)
        places = [store] + ([server.data] if server else [])
        record(disk_mb=disk_mb(*places))
        # The targets first (serve, cold ask, unchanged re-ingest), the slow builds last.
        say(f"{size:,} chunks, {where}: serve")
        record(**serve_timings(env, work))
        record(cold_ask_s=timed_run(["ask", QUESTIONS[1]], env, work))
        record(reingest_s=timed_run(["ingest", str(docs)], env, work))
        record(status_s=timed_run(["status"], env, work))
        record(sources_s=timed_run(["sources"], env, work))
        if url:
            other = env_for(work / "store-second-machine", url)
            record(second_first_ask_s=timed_run(["ask", QUESTIONS[2]], other, work))
            # Above lexical_build.FOREGROUND_CHUNKS the first ask left a builder running:
            # `ragcli sync` waits for it (or builds, below).
            record(second_index_ready_s=timed_run(["sync"], other, work))
            record(second_later_ask_s=timed_run(["ask", QUESTIONS[3]], other, work))
        changed = next(docs.rglob("*.md"))
        original = changed.read_text(encoding="utf-8")
        changed.write_text(original + f"\nEdited for the {where} store.\n", encoding="utf-8")
        record(changed_reingest_s=timed_run(["ingest", str(docs)], env, work))
        changed.write_text(original, encoding="utf-8")  # the next store finds it as it was
        say(f"{size:,} chunks, {where}: BM25 build and load")
        built_s, load_s = lexical_timings(store, url, work)
        record(lexical_build_s=built_s, lexical_load_s=load_s)
    finally:
        if server:
            server.stop()
    return figures


COLUMNS = [
    ("chunks", "chunks", "{:,.0f}"),
    ("where", "store", "{}"),
    ("build_s", "build (fast path) s", "{:.0f}"),
    ("disk_mb", "disk MB", "{:,.0f}"),
    ("lexical_build_s", "BM25 build s", "{:.1f}"),
    ("lexical_load_s", "BM25 load s", "{:.2f}"),
    ("search_p50_ms", "search p50 ms", "{:.0f}"),
    ("search_p95_ms", "search p95 ms", "{:.0f}"),
    ("ask_p50_ms", "ask p50 ms", "{:.0f}"),
    ("ask_p95_ms", "ask p95 ms", "{:.0f}"),
    ("serve_rss_mb", "serve RSS MB", "{:,.0f}"),
    ("cold_ask_s", "cold ask s", "{:.1f}"),
    ("reingest_s", "unchanged re-ingest s", "{:.1f}"),
    ("changed_reingest_s", "re-ingest, 1 file changed s", "{:.1f}"),
    ("status_s", "status s", "{:.1f}"),
    ("sources_s", "sources s", "{:.1f}"),
    ("second_first_ask_s", "2nd machine: 1st ask s", "{:.1f}"),
    ("second_index_ready_s", "2nd machine: BM25 ready after s", "{:.1f}"),
    ("second_later_ask_s", "2nd machine: later ask s", "{:.1f}"),
]


def table(rows: list[Figures]) -> str:
    lines = ["| " + " | ".join(title for _, title, _ in COLUMNS) + " |"]
    lines.append("|" + "---|" * len(COLUMNS))
    for row in rows:
        cells = []
        for key, _, fmt in COLUMNS:
            value = getattr(row, key)
            cells.append("–" if value is None else fmt.format(value))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="10000,100000", help="chunks per store, comma-separated")
    parser.add_argument(
        "--where",
        default="local,server",
        help="local, server (each built), shared (the local store's data on a server)",
    )
    parser.add_argument(
        "--work", type=Path, help="keep the stores here, and measure again those it holds"
    )
    parser.add_argument("--corpus", type=Path, help="a BEIR corpus.jsonl.gz (default: SciFact's)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    places = [w.strip() for w in args.where.split(",")]

    def say(text: str) -> None:
        print(f"[{time.strftime('%H:%M:%S')}] {text}", file=sys.stderr, flush=True)

    rows = []
    root = args.work or Path(tempfile.mkdtemp(prefix="ragcli-scale-"))
    try:
        for size in sizes:
            for where in places:
                work = root / f"{size}"
                work.mkdir(parents=True, exist_ok=True)
                corpus = args.corpus or shared_eval() / "corpus.jsonl.gz"
                rows.append(measure(size, where, work, corpus, say))
                say(json.dumps(asdict(rows[-1])))
    finally:
        if args.work is None:
            shutil.rmtree(root, ignore_errors=True)
    if args.json:
        print(json.dumps([asdict(r) for r in rows], indent=2))
    else:
        print(table(rows))


if __name__ == "__main__":
    main()
