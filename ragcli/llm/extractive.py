"""The offline backend: no generative model. Relevance and grounding come from the
embedding model plus lexical evidence, calibrated so that scores mean what the
thresholds assume; answers are the best supporting sentences, quoted with citations."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any, NamedTuple

import numpy as np

from ragcli.answer import Answer, AnswerPart
from ragcli.blocks.model import CodeBlock, Heading
from ragcli.config import LLMSettings
from ragcli.embedding.embedder import Embedder
from ragcli.llm import answer_choice
from ragcli.llm.answer_choice import FEATURES, code_names, question_kind
from ragcli.llm.base import GradeBands
from ragcli.llm.calibration import Calibration
from ragcli.llm.citations import citation_label, merge_sources
from ragcli.llm.decompose import decompose as decompose_question
from ragcli.llm.followup import make_standalone
from ragcli.llm.heading_names import heading_names, naming_sentences, titled
from ragcli.llm.quotes import quoted_part
from ragcli.llm.segment import Unit, UnitKind, units
from ragcli.llm.subject import CODE_SPAN, with_heading, with_title
from ragcli.llm.table_rows import cell_values, named_rows
from ragcli.llm.text import (
    WORD,
    normalise,
    sentences,
    term_coverage,
)
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
    heading_line,
)
from ragcli.terms import terms
from ragcli.text.citations import strip_citations
from ragcli.text.lead_ins import LEAD_IN_END
from ragcli.text.markdown import part_text, quotes_of, render
from ragcli.words import STOPWORDS

NO_ANSWER = "The retrieved documents do not appear to answer this question."
NO_ANSWER_PART = "The retrieved documents do not appear to answer this part."
# Two sentences this similar say the same thing; quoting both adds nothing.
DUPLICATE_COSINE = 0.92
# Sentences whose answer score reaches this share of the best one's are quoted with it,
# until the ask is covered (below); lower shares quote more of what the cut lost, at more
# characters (the figures: docs/dev-log/offline-backend.md, "Why the constants are what they are").
KEEP_SHARE = 0.55
# The answer stops once its sentences very probably hold the answer: the chance that none
# does (the product of 1 - each one's answer score) falls below 1 - COVERED. A how-to
# question's sentences name many identifiers, so one rarely settles it: it goes on longer.
# A lower stop ends a comparison after one of its two sides (docs/dev-log/offline-backend.md).
COVERED: dict[str, float] = {"instruction": 0.9999}
COVERED_FACT = 0.98
# Once a how-to answer quotes a sentence with the code it introduces (or with its section's
# example), it shows the call the page gives: it stops sooner (docs/dev-log/offline-backend.md,
# fourteenth round).
COVERED_SHOWN = 0.9997
# Relevance of the sentence, of the one before it and of its heading: one must reach
# llm.answer_min_relevance for the sentence to be quoted.
BEARING = ("relevance", "context", "section")
# A documentation site's template tag on a line of its own: `{% include "x.md" %}`,
# `{{ snippet }}`. The reader of an answer cannot use it. (Include directives are include
# blocks already: ragcli/blocks/includes.py.)
TEMPLATE_DIRECTIVE = re.compile(r"^\s*\{([%{]).*[%}]\}\s*$", re.S)
FENCE = re.compile(r"^\s*(?:```|~~~)")
# A terminal transcript shows a run's output, not how to write the solution.
OUTPUT_LANGUAGES = frozenset({"console", "output", "text", "txt"})
# A transcript's command line: what its reader types after the shell's prompt.
PROMPTED = re.compile(r"^[ \t]*[$%❯][ \t]+(.+)$", re.M)
# A diagram's source draws a picture; it shows nothing to write.
DIAGRAM_LANGUAGES = frozenset({"mermaid", "dot", "graphviz", "plantuml"})
# A section's code example longer than this (a dozen lines) is a listing more than a call:
# it is left out (measured in
# docs/dev-log/offline-backend.md, "Which sentences answer (`ragcli/llm/answer_choice.py`)").
EXAMPLE_MAX_CHARS = 400
# A sentence that refers back to the one before it ("This interface is required for …"
# after "… inspect the `response.num_bytes_downloaded` property."). Quoted alone, it leaves
# the reader asking what "this" is.
REFERS_BACK = re.compile(r"^(?:This|That|These|Those)\b")
# An antecedent that itself refers back would leave the same question one sentence earlier.
REFERS_BACK_OR_PRONOUN = re.compile(r"^(?:This|That|These|Those|It|They)\b")
# Embedding the sentences is most of a warm offline answer's time, so only this many are
# scored: those sharing the most (idf-weighted) terms with the question, which nearly
# always hold the sentence the full scoring puts first (docs/dev-log/offline-backend.md).
SCORED_SENTENCES = 16
# For a how-to question, the FOLLOWING sentences after each of the FOLLOWED most covering
# ones in their passage are scored too when they name something: documentation states the
# problem in the question's words, then names the fix in its own ("Nevertheless, we can
# easily fix. … To do that, we can import `col()`").
FOLLOWED = 8
FOLLOWING = 2
# A how-to sentence may be quoted when one of the next EXPLAINED_WITHIN sentences of its
# passage bears on the question: "`check_same_thread` is `True` by default … But here we
# … And we also need to disable it because in FastAPI each request …".
EXPLAINED_WITHIN = 2
# Before declining, the best-scored sentences are looked at clause by clause: a sentence
# listing several things ("three bodies of water: the Obersee ("upper lake"), the Untersee
# ...") is far, as a whole, from a question about one of them.
# A clause is short, and a short text comes close to a short question easily: it must
# reach the ambiguous band, not llm.answer_min_relevance (lower, it answers unanswerable
# questions; docs/dev-log/offline-backend.md).
CLAUSE = re.compile(r"[,;:]\s+")
CLAUSES_LOOKED_AT = 5
CLAUSE_MIN_RELEVANCE = 0.4


class Found(NamedTuple):
    """A candidate sentence (or list item, table row) before it is embedded."""

    text: str
    chunk_number: int  # 1-based, as cited
    position: int  # its unit's index in the chunk
    section: str
    kind: UnitKind = "sentence"
    opens_section: bool = False  # the first sentence under its heading


@dataclass
class Candidate:
    text: str
    chunk_number: int  # 1-based, as cited
    position: int
    vector: np.ndarray
    section: str = ""  # the heading it sits under, in its chunk or the chunk's own
    kind: UnitKind = "sentence"
    opens_section: bool = False
    # Quoted after its heading in bold: the first sentence under a heading that names the
    # solution of a how-to question ("Select by Id with `.get()`") and that does not.
    titled: bool = False


@dataclass
class ScoredSentence:
    candidate: Candidate
    relevance: float  # calibrated: does it bear on the question at all
    features: tuple[float, ...]  # answer_choice.FEATURES
    score: float  # does it answer the question
    named: bool = False  # a table row the question names (llm/table_rows.py)
    # For a how-to question, the best relevance of the EXPLAINED_WITHIN sentences after it
    # in its chunk:
    # "Mark it with `is_eager=True`. That tells Typer to process it before the others."
    # bears on the question through the sentence that explains what it does.
    explained: float = 0.0


def _is_reference(unit: Unit) -> bool:
    """An include block: it names a file or an API page, and shows nothing."""
    return isinstance(unit.block, CodeBlock) and unit.block.is_reference


def _starts_mid_listing(unit: Unit) -> bool:
    """A code block whose first line is indented deeper than a later line: the chunker cut
    a long listing there, and the part begins inside a function or a string. It reads as
    nothing on its own."""
    if not isinstance(unit.block, CodeBlock):
        return False
    lines = [line for line in unit.block.text.split("\n") if line.strip()]
    if not lines:
        return False
    depth = len(lines[0]) - len(lines[0].lstrip())
    return any(len(line) - len(line.lstrip()) < depth for line in lines[1:])


def _language(unit: Unit) -> str:
    """A code block's language, lower-cased; "" for any other unit."""
    return unit.block.language.lower() if isinstance(unit.block, CodeBlock) else ""


