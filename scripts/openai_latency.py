"""What `ragcli serve --openai` adds to an `ask`, measured in one run: the same questions
asked in a warm process (service.ask with warm Resources, as the server keeps them) and
through the endpoint with the official `openai` SDK, in turns, so a busy machine slows both
alike; then streamed, the time to the first content token and to the end.

    .venv/bin/python scripts/openai_latency.py                    # 50 requests, standard
    .venv/bin/python scripts/openai_latency.py --requests 50 --mode auto --json

The store is the sample corpus, ingested into a temporary folder; the questions are its
FAQ's, asked in a cycle. The offline backend answers (no model call), so the figures are
ragcli's own: retrieval, the answer, the support check, the trace, and for the endpoint
HTTP, JSON and the SDK. Two processes on a busy machine differ by more than HTTP costs, so
each request's overhead is also measured within it: its wall time less the run's own time
(`timings_ms.total`, from the question to the checked answer), in process and through the
endpoint; the endpoint adds the difference of their medians."""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ragcli import service  # noqa: E402
from ragcli.config import load_settings  # noqa: E402


def questions() -> list[str]:
    import yaml

    data = yaml.safe_load((ROOT / "sample_corpus" / "faq" / "faq.yaml").read_text())
    pairs = data["pairs"] if isinstance(data, dict) else data
    return [pair["question"] for pair in pairs]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def summary(values: list[float]) -> dict[str, float]:
    return {
        "p50_ms": round(statistics.median(values) * 1000, 1),
        "p95_ms": round(percentile(values, 0.95) * 1000, 1),
    }


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start_server(store: Path, port: int, log: Path) -> subprocess.Popen:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RAGCLI_", "OPENAI_"))}
    env["PYTHONPATH"] = str(ROOT)
    env["RAGCLI_LLM__PROVIDER"] = "extractive"
    command = [sys.executable, "-m", "ragcli", "serve", "--openai", "--port", str(port)]
    process = subprocess.Popen(
        [*command, "--store", str(store)], env=env, stderr=log.open("w"), cwd=store.parent
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return process
        except OSError:
            time.sleep(0.2)
    process.kill()
    raise SystemExit(f"the server did not start: {log.read_text()}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=50)
    parser.add_argument("--mode", default="standard")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    import openai

    asked = [questions()[i % len(questions())] for i in range(args.requests)]
    with tempfile.TemporaryDirectory() as scratch:
        store = Path(scratch) / "store"
        # The settings the server has: no config.yaml (it runs in the scratch folder), no
        # RAGCLI_ variable, the offline backend.
        overrides = {"store.path": str(store), "llm.provider": "extractive"}
        settings = load_settings(Path(os.devnull), overrides, environ={})
        service.ingestor(settings).run([ROOT / "sample_corpus"], "docs")
        service.ingestor(settings).run([ROOT / "sample_corpus" / "faq" / "faq.yaml"], "qna")
        warm = service.Resources(settings)
        port = free_port()
        server = start_server(store, port, Path(scratch) / "serve.log")
        client = openai.OpenAI(base_url=f"http://127.0.0.1:{port}/v1", api_key="x", timeout=300)
        model = f"ragcli-{args.mode}"
        try:
            # Every question once each way first: the models load and the caches (the
            # sentence vectors, the embedder's) fill on nobody's clock.
            for question in dict.fromkeys(asked):
                service.ask(settings, question, args.mode, resources=warm)
                client.chat.completions.create(
                    model=model, messages=[{"role": "user", "content": question}]
                )
            in_process: list[float] = []
            endpoint: list[float] = []
            first_token: list[float] = []
            streamed: list[float] = []
            # wall time less the run's own (seconds): what is around the run
            overhead: dict[str, list[float]] = {"in_process": [], "endpoint": [], "streamed": []}

            def run_seconds(result: dict) -> float:
                return result["timings_ms"]["total"] / 1000

            def local(question: str) -> None:
                began = time.perf_counter()
                result = service.ask(settings, question, args.mode, resources=warm)
                in_process.append(time.perf_counter() - began)
                overhead["in_process"].append(in_process[-1] - result.timings_ms["total"] / 1000)

            def remote(question: str) -> None:
                began = time.perf_counter()
                reply = client.chat.completions.create(
                    model=model, messages=[{"role": "user", "content": question}]
                )
                endpoint.append(time.perf_counter() - began)
                overhead["endpoint"].append(endpoint[-1] - run_seconds(reply.model_extra["ragcli"]))

            def stream(question: str) -> None:
                began = time.perf_counter()
                first = None
                run = None
                for chunk in client.chat.completions.create(
                    model=model, messages=[{"role": "user", "content": question}], stream=True
                ):
                    if first is None and chunk.choices and chunk.choices[0].delta.content:
                        first = time.perf_counter() - began
                    run = (chunk.model_extra or {}).get("ragcli") or run
                streamed.append(time.perf_counter() - began)
                first_token.append(first or streamed[-1])
                overhead["streamed"].append(streamed[-1] - run_seconds(run or {}))

            turns = [local, remote, stream]
            for number, question in enumerate(asked):  # in turns, each first as often
                shift = number % len(turns)
                for measure in turns[shift:] + turns[:shift]:
                    measure(question)
        finally:
            server.terminate()
            server.wait(timeout=30)
    report = {
        "requests": args.requests,
        "mode": args.mode,
        "in_process": summary(in_process),
        "endpoint": summary(endpoint),
        "streamed_first_token": summary(first_token),
        "streamed_total": summary(streamed),
        "added_p50_ms": round(
            (statistics.median(endpoint) - statistics.median(in_process)) * 1000, 1
        ),
        "ratio_p50": round(statistics.median(endpoint) / statistics.median(in_process), 3),
        "overhead": {name: summary(values) for name, values in overhead.items()},
        "added_within_p50_ms": round(
            (statistics.median(overhead["endpoint"]) - statistics.median(overhead["in_process"]))
            * 1000,
            1,
        ),
    }
    if args.json:
        print(json.dumps(report, indent=2))
        return
    print(f"{args.requests} requests, mode {args.mode}, offline backend, sample corpus")
    for name in ("in_process", "endpoint", "streamed_first_token", "streamed_total"):
        row = report[name]
        print(f"  {name:22} p50 {row['p50_ms']:8.1f} ms   p95 {row['p95_ms']:8.1f} ms")
    print(f"  endpoint adds {report['added_p50_ms']} ms at p50 (× {report['ratio_p50']})")
    print("  around the run (wall time less the run's own):")
    for name, row in report["overhead"].items():
        print(f"    {name:20} p50 {row['p50_ms']:8.1f} ms   p95 {row['p95_ms']:8.1f} ms")
    print(f"  endpoint adds {report['added_within_p50_ms']} ms at p50 around the same run")


if __name__ == "__main__":
    main()
