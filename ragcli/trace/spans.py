"""A finished run as an OpenTelemetry span tree with OpenInference attributes, sent over
OTLP/HTTP to Phoenix, Langfuse, Jaeger, Tempo or any other receiver.

Spans are built from the trace record after the run, with the times each step recorded,
rather than opened around every call: the pipeline keeps one way of recording itself, and
a run that is not exported pays nothing. The tree:

    ragcli MODE                      CHAIN: question in, answer out, session = conversation
      retrieve                       RETRIEVER: retrieval.documents (id, score, file, locator)
      grade / reflect round N / support     EVALUATOR: scores against thresholds
      route / tos stage S / outcome  DECISION: the rule or band taken
      generate / rewrite / ...       LLM: model name and token counts
      web_search                     TOOL
      answer_sub_questions           CHAIN, with one `sub-question N` span per part
    auto adds `mode NAME` under the root, holding the steps of the mode it chose.
"""

from __future__ import annotations

import json
import logging
import threading
from datetime import datetime
from typing import Any

from openinference.semconv.resource import ResourceAttributes
from openinference.semconv.trace import (
    DocumentAttributes,
    OpenInferenceMimeTypeValues,
    OpenInferenceSpanKindValues,
    SpanAttributes,
)
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter, SpanExportResult
from opentelemetry.trace import Span, Tracer, set_span_in_context

from ragcli.trace.recorder import StepRecord, Trace

log = logging.getLogger("ragcli")

Kind = OpenInferenceSpanKindValues
KIND = SpanAttributes.OPENINFERENCE_SPAN_KIND
JSON = OpenInferenceMimeTypeValues.JSON.value

LLM_STEPS = {"generate", "refine", "draft", "synthesize", "decompose", "rewrite", "standalone"}
EVALUATOR_STEPS = {"grade", "reflect", "verify", "support"}
DECISION_STEPS = {"route", "compare", "outcome", "not_covered", "limit"}


def span_name(step: StepRecord) -> str:
    if step.name == "reflect":
        return f"reflect round {step.inputs.get('round', '?')}"
    if step.name.endswith("_band"):
        return f"tos stage {step.inputs.get('stage', step.name[: -len('_band')])}"
    return step.name


def span_kind(step: StepRecord) -> Kind:
    if step.name == "retrieve":
        return Kind.RETRIEVER
    if step.name == "web_search":
        return Kind.TOOL
    if step.name in EVALUATOR_STEPS:
        return Kind.EVALUATOR
    if step.name in DECISION_STEPS or step.name.endswith("_band"):
        return Kind.DECISION
    if step.name in LLM_STEPS:
        return Kind.LLM
    return Kind.CHAIN


def _ns(created_at: str, offset_ms: float) -> int:
    return int(datetime.fromisoformat(created_at).timestamp() * 1e9 + offset_ms * 1e6)


def _flat(prefix: str, values: dict[str, Any]) -> dict[str, Any]:
    """ragcli's numbers as span attributes; a None (nothing to score) is left out."""
    out: dict[str, Any] = {}
    for key, value in values.items():
        if value is None or isinstance(value, dict | list):
            continue
        out[f"{prefix}.{str(key).replace(' ', '_')}"] = value
    return out


