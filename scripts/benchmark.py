"""Performance of ragcli on the SciFact corpus, measured in one run.

    .venv/bin/python scripts/benchmark.py            # the full corpus (about 10 minutes here)
    .venv/bin/python scripts/benchmark.py --quick    # 500 abstracts, a fast check
    .venv/bin/python scripts/benchmark.py --json     # the same numbers as JSON

Rows (--engine adds ingest through a real embedding engine against a bare client of it,
scripts/bench_engine.py): raw embedding throughput (sentence-transformers and ONNX, the
same chunks, and ONNX
with `embedding.precision: int8` against fp32); `ragcli ingest` of long Markdown files (the
repository's README and docs/, repeated) against raw ONNX on the same chunk texts;
`ragcli ingest`, `ragcli eval`'s write of the same abstracts as a BEIR corpus (through the
same ingest path) and re-ingest in a subprocess; process wall times (median of --repeats);
in-process retrieval latency; per mode in the MODES registry, model calls, sequential
round trips and wall time against a stub OpenAI-compatible server that answers after
300 ms; and the warm MCP server's `search` and `ask` latency through the official client,
beside a cold `ragcli ask` process; and `ragcli chat`'s turns after the first (standard,
extractive, the sample corpus) driven through a pseudo-terminal. Targets are printed
beside the measured ratios with PASS or FAIL.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))  # its sibling modules

# The rows' pieces, kept beside it (each module under 700 lines); the names tests and
# scripts/compare_ingest.py read from here stay importable from here.
from benchmark_rows import (  # noqa: E402
    CHAT_ROW,
    CHAT_TARGET_MS,
    RENAMES,
    SERVE_CALLS,
    chat_row,
    document_rows,
    engine_row,
    eval_write_row,
    int8_row,
    long_markdown_corpus,
    long_markdown_row,
    mode_rows,
    rename_row,
    serve_rows,
    stale_check_row,
    support_check_row,
)
from benchmark_support import (  # noqa: E402
    DEFAULT_DATA,
    HELP_TARGET,
    INGEST_TARGET,
    QUICK_LIMIT,
    STUB_DELAY,
    Row,
    Timing,
    chunk_corpus,
    clean_env,
    embed_throughput,
    load_dataset,
    median_timing,
    percentile,
    ragcli_command,
    run_timed,
    skipped,
    throughput_text,
    write_corpus,
)

__all__ = [
    "CHAT_ROW",
    "DEFAULT_DATA",
    "RENAMES",
    "SERVE_CALLS",
    "STUB_DELAY",
    "long_markdown_corpus",
    "ragcli_command",
    "run_timed",
]


def run(args: argparse.Namespace, info: dict[str, Any]) -> list[Row]:
    """Every measurement, in a temporary folder that is removed afterwards."""
    work = Path(tempfile.mkdtemp(prefix="ragcli-bench-"))
    try:
        return measure(args, info, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def measure(args: argparse.Namespace, info: dict[str, Any], work: Path) -> list[Row]:
    rows: list[Row] = []
    say = (lambda msg: None) if args.json else (lambda msg: print(f"… {msg}", file=sys.stderr))
    limit = args.limit or (QUICK_LIMIT if args.quick else None)
    docs, queries = load_dataset(args.data, limit)
    if not queries:
        raise SystemExit(f"benchmark: no queries in {args.data / 'queries.jsonl'}")
    question = queries[0]

    corpus_dir, store = work / "corpus", work / "store"
    write_corpus(docs, corpus_dir)
    texts, token_counts = chunk_corpus(corpus_dir)
    tokens = sum(token_counts)
    info.update(documents=len(docs), chunks=len(texts), tokens=tokens)
    say(f"{len(docs)} abstracts → {len(texts)} chunks, {tokens} tokens")

    # 1. Raw embedding throughput, the same chunks through each backend.
    from ragcli.config import EmbeddingSettings
    from ragcli.embedding.embedder import SentenceTransformerEmbedder, make_embedder

    say("raw ONNX embedding")
    onnx = make_embedder(EmbeddingSettings(), on_export=say)  # exports once if not cached
    raw_onnx = embed_throughput(onnx, texts, tokens)
    sizes = {"chunks": len(texts), "tokens": tokens}
    if args.skip_torch:
        rows.append(skipped("embed", "sentence-transformers (torch)", "--skip-torch"))
    else:
        say("raw sentence-transformers embedding")
        os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")  # no loading bars
        torch_emb = SentenceTransformerEmbedder(EmbeddingSettings().model)
        raw_torch = embed_throughput(torch_emb, texts, tokens)
        rows.append(
            Row(
                "embed",
                "sentence-transformers (torch)",
                throughput_text(raw_torch),
                data=raw_torch | sizes,
            )
        )
    rows.append(
        Row(
            "embed",
            "ONNX Runtime",
            throughput_text(raw_onnx),
            data=raw_onnx | sizes,
        )
    )

    rows.append(int8_row(texts, tokens, raw_onnx, say))

    # 2-3. The real CLI, in a subprocess, on the corpus written as files.
    env = clean_env(work)
    ragcli = ragcli_command()
    rows.append(long_markdown_row(work, env, onnx, args.markdown_copies, say))
    if args.engine:
        rows.append(engine_row(corpus_dir, texts, work, env, say))
    ingest_cmd = [*ragcli, "ingest", str(corpus_dir), "--store", str(store), "--json"]
    say("ragcli ingest")
    first_s, out, first_cpu = run_timed(ingest_cmd, work, env)
    report = json.loads(out)
    added = report["chunks_added"]
    ingest_rate = added / first_s
    ratio = ingest_rate / raw_onnx["chunks_per_s"]
    rows.append(
        Row(
            "ingest",
            "ragcli ingest (process wall)",
            f"{ingest_rate:.1f} chunks/s ({added} chunks in {first_s:.1f} s) "
            f"= {ratio:.2f} × raw ONNX",
            f"≥ {INGEST_TARGET} × raw ONNX",
            ratio >= INGEST_TARGET,
            {
                "seconds": round(first_s, 2),
                "chunks": added,
                "chunks_per_s": round(ingest_rate, 1),
                "ratio_to_raw_onnx": round(ratio, 3),
                "cpu_seconds": round(first_cpu, 2),
            },
        )
    )
    ingest_t = Timing(first_s, first_cpu)
    rows.append(eval_write_row(docs, question, work, env, ingest_t, added, raw_onnx, say))
    say("ragcli ingest (unchanged)")
    again_s, out, _ = run_timed(ingest_cmd, work, env)
    re_added = json.loads(out)["chunks_added"]
    re_ratio = again_s / first_s
    rows.append(
        Row(
            "ingest",
            "re-ingest, unchanged corpus",
            f"{again_s:.2f} s, {re_added} chunks embedded = {re_ratio:.1%} of the first ingest",
            "≤ 5 %",
            re_ratio <= 0.05 and re_added == 0,
            {
                "seconds": round(again_s, 2),
                "chunks": re_added,
                "ratio_to_first": round(re_ratio, 4),
            },
        )
    )

    rows.append(rename_row(docs, len(texts), work, env, say))

    # 4. Process wall time, median of N: what a user waits for each command.
    repeats = args.repeats
    say(f"process wall times (median of {repeats})")
    ask_cmd = [
        *ragcli,
        "ask",
        question,
        "--mode",
        "standard",
        "--llm",
        "extractive",
        "--store",
        str(store),
    ]
    ask_t = median_timing(ask_cmd, work, env, repeats)
    help_t = median_timing([*ragcli, "--help"], work, env, repeats)
    # The floor any Typer + Rich program pays: the interpreter and those two imports.
    floor_t = median_timing([sys.executable, "-c", "import typer, rich"], work, env, repeats)
    trace_t = median_timing([*ragcli, "trace", "--store", str(store)], work, env, repeats)
    help_ratio = help_t.wall / floor_t.wall
    rows.append(
        Row(
            "process",
            "ragcli --help",
            f"{help_t} = {help_ratio:.2f} × `import typer, rich` ({floor_t.wall:.2f} s)",
            f"≤ 0.3 s and ≤ {HELP_TARGET} ×",
            help_t.wall <= 0.3 and help_ratio <= HELP_TARGET,
            {**help_t.data(), "import_floor_seconds": round(floor_t.wall, 3), "ratio": help_ratio},
        )
    )
    rows.append(
        Row(
            "process",
            "ragcli trace",
            str(trace_t),
            "≤ 0.5 s",
            trace_t.wall <= 0.5,
            trace_t.data(),
        )
    )
    if args.skip_torch:
        rows.append(
            Row(
                "process",
                "ragcli ask --mode standard (extractive)",
                str(ask_t),
                data=ask_t.data(),
            )
        )
        rows.append(
            skipped("process", "import sentence-transformers + embed one query", "--skip-torch")
        )
    else:
        st_code = (
            "from sentence_transformers import SentenceTransformer\n"
            "from ragcli.embedding.embedder import bundled_model_dir\n"
            "SentenceTransformer(str(bundled_model_dir()), device='cpu').encode(['a query'])\n"
        )
        st_env = env | {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_VERBOSITY": "error"}
        st_t = median_timing([sys.executable, "-c", st_code], work, st_env, repeats)
        ask_ratio = ask_t.wall / st_t.wall
        rows.append(
            Row(
                "process",
                "ragcli ask --mode standard (extractive)",
                f"{ask_t} = {ask_ratio:.2f} × the sentence-transformers process",
                "≤ 0.5 ×",
                ask_ratio <= 0.5,
                ask_t.data() | {"ratio_to_st_process": round(ask_ratio, 3)},
            )
        )
        rows.append(
            Row(
                "process",
                "import sentence-transformers + embed one query",
                str(st_t),
                data=st_t.data(),
            )
        )

    # 5. Retrieval latency in process: embed the query, search the collection.
    from ragcli import service
    from ragcli.config import load_settings
    from ragcli.retrieval.retriever import Retriever

    settings = load_settings(None, {"store.path": str(store)}, environ={})
    retriever = Retriever(service.vector_store(settings), onnx, settings.store.collection)
    sample = (queries * (args.queries // max(1, len(queries)) + 1))[: args.queries]
    retriever.search(sample[0], settings.retrieval.top_k)  # warm up
    latencies = []
    for query in sample:
        started = time.perf_counter()
        retriever.search(query, settings.retrieval.top_k)
        latencies.append((time.perf_counter() - started) * 1000)
    p50, p95 = percentile(latencies, 0.5), percentile(latencies, 0.95)
    rows.append(
        Row(
            "retrieval",
            f"latency over {len(sample)} queries (top {settings.retrieval.top_k})",
            f"p50 {p50:.1f} ms, p95 {p95:.1f} ms",
            data={"queries": len(sample), "p50_ms": round(p50, 2), "p95_ms": round(p95, 2)},
        )
    )

    rows.append(stale_check_row(work / "rename-store", say))
    rows.append(support_check_row(docs, onnx, say))

    # 6. Each registered mode against a model that answers after 300 ms.
    rows.extend(mode_rows(store, question, say, args.skip_modes))

    # 7. Documents: OCR against Tesseract alone, Office ingest against raw ONNX.
    if args.skip_documents:
        rows.append(skipped("documents", "OCR and Office ingest", "--skip-documents"))
    else:
        rows.extend(document_rows(docs, work, env, onnx, say, args.ocr_pages))

    # 8. The MCP server, warm, through the official client over stdio.
    if args.skip_serve:
        rows.append(skipped("serve", "ragcli serve (MCP, stdio)", "--skip-serve"))
    else:
        say("ragcli serve through an MCP client")
        rows.extend(serve_rows(ragcli, store, work, env, sample, ask_t))

    # 9. `ragcli chat` through a pseudo-terminal: the turns after the first, warm.
    if args.skip_chat:
        rows.append(skipped("chat", CHAT_ROW, "--skip-chat", f"p95 ≤ {CHAT_TARGET_MS} ms"))
    else:
        say("ragcli chat through a pseudo-terminal")
        rows.append(chat_row(work, env, args.chat_turns))
    return rows


def machine() -> dict[str, Any]:
    cpu = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    ram_gib = None
    try:
        pages = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
        ram_gib = round(pages / 2**30, 1)
    except (ValueError, OSError):
        pass
    return {
        "load_average_1min": round(os.getloadavg()[0], 1),
        "nproc": os.cpu_count(),
        "cpu": cpu,
        "ram_gib": ram_gib,
        "python": sys.version.split()[0],
    }


SECTIONS = {
    "embed": "1. raw embedding, the same chunks",
    "ingest": "2-3. ragcli ingest (and eval's corpus write)",
    "process": "4. process wall time",
    "retrieval": "5. retrieval, in process",
    "answers": "5. answers: the sentence-support check",
    "modes": f"6. modes, stub model answering after {STUB_DELAY * 1000:.0f} ms",
    "documents": "7. documents: OCR and Office files",
    "serve": "8. ragcli serve, warm, through an MCP client (stdio)",
    "chat": "9. ragcli chat, warm, through a pseudo-terminal (sample corpus)",
}


def print_table(rows: list[Row], info: dict[str, Any]) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title="ragcli benchmark", title_justify="left")
    table.add_column("", no_wrap=True)
    table.add_column("measured")
    table.add_column("target", no_wrap=True)
    table.add_column("", no_wrap=True)
    section = None
    for row in rows:
        if row.section != section:
            section = row.section
            table.add_row(f"[bold]{SECTIONS[section]}[/]", "", "", "")
        verdict = {True: "[green]PASS[/]", False: "[red]FAIL[/]", None: ""}[row.passed]
        table.add_row(f"  {row.name}", row.value, row.target, verdict)
    console = Console(width=max(150, Console().width))
    console.print(table)
    console.print(
        f"machine: {info['nproc']} CPUs ({info['cpu']}), {info['ram_gib']} GiB RAM, "
        f"Python {info['python']}; {info['documents']} abstracts, {info['chunks']} chunks; "
        f"all rows from one run of {info['seconds']} s; 1-minute load average "
        f"{info['load_average_1min']} at the start, {info.get('load_average_end', '?')} at the end"
    )


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--data",
        type=Path,
        default=DEFAULT_DATA,
        help=f"BEIR-format SciFact folder (default {DEFAULT_DATA})",
    )
    parser.add_argument(
        "--quick", action="store_true", help=f"the first {QUICK_LIMIT} abstracts only"
    )
    parser.add_argument("--limit", type=int, help="the first N abstracts only")
    parser.add_argument(
        "--repeats",
        type=int,
        default=5,
        help="runs per process timing; the median is shown (default 5)",
    )
    parser.add_argument(
        "--queries", type=int, default=100, help="queries for the retrieval latency (default 100)"
    )
    parser.add_argument(
        "--skip-torch",
        action="store_true",
        help="skip the sentence-transformers rows (they import torch)",
    )
    parser.add_argument("--skip-modes", action="store_true", help="skip the per-mode rows")
    parser.add_argument(
        "--skip-documents", action="store_true", help="skip the OCR and Office ingest rows"
    )
    parser.add_argument(
        "--ocr-pages", type=int, default=10, help="scanned pages for the OCR row (default 10)"
    )
    parser.add_argument("--skip-serve", action="store_true", help="skip the MCP server rows")
    parser.add_argument("--skip-chat", action="store_true", help="skip the `ragcli chat` row")
    parser.add_argument(
        "--chat-turns", type=int, default=20, help="timed chat turns after the first (default 20)"
    )
    parser.add_argument(
        "--markdown-copies",
        type=int,
        default=8,
        help="copies of README + docs/ in the long-Markdown ingest row (default 8)",
    )
    parser.add_argument(
        "--engine",
        action="store_true",
        help="add the row of ingest through a real embedding engine (Infinity, made by "
        "scripts/install_infinity.sh) against a bare client of it",
    )
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = parser.parse_args(argv)
    if not args.data.is_dir():
        parser.error(f"--data {args.data}: no such folder (the SciFact corpus in BEIR format)")
    if args.repeats < 1 or args.queries < 1 or (args.limit is not None and args.limit < 1):
        parser.error("--repeats, --queries and --limit must be at least 1")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    started = time.perf_counter()
    info = machine()
    rows = run(args, info)
    info["seconds"] = round(time.perf_counter() - started)
    info["load_average_end"] = round(os.getloadavg()[0], 1)
    if args.json:
        print(json.dumps({"machine": info, "rows": [r.to_dict() for r in rows]}, indent=2))
    else:
        print_table(rows, info)
    failed = [r for r in rows if r.passed is False]
    for row in failed:
        print(f"FAILED: {row.name}: {row.value} (target {row.target})", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
