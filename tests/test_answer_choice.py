"""The offline backend quotes the sentence that answers, not the one that restates the
question: question types, the fitted answer choice, HTML and rST read as sentences,
reflect's acceptance of a quoted answer, and off-topic questions that share a word with
the documents."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
import yaml

from ragcli import service
from ragcli.evaluation.answer_defects import defects
from ragcli.evaluation.squad import contains_answer
from ragcli.ingest.loaders.markup import html_sections
from ragcli.llm.offline.features import FEATURES, AnswerFeatures
from ragcli.llm.offline.model import SelectionParameters, bundled, measuring
from ragcli.llm.offline.questions import question_kind, states_default
from ragcli.llm.offline.selection import referred_to
from ragcli.llm.segment import units
from ragcli.text.markdown import render
from tests.support.common import offline_backend, settings_for

DATA = Path(__file__).parent / "data"


def generated(backend, question, chunks) -> str:
    """The offline answer as the reader sees it (Markdown)."""
    return render(backend.generate(question, chunks))


@pytest.mark.parametrize(
    "question, kind",
    [
        ("How do I allow cross-origin requests?", "instruction"),
        ("How can we unstage a file?", "instruction"),
        ("Which option turns off the cache?", "instruction"),
        ("What do I use to test my application?", "instruction"),
        ("Is there a tool that rewrites my code for the new version?", "instruction"),
        ("Where are settings kept, and how do I find that folder?", "instruction"),
        # The problem first, then the question: still how to solve it.
        ("My program panicked. How do I see the calls that led there?", "instruction"),
        ("It asks for a password! How can I skip that?", "instruction"),
        ("My program panicked. Why did it stop there?", "other"),
        # How a thing of the asker's, or some subject, can be made to do something; what a
        # named tool can do; a problem followed by "How?".
        ("How can a view return JSON?", "instruction"),
        ("How does my script read its environment?", "instruction"),
        ("Can the linter sort my imports?", "instruction"),
        ("My tests need a fake server. How?", "instruction"),
        ("What flag turns on verbose output?", "instruction"),
        # Asking leave, or how the world works, is no instruction.
        ("Can I get a refund after a month?", "other"),
        ("How does the river reach the sea?", "other"),
        ("How many moons does Jupiter have?", "number"),
        ("What does the Business plan cost?", "number"),
        ("When was the bridge opened?", "date"),
        ("In what year did the river freeze?", "date"),
        ("Who wrote the first guide?", "name"),
        ("Where does the Rhine end?", "name"),
        ("Why is limiting line length useful?", "other"),
    ],
)
def test_question_kinds(question, kind):
    assert question_kind(question) == kind


def test_the_fitted_weights_reward_what_answers():
    """The shipped fit (scripts/fit_answers.py) values relevance, and on top of it what the
    question asks for, new content, a lead-in that brings its list or code, and for a how-to
    question a name it does not hold whose words mean what is asked, above all one a heading
    names."""
    weights = bundled().weights
    rewarded = ("relevance", "section", "novelty", "asked_for", "lead_in", "name_meaning")
    assert all(weights[name] > 0 for name in (*rewarded, "names_heading", "names_call"))


@pytest.fixture(scope="module")
def answers_store(tmp_path_factory) -> Path:
    store = tmp_path_factory.mktemp("answers") / "store"
    report = service.ingestor(settings_for(store)).run([DATA / "answers"], "docs")
    assert report.count("failed") == 0
    return store


@pytest.mark.slow
def test_offline_answers_quote_what_answers(answers_store):
    """Every question of tests/data/answer_choice.yaml in standard mode: its expected text
    is in the answer for at least 11 of 12 (before the answer choice: the problem
    statement was quoted for "how do I" questions)."""
    settings = settings_for(answers_store, **{"store.collection": "docs"})
    resources = service.Resources(settings)
    cases = yaml.safe_load((DATA / "answer_choice.yaml").read_text())
    missed = []
    for case in cases:
        expect = [case["expect"]] if isinstance(case["expect"], str) else case["expect"]
        result = service.ask(settings, case["question"], resources=resources)
        assert len(result.answer) <= settings.llm.answer_max_chars + 40  # citations aside
        if not any(e.lower() in result.answer.lower() for e in expect):
            missed.append((case["question"], result.answer))
    assert len(missed) <= 1, missed


def test_how_do_i_gets_the_code_not_the_problem(answers_store):
    settings = settings_for(answers_store, **{"store.collection": "docs"})
    result = service.ask(
        settings, "How do I allow cross-origin requests from a frontend on localhost:8080?"
    )
    assert "CORSMiddleware" in result.answer and "allow_origins" in result.answer
    first = result.answer.splitlines()[0]
    assert "refers to the situations" not in first


def test_inline_html_stays_in_its_sentence():
    html = (DATA / "answers" / "error_handling.html").read_text()
    body = "\n\n".join(section.text for section in html_sections(html))
    found = [u.text for u in units(body)]
    assert any(
        "Rust provides the `?` question mark operator to make this easier." in t for t in found
    ), found
    assert "Recoverable Errors with `Result`" in found[0]  # <code> stays code


def test_an_underlined_title_is_a_heading_not_an_answer():
    text = (DATA / "answers" / "pep_style.txt").read_text()
    first = units(text)[0]
    assert (first.kind, first.block.title) == ("heading", "Maximum Line Length")


def test_reflect_accepts_a_fully_quoted_answer(answers_store):
    settings = settings_for(answers_store, **{"store.collection": "docs"})
    result = service.ask(
        settings, "How do I undo the last commit but keep my changes?", mode="reflect"
    )
    assert result.answer_type == "answer"
    assert "git reset --soft HEAD~1" in result.answer
    details = result.reflection_details
    assert details is not None and details.approved and details.iterations == 1
    assert details.history[0].grounded and details.history[0].score == 1.0


@pytest.mark.slow
def test_off_topic_questions_sharing_a_word_are_not_covered(sample_store):
    """Questions about other things that share one word with the sample corpus (a city,
    "port", "guest", "server", "backup"): crag declines them (exit 5), it does not quote
    unrelated text."""
    settings = settings_for(sample_store, **{"store.collection": "docs"})
    resources = service.Resources(settings)
    questions = yaml.safe_load((DATA / "off_topic_shared_word.yaml").read_text())
    declined = [
        q
        for q in questions
        if service.ask(settings, q, mode="crag", resources=resources).answer_type == "not_covered"
    ]
    assert len(declined) >= len(questions) - 1, set(questions) - set(declined)


def test_squad_normalisation():
    assert contains_answer("It flows into the North Sea. [1]", ["the North Sea"])
    assert not contains_answer("It flows into the Northern Sea.", ["North Sea"])


def test_only_the_sentences_sharing_most_terms_are_embedded(tmp_path):
    """Embedding is most of an offline answer's time: of 40 candidate sentences, only
    SCORED_SENTENCES are embedded and scored, and the one that answers comes first."""
    from ragcli.llm.extractive import ExtractiveBackend
    from ragcli.llm.offline.candidates import SCORED_SENTENCES
    from ragcli.models import ChunkMetadata, RetrievedChunk

    settings = settings_for(tmp_path)
    inner = service.embedder(settings)
    embedded: list[str] = []

    class Counting:
        name = inner.name

        def embed(self, texts):
            embedded.extend(texts)
            return inner.embed(texts)

    animals = ["otter", "heron", "lynx", "badger"] * 2
    answer = "The night ferry to Harwich leaves the north pier at 23:40 every Friday."
    chunks = []
    for number in range(5):
        filler = [
            f"The {animal} in enclosure {number}{n} was fed at noon by the keeper on duty."
            for n, animal in enumerate(animals)
        ]
        sentences = filler + ([answer] if number == 0 else [])  # last of the first chunk
        chunks.append(
            RetrievedChunk(
                content=" ".join(sentences),
                score=0.5,
                metadata=ChunkMetadata(chunk_id=f"c{number}", source_file="zoo.md", file_type="md"),
            )
        )
    backend = ExtractiveBackend(Counting(), settings.llm, service.calibration(settings))
    question = "When does the night ferry to Harwich leave?"
    scored = backend.scored_sentences(question, chunks)
    sentences_embedded = [t for t in embedded if t != question]
    assert len(set(sentences_embedded)) <= SCORED_SENTENCES < 41
    assert len(scored) == SCORED_SENTENCES
    assert scored[0].candidate.text == answer and scored[0].candidate.chunk_number == 1


def test_names_a_heading_gives_are_found_in_code_spans():
    """A heading's name counts once the question lacks a word of it, by its whole and its
    last dotted part; a name the question holds does not."""
    from ragcli.llm.offline.questions import code_names

    question = "How do I add a --version option that runs first?"
    assert code_names(question, "### Fix with `is_eager`") == {"is_eager"}
    assert code_names(question, "use `typer.launch()` here") == {"typer.launch", "launch"}
    assert code_names(question, "the `--version` option") == frozenset()


def _chunk(number: int, heading: str, content: str):
    from ragcli.models import ChunkMetadata, RetrievedChunk

    return RetrievedChunk(
        content=content,
        score=0.5,
        metadata=ChunkMetadata(
            chunk_id=f"c{number}", source_file="version.md", file_type="md", heading=heading
        ),
    )


def test_a_how_to_answer_names_what_a_heading_names(tmp_path):
    """The problem is described in the question's words; the fix sits under a heading
    that names it ("Fix with `is_eager`"), in words the question does not use, and the
    sentence after it says what it does. The answer names the fix."""
    problem = (
        "## Options processed in order\n\n"
        "The `--version` option is processed after the other options that come before it "
        "on the command line. If the `--name` option before `--version` has a callback "
        "that stops the program, the `--version` option is never processed, and the "
        "program prints the error of `--name` instead of its version.\n\n"
        "```console\n$ app --name Bob --version\nOnly Alice is allowed\n```"
    )
    fix = (
        "## Options processed in order > Fix with `is_eager`\n\n"
        "For those cases, mark the parameter with `is_eager=True` in its declaration. "
        "That makes the `--version` option be processed before the other options."
    )
    chunks = [
        _chunk(1, "Version > Options processed in order", problem),
        _chunk(2, "Version > Options processed in order > Fix with `is_eager`", fix),
    ]
    backend = offline_backend(tmp_path)
    question = "How do I make the --version option be processed before the other options?"
    fix_sentence = next(
        s for s in backend.scored_sentences(question, chunks) if "is_eager" in s.candidate.text
    )
    assert fix_sentence.features.names_heading == 1.0
    assert "`is_eager=True`" in generated(backend, question, chunks)


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
        _chunk(1, "Records > Primary keys", keys),
        _chunk(2, "Records > Look up by key with `.fetch()`", shortcut),
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
        answer = generated(backend, question, [_chunk(1, "Guide > Compression", content)])
        assert "`Compressor`" in answer
        assert (short in answer) is shown, answer


def test_a_hand_rule_switched_off_for_its_ablation_changes_the_candidates():
    """scripts/ablate_rules.py measures a rule by switching it off: without the
    `transcripts` rule, a run's output is a candidate for a how-to answer."""
    from ragcli.llm.offline import rules
    from ragcli.llm.offline.candidates import found_units

    content = (
        "## Retrying requests\n\n"
        "A flaky server makes the client fail like this:\n\n"
        "```console\n$ python client.py\nConnection failed, giving up\n```\n\n"
        "Pass a retry count to the transport with `retries=3`."
    )
    chunks = [_chunk(1, "Client > Retrying requests", content)]
    question = "How do I retry failed connections?"

    def transcript_found() -> bool:
        return any("giving up" in f.text for f in found_units(chunks, question))

    assert not transcript_found()
    with rules.switched_off("transcripts"):
        assert transcript_found()
    assert not transcript_found()


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
        "How do I retry failed connections?", [_chunk(1, "Client > Retrying requests", content)]
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
    chunks = [_chunk(1, "Relationships > Delete a team with its heroes", content)]
    question = "When a team is deleted, how do I get its heroes deleted automatically?"
    scored = backend.scored_sentences(question, chunks)
    assert not [s for s in scored if "```" in s.candidate.text]
    wakaland = next(s for s in scored if "Wakaland" in s.candidate.text)
    assert wakaland.features.lead_in == 0.0  # it brings nothing
    answer = generated(backend, question, chunks)
    assert "cascade_delete=True" in answer
    assert "flowchart" not in answer and "```mermaid" not in answer


