import pytest

from ragcli.blocks.model import ListItem
from ragcli.embedding.embedder import bundled_model_dir
from ragcli.embedding.wordpieces import TokenCounter
from ragcli.ingest.chunker import Chunker
from ragcli.ingest.loaders import Section
from ragcli.ingest.loaders.text import markdown_sections


@pytest.fixture(scope="module")
def counter():
    return TokenCounter(bundled_model_dir())


def full_length(counter, text):
    # The model sees [CLS] text [SEP]: count exactly what it would embed.
    return len(counter.tokenizer.encode(text).ids)


def test_short_section_is_one_chunk(counter):
    chunks = Chunker(counter).chunk([Section("A short note.", heading="Intro")])
    assert len(chunks) == 1
    assert chunks[0].method == "section" and chunks[0].heading == "Intro"
    assert chunks[0].text == "# Intro\n\nA short note."
    assert chunks[0].token_count == full_length(counter, chunks[0].text)


def test_no_chunk_exceeds_the_model_window(counter):
    paragraph = " ".join(f"Sentence number {i} talks about synchronisation." for i in range(40))
    one_long_sentence = " ".join(f"word{i}" for i in range(900))
    no_spaces = "x" * 20000
    text = "\n\n".join([paragraph, "A small paragraph.", one_long_sentence, no_spaces])
    chunks = Chunker(counter, max_tokens=256, overlap_tokens=32).chunk([Section(text, page=3)])
    assert len(chunks) > 5
    for chunk in chunks:
        assert full_length(counter, chunk.text) <= 256
        assert chunk.token_count == full_length(counter, chunk.text)
        assert chunk.page == 3
    methods = {c.method for c in chunks}
    assert "token" in methods and "sentence" in methods


def test_paragraphs_are_kept_whole_before_sentences_are_split(counter):
    paragraphs = [" ".join(["alpha beta gamma."] * 20) + f" end{i}." for i in range(6)]
    chunks = Chunker(counter, max_tokens=256, overlap_tokens=0).chunk(
        [Section("\n\n".join(paragraphs))]
    )
    for chunk in chunks:
        assert chunk.method == "paragraph"
        for part in chunk.text.split("\n\n"):
            assert part in paragraphs


def test_overlap_repeats_the_tail_of_the_previous_chunk(counter):
    sentences = [f"Fact {i} is recorded here." for i in range(120)]
    text = " ".join(sentences)
    chunks = Chunker(counter, max_tokens=128, overlap_tokens=24).chunk([Section(text)])
    assert len(chunks) >= 3
    for before, after in zip(chunks, chunks[1:], strict=False):
        first_of_next = after.text.split(". ")[0] + "."
        last_of_previous = before.text.rsplit(". ", 1)[-1]
        assert first_of_next in before.text and last_of_previous in after.text
    without = Chunker(counter, max_tokens=128, overlap_tokens=0).chunk([Section(text)])
    assert len(without) < len(chunks)


def test_every_chunk_carries_its_heading_path_inside_the_window(counter):
    """A heading kept outside the text (a Word heading, a sheet name) is embedded and
    indexed with every chunk under it, and counted in the window."""
    text = "\n\n".join(
        " ".join(f"Valve {i}.{j} opens at dawn." for j in range(12)) for i in range(9)
    )
    heading = "Plant manual > Cooling circuit > Valves"
    chunks = Chunker(counter, max_tokens=96, overlap_tokens=16).chunk(
        [Section(text, heading=heading)]
    )
    assert len(chunks) > 3
    for chunk in chunks:
        assert chunk.text.startswith("# Plant manual > Cooling circuit > Valves\n\n")
        assert full_length(counter, chunk.text) <= 96
        assert chunk.token_count == full_length(counter, chunk.text)
    body = " ".join(c.text.split("\n\n", 1)[1] for c in chunks)
    assert all(f"Valve {i}.11 opens" in body for i in range(9))  # nothing lost


