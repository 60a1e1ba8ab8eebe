"""The text layer (ragcli/text/): the one sentence splitter, the one citation pattern, a
code block's fence, and a typed answer as Markdown and read back from a model's reply."""

from __future__ import annotations

from ragcli.answer import Answer, AnswerPart
from ragcli.llm.answer_parse import parse_answer
from ragcli.pipeline.support import claims
from ragcli.text.citations import cited_numbers, renumber, strip_citations
from ragcli.text.fences import fence, unfence
from ragcli.text.markdown import render
from ragcli.text.sentences import continuing, split_cited_sentences, split_sentences


def test_sentences_end_at_stops_not_after_abbreviations_or_before_lower_case():
    text = (
        "Ice age glaciers reached it ca. 22,000 BP. It flows north (e.g. past Basel). "
        "The ratio is 3.5 times higher. “Shadowing” lets you reuse a name. It ends."
    )
    assert split_sentences(text) == [
        "Ice age glaciers reached it ca. 22,000 BP.",
        "It flows north (e.g. past Basel).",
        "The ratio is 3.5 times higher.",
        "“Shadowing” lets you reuse a name.",
        "It ends.",
    ]


def test_in_an_answer_a_citation_closes_the_sentence_before_a_new_one():
    text = "There is a shortcut for it: [2] A key names one record. 🎉 [1] Done [3]."
    assert split_cited_sentences(text) == [
        "There is a shortcut for it: [2]",
        "A key names one record. 🎉 [1]",
        "Done [3].",
    ]


def test_one_citation_pattern_reads_single_and_grouped_numbers():
    text = "Port 7420 [1]. See the [metrics] section [2, 3][1]."
    assert cited_numbers(text) == [1, 2, 3]
    assert strip_citations(text) == "Port 7420. See the [metrics] section."
    assert renumber(text, {1: 2, 2: 1}) == ("Port 7420 [2]. See the [metrics] section [1][2].", [3])


def test_a_fence_is_longer_than_any_run_of_backticks_in_the_code():
    code = "print('```')"
    fenced = fence(code, "python")
    assert fenced == "````python\nprint('```')\n````"
    assert unfence(fenced) == (code, "python")
    assert unfence("no fence") is None


def test_an_extractive_answer_renders_as_it_always_read():
    """A sentence, a lead-in with the list it brings (cited once, on the line after), a
    row quoted alone as a list item, code with its citation below, and a sentence after
    that code starting a paragraph of its own."""
    answer = Answer(
        (
            AnswerPart("Set `timeout` to wait longer.", "sentence", (1,)),
            AnswerPart("It takes these values:", "sentence", (2,)),
            AnswerPart("- `None`: wait forever", "list_item", (2,), continues=True),
            AnswerPart("- a float: seconds", "list_item", (2,), continues=True),
            AnswerPart("Name: timeout; Default: 5", "row", (3,)),
            AnswerPart("httpx.get(url, timeout=10)", "code", (1,), language="python"),
            AnswerPart("Timeouts raise `TimeoutException`.", "sentence", (1,)),
        )
    )
    assert render(answer) == (
        "Set `timeout` to wait longer. [1] It takes these values:\n"
        "- `None`: wait forever\n- a float: seconds\n[2]\n"
        "- Name: timeout; Default: 5 [3]\n\n"  # a line after an item would continue it
        "```python\nhttpx.get(url, timeout=10)\n```\n[1]\n\n"
        "Timeouts raise `TimeoutException`. [1]"
    )
    marked = render(answer, {0: " **†1**", 2: " **†2**"})
    assert marked.startswith("Set `timeout` to wait longer. [1] **†1** It takes")
    assert "- `None`: wait forever **†2**\n" in marked


def test_notes_come_before_the_parts_and_stand_alone_without_them():
    quoted = Answer((AnswerPart("Refunds take 30 days.", "sentence", (1,)),), ("Limited.",))
    assert render(quoted) == "Limited.\n\nRefunds take 30 days. [1]"
    assert render(Answer.of_notes("Nothing answers this.")) == "Nothing answers this."