def test_a_how_to_sentence_is_quoted_when_a_sentence_soon_after_explains_it(tmp_path):
    """The setting is named first; a sentence in between, then the one that says why it
    answers the question ("we also need to disable it because … multiple threads")."""
    backend = offline_backend(tmp_path)
    content = (
        "## Engine\n\n"
        "That is a configuration passed to the low-level driver of the database.\n\n"
        "`check_same_thread` is by default set to `True`, to prevent misuses in simple "
        "cases.\n\n"
        "But here we make sure we never share one session between two requests.\n\n"
        "And we also need to disable it because each request could be handled in "
        "another thread, and using database objects created in another thread raises "
        "errors."
    )
    chunks = [_chunk(1, "Web API > Engine", content)]
    question = "How do I avoid errors about database objects created in another thread?"
    setting = next(
        s
        for s in backend.scored_sentences(question, chunks)
        if s.candidate.text.startswith("`check_same_thread`")
    )
    assert setting.features.explained >= 0.2
    assert "`check_same_thread`" in generated(backend, question, chunks)


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
    chunks = [_chunk(1, "Options > Numeric ranges", content)]
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
    chunks = [_chunk(1, "Patterns > Uploading files", content)]
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
    chunks = [_chunk(1, "Install SQLModel", content)]
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
    chunks = [_chunk(1, "FastAPI > Installation", content)]
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
    chunks = [_chunk(1, "Install SQLModel", install), _chunk(2, "SQLModel > Installation", index)]
    answer = generated(backend, "How do I install SQLModel?", chunks)
    assert answer.count("$ pip install sqlmodel") == 1, answer