def test_a_chunk_that_opens_with_its_heading_gets_no_second_one(counter):
    """A Markdown section's first chunk begins with its own heading line, a slide with its
    title: only the chunks after it take the path."""
    text = "## Linux\n\n" + " ".join(f"Step {i} runs the installer." for i in range(60))
    chunks = Chunker(counter, max_tokens=64, overlap_tokens=0).chunk(
        [
            Section(text, heading="Install > Linux"),
            Section("Cloud growth\n\nEU: 4120", heading="Cloud growth"),
        ]
    )
    assert chunks[0].text.startswith("## Linux\n\nStep 0")
    assert all(c.text.startswith("# Install > Linux\n\nStep ") for c in chunks[1:-1])
    assert chunks[-1].text == "Cloud growth\n\nEU: 4120"
    # A heading word that merely starts the text is not the heading.
    (intro,) = Chunker(counter).chunk(
        [Section("Introductions take a minute.", heading="Introduction")]
    )
    assert intro.text == "# Introduction\n\nIntroductions take a minute."


def test_a_heading_too_long_for_its_share_of_the_window_is_cut(counter):
    heading = " > ".join(f"Part {i} of an absurdly deep outline" for i in range(40))
    chunks = Chunker(counter, max_tokens=64, overlap_tokens=0).chunk(
        [Section("The body says one thing. " * 30, heading=heading)]
    )
    for chunk in chunks:
        line, body = chunk.text.split("\n\n", 1)
        assert line.startswith("# Part 0 of an absurdly deep outline > Part 1")
        assert full_length(counter, line) <= 2 + (64 - 2) // 4
        assert body.startswith("The body says one thing.")
        assert full_length(counter, chunk.text) <= 64


def fenced(text: str) -> list[str]:
    """The fenced blocks of a chunk, fences included; an unclosed fence fails the test."""
    lines = text.split("\n")
    marks = [i for i, line in enumerate(lines) if line.strip().startswith("```")]
    assert len(marks) % 2 == 0, f"unclosed fence in:\n{text}"
    return ["\n".join(lines[a : b + 1]) for a, b in zip(marks[::2], marks[1::2], strict=True)]


def test_a_code_block_with_blank_lines_stays_in_one_chunk(counter):
    """Blank lines inside a fence are code, not paragraph breaks: the block is not cut
    between chunks, and a chunk never opens a fence it does not close."""
    code = (
        "```python\nimport typer\n\napp = typer.Typer()\n\n\n"
        "@app.command()\ndef main():\n    pass\n```"
    )
    prose = [" ".join(["Options are set as parameters."] * 6) + f" Part {i}." for i in range(8)]
    text = "\n\n".join(prose[:4] + [code] + prose[4:])
    # Markdown reaches the chunker read into blocks (ragcli/blocks/), as the loader reads it.
    chunks = Chunker(counter, max_tokens=128, overlap_tokens=16).chunk(markdown_sections(text))
    assert len(chunks) >= 3
    holding = [c for c in chunks if "import typer" in c.text]
    assert holding and all(code in c.text for c in holding)
    for chunk in chunks:
        fenced(chunk.text)


def test_a_code_block_longer_than_the_window_is_cut_between_lines_with_its_fences(counter):
    body = [f"    value_{i} = compute(value_{i - 1}, factor={i})" for i in range(1, 80)]
    code = "```python\ndef pipeline():\n" + "\n".join(body) + "\n\n    return value_79\n```"
    chunks = Chunker(counter, max_tokens=128, overlap_tokens=0).chunk(markdown_sections(code))
    assert len(chunks) > 3
    seen = []
    for chunk in chunks:
        assert full_length(counter, chunk.text) <= 128
        for block in fenced(chunk.text):
            assert block.startswith("```python\n") and block.endswith("\n```")
            seen.extend(block.split("\n")[1:-1])
    # Every line of code kept whole and with its indentation, in order.
    assert [line for line in seen if line.strip()] == [
        line for line in code.split("\n")[1:-1] if line.strip()
    ]


