"""Issue 72: a follow-up that names its own focus keeps the conversation's context and
replaces the previous focus; one that names none, or refers back with a pronoun, keeps the
previous focus. Offline (llm/followup.py): what `standalone` and its reason say, and, over
the sample corpus, what `ask -c --json` searches for and answers."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from ragcli.cli import app
from ragcli.llm.followup import make_standalone, pronouns
from ragcli.models import PriorTurn

runner = CliRunner()
REFUND = "How long do I have to get a refund on an annual plan?"


def after(question: str, sections: list[str] | None = None) -> list[PriorTurn]:
    return [PriorTurn(question=question, standalone=question, sections=sections or [])]


def test_own_focus_keeps_the_context_and_replaces_the_focus():
    # The case: no section is known (a client's conversation), so the names are
    # the context and the rest was the focus.
    made = make_standalone("And what about bots?", after("What is the minimum age to use GitHub?"))
    assert made.question == "And what about bots? (GitHub)"
    assert made.reason == (
        "names its own focus (bots) in place of the previous one (minimum, age): carried GitHub"
    )


def test_the_previous_answers_section_tells_its_focus_from_its_context():
    history = after(REFUND, ["Driftwood Refund Policy > Annual plans"])
    made = make_standalone("What about add-ons?", history)
    assert made.question == "What about add-ons? (refund)"
    assert "in place of the previous one (annual, plan, as its answer's section is titled)" in (
        made.reason
    )


def test_a_name_of_its_own_replaces_the_previous_name_and_keeps_what_was_asked():
    history = after("How much does the Business edition cost per user?", ["Editions at a glance"])
    made = make_standalone("And the Team edition?", history)
    assert made.question == "And the Team edition? (cost user)"
    assert "in place of Business, and asks what was asked: carried cost, user" in made.reason
    socks = make_standalone(
        "What about SOCKS?", after("How do I route httpx requests through an HTTP proxy?")
    )
    assert "HTTP" not in socks.question.split("(")[1] and "proxy" in socks.question


def test_ones_after_a_word_of_its_own_is_that_word_with_the_previous_head_noun():
    """ "And for monthly ones?" after a question about annual plans asks about monthly
    plans: "monthly" replaces "annual", "ones" stands for plan; a bare "ones" (or "which
    one?") still refers back."""
    history = after(REFUND, ["Driftwood Refund Policy > Annual plans"])
    made = make_standalone("And for monthly ones?", history)
    assert made.question == "And for monthly ones? (refund plan)"
    assert made.reason == (
        'names its own focus (monthly) in place of annual, "ones" standing for plan: '
        "carried refund, plan"
    )
    # Without the answer's sections, the same.
    untitled = make_standalone("And for monthly ones?", after(REFUND))
    assert untitled.question == "And for monthly ones? (refund plan)"
    # A word before the head that is not of the focus stays: "cancel" is what was asked.
    plans = after("How do I cancel plans?", ["Billing > Plans"])
    assert make_standalone("And for monthly ones?", plans).question == (
        "And for monthly ones? (cancel plans)"
    )
    assert pronouns("And for monthly ones?") == []
    assert pronouns("Which ones can I cancel?") == ["ones"]
    which = make_standalone("Which one is cheaper?", history)
    assert which.question == "Which one is cheaper? (refund annual plan)"


def test_no_focus_and_pronouns_keep_the_previous_focus():
    history = after(REFUND, ["Driftwood Refund Policy > Annual plans"])
    for question in ("Since when?", "And how?", "Why?"):
        made = make_standalone(question, history)
        assert made.question == f"{question} (refund annual plan)"
        assert "names no focus of its own: asks again about the previous one" in made.reason
    often = make_standalone("How often?", history)
    assert often.question == "How often? (refund annual plan)"
    assert often.reason.startswith("asks its own question (often) of the previous focus")
    made = make_standalone("Can I change it?", history)
    assert made.question == "Can I change it? (refund annual plan)"
    assert '"it" refers to the previous focus (annual, plan' in made.reason


def test_what_makes_a_follow_up_name_its_own_focus():
    history = after("What is the minimum age to use GitHub?")
    # "X too?" adds to the previous question as "what about X" does.
    assert make_standalone("Bots too?", history).question == "Bots too? (GitHub)"
    # A word of its own without "and", "what about" or "too" asks of the previous focus.
    socks = "Can httpx send requests through a SOCKS proxy?"
    install = make_standalone("What do I need to install?", after(socks))
    assert install.question == "What do I need to install? (httpx send requests SOCKS proxy)"
    assert install.reason.startswith("asks its own question (install) of the previous focus")
    # "one" before a noun is a number, not a pronoun; "the other one" is a pronoun.
    assert pronouns("How about sharing one seat?") == []
    assert pronouns("And what about the other one?") == ["one"]
    assert pronouns("Can I protect one with a password?") == ["one"]
    # A question with a topic of its own stands alone, as before.
    alone = make_standalone("Which port does the live sync connection use?", history)
    assert not alone.rewritten and "topic of its own" in alone.reason


@pytest.mark.slow
def test_ask_continue_shows_what_it_carried_and_answers_the_new_focus(sample_store):
    store = str(sample_store)
    first = runner.invoke(app, ["ask", REFUND, "--store", store])
    assert first.exit_code == 0, first.output
    follow = runner.invoke(app, ["ask", "-c", "What about add-ons?", "--store", store, "--json"])
    assert follow.exit_code == 0, follow.output
    data = json.loads(follow.output)
    conversation = data["conversation"]
    assert conversation["standalone"] == "What about add-ons? (refund)"
    assert "in place of the previous one (annual, plan" in conversation["reason"]
    top = data["sources"][0]["metadata"]
    assert top["source_file"].endswith("refund_policy.md") and top["heading"].endswith("Add-ons")
    assert "same rules as the plan" in data["answer"]
