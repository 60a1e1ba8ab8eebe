#!/usr/bin/env python
"""How good the offline (extractive) backend's answers are, on a SQuAD 2.0 article.

Ingests the article as one Markdown file into a temporary store, asks every answerable
question in standard mode with the extractive backend, and reports: a gold answer in the
retrieved sources (hit@5), a gold answer in the answer text (SQuAD normalisation), and the
median answer length in characters.

    .venv/bin/python scripts/answer_benchmark.py [--data ../shared/eval/squad-rhine] [--json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def first_sentence(answer: str) -> str:
    from ragcli.llm.text import sentences
    from ragcli.text.citations import strip_citations

    found = sentences(answer)
    return strip_citations(found[0]) if found else ""


def measure(
    data: Path,
    limit: int | None = None,
    workdir: Path | None = None,
    keep: Callable[[str], bool] | None = None,
    fold: Callable[[str], int] | None = None,
) -> dict:
    """The article's figures. In `workdir` (kept) the article file and its store are
    reused, so a rerun ingests nothing; without it both go to a temporary folder. `keep`
    chooses the questions asked (a part of the split); with `fold`, the figures of each
    fold of them too."""
    from ragcli import service
    from ragcli.config import load_settings
    from ragcli.evaluation import kept_stores
    from ragcli.evaluation.squad import contains_answer, load_article

    source = next(data.glob("*.json"), None)
    if source is None:
        raise SystemExit(f"answer_benchmark: no SQuAD JSON file in {data}")
    title, markdown, questions = load_article(source)
    if keep is not None:
        questions = [q for q in questions if keep(q.question)]
    questions = questions[:limit] if limit else questions
    with tempfile.TemporaryDirectory() as temporary:
        work = workdir or Path(temporary)
        work.mkdir(parents=True, exist_ok=True)
        article = work / f"{title.lower().replace(' ', '_')}.md"
        if not article.exists() or article.read_text(encoding="utf-8") != markdown:
            article.write_text(markdown, encoding="utf-8")
        store = work / "store"
        if note := kept_stores.prepare(store, kept_stores.reading_fingerprint()):
            print(note, file=sys.stderr)
        settings = load_settings(
            None,
            {"store.path": str(store), "llm.provider": "extractive"},
            environ={},
        )
        service.ingestor(settings).run([article], settings.store.collection)
        resources = service.Resources(settings)
        hits = found = first = 0
        lengths = []
        per_fold: dict[int, list[tuple[bool, int]]] = {}
        started = time.perf_counter()
        for q in questions:
            result = service.ask(settings, q.question, resources=resources)
            hits += any(contains_answer(s.content, q.answers) for s in result.sources[:5])
            holds = contains_answer(result.answer, q.answers)
            found += holds
            first += contains_answer(first_sentence(result.answer), q.answers)
            lengths.append(len(result.answer))
            if fold is not None:
                per_fold.setdefault(fold(q.question), []).append((holds, len(result.answer)))
        seconds = time.perf_counter() - started
    folds = {
        str(f): {
            "questions": len(rows),
            "answer_contains_gold": round(sum(h for h, _ in rows) / len(rows), 3),
            "median_answer_chars": statistics.median(n for _, n in rows),
        }
        for f, rows in sorted(per_fold.items())
    }
    return {
        "article": title,
        "questions": len(questions),
        "hit_at_5": round(hits / len(questions), 3),
        "answer_contains_gold": round(found / len(questions), 3),
        "first_sentence_contains_gold": round(first / len(questions), 3),
        "median_answer_chars": statistics.median(lengths),
        "seconds_per_question": round(seconds / len(questions), 3),
        **({"folds": folds} if folds else {}),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--data", type=Path, default=ROOT.parent / "shared" / "eval" / "squad-rhine"
    )
    parser.add_argument("--limit", type=int, default=None, help="the first N questions only")
    parser.add_argument("--json", action="store_true", help="print JSON")
    args = parser.parse_args()

    report = measure(args.data, args.limit)
    title = report["article"]
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(
            f"{title}: {report['questions']} answerable questions · "
            f"hit@5 {report['hit_at_5']:.3f} · "
            f"gold answer in the answer {report['answer_contains_gold']:.3f} "
            f"(in its first sentence {report['first_sentence_contains_gold']:.3f}) · "
            f"median answer {report['median_answer_chars']:.0f} characters · "
            f"{report['seconds_per_question']:.2f} s/question"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