def _next_language(found: list[Unit], position: int) -> str:
    """The language of the code block right after unit `position` (what a lead-in brings);
    "" when no code block follows."""
    return _language(found[position + 1]) if position + 1 < len(found) else ""


class Piece(NamedTuple):
    """A unit a lead-in brings: its text as quoted, and its kind."""

    text: str
    kind: UnitKind


def introduced(text: str, position: int) -> tuple[str, int]:
    """The list items, table rows or code block right after unit `position` of `text`
    (what a lead-in, LEAD_IN_END, introduces), one a line, and how many units that is."""
    pieces, taken = introduced_pieces(text, position)
    return "\n".join(p.text for p in pieces), taken


def introduced_pieces(text: str, position: int) -> tuple[list[Piece], int]:
    """What `introduced` quotes, piece by piece (an item's later sentences are units of
    their own, quoted on its line), and how many units that is."""
    found = units(text)
    following: list[Piece] = []
    taken = 0
    last: Unit | None = None
    for unit in found[position + 1 :]:
        if last is not None and last.kind == "item" and unit.block is last.block:
            following[-1] = Piece(f"{following[-1].text} {unit.text}", "item")
            taken += 1
            continue
        if unit.kind not in ("item", "row", "code") or (following and unit.kind == "code"):
            break
        if _is_reference(unit) or _language(unit) in DIAGRAM_LANGUAGES:
            break  # an include shows nothing; a diagram's source is no text to read
        last = unit
        following.append(Piece(unit.text, unit.kind))
        taken += 1
        if unit.kind == "code":
            break
    return following, taken