def test_the_sentence_naming_the_fix_after_the_problem_is_scored(tmp_path):
    """The problem is stated in the question's words and many sentences share them; the
    fix comes right after, in words of its own. It is scored, and quoted."""
    from ragcli.llm.offline.candidates import SCORED_SENTENCES

    filler = " ".join(
        f"Comparing column {n} of a table in a query is checked by the editor as a type."
        for n in range(SCORED_SENTENCES + 4)
    )
    content = (
        "## Type errors in comparisons\n\n"
        "Your editor may report a type error when you compare a column inside a query "
        "with `>`.\n\n"
        "Wrap the attribute in `col()` and the checker knows it is special."
    )
    chunks = [
        _chunk(1, "Queries > Type errors in comparisons", content),
        _chunk(2, "Queries > Filters", filler),
    ]
    backend = offline_backend(tmp_path)
    question = (
        "How do I compare a column with > in a query without my editor reporting a type error?"
    )
    scored = [s.candidate.text for s in backend.scored_sentences(question, chunks)]
    assert any("`col()`" in text for text in scored)
    assert "`col()`" in generated(backend, question, chunks)


def test_a_tables_column_names_do_not_make_its_rows_bear_on_a_how_to_question(tmp_path):
    """Every row of a migration table repeats its column names ("Widget V1: …; Widget V2:
    …"), and those are the question's words, not what the row says: for a how-to question
    a row's terms are its cells'."""
    table = (
        "## Moved in Widget V2\n\n| Widget V1 | Widget V2 |\n| --- | --- |\n"
        "| `widget.tools.schema_of` | `widget.deprecated.tools.schema_of` |\n"
        "| `widget.tools.parse_obj_as` | `widget.deprecated.tools.parse_obj_as` |\n"
    )
    backend = offline_backend(tmp_path)
    question = "Is there a tool that rewrites my Widget V1 code for Widget V2 automatically?"
    scored = backend.scored_sentences(question, [_chunk(1, "Migration > Moved", table)])
    for row in scored:
        assert row.candidate.kind == "row"
        assert row.relevance < backend.relevance(question, row.candidate.text)


