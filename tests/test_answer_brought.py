"""The offline backend's answers to how-to questions, for what a unit brings with it: the
code or list a lead-in introduces (in its chunk, cut into the next one, or an include naming
the file that holds it), terminal transcripts and their commands, a section's example, and
when an answer that shows the call stops."""

from __future__ import annotations

from dataclasses import replace

import pytest

from ragcli import service
from ragcli.evaluation.answer_defects import defects
from ragcli.llm.offline.features import FEATURES, AnswerFeatures
from ragcli.llm.offline.model import SelectionParameters, bundled, measuring
from ragcli.llm.segment import units
from tests.support.common import doc_chunk, generated, offline_backend, settings_for


def test_a_sentence_under_a_heading_naming_the_fix_is_quoted_after_it(tmp_path):
    """ "… there's a shortcut for it:" leads to an included file the answer cannot show;
    only its heading names the shortcut, so the answer quotes the heading before it, and
    after it the include, which names the file that holds the example: the lead-in does
    not end the answer on nothing."""
    shortcut = (
        "## Look up by key with `.fetch()`\n\n"
        "Reading a single record by its primary key is so common that there is a "
        "shortcut for it:\n\n"
        "```python include=./examples/fetch.py\ncode example from ./examples/fetch.py\n```"
    )
    keys = (
        "## Primary keys\n\n"
        "A primary key identifies one record of a table. Each table has a single primary "
        "key, and no two records share it."
    )
    chunks = [
        doc_chunk(1, "Records > Primary keys", keys),
        doc_chunk(2, "Records > Look up by key with `.fetch()`", shortcut),
    ]
    backend = offline_backend(tmp_path)
    question = "How can I read one record directly by its primary key?"
    answer = generated(backend, question, chunks)
    assert "**Look up by key with `.fetch()`**: reading a single record" in answer
    assert "shortcut for it:\n```python\ncode example from ./examples/fetch.py\n```" in answer
    assert defects(backend.generate(question, chunks)) == []


def test_a_whole_listing_is_not_shown_as_the_sections_example(tmp_path):
    """A short example shows the call; a long listing would bury it, and is left out."""
    from ragcli.llm.offline.brought import EXAMPLE_MAX_CHARS

    backend = offline_backend(tmp_path)
    question = "How do I make responses smaller?"
    short = "app.add(Compressor, level=5)"
    listing = "\n".join(f"setting_{n} = configure(step={n})" for n in range(20)) + f"\n{short}"
    assert len(listing) > EXAMPLE_MAX_CHARS
    for code, shown in ((short, True), (listing, False)):
        content = (
            "## Compression\n\n"
            "Responses are made smaller by adding the `Compressor` to the app.\n\n"
            f"```python\n{code}\n```"
        )
        answer = generated(backend, question, [doc_chunk(1, "Guide > Compression", content)])
        assert "`Compressor`" in answer
        assert (short in answer) is shown, answer


def test_a_lead_in_to_a_runs_output_does_not_count_as_bringing_code(tmp_path):
    """ "When you run it, you will see:" brings a transcript: what happens, not what to
    write. A lead-in that names the call, or brings code, still counts."""
    backend = offline_backend(tmp_path)
    content = (
        "## Retrying requests\n\n"
        "When you run the client against a flaky server, you will see something like this:"
        "\n\n```console\n$ python client.py\nConnection failed, giving up\n```\n\n"
        "To retry failed connections, pass a retry count to the transport:\n\n"
        "```python\ntransport = Transport(retries=3)\n```\n\n"
        "Use `retries` for the same on the command line:\n\n"
        "```console\n$ client --retries 3\n```"
    )
    scored = backend.scored_sentences(
        "How do I retry failed connections?", [doc_chunk(1, "Client > Retrying requests", content)]
    )
    lead_in = {s.candidate.text[:20]: s.features.lead_in for s in scored}
    assert lead_in["When you run the cli"] == 0.0
    assert lead_in["To retry failed conn"] == 1.0
    assert lead_in["Use `retries` for th"] == 1.0


