"""The offline answer's scoring stage: each candidate's relevance (calibrated evidence), its
answer features (ragcli/llm/offline/features.py), and the fitted model's answer score
(ragcli/llm/offline/model.py)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ragcli.llm.heading_names import heading_names, titled
from ragcli.llm.offline import rules
from ragcli.llm.offline.brought import introduced, shows_not_writes
from ragcli.llm.offline.candidates import (
    Candidate,
    embedded,
    found_units,
    most_promising,
    named_row_positions,
    naming_followers,
)
from ragcli.llm.offline.evidence import Evidence
from ragcli.llm.offline.features import (
    AnswerFeatures,
    UnitContext,
    answer_features,
    name_phrases,
)
from ragcli.llm.offline.model import bundled
from ragcli.llm.offline.questions import question_kind
from ragcli.llm.subject import with_heading, with_title
from ragcli.llm.table_rows import cell_values
from ragcli.models import RetrievedChunk
from ragcli.text.lead_ins import LEAD_IN_END

# A how-to sentence may be quoted when one of the next EXPLAINED_WITHIN sentences of its
# passage bears on the question: "`check_same_thread` is `True` by default … But here we
# … And we also need to disable it because in FastAPI each request …".
EXPLAINED_WITHIN = 2


@dataclass
class ScoredSentence:
    candidate: Candidate
    relevance: float  # calibrated: does it bear on the question at all
    features: AnswerFeatures
    score: float  # does it answer the question
    named: bool = False  # a table row the question names (llm/table_rows.py)


def as_quoted(candidate: Candidate) -> str:
    """The candidate as the answer quotes it: a sentence whose subject is its section's
    heading carries that heading (llm/subject.py); a titled one follows it."""
    if candidate.kind != "sentence" or not candidate.opens_section:
        return candidate.text
    if candidate.titled:
        return with_title(candidate.text, candidate.section)
    return with_heading(candidate.text, candidate.section)


def scored_sentences(
    evidence: Evidence, query: str, chunks: list[RetrievedChunk]
) -> list[ScoredSentence]:
    """Every candidate sentence of `chunks` with its relevance and answer features
    (ragcli/llm/offline/features.py), best answer first."""
    kind = question_kind(query)
    howto = kind == "instruction"
    found = found_units(chunks, query)
    if not found:
        return []
    stats = evidence.term_stats
    if stats is not None and hasattr(stats, "prime"):
        sections = sorted({f.section for f in found if f.section})
        stats.prime([f.text for f in found] + sections + [query])
    # Lexical evidence is cheap and picks the sentences worth embedding. For a how-to
    # question a row's terms are its cells': every row of a migration table repeats its
    # column names ("Pydantic V1: …; Pydantic V2: …"), which may be the question's words.
    lexical = [
        evidence.lexical(
            query, " ".join(cell_values(f.text)) if howto and f.kind == "row" else f.text
        )
        for f in found
    ]
    named = named_row_positions(query, found)
    names = heading_names(query, chunks)
    coverage = [c for c, _ in lexical]
    promising = most_promising(found, coverage)
    kept = sorted(
        set(promising)
        | (
            naming_followers(found, coverage, promising)
            if howto and rules.on("naming_followers")
            else set()
        )
        | named
    )
    candidates = embedded(evidence, [found[i] for i in kept])
    for candidate in candidates:
        candidate.titled = (
            rules.on("titled")
            and candidate.kind == "sentence"
            and candidate.opens_section
            and titled(query, candidate.text, candidate.section, names)
        )
    query_vector = evidence.vectors([query])[0]
    model = bundled()
    calibration = evidence.calibration
    headings = sorted({c.section for c in candidates if c.section})
    relevances = [
        calibration.probability(float(c.vector @ query_vector), *lexical[i])
        for c, i in zip(candidates, kept, strict=True)
    ]
    heading_vectors = dict(zip(headings, evidence.vectors(headings), strict=False))
    section_relevance = {
        h: calibration.probability(
            float(heading_vectors[h] @ query_vector), *evidence.lexical(query, h)
        )
        for h in headings
    }
    brought = [
        introduced(chunks[c.chunk_number - 1].content, c.position)[0]
        if LEAD_IN_END.search(c.text)
        else ""
        for c in candidates
    ]
    meanings = (
        name_meanings(evidence, query_vector, query, candidates, brought)
        if howto
        else [0.0] * len(candidates)
    )
    scored = []
    for i, (candidate, relevance) in enumerate(zip(candidates, relevances, strict=True)):
        before = candidates[i - 1] if i else None
        # A neighbouring row says nothing about this one, as a sentence's lead does.
        follows = (
            before is not None
            and before.chunk_number == candidate.chunk_number
            and not (before.kind == candidate.kind == "row")
        )
        is_named = kept[i] in named
        content = chunks[candidate.chunk_number - 1].content
        brings = brought[i]
        introduces = bool(brings) and not shows_not_writes(
            content, candidate.position, candidate.text, query
        )
        # For a how-to question, the best relevance of the EXPLAINED_WITHIN sentences after
        # it: "Mark it with `is_eager=True`. That tells Typer to process it before the
        # others." bears on the question through the sentence that explains what it does.
        explained = max(
            (
                relevances[j]
                for j in range(i + 1, min(i + 1 + EXPLAINED_WITHIN, len(candidates)))
                if candidates[j].chunk_number == candidate.chunk_number
                and candidates[j].position - candidate.position <= EXPLAINED_WITHIN
                and candidates[j].kind == candidate.kind == "sentence"
            ),
            default=0.0,
        )
        unit = UnitContext(
            kind=candidate.kind,
            relevance=relevance,
            context=relevances[i - 1] if follows else 0.0,
            # The cell a question names is the row's subject, as a heading is its
            # section's: the row bears on the question as fully as such a heading.
            section=1.0 if is_named else section_relevance.get(candidate.section, 0.0),
            explained=explained,
            rank=candidate.chunk_number,
            introduces=introduces,
            quoted=as_quoted(candidate),
            brings=brings,
            heading_names=names,
            name_meaning=meanings[i],
        )
        features = answer_features(query, kind, candidate.text, unit)
        scored.append(
            ScoredSentence(candidate, relevance, features, model.score(features), is_named)
        )
    scored.sort(key=lambda s: -s.score)
    return scored


def name_meanings(
    evidence: Evidence,
    query_vector: np.ndarray,
    query: str,
    candidates: list[Candidate],
    brought: list[str],
) -> list[float]:
    """For each candidate, the best cosine between the question and the words of a name it
    writes (as quoted, with what it introduces) that the question does not hold; 0 for
    none. Each name is embedded once, and kept for the backend's lifetime."""
    phrases = [
        name_phrases(query, f"{as_quoted(c)}\n{brings}")
        for c, brings in zip(candidates, brought, strict=True)
    ]
    unique = sorted({p for own in phrases for p in own})
    if not unique:
        return [0.0] * len(candidates)
    cosine = dict(zip(unique, (evidence.vectors(unique) @ query_vector).tolist(), strict=True))
    return [max((cosine[p] for p in own), default=0.0) for own in phrases]
