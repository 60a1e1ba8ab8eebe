"""Any OpenAI-compatible chat endpoint (OpenAI, Ollama, vLLM, llama.cpp server ...).

The openai client retries 429 / 5xx / timeouts with backoff (honouring Retry-After) up
to `llm.max_retries`. Structured roles parse JSON tolerantly; a reply that cannot be
used falls back to the extractive backend's evidence, and the trace records it."""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Callable, Iterator
from typing import Any

from ragcli.answer import Answer
from ragcli.config import LLMSettings
from ragcli.errors import BackendError
from ragcli.llm import prompts
from ragcli.llm.answer_parse import parse_answer
from ragcli.llm.base import GradeBands
from ragcli.llm.citations import merge_sources
from ragcli.llm.extractive import ExtractiveBackend
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
from ragcli.text.markdown import render
from ragcli.trace.recorder import note, record_llm_call

MAX_QUERY_CHARS = 500
HYDE_MAX_TOKENS = 160  # HyDE's passage: a few sentences are enough to search with
HYDE_MAX_CHARS = 1200  # a search query longer than this is a runaway reply, not a query
JSON_BLOCK = re.compile(r"(\{.*\}|\[.*\])", re.DOTALL)
# Characters accepted per requested token (English averages about 4): beyond this a reply
# is cut, whatever the server says about its length.
MAX_CHARS_PER_TOKEN = 8
KEEP_FUSED = "the candidates keep their fused order"


def parse_json(text: str) -> Any:
    """JSON from a model reply: tolerates code fences and text around the JSON."""
    text = text.strip()
    if text.startswith("```"):
        text = re.sub(r"^```[a-zA-Z]*\s*|\s*```$", "", text)
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        match = JSON_BLOCK.search(text)
        if match:
            return json.loads(match.group(1))
        raise