def test_a_diagram_is_neither_brought_by_a_lead_in_nor_quoted(tmp_path):
    """A mermaid chart's source draws a picture: it is neither quoted nor brought by the
    lead-in to it ("we could delete the team `Wakaland`:"), and the answer does not spend
    its length on the chart."""
    backend = offline_backend(tmp_path)
    chart = 'flowchart TB\n    subgraph wakaland["Wakaland"]\n        b("Black Lion")\n    end'
    content = (
        "## Delete a team with its heroes\n\n"
        "For example, we could delete the team `Wakaland`:\n\n"
        f"```mermaid\n{chart}\n```\n\n"
        "To delete the heroes of a deleted team too, set `cascade_delete=True` on the "
        "relationship."
    )
    chunks = [doc_chunk(1, "Relationships > Delete a team with its heroes", content)]
    question = "When a team is deleted, how do I get its heroes deleted automatically?"
    scored = backend.scored_sentences(question, chunks)
    assert not [s for s in scored if "```" in s.candidate.text]
    wakaland = next(s for s in scored if "Wakaland" in s.candidate.text)
    assert wakaland.features.lead_in == 0.0  # it brings nothing
    answer = generated(backend, question, chunks)
    assert "cascade_delete=True" in answer
    assert "flowchart" not in answer and "```mermaid" not in answer


def test_a_how_to_answer_does_not_quote_a_transcript_on_its_own(tmp_path):
    """A ```console block shows what a run prints ("Error: Invalid value for '--age'"),
    not what to write: for a how-to question it is no candidate, while a lead-in may still
    bring one and a question about what the program prints may still quote it."""
    backend = offline_backend(tmp_path)
    content = (
        "## Numeric ranges\n\n"
        "You can only accept numbers within a range with `min` and `max` for an option.\n\n"
        "```console\n$ app --age 15\n"
        "Error: Invalid value for option '--age': 15 is not in the range of numbers x>=18\n```"
    )
    chunks = [doc_chunk(1, "Options > Numeric ranges", content)]
    howto = backend.scored_sentences(
        "How do I only accept numbers within a range for an option?", chunks
    )
    assert [s.candidate.kind for s in howto] == ["sentence"]
    printed = backend.scored_sentences("What error does the app print for an age of 15?", chunks)
    assert "code" in [s.candidate.kind for s in printed]


def test_the_middle_of_a_cut_listing_is_neither_quoted_nor_shown(tmp_path):
    """The chunker cuts a long listing between lines; a part that begins inside a function
    (a `return` indented deeper than the line after it) reads as nothing on its own: it is
    no candidate and no section's example."""
    backend = offline_backend(tmp_path)
    content = (
        "## Uploading files\n\n"
        "```\n            return redirect(url_for('download_file', name=filename))\n"
        "    return '<form method=post enctype=multipart/form-data>'\n```\n\n"
        "You can access the uploaded files through the `files` attribute of the request."
    )
    chunks = [doc_chunk(1, "Patterns > Uploading files", content)]
    question = "How do I get at the files a user uploaded in a form?"
    kinds = [s.candidate.kind for s in backend.scored_sentences(question, chunks)]
    assert kinds == ["sentence"]
    answer = generated(backend, question, chunks)
    assert "`files`" in answer and "redirect(" not in answer


def test_a_transcript_whose_command_does_what_is_asked_is_brought_by_its_lead_in(tmp_path):
    """ "How do I install it?" is answered by the command a transcript types ("$ pip
    install sqlmodel"), while a lead-in to a run whose command the question does not ask
    for still brings nothing."""
    backend = offline_backend(tmp_path)
    content = (
        "# Install SQLModel\n\n"
        "Create a virtual environment, activate it, and then install SQLModel, for example "
        "with:\n\n```console\n$ pip install sqlmodel\n---> 100%\n```\n\n"
        "As SQLModel is built on top of SQLAlchemy and Pydantic, when you install "
        "`sqlmodel` they will also be automatically installed."
    )
    chunks = [doc_chunk(1, "Install SQLModel", content)]
    question = "How do I install SQLModel?"
    best = backend.scored_sentences(question, chunks)[0]
    assert best.candidate.text.endswith("for example with:") and best.features.lead_in
    assert "$ pip install sqlmodel" in generated(backend, question, chunks)
    scored = backend.scored_sentences("How do I upgrade the database schema?", chunks)
    assert not any(s.features.lead_in for s in scored)