def documents(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """retrieval.documents.N.document.* for the chunks a step retrieved."""
    out: dict[str, Any] = {}
    for n, row in enumerate(rows):
        base = f"{SpanAttributes.RETRIEVAL_DOCUMENTS}.{n}."
        out[base + DocumentAttributes.DOCUMENT_ID] = str(row.get("chunk_id", ""))
        if row.get("score") is not None:
            out[base + DocumentAttributes.DOCUMENT_SCORE] = float(row["score"])
        if row.get("preview"):
            out[base + DocumentAttributes.DOCUMENT_CONTENT] = str(row["preview"])
        where = {k: row.get(k) for k in ("source_file", "locator", "page", "heading")}
        out[base + DocumentAttributes.DOCUMENT_METADATA] = json.dumps(
            {k: v for k, v in where.items() if v not in (None, "")}
        )
    return out


def step_attributes(trace: Trace, step: StepRecord) -> dict[str, Any]:
    kind = span_kind(step)
    attrs: dict[str, Any] = {
        KIND: kind.value,
        SpanAttributes.INPUT_VALUE: json.dumps(step.inputs, default=str),
        SpanAttributes.INPUT_MIME_TYPE: JSON,
        SpanAttributes.OUTPUT_VALUE: step.decision,
        "ragcli.step": step.name,
        "ragcli.decision": step.decision,
        **_flat("ragcli.score", step.scores),
        **_flat("ragcli.threshold", step.threshold),
    }
    if isinstance(step.inputs.get("query"), str):  # what Phoenix shows as the input
        attrs[SpanAttributes.INPUT_VALUE] = step.inputs["query"]
        attrs.pop(SpanAttributes.INPUT_MIME_TYPE)
    if step.notes:
        attrs["ragcli.notes"] = list(step.notes)
    if kind is Kind.RETRIEVER:
        attrs.update(documents(step.details.get("chunks", [])))
    if kind is Kind.TOOL:
        attrs[SpanAttributes.TOOL_NAME] = str(step.inputs.get("provider", step.name))
    if kind is Kind.LLM or step.llm_calls:
        attrs[SpanAttributes.LLM_MODEL_NAME] = trace.backend.get("model", "")
        attrs[SpanAttributes.LLM_TOKEN_COUNT_PROMPT] = step.prompt_tokens
        attrs[SpanAttributes.LLM_TOKEN_COUNT_COMPLETION] = step.completion_tokens
        attrs[SpanAttributes.LLM_TOKEN_COUNT_TOTAL] = step.prompt_tokens + step.completion_tokens
        attrs["ragcli.llm_calls"] = step.llm_calls
    return attrs


def root_attributes(trace: Trace) -> dict[str, Any]:
    attrs: dict[str, Any] = {
        KIND: Kind.CHAIN.value,
        SpanAttributes.INPUT_VALUE: trace.question,
        SpanAttributes.OUTPUT_VALUE: trace.answer,
        SpanAttributes.METADATA: json.dumps(
            {
                "trace_id": trace.id,
                "answer_type": trace.answer_type,
                "turn": trace.turn,
                "standalone": trace.standalone,
                "filters": trace.filters,
            }
        ),
        "ragcli.trace_id": trace.id,
        "ragcli.mode": trace.mode,
        "ragcli.answer_type": trace.answer_type,
        "ragcli.total_ms": trace.total_ms,
        **_flat("ragcli.usage", dict(trace.usage())),
    }
    if trace.conversation_id:
        attrs[SpanAttributes.SESSION_ID] = trace.conversation_id
    return attrs


class RunSpans:
    """Writes one trace's spans through a tracer, each with its recorded start and end."""

    def __init__(self, tracer: Tracer, trace: Trace):
        self.tracer = tracer
        self.trace = trace

    def at(self, offset_ms: float) -> int:
        return _ns(self.trace.created_at, offset_ms)

    def open(self, name: str, parent: Span | None, start_ms: float, attrs: dict[str, Any]):
        context = set_span_in_context(parent) if parent is not None else None
        return self.tracer.start_span(
            name, context=context, start_time=self.at(start_ms), attributes=attrs
        )

    def write(self) -> None:
        trace = self.trace
        end_ms = max((s.start_ms + s.ms for s in trace.steps), default=0.0)
        root = self.open(f"ragcli {trace.mode}", None, 0.0, root_attributes(trace))
        parent = root
        chosen = None
        for step in trace.steps:
            if chosen is not None and step.name == "support":
                chosen.end(end_time=self.at(step.start_ms))
                chosen, parent = None, root
            self.step(step, parent)
            if step.name == "route" and trace.mode == "auto":
                mode = (trace.result.get("auto_details") or {}).get("mode", "")
                attrs = {KIND: Kind.CHAIN.value, "ragcli.mode": mode}
                chosen = self.open(f"mode {mode}", root, step.start_ms + step.ms, attrs)
                parent = chosen
        if chosen is not None:
            chosen.end(end_time=self.at(end_ms))
        root.end(end_time=self.at(end_ms))

    def step(self, step: StepRecord, parent: Span) -> None:
        span = self.open(span_name(step), parent, step.start_ms, step_attributes(self.trace, step))
        if step.name == "answer_sub_questions":
            self.sub_questions(step, span)
        span.end(end_time=self.at(step.start_ms + step.ms))

    def sub_questions(self, step: StepRecord, parent: Span) -> None:
        """The parts ran concurrently: each starts with the stage and lasts its own time."""
        chunks = step.details.get("chunks", [])
        for row in step.details.get("sub_questions", []):
            number = row.get("#")
            attrs = {
                KIND: Kind.CHAIN.value,
                SpanAttributes.INPUT_VALUE: str(row.get("sub_question", "")),
                SpanAttributes.OUTPUT_VALUE: str(row.get("answered", "")),
                **_flat("ragcli.score", {"best": row.get("best_score")}),
            }
            sub = self.open(f"sub-question {number}", parent, step.start_ms, attrs)
            mine = [c for c in chunks if c.get("sub") == number]
            retrieve = self.open(
                "retrieve",
                sub,
                step.start_ms,
                {
                    KIND: Kind.RETRIEVER.value,
                    SpanAttributes.INPUT_VALUE: str(row.get("sub_question", "")),
                    **documents(mine),
                },
            )
            end = self.at(step.start_ms + float(row.get("ms") or 0))
            retrieve.end(end_time=end)
            sub.end(end_time=end)


class _WarnOnce(SpanExporter):
    """The OTLP exporter, failing quietly: a collector that is down is said once per
    process, not once per run (a `serve` process answers many)."""

    def __init__(self, inner: SpanExporter, url: str):
        self.inner = inner
        self.url = url
        self.warned = False

    def export(self, spans) -> SpanExportResult:
        try:
            result = self.inner.export(spans)
        except Exception:  # the SDK's worker thread must not die of it
            result = SpanExportResult.FAILURE
        if result is not SpanExportResult.SUCCESS and not self.warned:
            self.warned = True
            log.warning(
                "runs are not being exported: %s did not take them (is the collector running?)",
                self.url,
            )
        return result

    def shutdown(self) -> None:
        self.inner.shutdown()

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return self.inner.force_flush(timeout_millis)


class Sender:
    """A tracer provider and its batch processor for one endpoint: spans are sent on the
    SDK's worker thread, so a run returns at once; at exit the SDK flushes what is left,
    each export bounded by `timeout` seconds."""

    def __init__(self, url: str, timeout: float, project: str):
        # The exporter logs each failed export itself; _WarnOnce says it once instead.
        logging.getLogger("opentelemetry.exporter.otlp").setLevel(logging.CRITICAL)
        logging.getLogger("opentelemetry.sdk").setLevel(logging.CRITICAL)
        resource = Resource.create(
            {"service.name": "ragcli", ResourceAttributes.PROJECT_NAME: project}
        )
        self.provider = TracerProvider(resource=resource)
        exporter = _WarnOnce(OTLPSpanExporter(endpoint=url, timeout=timeout), url)
        self.exporter = exporter
        self.provider.add_span_processor(
            BatchSpanProcessor(
                exporter, schedule_delay_millis=200, export_timeout_millis=int(timeout * 1000)
            )
        )
        self.tracer = self.provider.get_tracer("ragcli")

    def send(self, trace: Trace) -> None:
        RunSpans(self.tracer, trace).write()

    def flush(self, timeout_millis: int = 10_000) -> bool:
        return self.provider.force_flush(timeout_millis)


_senders: dict[tuple[str, float, str], Sender] = {}
_lock = threading.Lock()


def sender_for(url: str, timeout: float, project: str) -> Sender:
    with _lock:
        key = (url, timeout, project)
        if key not in _senders:
            _senders[key] = Sender(url, timeout, project)
        return _senders[key]


def flush_all() -> None:
    for sender in list(_senders.values()):
        sender.flush()