def cut_off_code(chunk: RetrievedChunk, position: int) -> str:
    """The code block that unit `position` of `chunk`, a lead-in ending the chunk, introduces
    when the chunker cut it into the next chunk (ChunkMetadata.continues) and it is a call
    more than a listing (EXAMPLE_MAX_CHARS); else "". Quoted after the lead-in, so an answer
    does not end on "… like this:" with nothing after it; not scored, since what is
    retrieved and scored is the chunk's own text."""
    return "\n".join(p.text for p in cut_off_pieces(chunk, position))


def cut_off_pieces(chunk: RetrievedChunk, position: int) -> list[Piece]:
    """What `cut_off_code` quotes, piece by piece."""
    follows = chunk.metadata.continues
    if not follows or len(follows) > EXAMPLE_MAX_CHARS:
        return []
    found = units(chunk.content)
    if position != len(found) - 1 or not LEAD_IN_END.search(found[position].text):
        return []
    return introduced_pieces(follows, -1)[0]  # an include or a diagram shows nothing


def section_example(text: str, position: int, names: str = "") -> tuple[str, int] | None:
    """The code example of the section unit `position` of `text` sits in, with its unit
    index: of the section's code blocks (since its heading, up to the next), the first after
    the unit that shows a name the unit quotes (a code span of `names`), else the first
    after it, else the last before it. A terminal transcript (```console) shows a run's
    output, and an include block shows nothing, so neither is an example."""
    found = units(text)

    def example(i: int) -> bool:
        if found[i].kind != "code" or _is_reference(found[i]) or _starts_mid_listing(found[i]):
            return False
        return _language(found[i]) not in OUTPUT_LANGUAGES | DIAGRAM_LANGUAGES

    after: list[int] = []
    for i in range(position + 1, len(found)):
        if found[i].kind == "heading":
            break
        if example(i):
            after.append(i)
    before: list[int] = []
    for i in range(position - 1, -1, -1):
        if found[i].kind == "heading":
            break
        if example(i):
            before.append(i)
    wanted = [n for n in CODE_SPAN.findall(names) if len(n) > 2]
    showing = [i for i in after + before if any(n in found[i].text for n in wanted)]
    ranked = showing or after or before
    return (found[ranked[0]].text, ranked[0]) if ranked else None