def test_markdown_sections_and_chunks_are_cited_by_their_lines(counter):
    """Markdown is cited as reST is: a section from its heading to its last block, a chunk
    of a long section by the lines of the blocks it holds. Each list item and definition
    has its own lines; a directive's body, parsed on its own, takes its directive's; each
    part of a code block or a table cut in several is cited by its own lines."""
    paragraphs = [
        f"Paragraph {n} says something about uploads, limits and folders, in words enough "
        f"to\nfill two lines of the page, and it ends here with number {n}."
        for n in range(1, 7)
    ]
    text = (
        "# Guide\n\nIntro line.\n\n## Uploads\n\n"
        + "\n\n".join(paragraphs[:3])
        + "\n\n- first item\n- second item,\n  on two lines\n\n"
        + "```python\n"
        + "\n".join(f"limit_{n} = {n} * 1000 * 1000  # the limit of upload {n}" for n in range(40))
        + "\n```\n\n"
        + "| setting | meaning |\n|---|---|\n"
        + "\n".join(
            f"| `upload_limit_{n}` | the size limit of upload slot {n} |" for n in range(40)
        )
        + "\n\n"
        + ":::{note}\nA note's body.\n:::\n\n"
        + "\n\n".join(paragraphs[3:])
        + "\n"
    )
    lines = text.split("\n")
    sections = markdown_sections(text)
    assert [(s.heading, s.locator) for s in sections] == [
        ("Guide", "lines 1–3"),
        ("Guide > Uploads", f"lines 5–{len(lines) - 1}"),
    ]
    spans = sections[1].block_lines or ()
    items = [
        span
        for span, block in zip(spans, sections[1].blocks or (), strict=True)
        if isinstance(block, ListItem)
    ]
    assert [lines[first - 1 : last] for first, last in items] == [
        ["- first item"],
        ["- second item,", "  on two lines"],
    ]
    chunks = Chunker(counter, max_tokens=96, overlap_tokens=0).chunk(sections[1:])
    # A table's part repeats the header, which is not among the rows it cites.
    each_chunk_opens_in_its_lines(chunks, lines, skipped="#`>|")
    code = [chunk for chunk in chunks if "```python\nlimit_" in chunk.text]
    assert len(code) >= 2
    for chunk in code:
        first, last = cited_lines(chunk)
        held = chunk.text.split("```python\n", 1)[1].split("\n```", 1)[0]
        assert lines[first - 1 : last] == held.split("\n")
    tables = [chunk for chunk in chunks if "| setting | meaning |" in chunk.text]
    assert len(tables) >= 2
    for chunk in tables:
        first, last = cited_lines(chunk)
        rows = [" ".join(line.split()) for line in chunk.text.split("\n") if "upload_" in line]
        held_lines = [" ".join(line.split()) for line in lines[first - 1 : last]]
        assert held_lines[: len(rows)] == rows  # from its first row on


def cited_lines(chunk) -> tuple[int, int]:
    """The first and last line a chunk's `lines N–M` (or `line N`) locator cites."""
    first, _, last = (
        chunk.extra["locator"].removeprefix("lines ").removeprefix("line ").partition("–")
    )
    return int(first), int(last or first)


def each_chunk_opens_in_its_lines(chunks, lines: list[str], skipped: str = "#`") -> None:
    """Every chunk cites lines of its own, which hold its first line of text (a line
    starting with one of `skipped`, a heading or a fence, aside)."""
    assert len(chunks) >= 3
    locators = [chunk.extra["locator"] for chunk in chunks]
    assert len(set(locators)) == len(locators)
    for chunk in chunks:
        first, last = cited_lines(chunk)
        shown = " ".join(" ".join(lines[first - 1 : last]).split())
        body = [line for line in chunk.text.split("\n") if line and line[0] not in skipped]
        if body:
            opening = " ".join(body[0].split()[:3]).lstrip("- ")
            assert opening in shown, (chunk.extra["locator"], body[0])


def test_chunks_of_a_long_rest_section_cite_their_own_lines(counter):
    """A reST section cut into chunks: each chunk is cited by the lines of the blocks it
    holds (`lines 12–15`), not all by the section's, so two sources of one section differ
    and each points where its text is. A `code-block` directive starts at its own line."""
    from ragcli.ingest.loaders.text import rst_sections

    paragraphs = [
        f"Paragraph {n} says something about uploads, limits and folders, in words enough "
        f"to\nfill two lines of the page, and it ends here with number {n}."
        for n in range(1, 9)
    ]
    code = ".. code-block:: python\n\n    app.config['MAX_CONTENT_LENGTH'] = 16 * 1000 * 1000\n"
    text = "Uploads\n=======\n\n" + "\n\n".join(paragraphs[:4] + [code] + paragraphs[4:]) + "\n"
    lines = text.split("\n")
    chunks = Chunker(counter, max_tokens=96, overlap_tokens=0).chunk(rst_sections(text))
    each_chunk_opens_in_its_lines(chunks, lines)
    code_chunk = next(c for c in chunks if "MAX_CONTENT_LENGTH" in c.text)
    first_line, _ = cited_lines(code_chunk)
    assert lines[first_line - 1].startswith((".. code-block::", "Paragraph"))


