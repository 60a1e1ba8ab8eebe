"""The tos waterfall's routing, outcome by outcome, with scripted retrieval scores and a
scripted verifier so that every branch is reached deterministically. End-to-end runs on
the sample corpus are in test_tos_e2e.py."""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any

import pytest

from ragcli.config import Settings, load_settings
from ragcli.embedding.embedder import make_embedder
from ragcli.llm.answer_parse import parse_answer
from ragcli.models import ChunkMetadata, RetrievedChunk, Verification
from ragcli.pipeline.context import RunContext
from ragcli.pipeline.modes.registry import MODES
from ragcli.trace.recorder import Trace

FAQ_ANSWER = "Annual plans are refunded in full within 30 days."
DRAFT = "Refunds are possible within 30 days [1]."
HANDOFF = "No answer was found. Email help@example.org."


def qna_hit(score: float, question: str = "How do I get a refund for an annual plan?"):
    meta = ChunkMetadata(
        chunk_id=f"q{score}",
        source_file="/faq/faq.yaml",
        file_type="qna",
        heading=question,
        question=question,
        answer=FAQ_ANSWER,
    )
    return RetrievedChunk(
        content=f"Q: {question}\nA: {FAQ_ANSWER}",
        score=score,
        metadata=meta,
        component_scores={"dense": score},
    )


def doc_hit(score: float, heading: str | None = "Refund policy > Annual plans", **components):
    meta = ChunkMetadata(
        chunk_id=f"d{score}{heading}",
        source_file="/policies/refund_policy.md",
        file_type="md",
        heading=heading,
    )
    return RetrievedChunk(
        content="Annual plans can be refunded within 30 days of purchase.",
        score=score,
        metadata=meta,
        component_scores=components or {"dense": score},
    )


@functools.cache
def embedder():
    """The bundled embedder: the support check that verify reads embeds with it."""
    return make_embedder(Settings().embedding)


@dataclass
class ScriptedRetriever:
    hits: dict[str, list[RetrievedChunk]]
    collection: str = "docs"
    embedder: Any = field(default_factory=embedder)
    calls: list[tuple[str, str | None]] = field(default_factory=list)

    def search(self, query, top_k, collection=None, mode=None, expand=True):
        self.calls.append((collection, mode))
        return list(self.hits.get(collection, []))[:top_k]

    def keywords_pending(self, collection=None, mode=None):
        return False


@dataclass
class ScriptedLLM:
    supported: float = 1.0
    claims: list[str] = field(default_factory=list)
    name: str = "scripted"
    model: str = "scripted"
    calls: list[str] = field(default_factory=list)

    def generate(self, query, chunks):
        self.calls.append("generate")
        return parse_answer(DRAFT)

    def verify(self, answer, chunks, support):
        self.calls.append("verify")
        return Verification(supported_score=self.supported, unsupported_claims=self.claims)


def run(qna=(), docs=(), supported=1.0, claims=(), **tos):
    settings = load_settings(
        None, {f"tos.{k}": v for k, v in {"handoff_message": HANDOFF, **tos}.items()}, {}
    )
    retriever = ScriptedRetriever({"qna": list(qna), "docs": list(docs)})
    llm = ScriptedLLM(supported, list(claims))
    trace = Trace(question="refund?", mode="tos")
    ctx = RunContext(settings=settings, retriever=retriever, llm=llm, trace=trace)
    result = MODES["tos"](ctx, "refund?")
    return result, llm, retriever, trace


def stages(result):
    return [(row.stage, row.outcome) for row in result.tos_details.path]


def test_a_confident_faq_match_returns_the_stored_answer_unverified():
    result, llm, retriever, _ = run(qna=[qna_hit(0.86)], docs=[doc_hit(0.9)])
    assert result.answer == FAQ_ANSWER
    assert result.answer_type == "answer"
    details = result.tos_details
    assert details.answer_type == "qna_answer"
    assert details.qna_score == 0.86 and details.tos_score is None
    assert details.matched_question == "How do I get a refund for an annual plan?"
    assert details.verification.status == "not run"
    assert llm.calls == [] and [c for c, _ in retriever.calls] == ["qna"]  # docs never searched
    assert stages(result) == [("qna", "qna_answer")]
    assert details.path[0].thresholds == {
        "tos.qna_threshold": 0.8,
        "tos.qna_mid_threshold": 0.7,
    }


def test_mid_band_faq_beats_weaker_documents_as_a_limited_answer_with_a_note():
    result, llm, _, _ = run(qna=[qna_hit(0.75)], docs=[doc_hit(0.68)])
    assert result.tos_details.answer_type == "qna_limited"
    assert result.answer_type == "limited"
    assert result.answer.startswith("Limited answer: this is the answer to a similar FAQ")
    assert "How do I get a refund for an annual plan?" in result.answer
    assert result.answer.endswith(FAQ_ANSWER)
    assert result.tos_details.uncertainty_note in result.answer
    compare = result.tos_details.path[2]
    assert compare.stage == "compare" and compare.outcome == "qna_limited"
    assert compare.reason == "documents 0.68 < QnA 0.75"
    assert llm.calls == []  # the weaker documents are not drafted


