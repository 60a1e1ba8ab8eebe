"""A SQuAD 2.0 article as a benchmark of answers: the article becomes one Markdown file (a
paragraph per `context`), and each answerable question is scored on whether a gold answer
is in the retrieved sources (hit@k) and in the answer text, under SQuAD's normalisation
(lower case; punctuation, the articles a/an/the and extra spaces removed)."""

from __future__ import annotations

import json
import re
import string
from dataclasses import dataclass
from pathlib import Path

ARTICLES = re.compile(r"\b(a|an|the)\b")


@dataclass(frozen=True)
class SquadQuestion:
    question: str
    answers: list[str]  # gold answers (any one counts)


def normalise(text: str) -> str:
    """SQuAD's answer normalisation (the official evaluation script's rules)."""
    text = text.lower()
    text = "".join(ch for ch in text if ch not in set(string.punctuation))
    text = ARTICLES.sub(" ", text)
    return " ".join(text.split())


def contains_answer(text: str, answers: list[str]) -> bool:
    haystack = f" {normalise(text)} "
    return any(f" {normalise(a)} " in haystack for a in answers if normalise(a))


def load_article(path: Path) -> tuple[str, str, list[SquadQuestion]]:
    """(title, the article as Markdown, its answerable questions) of the file's first
    article."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    article = data["data"][0]
    title = article["title"].replace("_", " ")
    paragraphs, questions = [], []
    for paragraph in article["paragraphs"]:
        paragraphs.append(paragraph["context"].strip())
        for qa in paragraph["qas"]:
            if not qa.get("is_impossible") and qa["answers"]:
                answers = list(dict.fromkeys(a["text"] for a in qa["answers"]))
                questions.append(SquadQuestion(qa["question"].strip(), answers))
    markdown = f"# {title}\n\n" + "\n\n".join(paragraphs) + "\n"
    return title, markdown, questions
