"""`ragcli eval QUESTIONS.yaml`: every mode on a labelled question file, so a team sees
what a threshold change does to all of them at once.

The file is the shape `calibrate` reads (a list of {question, source, expect}, or
answerable/unanswerable lists), each item optionally with
- `expect_evidence`: text (or a list of texts) a good answer contains; `expect` is used
  when it is absent;
- `expect_mode`: the mode a careful person would pick, which `--mode auto` is scored on.
A question with a source or expected evidence is answerable; one without is not, and the
right outcome for it is to say so (not_covered, handoff or clarification)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml
from pydantic import Field

from ragcli.errors import ConfigError
from ragcli.models import ModeScore, QuestionEval, QuestionOutcome, Record
from ragcli.pipeline.results import AskResult

ANSWERED = ("answer",)
LIMITED = ("limited", "unverified")  # answered, with a warning
# Outcomes that say the documents do not answer: right for an unanswerable question.
DECLINED = ("not_covered", "handoff", "clarification")


class LabelledQuestion(Record):
    question: str
    answerable: bool
    evidence: list[str] = Field(default_factory=list)  # all should appear in the answer
    expect_mode: str | None = None


def load_questions(path: Path) -> list[LabelledQuestion]:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read ({exc.strerror or exc})") from None
    try:
        if Path(path).suffix == ".jsonl":
            data: Any = [json.loads(line) for line in text.splitlines() if line.strip()]
        else:
            data = yaml.safe_load(text)
    except (json.JSONDecodeError, yaml.YAMLError):
        raise ConfigError(f"{path}: not valid YAML, JSON or JSON Lines") from None
    if isinstance(data, dict) and ("answerable" in data or "unanswerable" in data):
        items = list(data.get("answerable") or []) + [
            {**item, "answerable": False} if isinstance(item, dict) else {"question": item}
            for item in data.get("unanswerable") or []
        ]
    elif isinstance(data, list):
        items = data
    else:
        raise ConfigError(f"{path}: expected a list of questions or answerable/unanswerable lists")
    questions = []
    for number, item in enumerate(items, start=1):
        if not isinstance(item, dict) or not str(item.get("question") or "").strip():
            raise ConfigError(f"{path}: item {number} has no question")
        evidence = item.get("expect_evidence", item.get("expect"))
        if isinstance(evidence, str):
            evidence = [evidence]
        if evidence is not None and not (
            isinstance(evidence, list) and all(isinstance(e, str) for e in evidence)
        ):
            raise ConfigError(f"{path}: item {number}: expect_evidence is not text or a list")
        answerable = item.get("answerable", bool(item.get("source") or evidence))
        questions.append(
            LabelledQuestion(
                question=str(item["question"]).strip(),
                answerable=bool(answerable),
                evidence=list(evidence or []),
                expect_mode=item.get("expect_mode"),
            )
        )
    if not questions:
        raise ConfigError(f"{path}: no questions")
    return questions


def outcome(labelled: LabelledQuestion, mode: str, result: AskResult, seconds: float):
    found = None
    if labelled.evidence:
        answer = result.answer.lower()
        found = sum(e.lower() in answer for e in labelled.evidence) / len(labelled.evidence)
    return QuestionOutcome(
        question=labelled.question,
        mode=mode,
        answer_type=result.answer_type,
        evidence_found=found,
        llm_calls=result.usage.llm_calls,
        seconds=round(seconds, 3),
        routed_to=result.auto_details.mode if result.auto_details else None,
    )


def score(
    mode: str, questions: list[LabelledQuestion], outcomes: list[QuestionOutcome]
) -> ModeScore:
    pairs = list(zip(questions, outcomes, strict=True))
    answerable = [o for q, o in pairs if q.answerable]
    unanswerable = [o for q, o in pairs if not q.answerable]
    evidence = [o.evidence_found for o in outcomes if o.evidence_found is not None]
    routed = [(q, o) for q, o in pairs if q.expect_mode and o.routed_to]
    count = len(outcomes)
    return ModeScore(
        mode=mode,
        questions=count,
        answerable=len(answerable),
        answered=sum(o.answer_type in ANSWERED for o in answerable),
        limited=sum(o.answer_type in LIMITED for o in answerable),
        missed=sum(o.answer_type in DECLINED for o in answerable),
        evidence=round(sum(evidence) / len(evidence), 3) if evidence else None,
        unanswerable=len(unanswerable),
        declined=sum(o.answer_type in DECLINED for o in unanswerable),
        llm_calls_per_question=round(sum(o.llm_calls for o in outcomes) / count, 2),
        seconds_per_question=round(sum(o.seconds for o in outcomes) / count, 3),
        routed_as_labelled=(
            round(sum(q.expect_mode == o.routed_to for q, o in routed) / len(routed), 3)
            if routed
            else None
        ),
    )


def evaluate(
    path: Path,
    modes: list[str],
    ask: Callable[[str, str], tuple[AskResult, float]],
    backend: str,
    progress: Callable[[str, int, int], None] | None = None,
) -> QuestionEval:
    """Each mode on every question; `ask(question, mode)` returns the result and its time."""
    questions = load_questions(path)
    scores, everything = [], []
    for mode in modes:
        outcomes = []
        for done, labelled in enumerate(questions):
            if progress:
                progress(mode, done, len(questions))
            result, seconds = ask(labelled.question, mode)
            outcomes.append(outcome(labelled, mode, result, seconds))
        if progress:
            progress(mode, len(questions), len(questions))
        scores.append(score(mode, questions, outcomes))
        everything += outcomes
    return QuestionEval(file=str(path), backend=backend, scores=scores, outcomes=everything)