def shows_not_writes(text: str, position: int, sentence: str, query: str) -> bool:
    """Whether `sentence`, unit `position` of `text` and a lead-in, brings a run's output
    and names nothing itself ("When you run the program, you'll see something like
    this:"): it shows what happens, not what to write. For a how-to question, a
    transcript whose command does what the question asks ("$ pip install sqlmodel" for
    "How do I install SQLModel?") is what to write. (A lead-in to a diagram is no
    candidate at all.)"""
    found = units(text)
    if _next_language(found, position) not in OUTPUT_LANGUAGES:
        return False
    if answer_choice.IDENTIFIER.search(sentence):
        return False
    if question_kind(query) != "instruction":
        return True
    return not does_what_is_asked(found[position + 1].text, query)


def _commands(transcript: str) -> list[list[str]]:
    """The words of each command line of `transcript` (after the shell's prompt)."""
    return [line.split() for line in PROMPTED.findall(transcript)]


def does_what_is_asked(transcript: str, query: str) -> bool:
    """Whether a command of `transcript` holds a term of the question in its words. What
    a command does is in its words, not its flags: "$ python main.py --help" shows a help
    text, it does not answer a question about one."""
    words = [w for command in _commands(transcript) for w in command if not w.startswith("-")]
    return bool(set(terms(" ".join(words))) & set(terms(query)))


def what_it_shows(brought: str) -> str:
    """What a lead-in brings, to tell two pages' copies of it apart from different code:
    a transcript's commands (its output may differ: "Successfully installed sqlmodel" and
    "… sqlmodel pydantic sqlalchemy"), else its text, spaces aside."""
    commands = _commands(brought)
    return "\n".join(" ".join(c) for c in commands) or " ".join(brought.split())