def test_an_install_section_holding_only_a_transcript_answers_how_to_install(tmp_path):
    """A section with no prose, only `$ pip install ...`, is what to write for "How do I
    install it?"; the same transcript is no candidate for a question its command does not
    do."""
    backend = offline_backend(tmp_path)
    content = '## Installation\n\n```console\n$ pip install "fastapi[standard]"\n---> 100%\n```'
    chunks = [doc_chunk(1, "FastAPI > Installation", content)]
    assert '$ pip install "fastapi[standard]"' in generated(
        backend, "How do I install FastAPI?", chunks
    )
    assert not backend.scored_sentences("How do I declare a path parameter?", chunks)


def test_one_install_line_from_two_pages_is_quoted_once(tmp_path):
    """The install page and the index both lead in to `$ pip install sqlmodel` (their
    output lines differ): the answer shows the command once."""
    backend = offline_backend(tmp_path)
    install = (
        "# Install SQLModel\n\nCreate a project directory, create a virtual environment, "
        "activate it, and then install SQLModel, for example with:\n\n"
        "```console\n$ pip install sqlmodel\n---> 100%\n"
        "Successfully installed sqlmodel pydantic sqlalchemy\n```"
    )
    index = (
        "## Installation\n\nMake sure you create a virtual environment, activate it, and "
        "then install SQLModel, for example with:\n\n"
        "```console\n$ pip install sqlmodel\n---> 100%\nSuccessfully installed sqlmodel\n```"
    )
    chunks = [
        doc_chunk(1, "Install SQLModel", install),
        doc_chunk(2, "SQLModel > Installation", index),
    ]
    answer = generated(backend, "How do I install SQLModel?", chunks)
    assert answer.count("$ pip install sqlmodel") == 1, answer


@pytest.mark.parametrize("ending", ["…", "...", ":"])
def test_a_sentence_ending_in_an_ellipsis_leads_in_to_its_code(tmp_path, ending):
    """Some sites end the sentence before an example with "…" where others write a colon:
    either way it introduces the code, which the answer quotes after it."""
    backend = offline_backend(tmp_path)
    content = (
        "## Streaming responses\n\n"
        "Reading a large download into memory at once can exhaust it.\n\n"
        f"You can stream the binary content of the response{ending}\n\n"
        '```python\nwith client.stream("GET", url) as r:\n    for data in r.iter_bytes():\n'
        "        print(data)\n```"
    )
    chunks = [doc_chunk(1, "Quickstart > Streaming responses", content)]
    question = "How do I stream a large response?"
    scored = {s.candidate.text[:29]: s for s in backend.scored_sentences(question, chunks)}
    assert scored["You can stream the binary con"].features.lead_in == 1.0
    answer = generated(backend, question, chunks)
    assert f"content of the response{ending}\n```python\nwith client.stream(" in answer
    assert answer.count("r.iter_bytes()") == 1


def test_a_lead_in_ending_its_chunk_brings_the_code_stored_with_it(tmp_path):
    """The chunker cut the example from its lead-in and stored it with the chunk
    (ChunkMetadata.continues): the answer quotes the lead-in with that code, not a
    sentence ending in a colon with nothing after it. A listing longer than a call is left
    out, as a section's example is, and so is an include, which shows nothing."""
    content = (
        "## Streaming uploads\n\n"
        "Large files would have to be read into memory before they are sent.\n\n"
        "To stream a file while it uploads, pass a streaming encoder as the body, like this:"
    )
    code = '```python\nencoder = MultipartEncoder(fields={"f": open("big.iso", "rb")})\n```'
    chunk = doc_chunk(1, "Uploads > Streaming uploads", content)
    question = "How do I stream a file while it uploads?"
    backend = offline_backend(tmp_path)
    assert generated(backend, question, [chunk]).rstrip().endswith("like this: [1]")
    chunk.metadata.continues = code
    answer = generated(backend, question, [chunk])
    assert f"like this:\n{code}\n[1]" in answer
    for shows_nothing_here in (
        "```python\n" + "x = 1\n" * 80 + "```",  # a listing
        "```python include=docs_src/upload.py\ncode example from docs_src/upload.py\n```",
    ):
        chunk.metadata.continues = shows_nothing_here
        assert generated(backend, question, [chunk]).rstrip().endswith("like this: [1]")


