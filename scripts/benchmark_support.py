"""scripts/benchmark.py's shared pieces: where the data is, its targets, a result row,
the corpus it writes, and timing a process."""

from __future__ import annotations

import json
import os
import resource
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent


def default_data() -> Path:
    """../shared/eval/scifact beside the repository; from a git worktree nested deeper, the
    nearest ancestor's shared/eval/scifact."""
    for parent in REPO.parents:
        candidate = parent / "shared" / "eval" / "scifact"
        if candidate.is_dir():
            return candidate
    return REPO.parent / "shared" / "eval" / "scifact"


DEFAULT_DATA = default_data()
QUICK_LIMIT = 500
STUB_DELAY = 0.3  # seconds the stub model waits before every answer
# The headline targets (issue 40): each lost without a test noticing once. A run that misses
# one ends with a FAILED line naming it and exit status 1.
INGEST_TARGET = 0.9  # `ragcli ingest` process wall against raw ONNX on the same chunks
HELP_TARGET = 1.6  # `ragcli --help` against `python -c "import typer, rich"`
# Sequential model round trips each mode should need (None: no target stated).
ROUND_TRIP_TARGETS = {"standard": 1, "crag": 2, "agentic": 3}

sys.path.insert(0, str(REPO))  # ragcli itself, and tests/support/stubs.py for the stub model server


# --- results -------------------------------------------------------------------------------


@dataclass
class Row:
    section: str
    name: str
    value: str
    target: str = ""
    passed: bool | None = None  # None: no target
    data: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "section": self.section,
            "name": self.name,
            "value": self.value,
            "target": self.target or None,
            "pass": self.passed,
            **self.data,
        }


def skipped(section: str, name: str, why: str, target: str = "") -> Row:
    return Row(section, name, f"skipped ({why})", target, None, {"skipped": True})


# --- data ----------------------------------------------------------------------------------


def load_dataset(data: Path, limit: int | None) -> tuple[list[tuple[str, str, str]], list[str]]:
    """(id, title, text) of the first `limit` abstracts, and the query texts."""
    from ragcli.evaluation.beir import load_corpus, load_queries

    corpus = load_corpus(data)
    docs = [(doc_id, d.title, d.text) for doc_id, d in corpus.items()]
    if limit:
        docs = docs[:limit]
    queries = [q for q in load_queries(data / "queries.jsonl").values() if q.strip()]
    return docs, queries


def write_corpus(docs: list[tuple[str, str, str]], folder: Path) -> None:
    """One .txt per abstract: the title, a blank line, the abstract."""
    folder.mkdir(parents=True, exist_ok=True)
    for doc_id, title, text in docs:
        (folder / f"{doc_id}.txt").write_text(f"{title}\n\n{text}\n", encoding="utf-8")


def write_beir(docs: list[tuple[str, str, str]], question: str, folder: Path) -> None:
    """The same abstracts as a BEIR dataset for `ragcli eval`: one judged query, so the
    eval's run is its corpus write and one cheap ranking."""
    (folder / "qrels").mkdir(parents=True, exist_ok=True)
    with open(folder / "corpus.jsonl", "w", encoding="utf-8") as f:
        for doc_id, title, text in docs:
            f.write(json.dumps({"_id": doc_id, "title": title, "text": text}) + "\n")
    (folder / "queries.jsonl").write_text(json.dumps({"_id": "q", "text": question}) + "\n")
    (folder / "qrels" / "test.tsv").write_text(f"query-id\tcorpus-id\tscore\nq\t{docs[0][0]}\t1\n")


def chunk_corpus(folder: Path) -> tuple[list[str], list[int]]:
    """The chunks ingest makes of `folder`, cut by the same loader and chunker."""
    from ragcli.embedding.embedder import bundled_model_dir
    from ragcli.embedding.wordpieces import TokenCounter
    from ragcli.ingest.chunker import Chunker
    from ragcli.ingest.loaders import load

    chunker = Chunker(TokenCounter(bundled_model_dir()))
    texts: list[str] = []
    tokens: list[int] = []
    for path in sorted(folder.iterdir()):
        for chunk in chunker.chunk(load(path).sections):
            texts.append(chunk.text)
            tokens.append(chunk.token_count)
    return texts, tokens


