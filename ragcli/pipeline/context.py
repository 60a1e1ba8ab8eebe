"""What every step of a run needs: settings, retriever, model, web search and the trace."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ragcli.answer import Answer
from ragcli.config import Settings
from ragcli.documents.library import Library
from ragcli.documents.model import StoredDocument
from ragcli.languages.coverage import uncovered_note
from ragcli.llm.base import LLMBackend
from ragcli.models import AnswerType, RetrievedChunk, SentenceSupport, Usage
from ragcli.pipeline.budget import Budget
from ragcli.pipeline.modes.agentic.details import AgenticDetails
from ragcli.pipeline.modes.crag.details import CragDetails
from ragcli.pipeline.modes.documents.details import ChosenBy
from ragcli.pipeline.modes.reflect.details import ReflectionDetails
from ragcli.pipeline.modes.tos.details import TosDetails
from ragcli.pipeline.results import AskResult, BackendInfo, PartRecord
from ragcli.pipeline.row_citations import cite_quoted_rows
from ragcli.retrieval.expansion import Hyde
from ragcli.retrieval.rerank.stage import RerankStage
from ragcli.retrieval.retriever import Retriever
from ragcli.text.markdown import render
from ragcli.trace.recorder import Trace


@dataclass
class RunContext:
    settings: Settings
    retriever: Retriever
    llm: LLMBackend
    trace: Trace
    web: Any = None  # a web search provider, or None when none is configured
    # Receives the final answer's text as it is generated (the CLI streams it to a terminal).
    on_token: Callable[[str], None] | None = None
    budget: Budget = field(default=None)  # type: ignore[assignment]  # set from settings.limits
    # The rerank stage every retrieval of the run goes through (retrieval.rerank).
    rerank: RerankStage = field(default_factory=RerankStage.off)
    # HyDE's passage of each query searched in this run (pipeline/hyde.py); None: none.
    passages: dict[str, Hyde | None] = field(default_factory=dict)
    # The documents the run reads whole (modes/documents): `ask --file`'s, or those auto
    # routes a summary to; how they were chosen; and the collection's documents, from
    # which auto finds those a question names (None: no whole-document route).
    documents: list[StoredDocument] | None = None
    documents_chosen_by: ChosenBy = "files"
    library: Library | None = None
    # The support check's judgement of each answer judged in this run, by its parts and
    # the ids of the sources it was judged against: reflect, verify and the final answer
    # read one judgement (pipeline/support.py).
    judgements: dict[tuple, list[SentenceSupport]] = field(default_factory=dict)
    judged_in: dict[tuple, str] = field(default_factory=dict)  # the step that judged it

    def __post_init__(self) -> None:
        if self.budget is None:
            self.budget = Budget(self.settings.limits, self.trace)

    def stream_kwargs(self) -> dict[str, Any]:
        """For the steps whose reply is the answer the user reads (generate, synthesize):
        hands the token callback to a backend that can stream, and nothing otherwise."""
        if self.on_token is None or not getattr(self.llm, "streams", False):
            return {}
        return {"on_token": self.on_token}

    def coverage_notes(self) -> list[str]:
        """The note a run whose query the embedder does not cover ends with, once."""
        uncovered = getattr(self.retriever, "uncovered", None)
        if not uncovered:
            return []
        return [uncovered_note(self.retriever.embedder.name, uncovered)]

    def support(
        self, answer: Answer, chunks: list[RetrievedChunk], step: str = ""
    ) -> list[SentenceSupport]:
        """Each claim of `answer` judged against `chunks`, once per answer and sources in
        a run; `step` names the trace step that asked first."""
        key = (answer.parts, tuple(c.chunk_id for c in chunks))
        if key not in self.judgements:
            from ragcli.pipeline.support import SupportChecker

            checker = SupportChecker(self.retriever.embedder, self.settings.support.threshold)
            self.judgements[key] = checker.check(answer, chunks)
            self.judged_in[key] = step
        return self.judgements[key]

    def judged_by(self, answer: Answer, chunks: list[RetrievedChunk]) -> str | None:
        """The step that judged this answer against these sources, if one did."""
        return self.judged_in.get((answer.parts, tuple(c.chunk_id for c in chunks)))

    def result(
        self,
        answer: Answer,
        sources: list[RetrievedChunk],
        answer_type: AnswerType = "answer",
        notes: list[str] | None = None,
        crag_details: CragDetails | None = None,
        reflection_details: ReflectionDetails | None = None,
        tos_details: TosDetails | None = None,
        agentic_details: AgenticDetails | None = None,
    ) -> AskResult:
        return AskResult(
            query=self.trace.question,
            answer=render(answer),
            answer_parts=[PartRecord.of(part) for part in answer.parts],
            mode=self.trace.mode,
            trace_id=self.trace.id,
            answer_type=answer_type,
            # A guard rail that stopped a loop is always said in the output.
            notes=list(notes or []) + self.budget.stops + self.coverage_notes(),
            backend=BackendInfo(**self.trace.backend),
            # A source whose rows the answer quotes is cited by them ("Prices, row 42").
            sources=cite_quoted_rows(answer, sources),
            crag_details=crag_details,
            reflection_details=reflection_details,
            tos_details=tos_details,
            agentic_details=agentic_details,
            usage=Usage(**self.trace.usage()),
        )