@pytest.mark.parametrize("end", ["\r", "\r\n"])
def test_lines_are_counted_whatever_the_line_ends(end):
    """A file with old Mac (`\\r`) or Windows line ends is cited by the same lines as one
    with `\\n`: the lines are counted as each parser splits them. A `\\r` reST file used to
    stop the whole ingest ("zip() argument 2 is longer than argument 1")."""
    from ragcli.ingest.loaders.text import rst_sections

    markdown = "# Title\n\nSome text.\n\n- one\n- two\n"
    rst = "Title\n=====\n\nSome text.\n\n- one\n- two\n"
    for read, text, cited in (
        (markdown_sections, markdown, "lines 1–6"),
        (rst_sections, rst, "lines 1–7"),
    ):
        expected = [(s.locator, s.block_lines) for s in read(text)]
        assert expected[0][0] == cited
        assert [(s.locator, s.block_lines) for s in read(text.replace("\n", end))] == expected


@pytest.mark.parametrize("ending", [", like this:", "."])
def test_a_lead_in_ending_a_chunk_keeps_the_code_it_introduces(counter, ending):
    """The window fills just before an example: the chunk ends with "… like this:" and
    the next one opens with its code. The chunk stores that code for the answer to quote
    after its lead-in; its own text (what is embedded and indexed) is unchanged. A chunk
    that ends with a sentence introducing nothing stores nothing."""
    filler = " ".join(f"Sentence {i} says something about uploads in general." for i in range(12))
    lead_in = (
        "To stream a file while it uploads, wrap it in an encoder and pass that encoder "
        f"as the request body{ending}"
    )
    code = "```python\nencoder = MultipartEncoder(fields={'f': open('big.iso', 'rb')})\n```"
    text = f"# Uploads\n\n{filler}\n\n{lead_in}\n\n{code}\n\nThat is all."
    first, second = Chunker(counter, max_tokens=200, overlap_tokens=16).chunk(
        markdown_sections(text)
    )
    assert first.text.endswith(lead_in) and code not in first.text
    assert first.extra.get("continues") == (code if ending.endswith(":") else None)
    assert code in second.text and "continues" not in second.extra


def test_an_include_after_a_lead_in_is_not_kept_for_it(counter):
    """An include block names a file the answer cannot show: a chunk ending with the
    lead-in to one stores nothing."""
    filler = " ".join(f"Sentence {i} says something about uploads in general." for i in range(12))
    lead_in = "To stream a file while it uploads, wrap it in an encoder, like this:"
    text = f"# Uploads\n\n{filler}\n\n{lead_in}\n\n{{* ./docs_src/upload.py *}}\n\nThat is all."
    first, second = Chunker(counter, max_tokens=200, overlap_tokens=16).chunk(
        markdown_sections(text)
    )
    assert first.text.endswith(lead_in) and "docs_src/upload.py" in second.text
    assert "continues" not in first.extra


def test_a_chunk_opening_inside_a_nested_list_writes_its_items_from_the_margin(counter):
    """The items of a chunk cut from a long nested list nest relative to its first one: a
    chunk opening with a second-level item written eight spaces in read as an indented
    code block (pydantic's migration guide, the Rust book's summary)."""
    from ragcli.blocks.markdown import read_markdown

    items = "\n".join(
        f"        - Item {i} of the list, a sentence about `model[{i}]` and its values."
        for i in range(40)
    )
    text = f"# Guide\n\n- Top\n    - Middle\n{items}\n- Back at the top\n"
    chunks = Chunker(counter).chunk(markdown_sections(text))
    assert len(chunks) > 2
    for chunk in chunks:
        body = chunk.text.split("\n\n", 1)[1]
        assert not body.startswith(" "), chunk.text
        blocks = read_markdown(body).blocks
        assert blocks and all(isinstance(b, ListItem) for b in blocks), chunk.text
    last = read_markdown(chunks[-1].text.split("\n\n", 1)[1]).blocks
    assert last[-1] == ListItem("Back at the top", "-", 0) and last[0].depth == 0
