"""Questions over whole documents: `ask --file` and auto's route for "summarise / compare
these documents". The offline backend's extractive summary (every section read, sentences
quoted for coverage, each cited to its section, support-checked); a model reading the
sections whole, or map-reducing over them when they exceed documents.context_tokens, with
the coverage the model-call limit leaves (the real `openai` client against a stub)."""

from __future__ import annotations

import re

from typer.testing import CliRunner

from ragcli import service
from ragcli.cli import app
from ragcli.documents.library import Library
from ragcli.store.manifest import FileRecord
from tests.support.common import quoted_in, settings_for
from tests.support.crag import settings_with, steps_named
from tests.support.stubs import OpenAIStub

runner = CliRunner()


def test_an_extractive_summary_covers_every_section_and_cites_each(sample_store):
    settings = settings_for(sample_store)
    result = service.ask(
        settings, "Summarise the refund policy", files=["policies/refund_policy.md"]
    )
    details = result.documents_details
    assert result.mode == "documents" and result.answer_type == "answer"
    assert (details.strategy, details.chosen_by, details.coverage) == ("extractive", "files", 1.0)
    (read,) = details.documents
    assert read.sections == read.sections_read == read.sections_cited == 10
    # One item a section, under its name, each sentence a quote of the section it cites.
    items = result.answer.splitlines()
    assert len(items) == 10 and items[1].startswith("- **Annual plans**: ")
    for item in items:
        for sentence, number in re.findall(r"([^\]]+?) \[(\d+)\]", item.split("**: ", 1)[1]):
            assert quoted_in(sentence.strip(), result.sources[int(number) - 1].content)
    assert result.support and all(s.supported and not s.uncited for s in result.support)
    trace = service.trace_store(settings).get(result.trace_id)
    assert [s.name for s in trace.steps] == ["read_documents", "summarize", "support"]
    assert trace.steps[0].threshold == {"documents.context_tokens": 6000}


def test_auto_sends_a_summary_or_a_comparison_of_named_documents_to_them(sample_store):
    settings = settings_for(sample_store)
    summary = service.ask(settings, "Give me an overview of the admin guide", "auto")
    assert summary.auto_details.mode == "documents"
    assert summary.auto_details.reason == "a summary of admin_guide.pdf"
    assert [s.metadata.locator for s in summary.sources][:2] == ["page 1", "page 2"]
    compared = service.ask(settings, "Compare the privacy policy and the terms of service", "auto")
    assert compared.auto_details.rule == "whole_documents"
    names = {d.path.rsplit("/", 1)[1] for d in compared.documents_details.documents}
    assert names == {"privacy_policy.md", "terms_of_service.md"}
    assert "**privacy_policy.md**" in compared.answer  # each document's items under its name
    # Two plans are no documents: the comparison is still agentic's.
    plans = service.ask(settings, "Compare the Team and Business plans.", "auto")
    assert plans.auto_details.mode == "agentic"


def test_a_file_name_is_named_by_its_words():
    records = [
        FileRecord("docs", f"/d/{name}", "", 0, 0, "md", 1, None, "")
        for name in ("refund_policy.md", "TermsOfService.md", "faq.md", "installation.md")
    ]
    library = Library(lambda: records, lambda paths: [])
    named = lambda q: [r.path for r in library.named_in(q)]  # noqa: E731
    assert named("Summarise the refund policies") == ["/d/refund_policy.md"]
    assert named("tl;dr of the terms of service") == ["/d/TermsOfService.md"]
    assert named("Summarise the installation steps") == ["/d/installation.md"]
    assert named("Summarise the FAQ") == []  # a short one-word name names nothing alone


def test_ask_file_errors_are_one_line(sample_store):
    store = ["--store", str(sample_store)]
    missing = runner.invoke(app, ["ask", "Summarise it", "--file", "nothing.md", *store])
    assert missing.exit_code == 2 and "nothing.md: not an ingested file" in missing.output
    crag = runner.invoke(app, ["ask", "Q", "--file", "refund_policy.md", "-m", "crag", *store])
    assert crag.exit_code == 2 and "--file answers over whole documents" in crag.output


def test_a_model_reads_documents_whole_or_map_reduces_within_the_call_limit(sample_store):
    question = "What does the refund policy say?"
    with OpenAIStub() as llm:
        llm.enqueue("Annual plans are refundable for 30 days [2]; chargebacks close it [10].")
        whole = service.ask(settings_with(sample_store, llm), question, files=["refund_policy.md"])
        prompt = llm.prompts()[0]
    assert whole.documents_details.strategy == "whole" and len(llm.requests) == 1
    assert all(f'<source id="{n}"' in prompt for n in range(1, 11))
    # The sources are the sections cited, numbered again in the order of the document.
    assert whole.answer.endswith("[1]; chargebacks close it [2].")
    assert [s.metadata.heading.split(" > ")[-1] for s in whole.sources] == [
        "Annual plans",
        "Chargebacks",
    ]

    def note(body: dict) -> str:  # a map call notes its first section; reduce joins them
        text = body["messages"][-1]["content"]
        if text.startswith("Notes taken"):
            return " ".join(re.findall(r"- point \[\d+\]", text))
        first = re.search(r'<source id="(\d+)"', text)
        return f"- point [{first.group(1) if first else 0}]"

    with OpenAIStub(default=note) as llm:
        tight = {"documents.context_tokens": 500}
        mapped = service.ask(
            settings_with(sample_store, llm, **tight), question, files=["terms_of_service.md"]
        )
        calls = len(llm.requests)
    details = mapped.documents_details
    assert details.strategy == "map_reduce" and details.groups > 2
    assert calls == details.groups + 1 and details.coverage == 1.0
    assert mapped.answer.count("point [") == details.groups
    with OpenAIStub(default=note) as llm:
        limited = {"documents.context_tokens": 500, "limits.max_llm_calls": 3}
        settings = settings_with(sample_store, llm, **limited)
        cut = service.ask(settings, question, files=["terms_of_service.md"])
    assert cut.documents_details.groups_read == 2 and cut.documents_details.coverage < 1
    assert any("model calls ran out" in n for n in cut.notes)
    (step,) = steps_named(settings, cut, "read_with_model")
    assert step.decision.startswith("map_reduce: read ") and "in 2 of " in step.decision