def test_mid_band_faq_loses_to_documents_that_score_at_least_as_high():
    result, llm, _, _ = run(qna=[qna_hit(0.72)], docs=[doc_hit(0.72)])
    assert result.tos_details.answer_type == "tos_answer"
    assert result.answer == DRAFT and result.answer_type == "answer"
    assert stages(result) == [
        ("qna", "qna_limited"),
        ("documents", "tos_answer"),
        ("compare", "documents"),
    ]
    assert llm.calls == ["generate", "verify"]
    assert result.tos_details.verification.status == "passed"


def test_mid_band_faq_wins_when_the_documents_only_ask_for_clarification():
    result, _, _, _ = run(qna=[qna_hit(0.71)], docs=[doc_hit(0.45)])
    assert result.tos_details.answer_type == "qna_limited"
    assert result.tos_details.path[2].reason == "documents gave clarification, not an answer"


def test_documents_above_tos_threshold_give_a_verified_answer():
    result, llm, retriever, _ = run(qna=[qna_hit(0.5)], docs=[doc_hit(0.66)])
    details = result.tos_details
    assert details.answer_type == "tos_answer" and result.answer == DRAFT
    assert details.qna_score == 0.5 and details.tos_score == 0.66
    assert details.verification.model_dump(exclude_none=True) == {
        "status": "passed",
        "supported_score": 1.0,
        "threshold": 0.7,
        "unsupported_claims": [],
        "reason": "supported 1.00 >= 0.70",
    }
    # The documents stage's default signal is bm25: hybrid search.
    assert retriever.calls == [("qna", "dense"), ("docs", "hybrid")]
    assert result.sources and result.sources[0].metadata.source_file.endswith("refund_policy.md")


def test_documents_in_the_mid_band_give_a_limited_answer_with_an_uncertainty_note():
    result, _, _, _ = run(qna=[qna_hit(0.3)], docs=[doc_hit(0.6)])
    assert result.tos_details.answer_type == "tos_limited"
    assert result.answer_type == "limited"
    assert result.answer.startswith(
        "Limited answer: the closest passages only partly match your question (best 0.60; "
        "a full answer needs 0.65)"
    )
    assert result.answer.endswith(DRAFT)


def test_low_band_asks_a_specific_question_naming_the_closest_topics():
    docs = [
        doc_hit(0.45, "Refund policy > Annual plans"),
        doc_hit(0.44, "Refund policy > Annual plans"),
        doc_hit(0.43, "Privacy policy > Retention"),
        doc_hit(0.42, None),
    ]
    result, llm, _, _ = run(docs=docs)
    assert result.answer_type == "clarification"
    assert result.tos_details.topics == [
        "Refund policy > Annual plans",
        "Privacy policy > Retention",
        "refund policy",  # no heading: the file name
    ]
    assert "\u201cRefund policy > Annual plans\u201d; \u201cPrivacy policy > Retention\u201d" in (
        result.answer
    )
    assert result.answer.endswith("Please say which, or add the detail that would narrow it down.")
    assert llm.calls == []


def test_clarification_names_as_many_topics_as_configured():
    docs = [doc_hit(0.45, f"Topic {i}") for i in range(5)]
    result, _, _, _ = run(docs=docs, clarification_topics=2)
    assert result.tos_details.topics == ["Topic 0", "Topic 1"]


def test_below_the_low_band_hands_off_with_the_configured_message():
    result, llm, _, _ = run(qna=[qna_hit(0.2)], docs=[doc_hit(0.39)])
    assert result.answer == HANDOFF and result.answer_type == "handoff"
    assert result.tos_details.answer_type == "handoff"
    assert result.notes == ["best passage 0.39 is below tos.tos_low_threshold 0.40"]
    assert result.sources == [] and llm.calls == []


def test_no_faq_and_no_documents_hands_off():
    result, _, _, trace = run()
    qna_band = next(s for s in trace.steps if s.name == "qna_band")
    assert qna_band.notes == [
        "qna: no result (collection 'qna' is empty or missing: "
        "ragcli ingest FAQ.yaml --collection qna)"
    ]
    assert stages(result) == [("qna", "documents"), ("documents", "handoff")]
    assert result.tos_details.qna_score is None and result.tos_details.tos_score is None
    assert result.notes == ["the documents returned no passage"]