def test_a_label_opens_an_item_its_claims_continue_each_with_its_citation():
    # `ask --file`'s summary: a document's name, then one item a section, under its name.
    answer = Answer(
        (
            AnswerPart("refund_policy.md", "heading", new_paragraph=True),
            AnswerPart("Annual plans", "label", new_paragraph=True),
            AnswerPart("Refunds take 30 days.", "sentence", (1,)),
            AnswerPart("Setup fees are kept by us.", "sentence", (1,)),
            AnswerPart("", "label"),  # a section under no heading (a PDF page)
            AnswerPart("Page two says this too.", "sentence", (2,)),
        )
    )
    assert render(answer) == (
        "**refund_policy.md**\n\n"
        "- **Annual plans**: Refunds take 30 days. [1] Setup fees are kept by us. [1]\n"
        "- Page two says this too. [2]"
    )
    marked = render(answer, {3: " **†1**"}).splitlines()[2]
    assert (
        marked
        == "- **Annual plans**: Refunds take 30 days. [1] Setup fees are kept by us. [1] **†1**"
    )
    assert [c.text for c in claims(answer)] == [
        "Refunds take 30 days.",
        "Setup fees are kept by us.",
        "Page two says this too.",
    ]


def test_a_models_reply_is_read_into_parts_once():
    reply = (
        "The web port is 7420 [1]. Metrics use 9420. [2]\n"
        "Backups run nightly [1, 3].\n\n"
        "- `--port`: the port [1]\n- `--host`: the host\n\n"
        "```bash\nragcli serve --port 7420\n```\n[1]\n\n"
        "Sources: [1] config.md; [2] guide.md"
    )
    parts = parse_answer(reply).parts
    assert [(p.kind, p.text, p.sources) for p in parts] == [
        ("statement", "The web port is 7420.", (1,)),
        ("statement", "Metrics use 9420.", (2,)),
        ("statement", "Backups run nightly.", (1, 3)),
        ("list_item", "- `--port`: the port", (1,)),
        ("list_item", "- `--host`: the host", ()),
        ("code", "ragcli serve --port 7420", (1,)),
        ("source_list", "config.md", (1,)),  # a file a line of sources names
        ("source_list", "guide.md", (2,)),
    ]
    assert parts[2].new_line and parts[3].new_paragraph and parts[5].language == "bash"
    assert render(parse_answer(reply)) == (
        "The web port is 7420 [1]. Metrics use 9420 [2].\n"
        "Backups run nightly [1][3].\n\n"
        "- `--port`: the port [1]\n- `--host`: the host\n\n"
        "```bash\nragcli serve --port 7420\n```\n[1]\n\n"
        "Sources: [1] config.md; [2] guide.md"
    )


def test_renumbering_a_typed_answer_drops_what_points_at_nothing():
    answer = parse_answer("A is one [1]. B is two [2][3].\nSources: [1] a.md; [2] b.md")
    renumbered, dropped = answer.renumbered({1: 2, 2: 1})
    # The line of sources is renumbered with the sentences that cite them.
    assert render(renumbered) == "A is one [2]. B is two [1].\nSources: [2] a.md; [1] b.md"
    assert dropped == [3]
    assert renumbered.cited() == [2, 1]


def test_a_citation_inside_a_models_sentence_stays_where_it_was_written():
    reply = "Port 7420 serves the web app [1], and 9420 metrics [2]. 7420 [1]. nightly [3]."
    answer = parse_answer(reply)
    assert render(answer) == reply
    # Each sentence is one claim, citing all it cites, marked after its last stretch.
    assert [(c.text, c.cites, c.part) for c in claims(answer)] == [
        ("Port 7420 serves the web app, and 9420 metrics.", [1, 2], 1),
    ]
    assert render(answer, {1: " **†1**"}).startswith(
        "Port 7420 serves the web app [1], and 9420 metrics [2]. **†1**"
    )


def test_a_citation_inside_a_models_list_item_stays_where_it_was_written():
    reply = "- The web app is on 7420 [1], metrics on 9420 [2]\n- Backups run at 03:00 [3]"
    answer = parse_answer(reply)
    assert render(answer) == reply
    assert [(c.text, c.cites) for c in claims(answer)] == [
        ("The web app is on 7420, metrics on 9420", [1, 2]),
        ("Backups run at 03:00", [3]),
    ]


def test_a_sentence_continuing_after_a_colon_lowers_an_ordinary_word_only():
    assert continuing("Allow a dict.") == "allow a dict."
    assert continuing(" Use it.") == "use it."
    assert continuing("It's used.") == "it's used."
    for kept in (
        "PEP 695 aliases.",
        "HTTPX is used.",
        "`Converter` works.",
        "McKinney said.",
        "I agree.",
        "iOS apps.",
    ):
        assert continuing(kept) == kept
