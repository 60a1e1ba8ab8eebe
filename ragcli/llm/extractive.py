"""The offline backend: no generative model. Relevance and grounding come from the
embedding model plus lexical evidence, calibrated so that scores mean what the
thresholds assume; answers are the best supporting sentences, quoted with citations.
The answer is made in stages, one module each under ragcli/llm/offline/: candidates,
evidence, scoring, selection, rendering."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import numpy as np

from ragcli.answer import Answer, AnswerPart
from ragcli.config import LLMSettings
from ragcli.embedding.embedder import Embedder
from ragcli.llm.base import GradeBands
from ragcli.llm.calibration import Calibration
from ragcli.llm.citations import citation_label, merge_sources
from ragcli.llm.decompose import decompose as decompose_question
from ragcli.llm.followup import make_standalone
from ragcli.llm.offline import scoring, selection
from ragcli.llm.offline.evidence import Evidence
from ragcli.llm.offline.model import bundled
from ragcli.llm.offline.rendering import NO_ANSWER, quoted_answer
from ragcli.llm.offline.scoring import ScoredSentence
from ragcli.llm.text import WORD, normalise
from ragcli.models import (
    ChunkGrade,
    Grading,
    PriorTurn,
    Reflection,
    RetrievedChunk,
    SentenceSupport,
    Standalone,
    SubAnswer,
    Verification,
)
from ragcli.terms import terms
from ragcli.text.citations import strip_citations
from ragcli.text.markdown import part_text, quotes_of, render
from ragcli.words import STOPWORDS

NO_ANSWER_PART = "The retrieved documents do not appear to answer this part."
PROSE_KINDS = frozenset({"sentence", "statement"})


class ExtractiveBackend:
    name = "extractive"
    remote = False

    def __init__(
        self,
        embedder: Embedder,
        options: LLMSettings,
        calibration: Calibration,
        term_stats: Callable[[], Any] | None = None,
    ):
        self.embedder = embedder
        self.model = f"extractive ({embedder.name})"
        self.options = options
        self.calibration = calibration
        # The embedding and lexical evidence every stage reads (its vectors kept).
        self.evidence = Evidence(embedder, calibration, term_stats)

    # -- evidence ---------------------------------------------------------------------

    def relevance(self, query: str, text: str) -> float:
        """Calibrated probability that `text` answers `query`."""
        return self.evidence.relevances(query, [text])[0]

    def features(self, query: str, text: str) -> tuple[float, float, float]:
        """The evidence relevance is calibrated on (ragcli/llm/offline/evidence.py)."""
        return self.evidence.features(query, text)

    # -- roles --------------------------------------------------------------------------

    def grade(self, query: str, chunks: list[RetrievedChunk], bands: GradeBands) -> Grading:
        grades = []
        for score in self.evidence.relevances(query, [c.content for c in chunks]):
            score = round(score, 3)
            label = bands.label(score)
            grades.append(
                ChunkGrade(score=score, label=label, rationale=f"calibrated evidence {score:.2f}")
            )
        return Grading(grades=grades)

    def scored_sentences(self, query: str, chunks: list[RetrievedChunk]) -> list[ScoredSentence]:
        """Every candidate sentence of `chunks` scored, best answer first
        (ragcli/llm/offline/scoring.py)."""
        return scoring.scored_sentences(self.evidence, query, chunks)

    def generate(self, query: str, chunks: list[RetrievedChunk]) -> Answer:
        """The candidates of `chunks`, scored, selected and quoted with their citations."""
        chosen = selection.select(
            self.evidence, query, self.scored_sentences(query, chunks), chunks, self.options
        )
        if chosen is None:
            return Answer.of_notes(NO_ANSWER)
        return quoted_answer(chosen, chunks, self.options.answer_max_chars)

    def reflect(
        self,
        query: str,
        answer: Answer,
        chunks: list[RetrievedChunk],
        min_score: float,
        support: list[SentenceSupport],
    ) -> Reflection:
        """Grounded as far as the support check finds the answer's sentences backed by
        their sources (`support`, the one judgement the final answer shows too), and
        relevant to the question."""
        text = render(answer)
        supported = [s.sentence for s in support if s.supported]
        unsupported = [s.sentence for s in support if not s.supported]
        total = len(support)
        grounded = len(supported) / total if total else 0.0
        relevance = self.relevance(query, strip_citations(text)) if total else 0.0
        # An answer quoted sentence by sentence from its sources is grounded by
        # construction; it only has to bear on the question as much as any quoted answer
        # must (the floor generate() quotes at), not to restate it.
        quoted = total > 0 and not unsupported
        relevant = relevance >= self.options.answer_min_relevance
        score = round(grounded if quoted and relevant else min(grounded, relevance), 3)
        reason = (
            f"{len(supported)} of {total} answer sentences are supported by their sources; "
            f"relevance of the answer to the question {relevance:.2f}"
        )
        if not total:
            reason = "the answer makes no claim drawn from the sources"
        return Reflection(
            answer_grounded=total > 0 and not unsupported,
            hallucination_detected=bool(unsupported),
            reflection_score=score,
            sources_cited=[str(n) for n in answer.cited()],
            reflection_reason=reason,
            needs_regeneration=score < min_score,
        )

    def verify(
        self, answer: Answer, chunks: list[RetrievedChunk], support: list[SentenceSupport]
    ) -> Verification:
        """The share of the answer's sentences the support check finds backed."""
        backed = sum(1 for s in support if s.supported)
        return Verification(
            supported_score=round(backed / len(support), 3) if support else 0.0,
            unsupported_claims=[s.sentence for s in support if not s.supported],
        )

    def _feedback_terms(self, query: str, chunks: list[RetrievedChunk], limit: int) -> list[str]:
        """Pseudo-relevance feedback: frequent content words of the best chunks."""
        known = {w.lower() for w in WORD.findall(query)}
        counts: Counter[str] = Counter()
        for chunk in chunks[:3]:
            words = {w.lower() for w in WORD.findall(chunk.content)}
            counts.update(
                w
                for w in words
                if w not in STOPWORDS and w not in known and len(w) > 3 and not w.isdigit()
            )
        # Ties go alphabetically, so the same chunks always give the same query.
        ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
        return [word for word, _ in ranked[:limit]]

    def hypothesize(self, question: str) -> str:
        """HyDE needs a model to write its passage: none here (the caller says so)."""
        return ""

    def refine(self, query: str, feedback: str, chunks: list[RetrievedChunk]) -> str:
        extra = self._feedback_terms(query, chunks, limit=4)
        return f"{query} {' '.join(extra)}".strip()

    def rewrite(self, query: str, failed_chunks: list[RetrievedChunk]) -> str:
        # Terms the failed chunks lack are what retrieval missed: put them first.
        found = {t for c in failed_chunks for t in terms(c.content)}
        words = [w for w in WORD.findall(query) if w.lower() not in STOPWORDS]
        missing = [w for w in words if not (set(terms(w)) & found)]
        extra = self._feedback_terms(query, failed_chunks, limit=2)
        return " ".join(dict.fromkeys(missing + [query] + extra))

    def decompose(self, question: str, min_parts: int, max_parts: int) -> list[str]:
        return decompose_question(question, max_parts)

    def standalone(self, question: str, history: list[PriorTurn]) -> Standalone:
        return make_standalone(question, history)

    def synthesize(
        self, question: str, sub_answers: list[SubAnswer], numbering: dict[str, int] | None = None
    ) -> Answer:
        """One section per sub-question, quoting its cited sentences (each sentence once in
        the whole answer) and naming the files, and pages, they come from."""
        if numbering is None:
            merged = merge_sources(sub_answers)
            sub_answers, numbering = merged.sub_answers, merged.numbering
        by_number = {
            numbering[c.chunk_id]: c
            for sub in sub_answers
            for c in sub.sources
            if c.chunk_id in numbering
        }
        said: list[np.ndarray] = []
        # A quote closer than this to one said already says the same (the selector's, fitted).
        same_above = bundled().selection.duplicate_cosine
        said_text: set[str] = set()
        parts: list[AnswerPart] = []
        for sub in sub_answers:
            # The quotes of the sub-answer that cite a source (uncited text is not backed).
            quotes = [
                q
                for q in quotes_of(sub.answer)
                if any(p.sources for p in q) and q[0].kind != "source_list"
            ]
            texts = ["\n".join(part_text(p) for p in quote) for quote in quotes]
            fresh: list[list[AnswerPart]] = []
            for quote, text, vector in zip(
                quotes, texts, self.evidence.vectors(texts), strict=False
            ):
                repeated = normalise(text) in said_text or any(
                    float(vector @ v) > same_above for v in said
                )
                if repeated:
                    continue
                said_text.add(normalise(text))
                said.append(vector)
                fresh.append([replace(p, new_paragraph=False) for p in quote])
            parts.append(AnswerPart(sub.question, "heading", new_paragraph=bool(parts)))
            # In Markdown a line after a list item continues the item: quotes that are
            # blocks (a list, a row, code, a lead-in with what it brings) come after the
            # prose, each on lines of its own; the files are named in the order read.
            prose = [q for q in fresh if len(q) == 1 and q[0].kind in PROSE_KINDS]
            read = prose + [q for q in fresh if q not in prose]
            cited = [n for quote in (read or quotes) for p in quote for n in p.sources]
            if fresh:
                parts += [p for quote in read for p in quote]
            else:
                parts.append(
                    AnswerPart("Answered above." if quotes else NO_ANSWER_PART, "statement")
                )
            parts += [
                AnswerPart(citation_label(by_number[n]), "source_list", (n,))
                for n in dict.fromkeys(cited)
                if n in by_number
            ]
        return Answer(tuple(parts))
