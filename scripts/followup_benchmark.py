#!/usr/bin/env python
"""Follow-ups that keep or replace the previous question's focus (issue 72), over the
two-turn conversations of tests/data/followup_focus.yaml (format and kinds there;
loading and scoring: ragcli/evaluation/followups.py).

Each conversation's corpus is ingested into its own store; its first question is asked,
then its follow-up as the next turn of the conversation (service.ask with the
Conversation, standard mode, the extractive backend, so the offline rewrite of
llm/followup.py), and, with --alone, the follow-up alone as a new conversation. Each is
scored by what a user sees: the section that answers the follow-up among the first three
sources, and the expected name or value in the answer. Figures per kind of follow-up
(own focus, no focus, pronoun) and in all; on the train part per fold with the folds'
spread (largest minus smallest).

Which conversations are asked is the split's (ragcli/evaluation/followups.py, a third of
each kind held out): `--part train` (the default) or `--part test`, the held-out third,
read once per change that lands.

    .venv/bin/python scripts/followup_benchmark.py [--part train|test|all] [--alone]
        [--kind own|none|pronoun] [--stores DIR] [--show] [--json] [--setting KEY=VALUE]
        [--without-sections]

`--stores DIR` keeps each corpus's store in DIR/NAME between runs (made again when the
reading code changed: ragcli/evaluation/kept_stores.py). Progress goes to stderr.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ragcli.evaluation.followups import KINDS, FollowUp, corpus_root, load, split  # noqa: E402


def progress(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def open_corpus(name: str, store: Path, given: dict[str, str]):
    """Settings and warm resources for a store holding corpus `name`, ingested if needed."""
    from ragcli import service
    from ragcli.config import load_settings
    from ragcli.evaluation import kept_stores
    from ragcli.evaluation.doc_sets import SETS

    settings = load_settings(
        None, {"store.path": str(store), "llm.provider": "extractive"} | given, environ={}
    )
    if note := kept_stores.prepare(store, kept_stores.reading_fingerprint()):
        progress(note)
    root = corpus_root(name)
    files = [root] if name == "sample" else SETS[name].files(root)
    progress(f"{name}: ingesting into {store} …")
    report = service.ingestor(settings).run(files, settings.store.collection)
    if report.interrupted:
        raise KeyboardInterrupt
    return settings, service.Resources(settings)


def measure(
    follow_up: FollowUp, settings, resources, alone: bool, sections: bool = True
) -> dict[str, Any]:
    from ragcli import service
    from ragcli.evaluation.followups import score

    root = corpus_root(follow_up.corpus)
    conversation = service.new_conversation()
    first = service.ask(settings, follow_up.first, resources=resources, conversation=conversation)
    turn = service.prior_turn(first)
    conversation.turns.append(turn if sections else turn.model_copy(update={"sections": []}))
    second = service.ask(
        settings, follow_up.question, resources=resources, conversation=conversation
    )
    outcome: dict[str, Any] = {
        "corpus": follow_up.corpus,
        "kind": follow_up.kind,
        "first": follow_up.first,
        "question": follow_up.question,
        "turn": score(second, follow_up, root),
        "answer": second.answer,
    }
    if alone:
        outcome["alone"] = score(
            service.ask(settings, follow_up.question, resources=resources), follow_up, root
        )
    return outcome


def shares(outcomes: list[dict[str, Any]], how: str) -> dict[str, Any]:
    """Section and value shares of `how` ("turn" or "alone"), per kind and in all."""
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for outcome in outcomes:
        if how in outcome:
            groups[outcome["kind"]].append(outcome[how])
            groups["all"].append(outcome[how])
    return {
        group: {
            "n": len(rows),
            "section": sum(r["section"] for r in rows),
            "value": sum(r["value"] for r in rows),
        }
        for group, rows in groups.items()
    }


def fold_spread(outcomes: list[dict[str, Any]]) -> dict[str, Any]:
    per_fold: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for outcome in outcomes:
        per_fold[outcome["fold"]].append(outcome["turn"])
    figures = {
        fold: {
            "section": sum(r["section"] for r in rows) / len(rows),
            "value": sum(r["value"] for r in rows) / len(rows),
        }
        for fold, rows in sorted(per_fold.items())
    }
    spread = {
        metric: round(
            max(f[metric] for f in figures.values()) - min(f[metric] for f in figures.values()), 3
        )
        for metric in ("section", "value")
    }
    return {"folds": figures, "spread": spread}


def render(report: dict[str, Any]) -> str:
    lines = [f"part {report['part']}: {report['conversations']} conversations"]
    for how in ("alone", "turn"):
        if how not in report:
            continue
        label = "follow-up alone" if how == "alone" else "as a turn"
        for group in (*KINDS, "all"):
            row = report[how].get(group)
            if row:
                lines.append(
                    f"  {label:16} {group:8} section in top {3}: {row['section']:2}/{row['n']:<2}"
                    f"  value in answer: {row['value']:2}/{row['n']}"
                )
    if report.get("folds"):
        for fold, f in report["folds"]["folds"].items():
            lines.append(f"  fold {fold}: section {f['section']:.2f}, value {f['value']:.2f}")
        spread = report["folds"]["spread"]
        lines.append(f"  folds' spread: section {spread['section']}, value {spread['value']}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--part", choices=("train", "test", "all"), default="train")
    parser.add_argument("--kind", choices=KINDS, help="only the follow-ups of this kind")
    parser.add_argument("--alone", action="store_true", help="also ask each follow-up alone")
    parser.add_argument("--stores", type=Path, metavar="DIR", help="keep stores in DIR/NAME")
    parser.add_argument("--show", action="store_true", help="each turn's outcome, on stderr")
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.add_argument(
        "--without-sections",
        action="store_true",
        help="turns without their sources' sections, as a client's conversation comes",
    )
    parser.add_argument(
        "--setting", action="append", default=[], metavar="KEY=VALUE", help="a setting"
    )
    args = parser.parse_args()
    given = dict(s.split("=", 1) for s in args.setting)
    follow_ups = load()
    parts = split(follow_ups)
    chosen = [
        (f, parts[f.key][1])
        for f in follow_ups
        if (args.part == "all" or parts[f.key][0] == args.part) and args.kind in (None, f.kind)
    ]
    outcomes: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as work:
        base = args.stores or Path(work)
        for corpus in dict.fromkeys(f.corpus for f, _ in chosen):
            settings, resources = open_corpus(corpus, base / corpus, given)
            mine = [(f, fold) for f, fold in chosen if f.corpus == corpus]
            for number, (follow_up, fold) in enumerate(mine, 1):
                progress(f"{corpus}: conversation {number}/{len(mine)}")
                outcome = measure(
                    follow_up, settings, resources, args.alone, not args.without_sections
                ) | {"fold": fold}
                outcomes.append(outcome)
                if args.show:
                    turn = outcome["turn"]
                    marks = ("S" if turn["section"] else "·") + ("V" if turn["value"] else "·")
                    shown = (
                        f"\n{marks} [{follow_up.kind}] {follow_up.first} → {follow_up.question}\n"
                        f"    searched as: {turn['searched']}\n    ({turn['reason']})\n"
                        f"    top: {'; '.join(turn['top'])}\n"
                        f"    answer: {' '.join(outcome['answer'].split())[:300]}"
                    )
                    print(shown, file=sys.stderr, flush=True)
    report: dict[str, Any] = {
        "part": args.part,
        "conversations": len(outcomes),
        "turn": shares(outcomes, "turn"),
    }
    if args.alone:
        report["alone"] = shares(outcomes, "alone")
    if args.part == "train":
        report["folds"] = fold_spread(outcomes)
    if args.json:
        print(json.dumps(report | {"outcomes": outcomes}, indent=2))
    else:
        print(render(report))


if __name__ == "__main__":
    main()