def test_a_how_to_answer_prefers_the_call_to_the_examples_values(tmp_path):
    """Both sentences name something the question lacks; one names an example's values
    (`name`, `"World"`, `AWESOME_NAME`), the other calls the API that answers. The call
    scores `names_call` and above the other; a question that asks for no instruction
    scores it for neither."""
    text = (
        "## Read an environment variable\n\n"
        'In this case, the CLI argument `name` has a default value of `"World"`, and it '
        "also reads any value of the environment variable `AWESOME_NAME` when the CLI "
        "argument is not given.\n\n"
        'You declare it with `typer.Argument(envvar="AWESOME_NAME")` in the function.'
    )
    chunks = [_chunk(1, "CLI Arguments > Read an environment variable", text)]
    backend = offline_backend(tmp_path)
    question = "How do I read a CLI argument from an environment variable when it is not given?"
    scored = {"envvar" in s.candidate.text: s for s in backend.scored_sentences(question, chunks)}
    call, example = scored[True], scored[False]
    assert call.features.names_call == 1.0
    assert example.features.names_call == 0.0
    assert bundled().score(call.features) > bundled().score(example.features)
    assert '`typer.Argument(envvar="AWESOME_NAME")`' in generated(backend, question, chunks)
    why = "Why does the CLI argument read an environment variable when it is not given?"
    assert all(s.features.names_call == 0.0 for s in backend.scored_sentences(why, chunks))


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
    chunks = [_chunk(1, "Quickstart > Streaming responses", content)]
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
    chunk = _chunk(1, "Uploads > Streaming uploads", content)
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


