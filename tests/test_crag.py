"""crag mode, every branch, with the openai backend through the real `openai` client and
Tavily through the real `tavily-python` client, both against stubs on 127.0.0.1."""

from __future__ import annotations

import socket

import pytest

from ragcli import service
from tests.support.crag import HITS, QUESTION, grades, settings_with, steps_named
from tests.support.stubs import Fault, OpenAIStub, TavilyStub, WebHit


def by_role(web_grades: dict, answer: str):
    """Replies for calls that may run at the same time (grading the web results while an
    answer is drafted), told apart by what the prompt asks for rather than by order."""

    def reply(body: dict):
        return web_grades if '"grades"' in body["messages"][-1]["content"] else answer

    return reply


def generation_prompts(llm: OpenAIStub) -> list[str]:
    return [p for p in llm.prompts() if '"grades"' not in p]


def test_relevant_answers_from_the_graded_documents_in_one_grading_call(sample_store):
    with OpenAIStub() as llm, TavilyStub(HITS) as web:
        llm.enqueue(grades(0.9, 0.5, 0.1, 0.1, 0.1), "Business costs $12 per user [1].")
        settings = settings_with(sample_store, llm, web)
        result = service.ask(settings, QUESTION, mode="crag")
    assert result.answer == "Business costs $12 per user [1]."
    assert result.answer_type == "answer"
    crag = result.crag_details
    assert crag.evaluation.model_dump() == {
        "relevance_score": 0.9,
        "relevance_label": "relevant",
        "needs_web_search": False,
    }
    assert crag.route == "documents" and crag.used_web_search is False
    assert [g.label for g in crag.grades] == ["correct", "ambiguous"] + ["incorrect"] * 3
    assert crag.grades[0].rationale == "stub rationale 1"
    # Working chunks: the correct and the ambiguous one; incorrect ones never reach the model.
    assert len(result.sources) == 2
    assert web.requests == []
    # All five chunks graded in ONE call, then one generation.
    assert result.usage.llm_calls == 2 and len(llm.requests) == 2
    assert all(f'<source id="{n}"' in llm.prompts()[0] for n in range(1, 6))
    generated = llm.prompts()[1]
    assert result.sources[0].content[:60] in generated and '<source id="3"' not in generated


def test_ambiguous_adds_graded_web_results_and_drops_incorrect_and_duplicates(sample_store):
    long_text = "Seat prices are listed per month. " * 200
    with OpenAIStub() as llm, TavilyStub() as web:
        settings = settings_with(
            sample_store,
            llm,
            web,
            **{"crag.web_results": 4, "web.max_results": 4, "web.max_content_chars": 300},
        )
        docs = service.ask(settings, QUESTION, mode="standard").sources
        llm.requests.clear()
        duplicate = WebHit("Copy of the docs", "https://mirror.example.com", docs[0].content)
        web.enqueue(HITS[:2] + [WebHit("Long", "https://example.com/long", long_text), duplicate])
        llm.enqueue(grades(0.55, 0.3, 0.1, 0.1, 0.1))  # one ambiguous chunk: no rewrite
        # The web results (the duplicate is not graded), graded while an answer is drafted.
        llm.default = by_role(
            grades(0.8, 0.1, 0.6), "Business costs $12 [1]; the web says $15 [2]."
        )
        result = service.ask(settings, QUESTION, mode="crag")
    assert result.answer_type == "answer"
    crag = result.crag_details
    assert crag.evaluation.relevance_label == "ambiguous"
    assert crag.route == "documents+web" and crag.used_web_search is True
    # Tavily was asked through its client: key, basic depth, the configured result count.
    assert web.paths == ["/search"]
    assert web.headers[0]["authorization"] == "Bearer tvly-test"
    assert web.requests[0]["search_depth"] == "basic" and web.requests[0]["max_results"] == 4
    assert web.requests[0]["query"] == QUESTION
    kinds = [s.metadata.file_type for s in result.sources]
    assert kinds == ["md", "web_search", "web_search"]
    first_web = result.sources[1]
    meta = first_web.metadata
    assert meta.chunk_id == "web_search_0" and meta.source_file == "https://example.com/pricing"
    assert meta.chunk_method == "web_search" and meta.title == "Driftwood pricing 2026"
    assert meta.char_count == len(first_web.content) and meta.token_count > 0
    assert meta.content_preview and meta.created_at and meta.processed_at
    # The long result was capped; the irrelevant one dropped; the duplicate never graded.
    assert len(result.sources[2].content) == 300
    rows = {r.url: r for r in crag.web_results}
    assert rows["https://example.com/cats"].used is False
    assert rows["https://example.com/cats"].label == "incorrect"
    assert "https://mirror.example.com" not in rows
    web_grading = [p for p in llm.prompts()[1:] if '"grades"' in p]
    assert len(web_grading) == 1 and '<source id="4"' not in web_grading[0]
    # The draft saw every result; the cats result was dropped, so the answer was generated
    # again without it.
    draft, final = generation_prompts(llm)
    assert "Cats sleep" in draft
    assert "Cats sleep" not in final and "Business costs $15" in final
    assert result.usage.llm_calls == 4 and result.usage.web_searches == 1
    assert steps_named(settings, result, "draft")[0].decision.startswith("discarded")
    search = steps_named(settings, result, "web_search")[0]
    assert "1 already in the documents" in search.decision


