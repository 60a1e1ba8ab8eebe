"""Text into quotable units: hard wraps undone, lists and code kept whole, and the
extractive answers built from them read as whole sentences."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from ragcli.llm.segment import units
from tests.support.storecheck import cli_env, ragcli

ANSWERS = Path(__file__).parent / "data" / "answers"


def test_hard_wraps_are_spaces_and_lists_and_code_stay_whole():
    text = (
        "# Title\n\nThe line length should be limited to 72\ncharacters for docstrings. "
        "Rust provides the\nquestion mark operator `?` for this.\n\nInstall it:\n\n"
        "- run `pip install x`\n  with care\n- then restart\n\n```bash\ndw backup\n\n"
        "dw verify\n```\nDone, e.g. twice. Next (see 3.5 below)."
    )
    assert [(u.kind, u.text) for u in units(text)] == [
        ("heading", "# Title"),
        ("sentence", "The line length should be limited to 72 characters for docstrings."),
        ("sentence", "Rust provides the question mark operator `?` for this."),
        ("sentence", "Install it:"),
        ("item", "- run `pip install x` with care"),
        ("item", "- then restart"),
        ("code", "```bash\ndw backup\n\ndw verify\n```"),
        ("sentence", "Done, e.g. twice."),
        ("sentence", "Next (see 3.5 below)."),
    ]


def test_a_stop_after_an_abbreviation_ends_no_sentence():
    """ "(e.g. DNS failure …)" before a capital, "a.k.a. CA", "St. Gallen", "Fig. 3", "ca.
    22,000", "Gen. Patton": one sentence each, not a quote that starts mid-sentence."""
    text = (
        "In the event of a network problem (e.g. DNS failure, refused connection), Requests "
        "raises a `ConnectionError`. The lake lies near St. Gallen. See Fig. 3 for the map. "
        "It uses a bundle (a.k.a. CA bundle) from a CA. It ends here. Then it goes on. "
        "It was the Last Glacial Maximum, ca. 22,000–14,000 yr BP. Gen. Patton came."
    )
    assert [u.text for u in units(text)] == [
        "In the event of a network problem (e.g. DNS failure, refused connection), Requests "
        "raises a `ConnectionError`.",
        "The lake lies near St. Gallen.",
        "See Fig. 3 for the map.",
        "It uses a bundle (a.k.a. CA bundle) from a CA.",
        "It ends here.",
        "Then it goes on.",
        "It was the Last Glacial Maximum, ca. 22,000–14,000 yr BP.",
        "Gen. Patton came.",
    ]


def test_a_short_list_item_is_one_unit_with_its_default():
    """A parameter list's item is quoted whole: a question about the default asks for its
    last sentence ("It is an integer from 1 to 9. Defaults to `9`."), which quoted alone
    has lost the parameter it is about."""
    text = (
        "The following arguments are supported:\n\n"
        "- `minimum_size` - Do not GZip responses smaller than this size in bytes. "
        "Defaults to `500`.\n"
        "- `max_connections`, maximum number of allowable connections. (Default 100)\n"
        "- `compresslevel` - Used during GZip compression. It is an integer from 1 to 9. "
        "Defaults to `9`.\n"
    )
    assert [(u.kind, u.text) for u in units(text)][1:] == [
        (
            "item",
            "- `minimum_size` - Do not GZip responses smaller than this size in bytes. "
            "Defaults to `500`.",
        ),
        ("item", "- `max_connections`, maximum number of allowable connections. (Default 100)"),
        (
            "item",
            "- `compresslevel` - Used during GZip compression. It is an integer from 1 to 9. "
            "Defaults to `9`.",
        ),
    ]


def test_a_long_list_item_is_a_paragraph_whose_default_stays_with_its_sentence():
    """An item longer than two lines is a paragraph in a list: its first sentence is the
    item, the others are sentences of their own, and a fragment ("Defaults to `10`.")
    stays with the sentence before it."""
    first = "- `timeout` - How long to wait for the server before giving up, in seconds."
    middle = (
        "A slow server, a full queue or a dropped connection all count against it, "
        "and so does the time spent reading a long response body. Defaults to `10`."
    )
    last = "Set it to `None` to wait for as long as the server takes, which a batch job may want."
    units_found = units(f"{first} {middle} {last}\n")
    assert [(u.kind, u.text) for u in units_found] == [
        ("item", first),
        ("sentence", middle),
        ("sentence", last),
    ]