def test_a_failed_verification_turns_an_answer_into_a_limited_answer_and_says_why():
    result, _, _, _ = run(docs=[doc_hit(0.8)], supported=0.5, claims=["Refunds take 90 days."])
    details = result.tos_details
    assert details.answer_type == "tos_limited" and result.answer_type == "limited"
    assert details.verification.downgraded == "tos_answer -> tos_limited"
    assert details.verification.reason == "supported 0.50 < 0.70; 1 unsupported claim(s)"
    assert details.verification.unsupported_claims == ["Refunds take 90 days."]
    assert stages(result)[-1] == ("verify", "tos_limited")
    assert result.answer.startswith("Limited answer: only 50% of it is supported")
    assert any("tos_answer -> tos_limited" in note for note in result.notes)


def test_a_failed_verification_turns_a_limited_answer_into_clarification():
    result, _, _, _ = run(docs=[doc_hit(0.6)], supported=0.2)
    details = result.tos_details
    assert details.answer_type == "clarification"
    assert details.verification.downgraded == "tos_limited -> clarification"
    assert result.answer.startswith(
        "The passages I found did not support a reliable answer (verification 0.20)."
    )
    assert "Refund policy > Annual plans" in result.answer


def test_verification_at_exactly_the_threshold_passes():
    result, _, _, _ = run(docs=[doc_hit(0.8)], supported=0.7)
    assert result.tos_details.answer_type == "tos_answer"


def test_mid_band_faq_is_kept_when_the_winning_documents_fail_into_clarification():
    result, llm, _, _ = run(
        qna=[qna_hit(0.72)], docs=[doc_hit(0.73)], tos_threshold=0.75, supported=0.1
    )
    assert llm.calls == ["generate", "verify"]
    details = result.tos_details
    assert details.answer_type == "qna_limited"
    assert details.verification.downgraded == "tos_limited -> clarification"
    assert stages(result)[-1] == ("verify", "clarification")


def test_thresholds_come_from_settings():
    # The same scores route differently once the bands move.
    hits = {"qna": [qna_hit(0.86)], "docs": [doc_hit(0.3)]}
    assert run(**hits)[0].tos_details.answer_type == "qna_answer"
    result = run(**hits, qna_threshold=0.9)[0]
    assert result.tos_details.answer_type == "qna_limited"
    assert result.tos_details.path[0].thresholds["tos.qna_threshold"] == 0.9
    result = run(**hits, qna_threshold=0.95, qna_mid_threshold=0.9)[0]
    assert result.tos_details.answer_type == "handoff"
    result = run(**hits, qna_threshold=0.95, qna_mid_threshold=0.9, tos_low_threshold=0.25)[0]
    assert result.tos_details.answer_type == "clarification"
    assert result.tos_details.path[1].thresholds["tos.tos_low_threshold"] == 0.25


def test_a_dense_documents_stage_when_no_signal_is_asked_for():
    result, _, retriever, _ = run(docs=[doc_hit(0.66)], hybrid=False)
    assert retriever.calls == [("qna", "dense"), ("docs", "dense")]
    assert result.tos_details.retrieval == "dense" and result.tos_details.signals is None


def test_hybrid_documents_stage_searches_hybrid_and_bands_on_the_dense_similarity():
    fused = doc_hit(0.033, dense=0.67, bm25=7.25)  # a fused rank score is not a similarity
    result, _, retriever, trace = run(docs=[fused], hybrid=True)
    assert retriever.calls == [("qna", "dense"), ("docs", "hybrid")]
    docs_row = result.tos_details.path[1]
    assert docs_row.best_score == 0.67 and docs_row.outcome == "tos_answer"
    assert docs_row.components == {"dense": 0.67, "bm25": 7.25}
    assert result.tos_details.retrieval == "hybrid"


def test_the_trace_records_bands_comparison_verification_and_outcome():
    _, _, _, trace = run(qna=[qna_hit(0.72)], docs=[doc_hit(0.8)], supported=0.5)
    names = [s.name for s in trace.steps]
    assert names == [
        "retrieve",
        "qna_band",
        "retrieve",
        "documents_band",
        "compare",
        "generate",
        "verify",
        "outcome",
    ]
    by_name = {s.name: s for s in trace.steps}
    assert by_name["qna_band"].threshold == {"tos.qna_threshold": 0.8, "tos.qna_mid_threshold": 0.7}
    assert by_name["verify"].decision == "failed"
    outcome = by_name["outcome"]
    assert outcome.decision == "tos_limited"
    assert [row["stage"] for row in outcome.details["bands"]] == [
        "qna",
        "documents",
        "compare",
        "verify",
    ]
    assert outcome.details["verification"][0]["downgraded"] == "tos_answer -> tos_limited"


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"tos.qna_mid_threshold": 0.9}, "qna_mid_threshold must not be above qna_threshold"),
        ({"tos.tos_low_threshold": 0.7}, "tos_low_threshold <= tos_mid_threshold"),
    ],
)
def test_bands_out_of_order_are_a_config_error(overrides, message):
    from ragcli.errors import ConfigError

    with pytest.raises(ConfigError, match=message):
        load_settings(None, overrides, {})