def test_the_code_cut_from_a_lead_in_is_stored_and_retrieved_with_it(tmp_path):
    """Through an ingest and a question: the chunk that ends with the lead-in comes back
    from the store with the code the window cut from it."""
    filler = " ".join(
        f"Uploads of kind {i} go through the same checks as any other request body."
        for i in range(9)
    )
    lead_in = (
        "To stream a large file while it uploads, without reading the whole of it into "
        "memory first and without holding the connection open longer than the transfer "
        "takes, wrap the file in a streaming encoder and pass that encoder as the request "
        "body, like this:"
    )
    code = 'encoder = StreamingEncoder(fields={"file": open("big.iso", "rb")})'
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "uploads.md").write_text(
        f"# Uploads\n\n## Streaming uploads\n\n{filler}\n\n{lead_in}\n\n"
        f"```python\n{code}\nclient.post(url, data=encoder)\n```\n\n"
        "The encoder reads the file in small pieces.\n",
        encoding="utf-8",
    )
    settings = settings_for(tmp_path / "store", **{"llm.provider": "extractive"})
    assert service.ingestor(settings).run([docs], "docs").count("failed") == 0
    result = service.ask(settings, "How do I stream a large file while it uploads?")
    ending = [s for s in result.sources if s.content.endswith("like this:")]
    assert ending, [s.content[-60:] for s in result.sources]
    assert code in (ending[0].metadata.continues or "")
    assert code in result.answer


HOW_TO_TIMEOUT = "How do I give up on a slow request?"


SHOWN_WITH_ITS_CODE = {
    "lead-in": (
        "## Timeouts\n\nTo give up after five seconds, pass a timeout like this:\n\n"
        "```python\nclient.get(url, timeout=5)\n```\n\n"
    ),
    "section example": (
        "## Timeouts\n\nPass `timeout=5` to give up after five seconds.\n\n"
        "```python\nclient.get(url, timeout=5)\n```\n\n"
    ),
    "no code": "## Timeouts\n\nPass `timeout=5` to give up after five seconds.\n\n",
}


@pytest.mark.parametrize("shown", list(SHOWN_WITH_ITS_CODE))
def test_a_how_to_answer_that_shows_the_call_with_its_code_stops_sooner(tmp_path, shown):
    """Three sentences, each very likely to answer. Once the answer quotes the first with
    the code it introduces (or its section's example), the call is shown and the answer
    stops after the next one (covered_shown); without code all three are quoted (a stricter
    covered_howto). The sentence after the code starts a paragraph, not the line of the
    code's citation."""
    import numpy as np

    from ragcli.llm.offline.candidates import Candidate
    from ragcli.llm.offline.scoring import ScoredSentence

    content = SHOWN_WITH_ITS_CODE[shown] + (
        "A timeout applies to each step of the request.\n\n"
        "The default is five seconds for every step."
    )
    chunk = doc_chunk(1, "Quickstart > Timeouts", content)
    backend = offline_backend(tmp_path)
    sentences = [(i, u) for i, u in enumerate(units(content)) if u.kind == "sentence"]
    assert len(sentences) == 3
    scored = []
    for n, (position, unit) in enumerate(sentences):
        values = dict.fromkeys(FEATURES, 0.9) | {"lead_in": float(unit.text.endswith(":"))}
        features = AnswerFeatures(**values)
        candidate = Candidate(unit.text, 1, position, np.eye(3)[n], section="Timeouts")
        scored.append(ScoredSentence(candidate, 0.9, features, score=0.985))
    backend.scored_sentences = lambda query, chunks: scored  # type: ignore[method-assign]
    # Two sentences at 0.985 leave a chance of 0.000225 that neither answers.
    stops = SelectionParameters(
        keep_share_howto=0.5,
        keep_share_fact=0.5,
        covered_howto=0.9999,
        covered_fact=0.98,
        covered_shown=0.9997,
        duplicate_cosine=0.95,
    )
    with measuring(replace(bundled(), selection=stops)):
        answer = generated(backend, HOW_TO_TIMEOUT, [chunk])
    assert ("client.get(url, timeout=5)" in answer) == (shown != "no code")
    assert "each step of the request" in answer
    assert ("The default is five seconds" in answer) == (shown == "no code"), answer
    if shown != "no code":  # the sentence after the code's citation is a paragraph of its own
        assert "```\n[1]\n\nA timeout applies to each step" in answer, answer
