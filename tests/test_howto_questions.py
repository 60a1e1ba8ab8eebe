"""The labelled questions of scripts/data/ and their matchers (ragcli/evaluation/howto.py):
every file loads, each set holds the how-to and factoid questions issue 43 asks for, and a
value counts only where it is stated. (Which are train and which test: tests/test_split.py.)"""

from __future__ import annotations

from pathlib import Path

import pytest

from ragcli.evaluation.howto import HowTo, answers_it, load_howtos, names_it, states_it

DATA = Path(__file__).resolve().parent.parent / "scripts" / "data"
NEW_SETS = ["httpx", "pydantic", "rust_book", "sqlmodel"]


def test_typer_questions_still_load_as_how_to() -> None:
    questions = load_howtos(DATA / "typer_howto.yaml")
    assert len(questions) == 42
    assert {q.kind for q in questions} == {"howto"}


@pytest.mark.parametrize("name", NEW_SETS)
def test_each_set_has_how_to_and_factoid_questions(name: str) -> None:
    questions = load_howtos(DATA / f"{name}_questions.yaml")
    for kind, at_least in (("howto", 10), ("factoid", 5)):
        assert sum(q.kind == kind for q in questions) >= at_least, kind
    assert len({q.question for q in questions}) == len(questions)
    assert all(q.names and all(n.strip() for n in q.names) for q in questions)


# Sites outside ../shared/eval/, fetched from their sdists (each file says how).
PROXY_SETS = ["flask", "starlette", "aiohttp", "attrs", "click", "urllib3", "treq", "toolbelt"]
PROXY_SETS += ["structlog", "pytest", "fastify", "pino"]  # issue 67's, from sdists and npm
# and more of issue 67's, from sdists, npm and a Debian documentation package (HTML)
PROXY_SETS += ["marshmallow", "undici", "markdown", "anyio", "cattrs", "werkzeug"]
PROXY_SETS += ["pylib"]  # the standard library's reference, chosen for its tables


@pytest.mark.parametrize("name", PROXY_SETS)
def test_each_proxy_set_loads_with_ten_how_to_questions(name: str) -> None:
    questions = load_howtos(DATA / f"{name}_questions.yaml")
    assert sum(q.kind == "howto" for q in questions) >= 10
    assert len({q.question for q in questions}) == len(questions)
    assert all(q.names and all(n.strip() for n in q.names) for q in questions)


def test_a_value_counts_as_written_whatever_its_marks() -> None:
    assert states_it("Rust performs _two’s complement wrapping_.", "two's complement wrapping")
    assert states_it(
        "**`VARCHAR`** comes from **variable** length\n**character**.", "variable length character"
    )
    assert states_it("(Default 100)", "100")
    assert not states_it("a limit of 1000 rows", "100")
    assert not states_it("Decimal('1.100')", "100")
    assert not states_it("use `model_validate_json()`", "model_validate")
    assert states_it("after 5 seconds of network inactivity", "5 seconds")
    assert not states_it("it is SQLITE", "SQLite")  # case-sensitive: list the spellings


def test_a_how_to_name_counts_as_code_for_a_plain_word() -> None:
    assert names_it("set `retries=1` on the transport", "retries")
    assert names_it("transport = httpx.HTTPTransport(retries=1)", "retries")
    assert not names_it("it retries three times", "retries")
    assert names_it("use `eprintln!` instead", "eprintln!")
    # code spans pair from the left: the prose between two of them is not code
    assert not names_it("I want to `DELETE` rows. Please delete all rows `WHERE`", "delete")
    assert names_it("call `session.delete(hero)`", "delete")


def test_answers_it_follows_the_kind() -> None:
    howto = HowTo("How do I cap connections?", ("max_connections",))
    factoid = HowTo("How many connections by default?", ("100",), "factoid")
    assert answers_it("`max_connections`, maximum number (Default 100)", howto)
    assert answers_it("`max_connections`, maximum number (Default 100)", factoid)
    assert not answers_it("a maximum number of connections", howto)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("- names: [x]\n", "needs a `question:`"),
        ("- question: Why?\n  kind: opinion\n  names: [x]\n", "kind 'opinion'"),
        ("- question: Why?\n  kind: factoid\n  names: [x]\n", "needs a non-empty `answers:`"),
        ("- question: How?\n  names: []\n", "needs a non-empty `names:`"),
        ("question: How?\n", "expected a list"),
    ],
)
def test_a_malformed_file_names_the_question(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "questions.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ValueError, match=message) as raised:
        load_howtos(path)
    assert str(path) in str(raised.value)