def _same(one: Candidate, other: Candidate) -> bool:
    """Two units saying the same thing. Rows of a table embed alike whatever their values,
    so two rows are the same only when their words are."""
    if one.kind == other.kind == "row":
        return normalise(one.text) == normalise(other.text)
    return float(one.vector @ other.vector) > DUPLICATE_COSINE


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
        # Supplies the collection's BM25 index (the retriever's, repaired when it lags).
        self._term_stats_source = term_stats
        self.model = f"extractive ({embedder.name})"
        self.options = options
        self.calibration = calibration
        self._cache: dict[str, np.ndarray] = {}
        self._idf: dict[str, dict[str, float]] = {}

    @cached_property
    def term_stats(self) -> Any:
        """The collection's BM25 index, whose statistics weight query terms by rarity; None
        when there is none (every term then weighs the same)."""
        return self._term_stats_source() if self._term_stats_source is not None else None

    # -- evidence ---------------------------------------------------------------------

    def _vectors(self, texts: list[str]) -> np.ndarray:
        missing = [t for t in dict.fromkeys(texts) if t not in self._cache]
        if missing:
            for text, vector in zip(missing, self.embedder.embed(missing), strict=True):
                self._cache[text] = vector
        if not texts:
            return np.zeros((0, 1), dtype=np.float32)
        return np.stack([self._cache[t] for t in texts])

    def _sentences(self, chunks: list[RetrievedChunk], query: str = "") -> list[Found]:
        """The units of `chunks` that may answer; for a how-to question a terminal
        transcript is none (it shows what a run prints, not what to write) unless its
        command does what the question asks (`$ pip install "fastapi[standard]"` under
        "## Installation" for "How do I install FastAPI?")."""
        howto = bool(query) and question_kind(query) == "instruction"
        found: list[Found] = []
        for number, chunk in enumerate(chunks, start=1):
            # A document's title says little about which part of it answers; a section's
            # heading does.
            heading = chunk.metadata.heading or ""
            section = heading.rsplit(" > ", 1)[-1] if " > " in heading else ""
            path_line = heading_line(heading) if heading else ""
            # The first sentence under a heading of the text's own (not the path line a
            # chunk cut from the middle of a section begins with).
            own_heading = False
            found_units = units(chunk.content)
            for position, unit in enumerate(found_units):
                sentence = unit.text
                if isinstance(unit.block, Heading):
                    own_heading = not (position == 0 and path_line.startswith(sentence))
                    if not own_heading:
                        continue  # the path the chunker put first (perhaps cut): as above
                    # A heading is not an answer, but it says what follows is about.
                    section = "" if unit.block.level == 1 else unit.block.title
                    continue
                first = unit.opens_section and own_heading
                if len(WORD.findall(sentence)) < 3:
                    continue  # fragments are not answers
                if sentence.rstrip().endswith("?"):
                    continue  # a question in the source restates, it does not answer
                if (
                    _is_reference(unit)
                    or _language(unit) in DIAGRAM_LANGUAGES
                    or TEMPLATE_DIRECTIVE.match(sentence)
                    or _starts_mid_listing(unit)
                ):
                    continue  # an include, a chart's source, a site generator's tag, a cut
                if (
                    howto
                    and _language(unit) in OUTPUT_LANGUAGES
                    and not does_what_is_asked(sentence, query)
                ):
                    continue
                if (
                    LEAD_IN_END.search(sentence)
                    and _next_language(found_units, position) in DIAGRAM_LANGUAGES
                ):
                    continue  # it leads in to a picture the answer does not show
                found.append(Found(sentence, number, position, section, unit.kind, first))
        return found

    def _embedded(self, found: list[Found]) -> list[Candidate]:
        vectors = self._vectors([f.text for f in found])
        return [
            Candidate(f.text, f.chunk_number, f.position, v, f.section, f.kind, f.opens_section)
            for f, v in zip(found, vectors, strict=False)
        ]

    @staticmethod
    def _most_promising(found: list[Found], coverage: list[float]) -> list[int]:
        """The positions in `found` of the SCORED_SENTENCES covering most of the question's
        terms (ties go to the better-ranked chunk, then the earlier sentence), in order."""
        ranked = sorted(range(len(found)), key=lambda i: (-coverage[i], found[i][1], found[i][2]))
        return sorted(ranked[:SCORED_SENTENCES])

    @staticmethod
    def _naming_followers(
        found: list[Found], coverage: list[float], promising: list[int]
    ) -> set[int]:
        """The positions in `found` of the FOLLOWING sentences after each of the FOLLOWED
        most covering `promising` ones, in the same passage, that name something."""
        best = sorted(promising, key=lambda i: (-coverage[i], i))[:FOLLOWED]
        return {
            j
            for i in best
            for j in range(i + 1, min(i + 1 + FOLLOWING, len(found)))
            if found[j].chunk_number == found[i].chunk_number
            and found[j].kind == "sentence"
            and answer_choice.IDENTIFIER.search(found[j].text)
        }

    def relevance(self, query: str, text: str) -> float:
        """Calibrated probability that `text` answers `query`."""
        return self._relevances(query, [text])[0]

    def features(self, query: str, text: str) -> tuple[float, float, float]:
        """The evidence relevance is calibrated on (see ragcli/llm/calibration.py): the best
        cosine between the query and the text or one of its sentences, the idf-weighted
        share of query terms the text contains, and the text's BM25 score."""
        query_vector = self._vectors([query])[0]
        parts = [s for s in sentences(text) if len(WORD.findall(s)) >= 3] or [text]
        similarity = float(np.max(self._vectors(parts + [text]) @ query_vector))
        return (similarity, *self._lexical_evidence(query, text))

    def _lexical_evidence(self, query: str, text: str) -> tuple[float, float]:
        """idf-weighted query term coverage and BM25, under the collection's statistics;
        without a BM25 index, plain coverage and no BM25 evidence."""
        stats = self.term_stats
        if stats is None:
            return term_coverage(set(terms(query)), set(terms(text))), 0.0
        if query not in self._idf:
            self._idf[query] = stats.term_idf(query)
        idf, text_terms = self._idf[query], stats.terms(text)
        total = sum(idf.values())
        if not total:
            return 0.0, 0.0
        covered = sum(weight for term, weight in idf.items() if term in text_terms)
        return covered / total, stats.score_text(query, text)

    def _relevances(self, query: str, texts: list[str]) -> list[float]:
        return [self.calibration.probability(*self.features(query, text)) for text in texts]

    # -- roles --------------------------------------------------------------------------

    def grade(self, query: str, chunks: list[RetrievedChunk], bands: GradeBands) -> Grading:
        grades = []
        for score in self._relevances(query, [c.content for c in chunks]):
            score = round(score, 3)
            label = bands.label(score)
            grades.append(
                ChunkGrade(score=score, label=label, rationale=f"calibrated evidence {score:.2f}")
            )
        return Grading(grades=grades)

    def scored_sentences(self, query: str, chunks: list[RetrievedChunk]) -> list[ScoredSentence]:
        """Every candidate sentence of `chunks` with its relevance and answer features
        (ragcli/llm/answer_choice.py), best answer first."""
        howto = question_kind(query) == "instruction"
        found = self._sentences(chunks, query)
        if not found:
            return []
        stats = self.term_stats
        if stats is not None and hasattr(stats, "prime"):
            sections = sorted({f.section for f in found if f.section})
            stats.prime([f.text for f in found] + sections + [query])
        # Lexical evidence is cheap and picks the sentences worth embedding. For a how-to
        # question a row's terms are its cells': every row of a migration table repeats its
        # column names ("Pydantic V1: …; Pydantic V2: …"), which may be the question's words.
        evidence = [
            self._lexical_evidence(
                query, " ".join(cell_values(f.text)) if howto and f.kind == "row" else f.text
            )
            for f in found
        ]
        named = self._named_rows(query, found)
        names = heading_names(query, chunks)
        coverage = [c for c, _ in evidence]
        promising = self._most_promising(found, coverage)
        kept = sorted(
            set(promising)
            | (self._naming_followers(found, coverage, promising) if howto else set())
            | named
            | naming_sentences(query, [f.text for f in found], coverage, names)
        )
        candidates = self._embedded([found[i] for i in kept])
        for candidate in candidates:
            candidate.titled = (
                candidate.kind == "sentence"
                and candidate.opens_section
                and titled(query, candidate.text, candidate.section, names)
            )
        query_vector = self._vectors([query])[0]
        choice = answer_choice.bundled()
        headings = sorted({c.section for c in candidates if c.section})
        relevances = [
            self.calibration.probability(float(c.vector @ query_vector), *evidence[i])
            for c, i in zip(candidates, kept, strict=True)
        ]
        heading_vectors = dict(zip(headings, self._vectors(headings), strict=False))
        section_relevance = {
            h: self.calibration.probability(
                float(heading_vectors[h] @ query_vector), *self._lexical_evidence(query, h)
            )
            for h in headings
        }
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
            brings = (
                introduced(content, candidate.position)[0]
                if LEAD_IN_END.search(candidate.text)
                else ""
            )
            introduces = bool(brings) and not shows_not_writes(
                content, candidate.position, candidate.text, query
            )
            features = answer_choice.features(
                query,
                candidate.text,
                relevance,
                relevances[i - 1] if follows else 0.0,
                # The cell a question names is the row's subject, as a heading is its
                # section's: the row bears on the question as fully as such a heading.
                1.0 if is_named else section_relevance.get(candidate.section, 0.0),
                introduces,
                candidate.chunk_number,
                quoted=self.as_quoted(candidate),
                brings=brings,
                heading_names=names,
            )
            score = choice.score(features)
            explained = (
                max(
                    (
                        relevances[j]
                        for j in range(i + 1, min(i + 1 + EXPLAINED_WITHIN, len(candidates)))
                        if candidates[j].chunk_number == candidate.chunk_number
                        and candidates[j].position - candidate.position <= EXPLAINED_WITHIN
                        and candidates[j].kind == candidate.kind == "sentence"
                    ),
                    default=0.0,
                )
                if howto
                else 0.0
            )
            scored.append(
                ScoredSentence(candidate, relevance, features, score, is_named, explained)
            )
        scored.sort(key=lambda s: -s.score)
        return scored

    @staticmethod
    def _named_rows(query: str, found: list[Found]) -> set[int]:
        """The positions in `found` of the table rows the question names."""
        rows = [i for i, f in enumerate(found) if f.kind == "row"]
        return {rows[j] for j in named_rows(query, [found[i].text for i in rows])}

    @staticmethod
    def as_quoted(candidate: Candidate) -> str:
        """The candidate as the answer quotes it: a sentence whose subject is its section's
        heading carries that heading (llm/subject.py); a titled one follows it."""
        if candidate.kind != "sentence" or not candidate.opens_section:
            return candidate.text
        if candidate.titled:
            return with_title(candidate.text, candidate.section)
        return with_heading(candidate.text, candidate.section)

    def _example(
        self, query: str, best: ScoredSentence, chunks: list[RetrievedChunk]
    ) -> Candidate | None:
        """The code example of the best answer's section, for a how-to question whose best
        answer neither is code nor brings it: at most EXAMPLE_MAX_CHARS, within
        llm.answer_max_chars."""
        candidate = best.candidate
        if question_kind(query) != "instruction" or candidate.kind == "code":
            return None
        if best.features[FEATURES.index("lead_in")]:
            return None  # a lead-in brings its own
        chunk = chunks[candidate.chunk_number - 1].content
        found = section_example(chunk, candidate.position, self.as_quoted(candidate))
        if found is None:
            return None
        text, position = found
        if len(text) > EXAMPLE_MAX_CHARS:
            return None  # a whole listing: the reader would scroll past the call to find it
        if len(text) + len(self.as_quoted(candidate)) + 7 > self.options.answer_max_chars:
            return None
        return Candidate(text, candidate.chunk_number, position, candidate.vector, kind="code")

    def _antecedent(
        self,
        query: str,
        candidate: Candidate,
        chunks: list[RetrievedChunk],
        by_place: dict[tuple[int, int], ScoredSentence],
    ) -> tuple[Candidate, float] | None:
        """For a how-to answer, the sentence `candidate` refers back to, with its answer
        score (0 when it was not scored), when it names something `candidate` does not:
        "Cargo also provides a command called `cargo check`." before "This command quickly
        checks your code …". Quoted together, the reader sees what "this" is."""
        if candidate.kind != "sentence" or candidate.position == 0:
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
            before, score = Candidate(unit.text, *place, self._vectors([unit.text])[0]), 0.0
        if before.kind != "sentence" or REFERS_BACK_OR_PRONOUN.match(before.text):
            return None
        if not code_names(query, before.text) - code_names(query, candidate.text):
            return None
        return before, score

    def generate(self, query: str, chunks: list[RetrievedChunk]) -> Answer:
        scored = self.scored_sentences(query, chunks)
        floor = self.options.answer_min_relevance
        # A sentence is quoted only when it, the one before it, its heading or (how-to
        # questions) the one after it bears on the question.
        eligible = [
            s
            for s in scored
            if max(s.explained, *(s.features[FEATURES.index(f)] for f in BEARING)) >= floor
        ]
        if any(s.named for s in scored):
            # The rows the question does not name share their column names with the ones
            # it does, not its subject: they are left out.
            eligible = [s for s in eligible if s.named or s.candidate.kind != "row"]
        bears = max(s.relevance for s in scored) >= floor or any(s.named for s in scored)
        if not eligible or not bears:
            eligible = self._bearing_in_a_clause(query, scored)
        if not eligible:
            return Answer.of_notes(NO_ANSWER)
        # Keep sentences close to the best answer: a weak sentence dilutes a strong one.
        cutoff = eligible[0].score * KEEP_SHARE
        chosen: list[Candidate] = []
        shown: set[str] = set()  # the code chosen, alone or after a lead-in (what_it_shows)
        example = self._example(query, eligible[0], chunks)
        length = len(example.text) + 2 if example else 0
        if example:
            chosen.append(example)
        missed = 1.0  # the chance that none of the chosen sentences answers
        covered = COVERED.get(question_kind(query), COVERED_FACT)
        if example:
            covered = min(covered, COVERED_SHOWN)
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
            if any(_same(candidate, c) for c in chosen if c is not example):
                continue
            size = len(self.as_quoted(candidate)) + 5
            brought = candidate.text if candidate.kind == "code" else ""
            chunk = chunks[candidate.chunk_number - 1]
            if sentence.features[FEATURES.index("lead_in")]:  # it brings its list or code
                brought = introduced(chunk.content, candidate.position)[0]
                size += len(brought) + 2
            elif cut_off := cut_off_code(chunk, candidate.position):
                brought = cut_off
                size += len(brought) + 2
            code = what_it_shows(brought) if brought else ""
            if code in shown:
                # Two pages' copies of one install line, or the code a chosen lead-in
                # brings: in the answer already, so it counts as quoted.
                missed *= 1.0 - sentence.score
                continue
            antecedent, antecedent_score = self._antecedent(query, candidate, chunks, by_place) or (
                None,
                0.0,
            )
            if antecedent is not None and any(_same(antecedent, c) for c in chosen):
                antecedent = None  # quoted already
            if antecedent is not None:
                size += len(self.as_quoted(antecedent)) + 5
            if chosen and length + size > self.options.answer_max_chars:
                continue
            if antecedent is not None:
                chosen.append(antecedent)
                missed *= 1.0 - antecedent_score
            chosen.append(candidate)
            if code:
                shown.add(code)
                if candidate.kind != "code" and FENCE.match(brought):  # a sentence and its code
                    covered = min(covered, COVERED_SHOWN)
            length += size
            missed *= 1.0 - sentence.score
        # The passage holding the best answer comes first; within a passage, its sentences
        # keep their order.
        lead: dict[int, int] = {}
        for c in chosen:
            lead.setdefault(c.chunk_number, len(lead))
        chosen.sort(key=lambda c: (lead[c.chunk_number], c.position))
        # What the chosen sentences leave for the lists and code their lead-ins bring (they
        # were counted in when choosing, so each fits).
        room = self.options.answer_max_chars - sum(
            len(self.as_quoted(c)) + (2 if c is example else 5) for c in chosen
        )
        parts: list[AnswerPart] = []
        taken: set[tuple[int, int]] = set()  # (chunk, position) quoted after a lead-in
        for c in chosen:
            if (c.chunk_number, c.position) in taken:
                continue
            chunk = chunks[c.chunk_number - 1]
            parts.append(quoted_part(self.as_quoted(c), c.kind, c.chunk_number, chunk, c.text))
            if LEAD_IN_END.search(c.text):  # a lead-in: quote the list or code it introduces
                follow, count = introduced_pieces(chunk.content, c.position)
                follow = follow or cut_off_pieces(chunk, c.position)
                taken |= {(c.chunk_number, c.position + i) for i in range(1, count + 1)}
                size = len("\n".join(p.text for p in follow))
                # Quoted as one with the lead-in, on lines of their own and cited once.
                if follow and size + 2 <= room:
                    parts += [
                        quoted_part(p.text, p.kind, c.chunk_number, chunk, continues=True)
                        for p in follow
                    ]
                    room -= size + 2
        if not parts:
            return Answer.of_notes(NO_ANSWER)
        return Answer(tuple(parts))

    def _bearing_in_a_clause(
        self, query: str, scored: list[ScoredSentence]
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
            if max(self._relevances(query, clauses)) >= CLAUSE_MIN_RELEVANCE:
                found.append(sentence)
        return found

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
            for quote, text, vector in zip(quotes, texts, self._vectors(texts), strict=False):
                repeated = normalise(text) in said_text or any(
                    float(vector @ v) > DUPLICATE_COSINE for v in said
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