def test_irrelevant_answers_from_web_results_only(sample_store):
    with OpenAIStub() as llm, TavilyStub(HITS) as web:
        llm.enqueue(grades(0.1, 0.0, 0.0, 0.0, 0.0))
        llm.default = by_role(grades(0.9, 0.1, 0.7), "From the web [1].")
        settings = settings_with(sample_store, llm, web)
        result = service.ask(settings, "What does Driftwood cost in 2026?", mode="crag")
    assert result.answer == "From the web [1]."
    assert result.crag_details.route == "web"
    assert result.crag_details.evaluation.needs_web_search is True
    assert [s.metadata.source_file for s in result.sources] == [
        "https://example.com/pricing",
        "https://example.com/blog",
    ]
    assert "Cats sleep" not in generation_prompts(llm)[-1]
    assert result.usage.llm_calls == 4  # grade, grade the web results, a discarded draft, generate


def test_web_route_drafts_while_grading_and_keeps_the_draft_when_all_results_join(
    sample_store,
):
    with OpenAIStub(delay=0.3) as llm, TavilyStub(HITS[:1] + HITS[2:]) as web:
        llm.enqueue(grades(0.1, 0.0, 0.0, 0.0, 0.0))
        llm.default = by_role(grades(0.9, 0.6), "From the web [1][2].")
        settings = settings_with(sample_store, llm, web)
        result = service.ask(settings, "What does Driftwood cost in 2026?", mode="crag")
        round_trips = llm.round_trips()
    assert result.answer == "From the web [1][2]." and result.answer_type == "answer"
    assert [s.metadata.source_file for s in result.sources] == [
        "https://example.com/pricing",
        "https://example.com/blog",
    ]
    # Grade, then the web results' grading and the draft side by side: two waits, not three.
    assert result.usage.llm_calls == 3 and round_trips == 2
    assert steps_named(settings, result, "draft")[0].decision.startswith("kept")


@pytest.mark.parametrize("all_join", [True, False])
def test_a_streamed_draft_reaches_the_reader_only_when_kept(sample_store, all_join):
    web_grades = grades(0.9, 0.6) if all_join else grades(0.9, 0.1)
    with OpenAIStub() as llm, TavilyStub(HITS[:1] + HITS[2:]) as web:
        llm.enqueue(grades(0.1, 0.0, 0.0, 0.0, 0.0))
        llm.default = by_role(web_grades, "Business costs fifteen dollars [1].")
        settings = settings_with(sample_store, llm, web)
        shown: list[str] = []
        result = service.ask(
            settings, "What does Driftwood cost in 2026?", mode="crag", on_token=shown.append
        )
    assert result.usage.llm_calls == (3 if all_join else 4)
    # Each word streamed once: a discarded draft's words never reach the reader.
    assert "".join(shown) == result.answer == "Business costs fifteen dollars [1]."


def test_grader_proposed_query_makes_the_rewrite_without_a_model_call(sample_store):
    proposed = "Business plan annual price per seat"
    with OpenAIStub() as llm, TavilyStub(HITS) as web:
        llm.enqueue(
            grades(0.5, 0.45, 0.2, 0.1, 0.1) | {"better_query": f'"{proposed}"\nmore text'},
            grades(0.85, 0.3, 0.1, 0.1, 0.1),
            "Business costs $12 per user [1].",
        )
        settings = settings_with(sample_store, llm, web)
        result = service.ask(settings, QUESTION, mode="crag")
    assert "better_query" in llm.prompts()[0]
    assert not any("Rewrite the query" in p for p in llm.prompts())
    assert result.crag_details.rewrites[0].query == proposed
    retrievals = steps_named(settings, result, "retrieve")
    assert [s.inputs["query"] for s in retrievals] == [QUESTION, proposed]
    rewrite = steps_named(settings, result, "rewrite")[0]
    assert "no separate model call" in rewrite.notes[0]
    assert result.usage.llm_calls == 3


