"""Offline answers to how-to questions name the solution (issue 31): a sentence whose
subject is its section's heading carries the heading, the passage naming a solution comes
before the one restating the problem, the chosen section's code example is shown, and a
question whose ask is covered gets a short answer.

tests/data/howto/middleware.md is a web framework's middleware page (written for these
tests, not fitted on): each middleware's section is titled with its class name and begins
"Enforces …", "Handles …", "Checks …"; each class has a section before it that describes
the problem it solves without naming it."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragcli import service
from ragcli.llm.segment import units
from ragcli.llm.subject import heading_name, with_heading
from ragcli.llm.text import sentences
from ragcli.text.citations import strip_citations
from tests.support.common import settings_for

DATA = Path(__file__).parent / "data"


@pytest.mark.parametrize(
    "heading, name",
    [
        ("`GZipMiddleware`", "`GZipMiddleware`"),
        ("GZipMiddleware", "`GZipMiddleware`"),
        ("typer.progressbar", "`typer.progressbar`"),
        ("`awesome-cli create`", "`awesome-cli create`"),
        ("--verbose", "`--verbose`"),
        ("Restoring from a backup", None),
        ("Fix with `is_eager`", None),  # a phrase that mentions a name is not one
        ("Install", None),
    ],
)
def test_a_heading_is_a_name_when_it_is_one_identifier(heading, name):
    assert heading_name(heading) == name


def test_only_the_first_sentence_under_a_heading_opens_its_section():
    """Structure, not words, tells which sentence is about the heading: the first of the
    first paragraph under it."""
    text = (
        "## `GZipMiddleware`\n\nHandles GZip responses. Compresses bodies.\n\n"
        "- Options are shown in the help.\n\nLater it restarts."
    )
    found = [(u.text, u.opens_section) for u in units(text) if u.kind != "heading"]
    assert found == [
        ("Handles GZip responses.", True),
        ("Compresses bodies.", False),
        ("- Options are shown in the help.", False),
        ("Later it restarts.", False),
    ]


def test_the_heading_is_carried_only_when_it_is_the_subject():
    assert with_heading("Handles GZip responses.", "`GZipMiddleware`") == (
        "**`GZipMiddleware`**: handles GZip responses."
    )
    # It names its subject itself, or its heading is a phrase: quoted as it is.
    assert with_heading("The `GZipMiddleware` handles it.", "`GZipMiddleware`") == (
        "The `GZipMiddleware` handles it."
    )
    assert with_heading("Handles large files.", "Large responses") == "Handles large files."
    assert with_heading("Typer uses Click.", "typer") == "Typer uses Click."


@pytest.fixture(scope="module")
def middleware_store(tmp_path_factory) -> Path:
    store = tmp_path_factory.mktemp("howto") / "store"
    report = service.ingestor(settings_for(store)).run([DATA / "howto"], "docs")
    assert report.count("failed") == 0
    return store


@pytest.fixture(scope="module")
def ask(middleware_store):
    settings = settings_for(middleware_store, **{"store.collection": "docs"})
    resources = service.Resources(settings)
    return lambda question: service.ask(settings, question, resources=resources).answer


@pytest.fixture(scope="module")
def ask_result(middleware_store):
    settings = settings_for(middleware_store, **{"store.collection": "docs"})
    return lambda question: service.ask(settings, question)


def first_sentence(answer: str) -> str:
    return strip_citations(sentences(answer)[0])


def test_the_answer_names_the_class_its_section_is_titled_with(ask):
    """The sentence "Handles GZip responses …" sits under "## `GZipMiddleware`": quoted
    alone it does not say what handles them."""
    answer = ask("How do I send gzip compressed responses?")
    assert answer.startswith("**`GZipMiddleware`**: handles GZip responses"), answer


def test_the_support_list_shows_the_carried_heading_without_markup(ask_result):
    """The support marks list each sentence as text: the heading's bold markers go, both."""
    result = ask_result("How do I send gzip compressed responses?")
    first = result.support[0].sentence
    assert first.startswith("`GZipMiddleware`: handles GZip responses"), first
    assert all("**" not in claim.sentence for claim in result.support)


def test_the_solution_comes_before_the_problem(ask):
    """Both the section that describes plain-HTTP requests and the one whose middleware
    refuses them bear on the question; the answer opens with the one naming the fix, says
    what it does, and shows it added."""
    answer = ask("How can I make sure clients never reach my app over plain HTTP?")
    assert "HTTPSRedirectMiddleware" in first_sentence(answer)
    assert "every incoming request uses `https`" in answer
    assert "app.add_middleware(HTTPSRedirectMiddleware)" in answer
    problem = answer.find("Browsers and API clients")
    assert problem == -1 or problem > answer.index("HTTPSRedirectMiddleware")


def test_the_chosen_sections_code_example_is_shown(ask):
    answer = ask("How do I compress large responses?")
    assert "app.add_middleware(GZipMiddleware, minimum_size=1000" in answer
    assert len(answer) <= 700 + 40  # llm.answer_max_chars, citations aside


def test_a_what_question_gets_the_heading_and_stays_in_its_section(ask):
    """The question asks for a name: the sentence that answers it opens with its verb
    under "## `TrustedHostMiddleware`", and nothing from the other sections is added."""
    answer = ask("What protects against HTTP Host header attacks?")
    assert answer.startswith("**`TrustedHostMiddleware`**: checks that"), answer
    assert "[2]" not in answer