def test_sources_and_answers_end_sentences_at_the_same_stops():
    """A stop inside a closing quote, straight or curly, ends a sentence before a capital
    or an opening quote, in a source (segment.py) as in an answer's claims (support.py)."""
    from ragcli.llm.answer_parse import parse_answer
    from ragcli.pipeline.support import claims

    text = (
        "The compiler says “expected `u32`, found `&str`.” The fix is `.parse()`. "
        "Rust calls this “shadowing.” “Shadowing” lets you reuse a name. "
        'He said "stop." Then it stopped.'
    )
    expected = [
        "The compiler says “expected `u32`, found `&str`.”",
        "The fix is `.parse()`.",
        "Rust calls this “shadowing.”",
        "“Shadowing” lets you reuse a name.",
        'He said "stop."',
        "Then it stopped.",
    ]
    assert [u.text for u in units(text)] == expected
    assert [c.text for c in claims(parse_answer(text))] == expected


def ask(tmp_path: Path, name: str, question: str) -> dict:
    docs = tmp_path / "docs"
    docs.mkdir(exist_ok=True)
    shutil.copy(ANSWERS / name, docs / name)
    store = str(tmp_path / "store")
    ingest = ragcli("ingest", str(docs), "--store", store, "-q", cwd=tmp_path, env=cli_env())
    assert ingest.returncode == 0, ingest.stderr
    run = ragcli("ask", question, "--store", store, "--json", cwd=tmp_path, env=cli_env())
    assert run.returncode in (0, 3), run.stderr
    return json.loads(run.stdout)


@pytest.mark.slow
def test_a_hard_wrapped_sentence_is_quoted_whole(tmp_path):
    result = ask(tmp_path, "pep_style.txt", "How long should docstring lines be?")
    assert "the line length should be limited to 72 characters. [1]" in result["answer"]


@pytest.mark.slow
def test_a_lead_in_brings_the_code_it_introduces(tmp_path):
    question = "How do I allow cross-origin requests from a frontend on localhost:8080?"
    answer = ask(tmp_path, "cors.md", question)["answer"]
    assert answer.startswith("To allow cross-origin requests from a frontend on localhost:8080, do")
    assert "```\n[1]" in answer  # one citation closes the lead-in and its code
    items = [line for line in answer.splitlines() if line.startswith("- ")]
    assert all(line.endswith("[1]") for line in items)  # items quoted alone: a line each
    assert 'app.add_middleware(CORSMiddleware, allow_origins=["http://localhost:8080"])' in answer
    assert answer.count("```") == 2  # the code block whole, fences included


def test_a_comparison_keeps_its_subject_in_every_part():
    from ragcli.llm.decompose import decompose

    assert decompose("Compare the Team and Business plans.", 4) == [
        "What are the Team plans?",
        "What are Business plans?",
        "How do the Team and Business plans differ?",
    ]


def test_synthesized_citations_are_numbered_without_gaps():
    from ragcli.llm.answer_parse import parse_answer
    from ragcli.llm.citations import cited_first, merge_sources
    from ragcli.models import ChunkMetadata, RetrievedChunk, SubAnswer
    from ragcli.text.markdown import render

    def chunk(n: int) -> RetrievedChunk:
        meta = ChunkMetadata(chunk_id=f"c{n}", source_file=f"f{n}.md", file_type="md")
        return RetrievedChunk(content=f"text {n}", score=1.0, metadata=meta)

    subs = [
        SubAnswer(
            question="a?",
            answer=parse_answer("A is one [2]."),
            sources=[chunk(1), chunk(2), chunk(3)],
        ),
        SubAnswer(
            question="b?", answer=parse_answer("B is two [2]."), sources=[chunk(4), chunk(5)]
        ),
    ]
    merged = merge_sources(subs)  # global numbers: c1..c5 = [1]..[5]; B's [2] is c5 = [5]
    answer, reordered = cited_first(parse_answer("A is one [2]. B is two [5]."), merged)
    assert render(answer) == "A is one [1]. B is two [2]."
    assert [c.chunk_id for c in reordered.sources] == ["c2", "c5", "c1", "c3", "c4"]
    assert [render(s.answer) for s in reordered.sub_answers] == ["A is one [1].", "B is two [2]."]
    assert reordered.numbering["c5"] == 2
