"""Reading is exact, as a property (hypothesis): for pages made of random blocks in each
reader's syntax (Markdown and its dialects, MDX, reST, HTML), the text of every code span
and code block reaches the chunks unchanged, every word of prose reaches some chunk, and
reading the same page twice gives the same chunks; no input, however broken, makes a
reader raise or hang (tests/support/fidelity.py's time limit). What a reader leaves out on
purpose (front matter's other keys, ESM, expressions, tags, directives' options, a heading
with nothing under it) the pages here write in words the checks do not look for."""

from __future__ import annotations

import html
import string

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ragcli.blocks.html import html_document
from ragcli.blocks.markdown import read_markdown
from ragcli.blocks.render import render
from ragcli.blocks.rst import read_rst
from ragcli.ingest.loaders.text import _cited_by_lines, block_sections
from tests.support.fidelity import (
    chunk_code,
    chunker,
    missing_lines,
    time_limit,
    words,
)

PROPERTY = settings(
    max_examples=40,
    deadline=None,  # time_limit bounds each example; the machine is shared and slow
    derandomize=True,  # the same examples on every run: a failure here fails in CI too
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
FUZZ = settings(PROPERTY, max_examples=150)

# Words of prose: lower-case letters only, so that each is found by a word search.
word = st.text(string.ascii_lowercase, min_size=3, max_size=9)
sentence = st.lists(word, min_size=1, max_size=12).map(" ".join)
# Code: what code holds, brackets, quotes, braces, markup characters and all (no backtick,
# which a span's delimiters would have to outgrow, and no line break in a span).
CODE_CHARACTERS = string.ascii_letters + string.digits + "[](){}<>\"'=*_#|\\:!/%&$@^~+-.,;?"
span_code = st.one_of(
    st.text(CODE_CHARACTERS + " ", min_size=1, max_size=24).filter(
        lambda s: s.strip() == s and s.strip()
    ),
    # An index into an index: `grid[0][1]`, `d["a"]["b"]` (an unresolved reference
    # link's shape, which a reader must not take it for).
    st.tuples(word, st.text("0123456789\"'abc", min_size=1, max_size=3), word).map(
        lambda t: f"{t[0]}[{t[1]}][{t[2]}]"
    ),
)
code_line = st.text(CODE_CHARACTERS + " `", max_size=40).map(str.rstrip)
code_block = (
    st.lists(code_line, min_size=1, max_size=8)
    .map("\n".join)
    .filter(lambda s: s.strip() and "```" not in s)
)


@st.composite
def prose_with_code(draw) -> tuple[str, list[str], list[str]]:
    """A sentence with code spans in it, written with `wrap(code)`: its words and spans."""
    parts, spans, said = [], [], []
    for _ in range(draw(st.integers(1, 4))):
        text = draw(sentence)
        parts.append(text)
        said.append(text)
        if draw(st.booleans()):
            code = draw(span_code)
            spans.append(code)
            parts.append(f"`{code}`")
    return " ".join(parts), spans, said


class Chunks(list):
    """The chunks' texts, and the heading paths stored with them (a heading with no text of
    its own under it reaches its sections' chunks as part of their heading path)."""

    headings: list[str]


def chunks_of(sections) -> Chunks:
    chunks = chunker().chunk(sections)
    texts = Chunks(chunk.text for chunk in chunks)
    texts.headings = [chunk.heading or "" for chunk in chunks]
    return texts


def assert_exact(
    texts: list[str], spans: list[str], blocks: list[str], said: list[str], metadata=None
):
    """Every span and block among the chunks' code, every word said among their words
    (or in the page's metadata: a front matter title the page's own title replaces)."""
    found_spans, found_lines = chunk_code(texts)
    for span in spans:
        assert span in found_spans, (span, texts)
    for block in blocks:
        assert not missing_lines(block, found_lines), (block, texts)
    everything = words("\n".join([*texts, *getattr(texts, "headings", [])]))
    for value in (metadata or {}).values():
        everything |= words(value if isinstance(value, str) else " ".join(value))
    for text in said:
        assert words(text) <= everything, (text, texts)


# --- Markdown and its dialects --------------------------------------------------------------


@st.composite
def markdown_page(draw, mdx: bool = False):
    """A Markdown page (an MDX page with `mdx`) of random blocks, and what it says."""
    lines: list[str] = []
    spans: list[str] = []
    blocks: list[str] = []
    said: list[str] = []
    if draw(st.booleans()):
        title = draw(sentence)
        said.append(title)
        lines += ["---", f"title: {title}", "tags: [alpha, beta]", "---", ""]
    if mdx:
        lines += ["import Tabs from '@theme/Tabs';", "import TabItem from '@theme/TabItem';", ""]
    kinds = [
        "heading",
        "paragraph",
        "list",
        "fence",
        "admonition",
        "slash",
        "callout",
        "docusaurus",
        "table",
        "quote",
    ]
    if mdx:
        kinds += ["tabs", "jsx_callout", "expression"]
    for _ in range(draw(st.integers(1, 12))):
        kind = draw(st.sampled_from(kinds))
        text, found, words_ = draw(prose_with_code())
        if kind == "heading":  # with words under it: an empty section is left out
            level = draw(st.integers(1, 4))
            lines += [f"{'#' * level} {text}", "", draw(sentence), ""]
            said.append(lines[-2])
        elif kind == "paragraph":  # an unresolved reference link reads as its text
            reference = draw(st.sampled_from(["", " [see also][]", " [the api][api.Name]"]))
            lines += [text + reference, ""]
        elif kind == "list":
            depth = 0
            for deeper in draw(st.lists(st.booleans(), min_size=1, max_size=5)):
                item, item_spans, item_words = draw(prose_with_code())
                lines.append(f"{'  ' * depth}- {item}")
                depth = depth + 1 if deeper else 0
                spans += item_spans
                said += item_words
            lines.append("")
            found, words_ = [], []
        elif kind == "fence":
            code = draw(code_block)
            blocks.append(code)
            lines += [f"```{draw(st.sampled_from(['', 'python', 'bash']))}", code, "```", ""]
            found, words_ = [], []
        elif kind == "admonition":
            lines += ['!!! note "Heads up"', f"    {text}", ""]
        elif kind == "slash":
            lines += ["/// tip | Faster", "", text, "", "///", ""]
        elif kind == "callout":
            lines += ["> [!WARNING]", f"> {text}", ""]
        elif kind == "docusaurus":
            lines += [":::info[Good to know]", "", text, "", ":::", ""]
        elif kind == "table":  # a pipe in a cell's code span is escaped (GitHub's tables)
            cell = text.replace("|", "\\|")
            lines += ["| Name | Says |", "| --- | --- |", f"| cell | {cell} |", ""]
        elif kind == "quote":
            lines += [f"> {text}", ""]
        elif kind == "tabs":
            code = draw(code_block)
            blocks.append(code)
            lines += [
                "<Tabs>",
                '  <TabItem value="one" label="Unix">',
                "",
                f"  {text}",
                "",
                "  ```bash",
                *(f"  {line}" if line else "" for line in code.split("\n")),
                "  ```",
                "",
                "  </TabItem>",
                "</Tabs>",
                "",
            ]
            said.append("Unix")
        elif kind == "jsx_callout":
            lines += ['<Callout type="warning">', "", text, "", "</Callout>", ""]
        elif kind == "expression":
            lines += ["{/* no text here */}", "", f"{text} {{props.value}}", ""]
        spans += found
        said += words_
    return "\n".join(lines), spans, blocks, said


@PROPERTY
@given(markdown_page())
def test_markdown_code_and_words_reach_the_chunks_unchanged(page):
    text, spans, blocks, said = page
    with time_limit(30):
        document = read_markdown(text, lines=True)
        texts = chunks_of(_cited_by_lines(document))
    assert_exact(texts, spans, blocks, said, document.metadata)


@PROPERTY
@given(markdown_page(mdx=True))
def test_mdx_code_and_words_reach_the_chunks_unchanged(page):
    text, spans, blocks, said = page
    with time_limit(30):
        document = read_markdown(text, lines=True, mdx_page=True)
        texts = chunks_of(_cited_by_lines(document))
    assert_exact(texts, spans, blocks, said, document.metadata)
    joined = "\n".join(texts)
    assert "@theme/Tabs" not in joined and "props.value" not in joined and "/*" not in joined


@PROPERTY
@given(markdown_page(mdx=True))
def test_reading_markdown_is_deterministic(page):
    text = page[0]
    first = chunks_of(_cited_by_lines(read_markdown(text, lines=True, mdx_page=True)))
    again = chunks_of(_cited_by_lines(read_markdown(text, lines=True, mdx_page=True)))
    assert first == again


# Characters that open markup in some dialect, to fuzz the readers with.
MARKUP = st.lists(
    st.sampled_from(
        list("`*_[](){}<>!#|:/=%+-~>\\\"' \n\t.")
        + [
            "```",
            ":::",
            "///",
            "!!!",
            "{{<",
            ">}}",
            "{{%",
            "%}}",
            "<Tabs>",
            "</Tabs>",
            "<TabItem label='x'>",
            "</TabItem>",
            "import x from 'y';\n",
            "---\n",
            "+++\n",
            "{\n",
            "}\n",
            ".. note::",
            ".. code-block::",
            "::\n\n   ",
            "<pre>",
            "</pre>",
            "<code>",
            "</code>",
            "<div>",
            "a",
            "b",
            "\n\n",
            "    ",
            "1. ",
            "- ",
            "> ",
        ]
    ),
    max_size=120,
).map("".join)


@FUZZ
@given(st.one_of(st.text(max_size=300), MARKUP), st.booleans())
def test_no_markdown_or_mdx_input_makes_the_reader_raise_or_hang(text, mdx):
    with time_limit(20):
        document = read_markdown(text, lines=True, mdx_page=mdx)
        chunks_of(_cited_by_lines(document))
        read_markdown(render(document.blocks), indented_code=False)


# --- reStructuredText -------------------------------------------------------------------------

rst_code = span_code.filter(lambda s: "\\" not in s and not s.startswith(("*", "`")))


@st.composite
def rst_page(draw):
    lines: list[str] = []
    spans: list[str] = []
    blocks: list[str] = []
    said: list[str] = []
    for _ in range(draw(st.integers(1, 10))):
        kind = draw(st.sampled_from(["title", "paragraph", "code", "literal", "list", "note"]))
        parts, found, text_words = [], [], []
        for _ in range(draw(st.integers(1, 3))):
            text = draw(sentence)
            parts.append(text)
            text_words.append(text)
            if draw(st.booleans()):
                code = draw(rst_code)
                found.append(code)
                parts.append(f"``{code}``")
        text = " ".join(parts)
        if kind == "title":  # with words under it: an empty section is left out
            title = draw(sentence)
            lines += [title, draw(st.sampled_from("=-~")) * len(title), "", draw(sentence), ""]
            said += [title, lines[-2]]
            continue
        if kind == "paragraph":
            lines += [text, ""]
        elif kind == "list":
            lines += [f"- {text}", ""]
        elif kind == "note":
            lines += [".. note::", "", f"   {text}", ""]
        elif kind in ("code", "literal"):
            code = draw(code_block.filter(lambda s: all(line.strip() for line in s.split("\n"))))
            code = "\n".join(line for line in code.split("\n"))
            blocks.append(code)
            head = [".. code-block:: python", ""] if kind == "code" else ["Example::", ""]
            lines += [*head, *(f"   {line}" for line in code.split("\n")), ""]
            if kind == "literal":
                said.append("Example")
            continue
        spans += found
        said += text_words
    return "\n".join(lines), spans, blocks, said


@PROPERTY
@given(rst_page())
def test_rest_code_and_words_reach_the_chunks_unchanged(page):
    text, spans, blocks, said = page
    with time_limit(30):
        texts = chunks_of(_cited_by_lines(read_rst(text)))
    assert_exact(texts, spans, blocks, said)


@FUZZ
@given(st.one_of(st.text(max_size=300), MARKUP))
def test_no_rest_input_makes_the_reader_raise_or_hang(text):
    with time_limit(20):
        chunks_of(_cited_by_lines(read_rst(text)))


# --- HTML -------------------------------------------------------------------------------------


@st.composite
def html_page(draw):
    parts: list[str] = ["<html><body>"]
    spans: list[str] = []
    blocks: list[str] = []
    said: list[str] = []
    for _ in range(draw(st.integers(1, 10))):
        kind = draw(st.sampled_from(["h2", "p", "li", "pre"]))
        if kind == "pre":
            code = draw(code_block)
            blocks.append(code)
            parts.append(f"<pre><code>{html.escape(code)}</code></pre>")
            continue
        inner, found, text_words = [], [], []
        for _ in range(draw(st.integers(1, 3))):
            text = draw(sentence)
            inner.append(text)
            text_words.append(text)
            if draw(st.booleans()):
                code = draw(span_code.filter(lambda s: "  " not in s))
                found.append(code)
                inner.append(f"<code>{html.escape(code)}</code>")
        body = " ".join(inner)
        parts.append(f"<ul><li>{body}</li></ul>" if kind == "li" else f"<{kind}>{body}</{kind}>")
        if kind == "h2":  # with words under it: an empty section is left out
            parts.append(f"<p>{draw(sentence)}</p>")
            text_words.append(parts[-1][3:-4])
        spans += found
        said += text_words
    parts.append("</body></html>")
    return "".join(parts), spans, blocks, said


@PROPERTY
@given(html_page())
def test_html_code_and_words_reach_the_chunks_unchanged(page):
    text, spans, blocks, said = page
    with time_limit(30):
        _, found = html_document(text)
        texts = chunks_of(list(block_sections(found)))
    assert_exact(texts, spans, blocks, said)


@FUZZ
@given(st.one_of(st.text(max_size=300), MARKUP))
def test_no_html_input_makes_the_reader_raise_or_hang(text):
    with time_limit(20):
        _, found = html_document(text)
        chunks_of(list(block_sections(found)))


@pytest.mark.parametrize("reader", ["markdown", "mdx", "rst", "html"])
def test_the_same_page_reads_the_same_every_time(reader):
    """Deterministic, whatever was read before (docutils' registries, cached parsers)."""
    page = {
        "markdown": (
            "# T\n\n:::tip[X]\nUse `a[0][1]`.\n:::\n\n{{< highlight go >}}\nx\n{{< /highlight >}}\n"
        ),
        "mdx": (
            "import X from 'y';\n\n<Tabs>\n<TabItem label=\"A\">\n\nText `c`.\n\n"
            "</TabItem>\n</Tabs>\n"
        ),
        "rst": "T\n=\n\nSee :class:`~a.B` and ``c``.\n\n.. versionadded:: 2.0\n   Added.\n",
        "html": "<h1>T</h1><p>See <code>x[0]</code>.</p><pre><code>y = 1</code></pre>",
    }[reader]

    def read() -> list[str]:
        if reader == "rst":
            return chunks_of(_cited_by_lines(read_rst(page)))
        if reader == "html":
            return chunks_of(list(block_sections(html_document(page)[1])))
        document = read_markdown(page, lines=True, mdx_page=reader == "mdx")
        return chunks_of(_cited_by_lines(document))

    first = read()
    read_rst(".. data:: x\n\n:data:`y` and .. code-block:: rust\n")  # another page between
    assert read() == first and first
