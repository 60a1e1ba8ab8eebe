"""The offline answer's selection stage: which scored candidates are quoted, in which
order, within the answer's budget (llm.answer_max_chars), and when to stop."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ragcli.config import LLMSettings
from ragcli.llm.offline import rules
from ragcli.llm.offline.brought import (
    EXAMPLE_MAX_CHARS,
    cut_off_code,
    introduced,
    section_example,
)
from ragcli.llm.offline.candidates import Candidate
from ragcli.llm.offline.code_blocks import what_it_shows
from ragcli.llm.offline.evidence import Evidence
from ragcli.llm.offline.model import bundled
from ragcli.llm.offline.questions import code_names, question_kind
from ragcli.llm.offline.scoring import ScoredSentence, as_quoted
from ragcli.llm.segment import units
from ragcli.llm.text import WORD, normalise
from ragcli.models import RetrievedChunk

# When to stop (the share of the best score a unit must reach, and how sure the answer must
# be that it holds the answer) is fitted with the scorer: ragcli/llm/offline/model.py.
# Relevance of the sentence, of the one before it, of its heading and (how-to) of the ones
# after it: one must reach llm.answer_min_relevance for the sentence to be quoted.
BEARING = ("relevance", "context", "section", "explained")
# sameness() of two units of the same words: above every cosine.
SAME_WORDS = 2.0
FENCE = re.compile(r"^\s*(?:```|~~~)")
# A sentence that refers back to the one before it ("This interface is required for …"
# after "… inspect the `response.num_bytes_downloaded` property."). Quoted alone, it leaves
# the reader asking what "this" is.
REFERS_BACK = re.compile(r"^(?:This|That|These|Those)\b")
# An antecedent that itself refers back would leave the same question one sentence earlier.
REFERS_BACK_OR_PRONOUN = re.compile(r"^(?:This|That|These|Those|It|They)\b")
# Before declining, the best-scored sentences are looked at clause by clause: a sentence
# listing several things ("three bodies of water: the Obersee ("upper lake"), the Untersee
# ...") is far, as a whole, from a question about one of them.
# A clause is short, and a short text comes close to a short question easily: it must
# reach the ambiguous band, not llm.answer_min_relevance (lower, it answers unanswerable
# questions; docs/dev-log/offline-backend.md).
CLAUSE = re.compile(r"[,;:]\s+")
CLAUSES_LOOKED_AT = 5
CLAUSE_MIN_RELEVANCE = 0.4


@dataclass
class Selection:
    """The candidates an answer quotes, in the order quoted, and the section's code
    example among them (None when there is none)."""

    chosen: list[Candidate]
    example: Candidate | None


def sameness(one: Candidate, other: Candidate) -> float:
    """How alike two units are: 2 for the same words, otherwise their embeddings' cosine;
    0 for two table rows of different words (rows embed alike whatever their values)."""
    if normalise(one.text) == normalise(other.text):
        return SAME_WORDS
    if one.kind == other.kind == "row":
        return 0.0
    return float(one.vector @ other.vector)


def same(one: Candidate, other: Candidate) -> bool:
    """Two units saying the same thing, as the fitted model's duplicate_cosine has it:
    quoting both adds nothing."""
    return sameness(one, other) > bundled().selection.duplicate_cosine


def select(
    evidence: Evidence,
    query: str,
    scored: list[ScoredSentence],
    chunks: list[RetrievedChunk],
    options: LLMSettings,
) -> Selection | None:
    """What the answer quotes of `scored` (best first); None when nothing bears on the
    question."""
    floor = options.answer_min_relevance
    # A sentence is quoted only when it, the one before it, its heading or (how-to
    # questions) the one after it bears on the question.
    eligible = [s for s in scored if max(getattr(s.features, f) for f in BEARING) >= floor]
    if rules.on("named_rows") and any(s.named for s in scored):
        # The rows the question does not name share their column names with the ones
        # it does, not its subject: they are left out.
        eligible = [s for s in eligible if s.named or s.candidate.kind != "row"]
    bears = max(s.relevance for s in scored) >= floor or any(s.named for s in scored)
    if not eligible or not bears:
        eligible = bearing_in_a_clause(evidence, query, scored) if rules.on("clauses") else []
    if not eligible:
        return None
    # Keep sentences close to the best answer: a weak sentence dilutes a strong one.
    parameters = bundled().selection
    cutoff = eligible[0].score * parameters.keep_share(question_kind(query))
    chosen: list[Candidate] = []
    shown: set[str] = set()  # the code chosen, alone or after a lead-in (what_it_shows)
    example = section_code(query, eligible[0], chunks, options.answer_max_chars)
    length = len(example.text) + 2 if example else 0
    if example:
        chosen.append(example)
    missed = 1.0  # the chance that none of the chosen sentences answers
    # Once a how-to answer quotes a sentence with the code it introduces (or its section's
    # example), it shows the call the page gives: it may stop sooner.
    covered = parameters.covered(question_kind(query), shown=example is not None)
    by_place = {(s.candidate.chunk_number, s.candidate.position): s for s in scored}
    for sentence in eligible:
        candidate = sentence.candidate
        if sentence.score < cutoff or 1.0 - missed >= covered:
            break  # what is left is weaker, or the ask is covered already
        if example and (candidate.chunk_number, candidate.position) == (
            example.chunk_number,
            example.position,
        ):
            continue  # the example, already in
        if any(same(candidate, c) for c in chosen if c is not example):
            continue
        size = len(as_quoted(candidate)) + 5
        brought = candidate.text if candidate.kind == "code" else ""
        chunk = chunks[candidate.chunk_number - 1]
        if sentence.features.lead_in:  # it brings its list or code
            brought = introduced(chunk.content, candidate.position)[0]
            size += len(brought) + 2
        elif rules.on("cut_off_code") and (cut_off := cut_off_code(chunk, candidate.position)):
            brought = cut_off
            size += len(brought) + 2
        code = what_it_shows(brought) if brought else ""
        if code in shown:
            # Two pages' copies of one install line, or the code a chosen lead-in
            # brings: in the answer already, so it counts as quoted.
            missed *= 1.0 - sentence.score
            continue
        referred = referred_to(evidence, query, candidate, chunks, by_place)
        antecedent, antecedent_score = referred or (None, 0.0)
        if antecedent is not None and any(same(antecedent, c) for c in chosen):
            antecedent = None  # quoted already
        if antecedent is not None:
            size += len(as_quoted(antecedent)) + 5
        if chosen and length + size > options.answer_max_chars:
            continue
        if antecedent is not None:
            chosen.append(antecedent)
            missed *= 1.0 - antecedent_score
        chosen.append(candidate)
        if code:
            shown.add(code)
            if candidate.kind != "code" and FENCE.match(brought):  # a sentence and its code
                covered = parameters.covered(question_kind(query), shown=True)
        length += size
        missed *= 1.0 - sentence.score
    # The passage holding the best answer comes first; within a passage, its sentences
    # keep their order.
    lead: dict[int, int] = {}
    for c in chosen:
        lead.setdefault(c.chunk_number, len(lead))
    chosen.sort(key=lambda c: (lead[c.chunk_number], c.position))
    return Selection(chosen, example)


def bearing_in_a_clause(
    evidence: Evidence, query: str, scored: list[ScoredSentence]
) -> list[ScoredSentence]:
    """Of the best-scored sentences, those with a clause that reaches
    CLAUSE_MIN_RELEVANCE, best first."""
    found = []
    for sentence in scored[:CLAUSES_LOOKED_AT]:
        if sentence.candidate.kind != "sentence":
            continue
        clauses = CLAUSE.split(sentence.candidate.text)
        clauses = [c for c in clauses if len(WORD.findall(c)) >= 3]
        if len(clauses) < 2:
            continue  # the sentence itself was scored
        if max(evidence.relevances(query, clauses)) >= CLAUSE_MIN_RELEVANCE:
            found.append(sentence)
    return found


def section_code(
    query: str, best: ScoredSentence, chunks: list[RetrievedChunk], max_chars: int
) -> Candidate | None:
    """The code example of the best answer's section, for a how-to question whose best
    answer neither is code nor brings it: at most EXAMPLE_MAX_CHARS, within
    llm.answer_max_chars (`max_chars`)."""
    candidate = best.candidate
    if question_kind(query) != "instruction" or candidate.kind == "code":
        return None
    if not rules.on("section_example"):
        return None
    if best.features.lead_in:
        return None  # a lead-in brings its own
    chunk = chunks[candidate.chunk_number - 1].content
    found = section_example(chunk, candidate.position, as_quoted(candidate))
    if found is None:
        return None
    text, position = found
    if len(text) > EXAMPLE_MAX_CHARS:
        return None  # a whole listing: the reader would scroll past the call to find it
    if len(text) + len(as_quoted(candidate)) + 7 > max_chars:
        return None
    return Candidate(text, candidate.chunk_number, position, candidate.vector, kind="code")


def referred_to(
    evidence: Evidence,
    query: str,
    candidate: Candidate,
    chunks: list[RetrievedChunk],
    by_place: dict[tuple[int, int], ScoredSentence],
) -> tuple[Candidate, float] | None:
    """For a how-to answer, the sentence `candidate` refers back to, with its answer
    score (0 when it was not scored), when it names something `candidate` does not:
    "Cargo also provides a command called `cargo check`." before "This command quickly
    checks your code …". Quoted together, the reader sees what "this" is."""
    if candidate.kind != "sentence" or candidate.position == 0 or not rules.on("antecedent"):
        return None
    if question_kind(query) != "instruction" or not REFERS_BACK.match(candidate.text):
        return None
    place = (candidate.chunk_number, candidate.position - 1)
    if place in by_place:
        before, score = by_place[place].candidate, by_place[place].score
    else:
        unit = units(chunks[candidate.chunk_number - 1].content)[place[1]]
        if unit.kind != "sentence":
            return None  # not embedded for nothing
        before, score = Candidate(unit.text, *place, evidence.vectors([unit.text])[0]), 0.0
    if before.kind != "sentence" or REFERS_BACK_OR_PRONOUN.match(before.text):
        return None
    if not code_names(query, before.text) - code_names(query, candidate.text):
        return None
    return before, score