def test_rewrite_when_no_chunk_is_correct_and_two_are_ambiguous(sample_store):
    with OpenAIStub() as llm, TavilyStub(HITS) as web:
        llm.enqueue(
            grades(0.5, 0.45, 0.2, 0.1, 0.1),
            "Business plan annual price per seat",
            grades(0.85, 0.3, 0.1, 0.1, 0.1),
            "Business costs $12 per user [1].",
        )
        settings = settings_with(sample_store, llm, web)
        result = service.ask(settings, QUESTION, mode="crag")
    assert "Rewrite the query" in llm.prompts()[1]
    assert [r.model_dump() for r in result.crag_details.rewrites] == [
        {
            "query": "Business plan annual price per seat",
            "relevance_score": 0.85,
            "relevance_label": "relevant",
            "kept": True,
        }
    ]
    assert result.crag_details.route == "documents" and web.requests == []
    retrievals = steps_named(settings, result, "retrieve")
    assert [s.inputs["query"] for s in retrievals] == [
        QUESTION,
        "Business plan annual price per seat",
    ]
    assert result.usage.llm_calls == 4


def test_rewrite_that_retrieves_worse_keeps_the_first_chunks(sample_store):
    with OpenAIStub() as llm, TavilyStub(HITS) as web:
        llm.enqueue(
            grades(0.6, 0.45, 0.2, 0.1, 0.1),
            "something else",
            grades(0.1, 0.1, 0.1, 0.1, 0.1),
        )
        llm.default = by_role(grades(0.9, 0.1, 0.1), "answer [1]")
        settings = settings_with(sample_store, llm, web, **{"crag.max_rewrites": 1})
        result = service.ask(settings, QUESTION, mode="crag")
    crag = result.crag_details
    assert crag.rewrites[0].kept is False
    assert crag.evaluation.relevance_score == 0.6  # the better, first retrieval
    assert crag.route == "documents+web"
    assert len(web.requests) == 1  # one rewrite at most, then the route decides


def _refused_url() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"


@pytest.mark.parametrize(
    ("fault", "says"),
    [
        (Fault(401), "rejected the API key (HTTP 401)"),
        (Fault(429), "limit reached (HTTP 429)"),
        (Fault(503), "answered HTTP 503"),
        (Fault(200, body="<html>not json</html>"), "not JSON"),
        (Fault(200, delay=2.5), "timed out after 1s"),
        ("refused", "cannot be reached"),
    ],
)
def test_web_failure_answers_from_documents_with_a_visible_note(sample_store, fault, says):
    with OpenAIStub() as llm, TavilyStub() as web:
        if fault != "refused":
            web.enqueue(fault)
        llm.enqueue(grades(0.55, 0.3, 0.1, 0.1, 0.1), "From the documents [1].")
        settings = settings_with(sample_store, llm, web)
        if fault == "refused":
            settings = settings_with(sample_store, llm, web, **{"web.base_url": _refused_url()})
        result = service.ask(settings, QUESTION, mode="crag")
    assert result.answer == "From the documents [1]."
    assert result.answer_type == "limited"
    assert any(says in note and "documents only" in note for note in result.notes), result.notes
    assert result.crag_details.web_search.status == "failed"
    assert result.crag_details.used_web_search is False
    search = steps_named(settings, result, "web_search")[0]
    assert search.decision == "failed" and says in search.notes[0]
    assert result.usage.llm_calls == 2
    assert search.web_searches == 1


def test_failed_search_on_irrelevant_documents_is_not_covered(sample_store):
    with OpenAIStub() as llm, TavilyStub(Fault(500)) as web:
        llm.enqueue(grades(0.1, 0.0, 0.0, 0.0, 0.0))
        settings = settings_with(sample_store, llm, web)
        result = service.ask(settings, "What is the boiling point of mercury?", mode="crag")
    assert result.answer_type == "not_covered"
    assert "do not cover this question" in result.answer
    assert "HTTP 500" in result.answer
    assert len(result.sources) == 5  # the closest passages are shown
    assert len(llm.requests) == 1  # nothing was generated: no answer is invented


