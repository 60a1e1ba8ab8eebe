"""tos mode's documents-stage signals (tos.hybrid): the rules file, triplets extracted at
ingest from the sample policies, and both lifting chunks in a real run over the sample
corpus, with each contribution in the trace and the bands still reading cosine."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ragcli import service, triplets
from ragcli.cli import app
from ragcli.config import load_settings
from ragcli.errors import ConfigError
from ragcli.pipeline.modes.tos.rules import boosts, load_rules, matching_rules
from tests.support.common import SAMPLE, settings_for

TERMS = (SAMPLE / "policies" / "terms_of_service.md").read_text(encoding="utf-8")
BOT_QUESTION = "Can I run a bot that load-tests your Relay servers?"
SCRAPING_QUESTION = "Is scraping allowed on Driftwood Cloud?"
runner = CliRunner()


# -- settings ---------------------------------------------------------------------------


def test_hybrid_true_and_false_keep_their_meaning_and_a_list_names_signals():
    def signals(value):
        return load_settings(None, {"tos.hybrid": value}, environ={}).tos.hybrid

    assert signals(True) == ["bm25"] and signals(False) == []
    assert signals("triplets,bm25") == ["triplets", "bm25"]
    assert signals(["bm25", "bm25"]) == ["bm25"]
    env = load_settings(None, environ={"RAGCLI_TOS__HYBRID": "true"})
    assert env.tos.hybrid == ["bm25"]


def test_rules_without_a_rules_file_and_an_unknown_signal_are_one_line_errors():
    with pytest.raises(ConfigError, match="tos.rules_file"):
        load_settings(None, {"tos.hybrid": "rules"}, environ={})
    with pytest.raises(ConfigError, match=r"--set tos.hybrid: .*'bm25', 'rules' or 'triplets'"):
        load_settings(None, {"tos.hybrid": "rerank"}, environ={})


# -- the rules file ---------------------------------------------------------------------


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "rules.yaml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("rules: [\n  - name: x\n   match: a", r"not valid YAML \(line \d\)"),
        ("- name: bots", r"the file \(expected a mapping with a `rules:` list\)"),
        (
            "rules:\n  - name: bots\n    boost: Accounts",
            r"rules\[1\] \(bots\)\.match: Field required",
        ),
        (
            "rules:\n  - name: bots\n    match: []\n    boost: A",
            r"rules\[1\] \(bots\)\.match: List",
        ),
        ("rules:\n  - name: bots\n    match: [bot]\n    boost: A\n    lift: 2", "unknown key"),
        (
            "rules:\n  - {name: a, match: x, boost: A}\n  - {name: a, match: y, boost: B}",
            "rule name 'a' is used twice",
        ),
        ("rules:\n  - {name: a, match: ['  '], boost: A}", "an entry is empty"),
    ],
)
def test_a_bad_rules_file_is_one_line_naming_the_file_and_the_rule(tmp_path, text, message):
    path = write(tmp_path, text)
    with pytest.raises(ConfigError, match=message) as caught:
        load_rules(path)
    assert str(caught.value).startswith(f"tos.rules_file {path}: ")
    assert "\n" not in str(caught.value)


def test_a_missing_rules_file_is_named(tmp_path):
    with pytest.raises(ConfigError, match=r"tos.rules_file .*nope.yaml: cannot read"):
        load_rules(tmp_path / "nope.yaml")


def test_rule_words_match_whatever_their_ending_and_phrases_match_in_a_row(tmp_path):
    rules = load_rules(
        write(
            tmp_path,
            "rules:\n"
            "  - {name: automation, match: [bot, load test], boost: Acceptable use}\n"
            "  - {name: legal, match: [governing law], boost: Governing law and disputes}\n",
        )
    )
    hits = matching_rules(rules, "Are BOTS allowed?")
    assert [(h.rule.name, h.matched) for h in hits] == [("automation", "bot")]
    assert [h.matched for h in matching_rules(rules, "Who load-tests the relay?")] == ["load test"]
    assert matching_rules(rules, "Which law governs this?") == []  # not the phrase in a row


def test_a_boost_names_a_heading_numbering_aside_a_heading_path_or_a_file():
    heading = "Driftwood Terms of Service > 2. Acceptable use"
    assert boosts("Acceptable use", "/x/policies/terms_of_service.md", heading)
    assert boosts("acceptable USE", "/x/terms.md", heading)
    assert boosts("Driftwood Terms of Service > Acceptable use", "/x/t.md", heading)
    assert not boosts("Acceptable", "/x/terms.md", heading)
    assert boosts("terms_of_service.md", "/x/policies/terms_of_service.md", None)
    assert boosts("policies/terms_of_service.md", "/x/policies/terms_of_service.md", None)
    assert not boosts("service.md", "/x/policies/terms_of_service.md", None)


# -- triplets ---------------------------------------------------------------------------


def test_triplets_of_the_sample_terms_of_service():
    found = {t.text() for t in triplets.extract(TERMS[TERMS.index("## 1.") : TERMS.index("## 3.")])}
    assert "you / must / be at least 16 years old to create an account or use the services" in found
    assert "sharing one account or seat between several people / is not permitted" in found
    # A lead-in's relation reaches each item of the list under it.
    assert "you / may not / use the services to resell, rent or sublicense the services" in found
    assert "we / will / tell you what we suspended and why" in found


def test_a_leading_clause_is_not_the_subject():
    found = triplets.extract("If a payment fails, we will retry it and notify you.")
    assert [t.as_list() for t in found] == [["we", "will", "retry it and notify you"]]
    assert triplets.extract("The sky is blue. Prices exclude taxes.") == []


def test_a_question_is_read_as_the_statement_that_would_answer_it():
    asked = triplets.question_triplet("Am I allowed to resell Driftwood to my clients?")
    assert asked.as_list() == ["you", "may", "resell driftwood to my clients"]
    assert triplets.question_triplet("Can you close my account?").subject == "we"
    statements = triplets.extract(TERMS)
    best = triplets.match(asked, statements)
    assert best is not None and "resell, rent or sublicense" in best.triplet.object


# -- end to end on the sample corpus ----------------------------------------------------


def signals_step(settings, result):
    trace = service.find_trace(settings, result.trace_id)
    return next(step for step in trace.steps if step.name == "signals")


@pytest.fixture
def rules_file(tmp_path) -> Path:
    return write(
        tmp_path,
        "rules:\n  - name: automation\n    match: [bot, scraping]\n    boost: Acceptable use\n",
    )


def test_ingest_stores_each_chunks_triplets(sample_store):
    store = service.vector_store(settings_for(sample_store))
    got = store.collection("docs").get(include=["metadatas"])
    accounts = [m for m in got["metadatas"] if (m.get("heading") or "").endswith("1. Accounts")]
    stored = triplets.decode(accounts[0]["triplets"])
    assert stored and any(t.relation == "must" and "16 years" in t.object for t in stored)


def test_a_rule_lifts_the_section_it_names_and_the_trace_says_which_rule(sample_store, rules_file):
    plain_settings = settings_for(sample_store)
    plain = service.ask(plain_settings, BOT_QUESTION, mode="tos")
    searched = service.find_trace(plain_settings, plain.trace_id).steps
    first_hit = next(
        s for s in searched if s.name == "retrieve" and s.inputs["collection"] == "docs"
    )
    assert not (first_hit.details["chunks"][0]["heading"] or "").endswith("Acceptable use")

    settings = settings_for(
        sample_store, **{"tos.hybrid": ["rules"], "tos.rules_file": str(rules_file)}
    )
    result = service.ask(settings, BOT_QUESTION, mode="tos")
    step = signals_step(settings, result)
    assert step.details["rules"] == [
        {"rule": "automation", "matched": "bot", "boost": "Acceptable use"}
    ]
    lifted = step.details["chunks"][0]
    assert lifted["rules"] == "automation" and lifted["heading"].endswith("2. Acceptable use")
    assert result.tos_details.signals == ["rules"]
    # The bands still read the cosine with the question (the best of the chosen chunks):
    # the section is lifted, but a question this far from its words is still handed off.
    documents = result.tos_details.path[1]
    assert documents.best_score == round(max(row["score"] for row in step.details["chunks"]), 4)
    assert documents.outcome == plain.tos_details.path[1].outcome


def test_a_lifted_section_is_what_the_answer_cites(sample_store, rules_file):
    question = SCRAPING_QUESTION
    settings = settings_for(
        sample_store, **{"tos.hybrid": ["rules"], "tos.rules_file": str(rules_file)}
    )
    result = service.ask(settings, question, mode="tos")
    assert result.tos_details.answer_type != "handoff", result.tos_details.path
    first = result.sources[0]
    assert first.metadata.heading.endswith("2. Acceptable use")
    assert first.component_scores["rules"] == 1.0


def test_a_rule_naming_a_section_no_chunk_is_under_says_so(sample_store, tmp_path):
    path = write(tmp_path, "rules:\n  - {name: bots, match: [bot], boost: Robots policy}\n")
    settings = settings_for(sample_store, **{"tos.hybrid": ["rules"], "tos.rules_file": str(path)})
    result = service.ask(settings, BOT_QUESTION, mode="tos")
    step = next(
        s for s in service.find_trace(settings, result.trace_id).steps if s.name == "signals"
    )
    assert any("boosts Robots policy, which no chunk" in n for n in step.notes)


def test_triplets_lift_the_chunk_that_states_what_is_asked(sample_store):
    question = "Am I allowed to resell Driftwood to my own clients?"
    settings = settings_for(sample_store, **{"tos.hybrid": ["triplets"]})
    result = service.ask(settings, question, mode="tos")
    step = next(
        s for s in service.find_trace(settings, result.trace_id).steps if s.name == "signals"
    )
    assert step.details["question_triplet"] == "you / may / resell driftwood to my own clients"
    matched = [row for row in step.details["chunks"] if row["triplet"]]
    assert matched and "resell, rent or sublicense" in matched[0]["triplet"]
    # First, by its statement: moved up, or kept first where search already put it there.
    assert matched[0]["rank"] == 1 and matched[0]["rank"] <= matched[0]["search_rank"]
    chunk = next(s for s in result.sources if s.chunk_id == matched[0]["chunk_id"])
    assert chunk.component_scores["triplets"] == matched[0]["triplet_score"]


def test_a_store_ingested_before_triplets_reads_them_from_the_text_and_says_so(sample_store):
    settings = settings_for(sample_store, **{"tos.hybrid": ["triplets"]})
    store = service.vector_store(settings)
    ids = store.collection("docs").get(include=[])["ids"]
    store.update_metadata("docs", ids, {"triplets": None})  # as a store made before them
    assert (
        store.collection("docs")
        .get(ids=ids[:1], include=["metadatas"])["metadatas"][0]
        .get("triplets")
        is None
    )
    result = service.ask(settings, "Am I allowed to resell Driftwood?", mode="tos")
    step = next(
        s for s in service.find_trace(settings, result.trace_id).steps if s.name == "signals"
    )
    assert any("stored before ingest kept their statements" in n for n in step.notes)
    assert any(row["triplet"] for row in step.details["chunks"])


def test_ask_json_and_trace_show_the_signals(sample_store, rules_file):
    store = str(sample_store)
    flags = ["--set", "tos.hybrid=[bm25,rules]", "--set", f"tos.rules_file={rules_file}"]
    shown = runner.invoke(
        app, ["ask", SCRAPING_QUESTION, "--mode", "tos", "--store", store, "--json", *flags]
    )
    data = json.loads(shown.output)
    assert data["tos_details"]["signals"] == ["rules"]
    assert data["tos_details"]["retrieval"] == "hybrid"
    assert "triplets" not in data["sources"][0]["metadata"]  # kept for retrieval only
    traced = runner.invoke(app, ["trace", "--store", store])
    assert traced.exit_code == 0, traced.output
    assert "signals" in traced.output and "automation" in traced.output


def test_a_bad_rules_file_fails_the_run_even_when_the_faq_answers(sample_store, tmp_path):
    path = write(tmp_path, "rules:\n  - name: bots\n")
    settings = settings_for(sample_store, **{"tos.hybrid": ["rules"], "tos.rules_file": str(path)})
    with pytest.raises(ConfigError, match=r"rules\[1\] \(bots\)\.match: Field required"):
        service.ask(settings, "How old must I be to use Driftwood?", mode="tos")
    shown = runner.invoke(
        app,
        [
            "ask",
            "How old must I be?",
            "--mode",
            "tos",
            "--store",
            str(sample_store),
            "--set",
            "tos.hybrid=rules",
            "--set",
            f"tos.rules_file={path}",
        ],
    )
    assert shown.exit_code == 2
    assert shown.output.strip().splitlines()[-1].startswith("error: tos.rules_file ")
