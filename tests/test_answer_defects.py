"""The flaws of a quoted answer that scripts/howto_benchmark.py counts."""

from ragcli.answer import Answer, AnswerPart, Span
from ragcli.evaluation.answer_defects import defects


def quote(text: str, start: int, kind: str = "sentence", chunk: str = "c1", **more) -> AnswerPart:
    return AnswerPart(text, kind, (1,), chunk, Span(start, start + len(text)), **more)  # type: ignore[arg-type]


def test_a_sound_answer_has_no_flaw():
    answer = Answer(
        (
            quote("Pass `timeout=5` to give up after five seconds.", 0),
            quote("This applies to every request of the client.", 49),
        )
    )
    assert defects(answer) == []


def test_this_without_what_it_refers_to_is_a_flaw():
    opening = Answer((quote("This is what the default does.", 120),))
    assert defects(opening) == ["refers_back"]
    elsewhere = Answer(
        (
            quote("Pass `timeout=5` to give up.", 0),
            quote("That keeps the worker alive.", 300),  # far from it in the passage
        )
    )
    assert defects(elsewhere) == ["refers_back"]
    other_chunk = Answer((quote("Set `retries`.", 0), quote("This retries.", 15, chunk="c2")))
    assert defects(other_chunk) == ["refers_back"]


def test_a_quote_given_twice_is_a_flaw():
    twice = Answer(
        (
            quote("Use `app.run()` to start it.", 0),
            quote("Use app.run() to start it!", 0, chunk="c2"),
        )
    )
    assert defects(twice) == ["repeated"]


def test_a_lead_in_needs_what_it_announces_after_it():
    hanging = Answer((quote("Configure it as follows:", 0), quote("Then restart.", 30)))
    assert defects(hanging) == ["hanging_lead_in"]
    at_the_end = Answer((quote("Set `level`.", 0), quote("For example:", 13)))
    assert defects(at_the_end) == ["hanging_lead_in"]
    shown = Answer(
        (
            quote("Configure it as follows:", 0),
            AnswerPart("app.run(debug=True)", "code", (1,), continues=True),
        )
    )
    assert defects(shown) == []


def test_each_flaw_is_named_once_in_a_fixed_order():
    answer = Answer(
        (
            quote("These are the options:", 400),
            quote("These are the options:", 400, chunk="c3"),
        )
    )
    assert defects(answer) == ["refers_back", "repeated", "hanging_lead_in"]


def test_notes_and_code_are_not_judged():
    assert defects(Answer.of_notes("The retrieved documents do not appear to answer this.")) == []
    code = Answer((AnswerPart("This = 1", "code", (1,)),))
    assert defects(code) == []