def test_a_question_about_a_default_gets_the_sentence_stating_it(tmp_path):
    """ "What is the default …?" asks for a value. The lead-in to an example that
    overrides the timeout comes closest to the question's words; the sentence that says
    what the default is must be quoted all the same."""
    timeouts = (
        "## Timeouts\n\n"
        "The timeout can be overridden with the client's timeout parameter, in seconds:\n\n"
        "```python\nclient = Client(timeout=Timeouts(total=60))\n```\n\n"
        "By default a client allows a total of 120 seconds (2 minutes) for a whole "
        "exchange, connecting and reading included.\n\n"
        "A single request may be given a timeout of its own as well."
    )
    question = "What is the default total timeout of a client?"
    chunks = [_chunk(1, "Client > Timeouts", timeouts)]
    backend = offline_backend(tmp_path)
    best = backend.scored_sentences(question, chunks)[0].candidate.text
    assert best.startswith("By default a client allows a total of 120 seconds"), best
    assert "120 seconds" in generated(backend, question, chunks)


@pytest.mark.parametrize(
    "sentence, states",
    [
        ("The default is `100`.", True),
        ("Defaults to 2 weeks.", True),
        ("If set to `False` (which is the default) the cookie is dropped.", True),
        ("It uses sensible default settings.", False),  # no value
        ("```nginx\nlisten 80 default_server;\n```", False),  # code, not a statement
    ],
)
def test_what_states_a_default(sentence, states):
    assert states_default(sentence) is states


def test_a_heading_names_in_words_the_identifier_its_code_writes():
    """ "Sending Requests with the Test Client" names `test_client` when the retrieved
    code writes it; one word alone ("Abort") and words no code writes name nothing."""
    from ragcli.llm.heading_names import heading_names

    question = "In my tests, how do I call the app without running a server?"
    testing = _chunk(
        1,
        "Testing > Sending Requests with the Test Client",
        "## Sending Requests with the Test Client\n\n"
        "The fixture calls `app.test_client()` once per test.\n\n"
        "```python\nclient = app.test_client()\nresponse = client.get('/')\n```",
    )
    aborting = _chunk(
        2,
        "Exit > Abort",
        "## Abort\n\nIt prints a message.\n\n```python\nraise typer.Abort()\n```",
    )
    assert heading_names(question, [testing]) == {"test_client"}
    assert heading_names(question, [aborting]) == frozenset()
    assert heading_names("What is a test client?", [testing]) == frozenset()  # not how-to
    unwritten = _chunk(3, "Testing > Request Context", "## Request Context\n\nIt is pushed.")
    assert heading_names(question, [unwritten]) == frozenset()


def test_a_sentence_naming_what_a_heading_writes_in_words_outranks_another_option(tmp_path):
    """The section that answers is titled in words ("Event Hooks") for the keyword its
    sentence names (`event_hooks=`), which the question's words do not make. Its sentence
    outranks a neighbouring option's (`headers=`), which shares more of the question's
    words; without the heading's name it ranked below it."""
    headers = (
        "## Default Headers\n\n"
        "To send the same headers with every request the client makes, for example to "
        "identify it in the server's log, pass them as `headers={'user-agent': 'my-app'}`."
    )
    hooks = (
        "## Event Hooks\n\n"
        "Pass a dict of callables as `event_hooks={'response': [log_response]}` when "
        "creating the `Client`.\n\n"
        "```python\nclient = httpx.Client(event_hooks={'response': [log_response]})\n```"
    )
    chunks = [
        _chunk(1, "Clients > Default Headers", headers),
        _chunk(2, "Clients > Event Hooks", hooks),
    ]
    backend = offline_backend(tmp_path)
    question = "How do I run my own function on every response the client gets, to log it?"
    ranked = [
        s for s in backend.scored_sentences(question, chunks) if s.candidate.kind == "sentence"
    ]
    assert ranked[0].candidate.text.startswith("Pass a dict")
    assert ranked[0].features.names_heading == 1.0
    assert ranked[1].candidate.text.startswith("To send the same headers")


