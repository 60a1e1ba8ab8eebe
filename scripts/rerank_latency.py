"""What a reranker adds to an `ask`, measured in one run: the same questions asked over
the same store without a reranker and with one, each in a warm process (the store, the
embedder and the reranker loaded once, as `serve` and `chat` keep them), in turns, so a
busy machine slows both alike; the first reranked ask's extra (the model's load) apart.

    .venv/bin/python scripts/rerank_latency.py                      # the test cross-encoder
    .venv/bin/python scripts/rerank_latency.py --model FOLDER --candidates 30 --json

Without --model it builds the tests' cross-encoder (tests/support/rerankers.py: the
bundled encoder under a random head; a real reranker of that size, such as
ms-marco-MiniLM-L6-v2, costs the same per candidate). The store is the sample corpus,
ingested into a temporary folder; the questions are its FAQ's."""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ragcli import service  # noqa: E402
from ragcli.config import Settings, load_settings  # noqa: E402


def questions() -> list[str]:
    import yaml

    data = yaml.safe_load((ROOT / "sample_corpus" / "faq" / "faq.yaml").read_text())
    pairs = data["pairs"] if isinstance(data, dict) else data
    return [pair["question"] for pair in pairs]


def timed_asks(runs: dict[str, Settings], asked: list[str], mode: str) -> dict[str, list[float]]:
    """Seconds per ask of each named settings, the questions asked in turns by each (a
    warm process apiece), so a machine busy for a while slows both alike."""
    warm = {name: service.Resources(settings) for name, settings in runs.items()}
    seconds: dict[str, list[float]] = {name: [] for name in runs}
    for question in asked:
        for name, settings in runs.items():
            started = time.perf_counter()
            service.ask(settings, question, mode, resources=warm[name])
            seconds[name].append(time.perf_counter() - started)
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", help="a cross-encoder folder (default: the tests' one)")
    parser.add_argument("--candidates", type=int, default=30)
    parser.add_argument("--questions", type=int, default=12)
    parser.add_argument("--mode", default="standard")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        model = args.model
        if model is None:
            from tests.support.rerankers import build_cross_encoder

            model = str(build_cross_encoder(Path(scratch) / "cross-encoder"))
        store = Path(scratch) / "store"
        plain = load_settings(None, {"store.path": str(store)}, environ={})
        service.ingestor(plain).run([ROOT / "sample_corpus"], "docs")
        reranked = load_settings(
            None,
            {
                "store.path": str(store),
                "retrieval.rerank.provider": "cross-encoder",
                "retrieval.rerank.model": model,
                "retrieval.rerank.candidates": args.candidates,
            },
            environ={},
        )
        asked = questions()[: args.questions + 1]
        seconds = timed_asks({"none": plain, "rerank": reranked}, asked, args.mode)
    (first_without, *without), (first_with, *with_rerank) = seconds["none"], seconds["rerank"]
    none_ms = statistics.median(without) * 1000
    rerank_ms = statistics.median(with_rerank) * 1000
    report = {
        "mode": args.mode,
        "questions": len(without),
        "candidates": args.candidates,
        "model": args.model or "tests' cross-encoder (all-MiniLM-L6-v2 encoder, random head)",
        "ask_ms_without": round(none_ms, 1),
        "ask_ms_with": round(rerank_ms, 1),
        "ratio": round(rerank_ms / none_ms, 2),
        "added_ms": round(rerank_ms - none_ms, 1),
        "first_ask_extra_ms": round((first_with - first_without) * 1000, 1),
    }
    if args.json:
        print(json.dumps(report, indent=2))
        return
    print(
        f"{args.mode}, {report['questions']} warm asks each, cross-encoder over "
        f"{args.candidates} candidates:\n"
        f"  without a reranker  {none_ms:8.0f} ms median\n"
        f"  with it             {rerank_ms:8.0f} ms median  (x{report['ratio']}, "
        f"+{report['added_ms']:.0f} ms)\n"
        f"  the first reranked ask also loads the model: +{report['first_ask_extra_ms']:.0f} ms"
    )


if __name__ == "__main__":
    main()