def test_no_web_provider_irrelevant_says_not_covered_and_how_to_enable(sample_store):
    with OpenAIStub() as llm:
        llm.enqueue(grades(0.2, 0.1, 0.0, 0.0, 0.0))
        settings = settings_with(sample_store, llm)
        result = service.ask(settings, "What is the boiling point of mercury?", mode="crag")
    assert result.backend.web == "none"
    assert result.answer_type == "not_covered"
    assert "The documents do not cover this question" in result.answer
    assert "0.20" in result.answer and "0.40" in result.answer
    assert "TAVILY_API_KEY" in result.answer
    assert len(result.sources) == 5 and result.usage.llm_calls == 1
    assert result.crag_details.web_search.status == "unavailable"
    search = steps_named(settings, result, "web_search")[0]
    assert search.decision == "no web provider" and search.web_searches == 0


def test_no_web_provider_ambiguous_answers_from_documents_with_note(sample_store):
    with OpenAIStub() as llm:
        llm.enqueue(grades(0.6, 0.2, 0.1, 0.1, 0.1), "From the documents [1].")
        settings = settings_with(sample_store, llm)
        result = service.ask(settings, QUESTION, mode="crag")
    assert result.answer_type == "limited"
    assert result.answer == "From the documents [1]."
    assert "Web search is not enabled" in result.notes[0]
    assert result.usage.llm_calls == 2
    assert "TAVILY_API_KEY" in result.notes[0]


def test_malformed_grading_json_falls_back_and_is_recorded(sample_store):
    with OpenAIStub() as llm:
        llm.enqueue('{"grades": [{"id": 1, "score": 0.9', "An answer [1].")
        settings = settings_with(sample_store, llm)
        question = "Which cipher is used when I password-protect a backup archive?"
        result = service.ask(settings, question, mode="crag")
    # The extractive evidence decides the route; either way the documents answer it.
    label = result.crag_details.evaluation.relevance_label
    assert result.answer == "An answer [1]."
    assert result.answer_type == {"relevant": "answer", "ambiguous": "limited"}[label]
    grade = steps_named(settings, result, "grade")[0]
    assert any("not valid JSON" in n and "extractive fallback" in n for n in grade.notes)
    # The fallback grades are the extractive backend's, with its rationale.
    assert all(g.rationale.startswith("calibrated evidence") for g in result.crag_details.grades)


def test_incomplete_grades_fall_back_for_the_missing_sources_only(sample_store):
    with OpenAIStub() as llm:
        llm.enqueue({"grades": [{"id": 1, "score": 0.95, "label": "correct"}]}, "Answer [1].")
        settings = settings_with(sample_store, llm)
        result = service.ask(settings, QUESTION, mode="crag")
    rows = result.crag_details.grades
    assert rows[0].score == 0.95
    assert all(r.rationale.startswith("calibrated evidence") for r in rows[1:])
    grade = steps_named(settings, result, "grade")[0]
    assert any("no usable grade for source(s) [2, 3, 4, 5]" in n for n in grade.notes)


def test_max_web_calls_zero_skips_the_search_and_says_why(sample_store):
    with OpenAIStub() as llm, TavilyStub(HITS) as web:
        llm.enqueue(grades(0.6, 0.2, 0.1, 0.1, 0.1), "From the documents [1].")
        settings = settings_with(sample_store, llm, web, **{"limits.max_web_calls": 0})
        result = service.ask(settings, QUESTION, mode="crag")
    assert web.requests == []
    assert result.answer_type == "limited"
    assert "web search skipped: --max-web-calls 0 reached" in result.notes
    assert steps_named(settings, result, "limit")[0].notes == [
        "web search skipped: --max-web-calls 0 reached"
    ]


def test_no_draft_when_the_call_budget_has_no_room_for_one(sample_store):
    """Drafting may cost a discarded generation; with --max-llm-calls 3 there is no room
    for it, so crag grades, then generates, and says nothing about a limit it never hit."""
    with OpenAIStub() as llm, TavilyStub(HITS[:1] + HITS[2:]) as web:
        llm.enqueue(grades(0.1, 0.0, 0.0, 0.0, 0.0), grades(0.9, 0.6), "From the web [1][2].")
        settings = settings_with(sample_store, llm, web, **{"limits.max_llm_calls": 3})
        result = service.ask(settings, "What does Driftwood cost in 2026?", mode="crag")
    assert result.answer == "From the web [1][2]." and result.answer_type == "answer"
    assert result.usage.llm_calls == 3
    assert steps_named(settings, result, "draft") == []
    assert steps_named(settings, result, "limit") == [] and result.notes == []