def test_a_name_that_is_a_question_word_with_a_short_tail_restates_the_question():
    """`println!` restates "prints" (the problem), `eprintln!` names the fix; an agent noun
    (`csv.reader`) and a longer compound (`callback`) name something new."""
    from ragcli.llm.offline.questions import code_names, new_identifiers

    question = "My program prints its errors to stdout. How do I send them to stderr?"
    assert not new_identifiers(question, "The `println!` macro prints to standard output.")
    assert code_names(question, "Use `println!` there.") == frozenset()
    assert new_identifiers(question, "Use the `eprintln!` macro instead.")
    assert new_identifiers("How do I read a CSV file?", "Use `csv.reader` on the file.")
    assert new_identifiers("How do I call my code on exit?", "Register a `callback`.")


def test_a_sentence_that_refers_back_brings_the_sentence_naming_what_it_is(tmp_path):
    """ "This is what you read …" names nothing a reader can use; the sentence before it
    names the property. A how-to answer quoting the one quotes the other before it, and
    counts it as quoted (so the answer is no longer for it)."""
    streaming = (
        "## Monitoring download progress\n\n"
        "Streamed responses also have a `response.num_bytes_downloaded` property. "
        "This is what you read to show a progress bar while a big file downloads, since the "
        "length of `response.content` is not the raw length of a compressed download."
    )
    bar = (
        "## Progress bars\n\nTo show a progress bar while a big file downloads, wrap "
        "`response.iter_bytes()` in `tqdm()` and update the bar with each chunk."
    )
    chunks = [_chunk(1, "Clients > Monitoring", streaming), _chunk(2, "Clients > Bars", bar)]
    backend = offline_backend(tmp_path)
    howto = "How can I show a progress bar while a big file downloads?"

    def antecedent(question: str, text: str):
        scored = backend.scored_sentences(question, chunks)
        places = {(s.candidate.chunk_number, s.candidate.position): s for s in scored}
        this = next(s.candidate for s in scored if s.candidate.text.startswith(text))
        found = referred_to(backend.evidence, question, this, chunks, places)
        return found[0].text if found else None  # (the sentence, its score)

    assert antecedent(howto, "This is what").startswith("Streamed responses also have")
    assert antecedent("What does a progress bar show while a file downloads?", "This") is None
    answer = generated(backend, howto, chunks)
    assert answer.index("`response.num_bytes_downloaded`") < answer.index("This is what")
    # An antecedent that refers back itself says no more than the sentence quoted.
    chunks[0] = _chunk(1, "Clients > Monitoring", streaming.replace("Streamed responses", "It"))
    assert antecedent(howto, "This is what") is None


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
    chunk = _chunk(1, "Quickstart > Timeouts", content)
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


def test_a_how_to_answer_prefers_the_name_that_means_what_is_asked(tmp_path):
    """Two sentences alike but for the setting they name, neither named by the question,
    which paraphrases one of them ("leave out … default" for `omitIfDefault`). That name's
    words score `name_meaning` above the other's, and the answer quotes it first."""
    text = (
        "## Converter options\n\n"
        "To change which fields of a value a converter serializes, set its option "
        "`forbidExtraKeys`.\n\n"
        "To change which fields of a value a converter serializes, set its option "
        "`omitIfDefault`."
    )
    chunks = [_chunk(1, "Converters > Converter options", text)]
    backend = offline_backend(tmp_path)
    question = "How do I leave out fields that still hold their default value when I serialize?"
    scored = {"omitIf" in s.candidate.text: s for s in backend.scored_sentences(question, chunks)}
    meant, other = scored[True], scored[False]
    assert meant.features.name_meaning > other.features.name_meaning + 0.1
    assert bundled().score(meant.features) > bundled().score(other.features)
    answer = generated(backend, question, chunks)
    assert answer.startswith(
        "To change which fields of a value a converter serializes, set its option `omitIfDefault`."
    )
    why = "Why do fields that hold their default value get left out when I serialize?"
    assert all(s.features.name_meaning == 0.0 for s in backend.scored_sentences(why, chunks))


def test_the_words_of_a_new_name_are_its_phrase():
    from ragcli.llm.offline.features import name_phrases

    question = "How do I handle routes that are not found?"
    text = "Call `setNotFoundHandler()` or pass `--no-color`; `handle_route` is older."
    assert name_phrases(question, text) == ["set not found handler", "no color"]
