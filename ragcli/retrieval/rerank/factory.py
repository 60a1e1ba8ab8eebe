"""The reranker `retrieval.rerank.provider` names, built from the settings. Building
loads nothing: the engine's client opens no connection, the cross-encoder loads its model
at its first rerank, so a misconfigured reranker costs a run nothing until it reranks."""

from __future__ import annotations

from typing import Any

from ragcli.config import RerankSettings
from ragcli.retrieval.rerank.base import Reranker, RerankUnavailable


def make_reranker(options: RerankSettings, answer_model: Any = None) -> Reranker:
    """`answer_model`: the run's answer backend, which the llm reranker asks."""
    if options.provider == "engine":
        from ragcli.retrieval.rerank.engine import EngineReranker

        return EngineReranker(options)
    if options.provider == "cross-encoder":
        from ragcli.retrieval.rerank.cross_encoder import CrossEncoderReranker

        return CrossEncoderReranker(options)
    if options.provider == "llm":
        if not hasattr(answer_model, "judge_relevance"):
            raise RerankUnavailable(
                "retrieval.rerank.provider llm needs an answer model (llm.base_url or "
                "OPENAI_API_KEY); the offline extractive backend judges nothing"
            )
        from ragcli.retrieval.rerank.llm import LLMReranker

        return LLMReranker(answer_model, options.llm_window, options.llm_method)
    raise ValueError(f"no reranker for provider {options.provider!r}")