class OpenAIBackend:
    name = "openai"
    remote = True
    streams = True  # generate and synthesize accept on_token

    def __init__(self, options: LLMSettings, fallback: ExtractiveBackend, client: Any = None):
        self.options = options
        self.model = options.model
        self.fallback = fallback
        if client is None:
            import openai

            api_key = options.api_key.get_secret_value() if options.api_key else None
            client = openai.OpenAI(
                api_key=api_key or "not-needed",  # local servers accept any key
                base_url=options.base_url,
                timeout=options.timeout,
                max_retries=options.max_retries,
            )
        self.client = client

    def _request(
        self, prompt: str, system: str = prompts.SYSTEM, max_tokens: int | None = None
    ) -> dict[str, Any]:
        llm = self.options
        return {
            "model": llm.model,
            "messages": [
                {"role": "system", "content": system},
                {"role": "user", "content": prompt},
            ],
            "max_tokens": min(max_tokens or llm.max_tokens, llm.max_tokens),
            "temperature": llm.temperature,
        }

    @contextlib.contextmanager
    def _one_line_errors(self) -> Iterator[None]:
        """The client's errors, after its own retries, as one-line BackendErrors; a failed
        call still counts as a model call."""
        import httpx
        import openai

        llm = self.options
        where = self._where()
        try:
            yield
        except openai.APIStatusError as exc:
            record_llm_call()
            raise BackendError(
                f"model endpoint {where} answered HTTP {exc.status_code} "
                f"after {llm.max_retries} retries"
            ) from None
        except openai.APITimeoutError:
            record_llm_call()
            raise BackendError(
                f"model endpoint {where} timed out after {llm.timeout:g}s "
                f"({llm.max_retries} retries)"
            ) from None
        except (openai.APIConnectionError, httpx.HTTPError):
            record_llm_call()
            raise BackendError(
                f"model endpoint {where} cannot be reached or broke off the reply"
            ) from None
        except (openai.APIError, ValueError) as exc:  # a reply that is not the protocol's JSON
            record_llm_call()
            raise BackendError(
                f"model endpoint {where} sent a malformed reply ({type(exc).__name__})"
            ) from None

    def _chat(
        self, prompt: str, system: str = prompts.SYSTEM, max_tokens: int | None = None
    ) -> str:
        llm = self.options
        with self._one_line_errors():
            response = self.client.chat.completions.create(
                **self._request(prompt, system, max_tokens)
            )
        usage = getattr(response, "usage", None)
        record_llm_call(
            getattr(usage, "prompt_tokens", 0) or 0, getattr(usage, "completion_tokens", 0) or 0
        )
        choices = getattr(response, "choices", None) or []
        first = choices[0] if choices else None
        content = getattr(getattr(first, "message", None), "content", None)
        content = content.strip() if isinstance(content, str) else ""
        # A server that ignores max_tokens must not flood the terminal or the next prompt.
        cap = llm.max_tokens * MAX_CHARS_PER_TOKEN
        if len(content) > cap:
            note(
                f"the model's reply ({len(content)} characters) exceeded llm.max_tokens "
                f"({llm.max_tokens}); cut to {cap} characters"
            )
            content = content[:cap].rsplit(" ", 1)[0] + " …"
        elif getattr(first, "finish_reason", None) == "length":
            note(f"the model's reply stopped at llm.max_tokens ({llm.max_tokens})")
        return content

    def _chat_streaming(self, prompt: str, on_token: Callable[[str], None]) -> str:
        """Like _chat, but hands each piece of the reply to on_token as it arrives. Usage
        comes in the stream's last chunk where the server supports `stream_options`."""
        import openai

        request = {**self._request(prompt), "stream": True}
        parts: list[str] = []
        usage = None
        with self._one_line_errors():
            try:
                stream = self.client.chat.completions.create(
                    **request, stream_options={"include_usage": True}
                )
            except openai.BadRequestError:
                note("stream: the server rejected stream_options; streaming without usage")
                stream = self.client.chat.completions.create(**request)
            for chunk in stream:
                usage = getattr(chunk, "usage", None) or usage
                for choice in getattr(chunk, "choices", None) or []:
                    piece = getattr(choice.delta, "content", None) if choice.delta else None
                    if piece:
                        parts.append(piece)
                        on_token(piece)
        if usage is None:
            note("stream: the server reported no token usage; this call's tokens are not counted")
        record_llm_call(
            getattr(usage, "prompt_tokens", 0) or 0, getattr(usage, "completion_tokens", 0) or 0
        )
        return "".join(parts).strip()

    def _where(self) -> str:
        return self.options.base_url or "api.openai.com"

    def _structured(
        self, role: str, prompt: str, instead: str = "using the extractive fallback"
    ) -> Any | None:
        reply = self._chat(prompt)
        try:
            return parse_json(reply)
        except (json.JSONDecodeError, ValueError):
            note(f"{role}: the model's reply was not valid JSON; {instead}")
            return None

    # -- roles --------------------------------------------------------------------------

    def grade(self, query: str, chunks: list[RetrievedChunk], bands: GradeBands) -> Grading:
        if not chunks:
            return Grading(grades=[])
        data = self._structured("grade", prompts.grade(query, chunks))
        entries = data.get("grades") if isinstance(data, dict) else data
        by_id: dict[int, dict] = {}
        if isinstance(entries, list):
            for position, entry in enumerate(entries, start=1):
                if isinstance(entry, dict):
                    by_id[_as_int(entry.get("id"), position)] = entry
        grades: list[ChunkGrade] = []
        fallback_needed = [i for i in range(1, len(chunks) + 1) if not _valid_grade(by_id.get(i))]
        fallback = {}
        if fallback_needed:
            if data is not None:
                note(
                    f"grade: no usable grade for source(s) {fallback_needed}; "
                    "using the extractive fallback for those"
                )
            picked = [chunks[i - 1] for i in fallback_needed]
            fallback_grades = self.fallback.grade(query, picked, bands).grades
            fallback = dict(zip(fallback_needed, fallback_grades, strict=True))
        for number in range(1, len(chunks) + 1):
            if number in fallback:
                grades.append(fallback[number])
                continue
            entry = by_id[number]
            score = min(1.0, max(0.0, float(entry["score"])))
            label = str(entry.get("label", "")).lower()
            if label not in ("correct", "ambiguous", "incorrect"):
                label = bands.label(score)
            grades.append(
                ChunkGrade(
                    score=score, label=label, rationale=str(entry.get("rationale", ""))[:300]
                )
            )
        better = data.get("better_query") if isinstance(data, dict) else None
        return Grading(grades=grades, better_query=_one_line(better))

    def generate(
        self,
        query: str,
        chunks: list[RetrievedChunk],
        on_token: Callable[[str], None] | None = None,
    ) -> Answer:
        prompt = prompts.generate(query, chunks)
        answer = self._chat_streaming(prompt, on_token) if on_token else self._chat(prompt)
        if not answer:
            raise BackendError(f"model endpoint {self._where()} returned an empty answer")
        return parse_answer(answer)

    def reflect(
        self,
        query: str,
        answer: Answer,
        chunks: list[RetrievedChunk],
        min_score: float,
        support: list[SentenceSupport],
    ) -> Reflection:
        data = self._structured("reflect", prompts.reflect(query, render(answer), chunks))
        if not isinstance(data, dict) or "reflection_score" not in data:
            if data is not None:
                note("reflect: the verdict lacks reflection_score; using the extractive fallback")
            return self.fallback.reflect(query, answer, chunks, min_score, support)
        try:
            score = min(1.0, max(0.0, float(data["reflection_score"])))
        except (TypeError, ValueError):
            note("reflect: reflection_score is not a number; using the extractive fallback")
            return self.fallback.reflect(query, answer, chunks, min_score, support)
        return Reflection(
            answer_grounded=bool(data.get("answer_grounded", score >= min_score)),
            hallucination_detected=bool(data.get("hallucination_detected", False)),
            reflection_score=score,
            sources_cited=[str(s) for s in data.get("sources_cited", []) or []],
            reflection_reason=str(data.get("reflection_reason", "")),
            needs_regeneration=bool(data.get("needs_regeneration", score < min_score)),
        )

    def hypothesize(self, question: str) -> str:
        """HyDE: a short passage that would answer the question, to search with."""
        reply = self._chat(prompts.hyde(question), prompts.HYDE_SYSTEM, HYDE_MAX_TOKENS)
        return " ".join(reply.split())[:HYDE_MAX_CHARS]

    def refine(self, query: str, feedback: str, chunks: list[RetrievedChunk]) -> str:
        refined = _one_line(self._chat(prompts.refine(query, feedback)))
        return refined or self.fallback.refine(query, feedback, chunks)

    def rewrite(self, query: str, failed_chunks: list[RetrievedChunk]) -> str:
        rewritten = _one_line(self._chat(prompts.rewrite(query, failed_chunks)))
        return rewritten or self.fallback.rewrite(query, failed_chunks)

    def decompose(self, question: str, min_parts: int, max_parts: int) -> list[str]:
        data = self._structured("decompose", prompts.decompose(question, min_parts, max_parts))
        if isinstance(data, dict):
            data = next((v for v in data.values() if isinstance(v, list)), None)
        if not isinstance(data, list):
            note("decompose: no JSON array in the reply; answering the original question")
            return [question]
        return [str(q).strip() for q in data if isinstance(q, str | int) and str(q).strip()]

    def standalone(self, question: str, history: list[PriorTurn]) -> Standalone:
        """One short call, skipped for a first question; a reply that is not the JSON asked
        for leaves the offline rewrite to do it."""
        if not history:
            return self.fallback.standalone(question, history)
        data = self._structured("standalone", prompts.standalone(question, history))
        if isinstance(data, dict) and data.get("standalone") is True:
            return Standalone(question=question, reason="the model judged it standalone")
        rewritten = _one_line(str(data.get("question", ""))) if isinstance(data, dict) else ""
        if not rewritten:
            offline = self.fallback.standalone(question, history)
            offline.reason = f"the model's reply had no question; offline: {offline.reason}"
            return offline
        if rewritten.strip().lower() == question.strip().lower():
            return Standalone(question=question, reason="the model kept the question as asked")
        return Standalone(
            question=rewritten,
            rewritten=True,
            reason=f"rewritten by the model with {len(history)} earlier turn(s)",
        )

    def synthesize(
        self,
        question: str,
        sub_answers: list[SubAnswer],
        numbering: dict[str, int] | None = None,
        on_token: Callable[[str], None] | None = None,
    ) -> Answer:
        if numbering is None:
            merged = merge_sources(sub_answers)
            sub_answers, numbering = merged.sub_answers, merged.numbering
        prompt = prompts.synthesize(question, sub_answers, numbering)
        reply = self._chat_streaming(prompt, on_token) if on_token else self._chat(prompt)
        return parse_answer(reply)

    def verify(
        self, answer: Answer, chunks: list[RetrievedChunk], support: list[SentenceSupport]
    ) -> Verification:
        data = self._structured("verify", prompts.verify(render(answer), chunks))
        try:
            if not isinstance(data, dict):
                raise TypeError("not a JSON object")
            score = min(1.0, max(0.0, float(data["supported_score"])))
        except (TypeError, KeyError, ValueError):
            if data is not None:
                note("verify: the verdict lacks supported_score; using the extractive fallback")
            return self.fallback.verify(answer, chunks, support)
        claims = data.get("unsupported_claims") or []
        return Verification(supported_score=score, unsupported_claims=[str(c) for c in claims][:20])

    # -- reranking (retrieval/rerank/llm.py): a failed judgement raises, and the rerank
    # stage keeps the fused order; no extractive stand-in mixes another scale in.

    def judge_relevance(self, query: str, passages: list[str]) -> list[float]:
        """Pointwise: each passage's relevance to the query, 0-10, in one call."""
        data = self._structured("rerank", prompts.judge_relevance(query, passages), KEEP_FUSED)
        entries = data.get("scores") if isinstance(data, dict) else data
        found: dict[int, float] = {}
        for position, entry in enumerate(entries if isinstance(entries, list) else [], 1):
            number, value = (
                (_as_int(entry.get("id"), position), entry.get("score"))
                if isinstance(entry, dict)
                else (position, entry)
            )
            if not isinstance(value, int | float | str):
                continue
            try:
                found[number] = min(10.0, max(0.0, float(value)))
            except (TypeError, ValueError):
                continue
        missing = [n for n in range(1, len(passages) + 1) if n not in found]
        if missing:
            raise BackendError(
                f"model endpoint {self._where()}: no usable relevance score for "
                f"{len(missing)} of {len(passages)} passages"
            )
        return [found[n] for n in range(1, len(passages) + 1)]

    def order_by_relevance(self, query: str, passages: list[str]) -> list[int]:
        """Listwise: the passages' positions (0-based), most relevant first, in one call."""
        data = self._structured("rerank", prompts.order_by_relevance(query, passages), KEEP_FUSED)
        order = data.get("order") if isinstance(data, dict) else data
        seen = list(dict.fromkeys(_as_int(n, 0) for n in order)) if isinstance(order, list) else []
        positions = [n - 1 for n in seen if 1 <= n <= len(passages)]
        if len(positions) != len(passages):
            raise BackendError(
                f"model endpoint {self._where()}: the order names {len(positions)} of "
                f"{len(passages)} passages"
            )
        return positions


def _one_line(reply: Any) -> str:
    """A query from a model's reply: its first line, without quotes; "" when there is none."""
    if not isinstance(reply, str):
        return ""
    lines = reply.strip().splitlines()
    return lines[0].strip().strip('"').strip()[:MAX_QUERY_CHARS] if lines else ""


def _as_int(value: Any, default: int) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return default


def _valid_grade(entry: dict | None) -> bool:
    if not isinstance(entry, dict):
        return False
    try:
        float(entry["score"])
    except (KeyError, TypeError, ValueError):
        return False
    return True