# --- measurements --------------------------------------------------------------------------


def embed_throughput(embedder, texts: list[str], tokens: int) -> dict[str, float]:
    embedder.embed(texts[:8])  # warm up: session or model load, first-call allocations
    started = time.perf_counter()
    embedder.embed(texts)
    seconds = time.perf_counter() - started
    return {
        "seconds": round(seconds, 2),
        "chunks_per_s": round(len(texts) / seconds, 1),
        "tokens_per_s": round(tokens / seconds, 0),
    }


def throughput_text(measured: dict[str, float]) -> str:
    return f"{measured['chunks_per_s']:.1f} chunks/s, {measured['tokens_per_s']:.0f} tokens/s"


def clean_env(home: Path) -> dict[str, str]:
    """The user's environment without ragcli or model settings, so the defaults are measured."""
    env = {
        k: v for k, v in os.environ.items() if not k.startswith(("RAGCLI_", "OPENAI_", "TAVILY_"))
    }
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env.setdefault("HOME", str(home))
    return env


def ragcli_command() -> list[str]:
    script = Path(sys.executable).parent / "ragcli"
    return [str(script)] if script.exists() else [sys.executable, "-m", "ragcli"]


def run_timed(cmd: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, str, float]:
    """Wall seconds, stdout, and CPU seconds (user + system) of one process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if proc.returncode not in (0, 3):
        raise SystemExit(
            f"benchmark: {' '.join(cmd[:3])} … exited {proc.returncode}:\n{proc.stderr[-2000:]}"
        )
    return seconds, proc.stdout, cpu


@dataclass
class Timing:
    """Median wall and CPU seconds over repeated runs of one command."""

    wall: float
    cpu: float

    def __str__(self) -> str:
        return f"{self.wall:.2f} s (CPU {self.cpu:.2f} s)"

    def data(self) -> dict[str, float]:
        return {"seconds": round(self.wall, 3), "cpu_seconds": round(self.cpu, 3)}


def median_timing(cmd: list[str], cwd: Path, env: dict[str, str], repeats: int) -> Timing:
    runs = [run_timed(cmd, cwd, env) for _ in range(repeats)]
    return Timing(statistics.median(r[0] for r in runs), statistics.median(r[2] for r in runs))


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[index]


GRADES = {"correct": 0.9, "ambiguous": 0.5, "incorrect": 0.1}


def stub_reply(body: dict, grade: str = "correct") -> str:
    """A plausible reply for each model role, recognised from the JSON shape its prompt asks
    for, so every mode runs its normal path (no fallbacks) against the stub. Documents are
    graded `grade` ("incorrect" or "ambiguous" send crag to the web), web results correct;
    a grader that finds nothing correct proposes a better query, as the prompt asks."""
    prompt = str(body["messages"][-1]["content"])
    if '"grades"' in prompt:
        label = "correct" if 'type="web"' in prompt else grade
        grades = [
            {"id": i, "score": GRADES[label], "label": label, "rationale": "on topic"}
            for i in range(1, 21)
        ]
        better = "" if label == "correct" else "a more specific query"
        return json.dumps({"grades": grades, "better_query": better})
    if "reflection_score" in prompt:
        return json.dumps(
            {
                "answer_grounded": True,
                "hallucination_detected": False,
                "reflection_score": 0.95,
                "sources_cited": ["1"],
                "reflection_reason": "supported",
                "needs_regeneration": False,
            }
        )
    if "supported_score" in prompt:
        return json.dumps({"supported_score": 0.95, "unsupported_claims": []})
    if "JSON array of strings" in prompt:
        return json.dumps(["What does the first part ask?", "What does the second part ask?"])
    return "The sources say so [1]."


# --- the run -------------------------------------------------------------------------------


def plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


def target_text(target: int | None, web: bool = False) -> str:
    if target is None:
        return ""
    return f"{plural(target, 'round trip')}" + (" + web" if web else "")


# --- output --------------------------------------------------------------------------------
