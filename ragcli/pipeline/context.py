"""What every step of a run needs: settings, retriever, model, web search and the trace."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ragcli.config import Settings
from ragcli.llm.base import LLMBackend
from ragcli.models import AskResult, RetrievedChunk, Usage
from ragcli.store.retriever import Retriever
from ragcli.trace.recorder import Trace


@dataclass
class RunContext:
    settings: Settings
    retriever: Retriever
    llm: LLMBackend
    trace: Trace
    web: Any = None  # a web search provider, or None when none is configured

    def result(self, answer: str, sources: list[RetrievedChunk], **extra: Any) -> AskResult:
        return AskResult(
            query=self.trace.question,
            answer=answer,
            mode=self.trace.mode,
            trace_id=self.trace.id,
            backend=self.trace.backend,
            sources=sources,
            usage=Usage(**self.trace.usage()),
            **extra,
        )
