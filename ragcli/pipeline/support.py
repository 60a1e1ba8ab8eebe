"""Sentence-level support: every sentence of an answer, whatever mode or backend wrote it,
is checked against the sources it cites (against all of them when it cites none), with no
model call. A sentence its sources do not back is marked, and one that states a fact
without citing anything is flagged as uncited.

A sentence's support from one source is a calibrated probability (ragcli/data/support.json,
fitted by scripts/fit_support.py on tests/data/support.yaml, as `calibrate` fits relevance)
from three features:

- similarity: the best cosine between the sentence and one of the source's sentences;
- coverage:   the share of the sentence's content terms the source contains;
- specifics:  1 when the source contains every number, identifier and name of the sentence,
              else 0: a changed number or name ("30 days" → "60 days") makes a sentence
              wrong while barely moving the other two.

A sentence found word for word in a source is supported without scoring it. The embedding
model is asked only where the similarity can still change the verdict: a sentence whose
source lacks one of its numbers or names is rejected, and one whose terms the source nearly
all holds is accepted, whatever the similarity (on the fitted weights), so a typical answer
embeds few sentences or none."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import TYPE_CHECKING, Any

from ragcli.answer import Answer
from ragcli.llm.segment import plain_text
from ragcli.llm.text import WORD, normalise, sentences
from ragcli.models import Evidence, RetrievedChunk, SentenceSupport
from ragcli.terms import terms
from ragcli.text.sentences import split_sentences

if TYPE_CHECKING:  # numpy loads with the embedder, not with the models that name it
    import numpy as np

FEATURES = ("similarity", "coverage", "specifics")
LIST_MARKER = re.compile(r"^(?:[-*•+]\s+|\d{1,3}[.)]\s+)+")
LEADING_BOLD = re.compile(r"^\*\*(.+?)\*\*")
# Numbers, versions, identifiers (`code`, snake_case, dotted.names, CamelCase), and names
# capitalised inside a sentence: the details a plausible wrong sentence changes.
CODE = re.compile(r"`([^`]+)`")
SPECIFIC = re.compile(r"\b(?:\d[\w.,:/-]*|\w+[_.]\w[\w.]*|[a-z]+[A-Z]\w*|[A-Z][\w-]*[A-Z0-9]\w*)\b")
CAPITALISED = re.compile(r"(?<![.!?]\s)(?<!^)\b[A-Z][a-z]{2,}\b")
MIN_WORDS = 3  # shorter fragments ("Yes.", a label) are not claims
# "The documents do not say ...", "I could not find this in the sources": a statement
# about the sources' silence claims nothing to check (ragcli's own fallbacks read so too).
HEDGE = re.compile(
    r"\b(?:documents?|sources?|context|passages?)\b.*\b(?:not|no|n't|cannot|neither)\b"
    r"|\b(?:not|no|n't|cannot)\b.*\b(?:documents?|sources?|context|passages?)\b",
    re.I,
)


@dataclass(frozen=True)
class SupportModel:
    weights: tuple[float, ...]
    bias: float

    def probability(self, features: Sequence[float]) -> float:
        z = self.bias + sum(w * f for w, f in zip(self.weights, features, strict=True))
        return 1.0 / (1.0 + math.exp(-z))

    def verdict_bound(self, coverage: float, named: float, threshold: float) -> float | None:
        """When no similarity in [0, 1] can move the verdict across `threshold`, the score
        at the bound nearest to it (the most a rejected sentence could score, the least an
        accepted one could); None when the similarity decides and must be measured."""
        low = self.probability((0.0, coverage, named))
        high = self.probability((1.0, coverage, named))
        if high < threshold:
            return high
        if low >= threshold:
            return low
        return None


@lru_cache(maxsize=1)
def bundled_model() -> SupportModel:
    raw = json.loads(resources.files("ragcli").joinpath("data/support.json").read_text())
    assert raw["features"] == list(FEATURES), "support.json: features out of date"
    return SupportModel(tuple(raw["weights"]), raw["bias"])


@dataclass
class Claim:
    text: str  # as a reader checks it: list marker and opening bold aside
    cites: list[int]
    part: int  # its index in the answer's parts


def claims(answer: Answer) -> list[Claim]:
    """The sentences of the answer's parts that state something a source can back (its
    sentences, list items and rows, not code, headings or a list of files), each with the
    sources its part cites and marked after that part; a sentence a model cited inside is
    one claim, a row too. Hedges ("The documents do not say …"), questions and fragments
    claim nothing."""
    found: list[Claim] = []
    for indices in _claiming(answer):
        parts = [answer.parts[i] for i in indices]
        # List markers and the bold that opens a sentence aside: around all of it (a
        # sub-question) or around a carried heading ("**`GZipMiddleware`**: handles …").
        text = " ".join(" ".join(p.text for p in parts).split())
        text = LEADING_BOLD.sub(r"\1", LIST_MARKER.sub("", text)).strip()
        cites = list(dict.fromkeys(n for p in parts for n in p.sources))
        for sentence in [text] if parts[0].kind == "row" else split_sentences(text):
            if len(WORD.findall(sentence)) < MIN_WORDS or sentence.lower().startswith("sources:"):
                continue
            if HEDGE.search(sentence) or sentence.endswith("?"):
                continue
            found.append(Claim(sentence, cites, indices[-1]))
    return found


def _claiming(answer: Answer) -> list[list[int]]:
    """The indices of each claiming part, with the parts that go on its sentence."""
    groups: list[list[int]] = []
    for index, part in enumerate(answer.parts):
        if not part.claims:
            continue
        if part.same_sentence and groups and groups[-1][-1] == index - 1:
            groups[-1].append(index)
        else:
            groups.append([index])
    return groups


def specifics(text: str) -> set[str]:
    found = {m.lower() for m in CODE.findall(text)}
    bare = CODE.sub(" ", text)
    found |= {m.lower() for m in SPECIFIC.findall(bare)}
    found |= {m.lower() for m in CAPITALISED.findall(bare)}
    return found


def states_a_fact(text: str) -> bool:
    """A sentence that asserts something checkable: it names a number, an identifier or a
    name, or has several content words; a lead-in (":") asserts nothing."""
    if text.rstrip().endswith(":"):
        return False
    return bool(specifics(text)) or len(terms(text)) >= 5


class SupportChecker:
    """Checks answers against their sources; holds the embedder and the fitted model."""

    def __init__(
        self,
        embedder: Any,
        threshold: float,
        model: SupportModel | None = None,
        shortcut: bool = True,  # False: embed every sentence (the benchmark's worst case)
    ):
        self.embedder = embedder
        self.threshold = threshold
        self.model = model or bundled_model()
        self.shortcut = shortcut

    def check(self, answer: Answer, sources: list[RetrievedChunk]) -> list[SentenceSupport]:
        """Each claim of the answer judged against the sources it cites (all of them when
        it cites none)."""
        found = claims(answer)
        if not found or not sources:
            return []
        texts = [chunk.content for chunk in sources]
        flat = [normalise(plain_text(t)) for t in texts]
        checked = [
            [n for n in c.cites if 1 <= n <= len(sources)] or list(range(1, len(sources) + 1))
            for c in found
        ]
        # (claim, source) -> its score and how it was found, filled in three passes: word
        # for word; by lexical evidence where no similarity could change the verdict; by
        # the embedding model for the rest, in one batch.
        scores: dict[tuple[int, int], tuple[float, Evidence]] = {}
        pending: dict[tuple[int, int], tuple[float, float]] = {}
        for i, claim in enumerate(found):
            quoted = normalise(claim.text)
            for n in checked[i]:
                if quoted in flat[n - 1]:
                    scores[i, n] = (1.0, "verbatim")
                    continue
                coverage, named = lexical_features(claim.text, texts[n - 1])
                bound = self.model.verdict_bound(coverage, named, self.threshold)
                if bound is None or not self.shortcut:
                    pending[i, n] = (coverage, named)
                else:
                    scores[i, n] = (bound, "lexical")
        for (i, n), similarity in self._similarities(found, texts, list(pending)).items():
            coverage, named = pending[i, n]
            scores[i, n] = (self.model.probability((similarity, coverage, named)), "embedding")
        results = []
        for i, claim in enumerate(found):
            mine = {n: scores[i, n] for n in checked[i]}
            best_source = max(mine, key=lambda n: mine[n][0])
            best, evidence = mine[best_source]
            results.append(
                SentenceSupport(
                    sentence=claim.text,
                    cites=claim.cites,
                    score=round(best, 3),
                    evidence=evidence,
                    backed_by=[n for n, (s, _) in mine.items() if s >= self.threshold],
                    supported=best >= self.threshold,
                    uncited=not claim.cites and states_a_fact(claim.text),
                    part=claim.part,
                )
            )
        return results

    def _similarities(
        self, found: list[Claim], texts: list[str], pairs: list[tuple[int, int]]
    ) -> dict[tuple[int, int], float]:
        """The best cosine between each claim and a sentence of its source that shares a
        content term with it (all the source's sentences when none does)."""
        if not pairs:
            return {}
        candidates: dict[tuple[int, int], list[str]] = {}
        for i, n in pairs:
            mine = set(terms(found[i].text))
            pieces = [p for p in sentences(texts[n - 1]) if len(WORD.findall(p)) >= MIN_WORDS]
            pieces = pieces or [texts[n - 1]]
            sharing = [p for p in pieces if mine & set(terms(p))]
            candidates[i, n] = sharing or pieces
        batch = list(
            dict.fromkeys(
                [found[i].text for i, _ in pairs] + [p for ps in candidates.values() for p in ps]
            )
        )
        vectors = dict(zip(batch, self.embedder.embed(batch), strict=True))
        return {
            (i, n): max(float(vectors[p] @ vectors[found[i].text]) for p in candidates[i, n])
            for i, n in pairs
        }


def lexical_features(claim: str, source: str) -> tuple[float, float]:
    """Coverage (share of the claim's content terms in the source) and specifics (1 when
    the source holds every number, identifier and name of the claim, else 0)."""
    claim_terms = set(terms(claim))
    coverage = len(claim_terms & set(terms(source))) / len(claim_terms) if claim_terms else 1.0
    wanted = specifics(claim)
    lowered = source.lower()
    # Whole tokens: "8" is not found in "18" or "800".
    present = sum(1 for item in wanted if re.search(rf"(?<!\w){re.escape(item)}(?!\w)", lowered))
    # One changed number or name makes a sentence wrong, however much else matches.
    return coverage, 1.0 if present == len(wanted) else 0.0


def features(
    claim: str, source: str, source_sentences: list[str], vectors: dict[str, np.ndarray]
) -> tuple[float, float, float]:
    """All three features of a (claim, source) pair, for fitting (scripts/fit_support.py)."""
    claim_vector = vectors[claim]
    similarity = max(float(vectors[s] @ claim_vector) for s in source_sentences)
    return (similarity, *lexical_features(claim, source))
