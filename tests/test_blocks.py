"""One reading of a document's structure (ragcli/blocks/): Markdown by markdown-it-py and
mdit-py-plugins, reST by docutils, HTML by BeautifulSoup, into the same blocks; the
normalised Markdown a chunk holds reads back into the blocks it was written from."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

from ragcli.blocks.markdown import read_markdown
from ragcli.blocks.model import (
    Admonition,
    CodeBlock,
    Heading,
    ListItem,
    Paragraph,
    Table,
    flat,
)
from ragcli.blocks.render import render
from tests.support.fidelity import shared_eval

# ../shared/eval/docs beside the checkout (or a git worktree's ancestor).
DOCS = (shared_eval() or Path("shared-eval-not-found")) / "docs"


def kinds(blocks):
    return [type(b).__name__ for b in blocks]


def test_a_heading_loses_its_attribute_list_and_keeps_its_code():
    doc = read_markdown("# Advanced\n\n## `GZipMiddleware` { #gzipmiddleware }\n\nHandles GZip.\n")
    heading = doc.blocks[1]
    assert heading == Heading(2, "`GZipMiddleware`", ("Advanced", "`GZipMiddleware`"))
    doc = read_markdown("## Type hints powering schema validation {#type-hints}\n\nText.")
    assert doc.blocks[0].title == "Type hints powering schema validation"


def test_an_attribute_list_on_emphasis_is_not_text():
    doc = read_markdown(
        "* **`css_class`**{ #css_class }: Set the wrapper's class.\n"
        "* *strict*{: .note } and __loose__{#loose} modes; {braces} stay.\n"
    )
    assert [b.text for b in doc.blocks] == [
        "`css_class`: Set the wrapper's class.",
        "strict and loose modes; {braces} stay.",
    ]


def test_inline_markup_is_rendered_to_text():
    doc = read_markdown(
        "Use [the client](https://x.org/client){.internal-link target=_blank} with **care**, "
        "`httpx.Client()` and <kbd>Ctrl</kbd>-C.\n"
    )
    assert doc.blocks == [Paragraph("Use the client with care, `httpx.Client()` and Ctrl-C.")]


def test_code_spans_keep_their_brackets_and_unresolved_references_read_as_their_text():
    """An unresolved reference link (`[dict][]`, mkdocs-autorefs') reads as its text; a
    code span that indexes an array or a dict is code, never taken for one (it read
    `grid0` and `d"a"`)."""
    doc = read_markdown(
        '[a]: https://x.org\n\nRead a cell with `grid[0][1]` and `d["a"]["b"]`; see '
        "[`model_dump()`][pydantic.BaseModel.model_dump], [dict][] and [the docs][a].\n"
    )
    assert doc.blocks == [
        Paragraph(
            'Read a cell with `grid[0][1]` and `d["a"]["b"]`; see `model_dump()`, dict and '
            "the docs."
        )
    ]
    assert read_markdown("## Index with `m[i][j]`\n\nText.").blocks[0].title == (
        "Index with `m[i][j]`"
    )


def test_admonitions_blocks_and_callouts_are_admonitions():
    text = (
        '!!! note "Mind the pool"\n    Close the client.\n\n'
        "/// tip | Faster\n\nUse `uv`.\n\n///\n\n"
        "> [!WARNING]\n> Not thread-safe.\n\n"
        '??? example "Example"\n    Some example.\n'
    )
    blocks = read_markdown(text).blocks
    assert blocks[0] == Admonition("note", "Mind the pool", (Paragraph("Close the client."),))
    assert blocks[1] == Admonition("tip", "Faster", (Paragraph("Use `uv`."),))
    assert blocks[2] == Admonition("warning", "", (Paragraph("Not thread-safe."),))
    assert isinstance(blocks[3], Admonition) and blocks[3].blocks == (Paragraph("Some example."),)


def test_an_admonition_holding_a_pep8_example_ends_where_its_indent_does():
    """Blank lines do not end an MkDocs admonition (Python-Markdown's reading): a code
    example in it has two between its imports and its class, and the sentence after the
    example is the admonition's, not the start of an indented code block."""
    text = (
        "!!! tip\n    Metadata can be added this way:\n\n"
        "    ```python\n    from pydantic import Field\n\n\n"
        "    class Model(BaseModel):\n        x: int\n    ```\n\n"
        "    Be careful not to mix them.\n\n"
        "After the tip.\n"
    )
    assert read_markdown(text).blocks == [
        Admonition(
            "tip",
            "",
            (
                Paragraph("Metadata can be added this way:"),
                CodeBlock(
                    "python", "from pydantic import Field\n\n\nclass Model(BaseModel):\n    x: int"
                ),
                Paragraph("Be careful not to mix them."),
            ),
        ),
        Paragraph("After the tip."),
    ]


def test_nested_pymdownx_blocks_close_at_their_own_marker():
    text = (
        "/// details | Full file\n\n//// tab | Python 3.10+\n\n```Python\n"
        "{!./docs_src/tutorial001_py310.py!}\n```\n\n////\n\n"
        "//// tab | Python 3.7+\n\n```Python\n{!./docs_src/tutorial001.py!}\n```\n\n////\n\n"
        "///\n\nAfter the block.\n"
    )
    blocks = read_markdown(text).blocks
    assert kinds(blocks) == ["Admonition", "Paragraph"]
    assert blocks[0].blocks == (
        CodeBlock(
            "python",
            "code example from ./docs_src/tutorial001_py310.py",
            "./docs_src/tutorial001_py310.py",
        ),
        CodeBlock(
            "python", "code example from ./docs_src/tutorial001.py", "./docs_src/tutorial001.py"
        ),
    )


@pytest.mark.parametrize(
    "directive, target",
    [
        ("{* ../../docs_src/app/tutorial001.py hl[3] *}", "../../docs_src/app/tutorial001.py"),
        ('--8<-- "docs/examples/model.py"', "docs/examples/model.py"),
        (
            "```rust\n{{#rustdoc_include ../listings/ch02/src/main.rs:all}}\n```",
            "../listings/ch02/src/main.rs",
        ),
        ("```rust\n{{#include ../listings/ch03/src/main.rs}}\n```", "../listings/ch03/src/main.rs"),
    ],
)
def test_an_include_directive_is_a_reference_never_text(directive, target):
    blocks = read_markdown(f"Intro text here.\n\n{directive}\n\nAfter.").blocks
    (code,) = [b for b in blocks if isinstance(b, CodeBlock)]
    assert code.include == target and code.text == f"code example from {target}"
    assert all(target not in b.text for b in blocks if isinstance(b, Paragraph))


def test_an_api_directive_with_options_is_one_reference():
    text = "::: pydantic.BaseModel\n    options:\n        show_root_heading: true\n\nNext."
    blocks = read_markdown(text).blocks
    assert blocks == [
        CodeBlock("", "API reference: pydantic.BaseModel", "pydantic.BaseModel"),
        Paragraph("Next."),
    ]


def test_tables_lists_front_matter_and_tabs():
    text = (
        '---\ntitle: Install\n---\n\n=== "pip"\n\n'
        "    ```bash\n    pip install pydantic\n    ```\n\n"
        "| Option | Default |\n|---|---|\n| `timeout` | 5 |\n\n1. First\n2. Second\n   - inner\n"
    )
    doc = read_markdown(text)
    assert doc.metadata == {}  # the title is the page's text
    assert doc.blocks == [
        Heading(1, "Install", ("Install",)),
        CodeBlock("bash", "pip install pydantic"),
        Table(("Option", "Default"), (("`timeout`", "5"),)),
        ListItem("First", "1."),
        ListItem("Second", "2."),
        ListItem("inner", "-", 1),
    ]


def test_html_in_markdown_is_read_as_html():
    text = (
        '<Listing number="2-1" file-name="src/main.rs">\n\n```rust\nfn main() {}\n```\n\n'
        '</Listing>\n\n<!-- a comment -->\n\n<div align="center">\n'
        "<p>Centered <b>words</b>.</p>\n</div>\n"
    )
    assert read_markdown(text).blocks == [
        CodeBlock("rust", "fn main() {}"),
        Paragraph("Centered words."),
    ]


def test_normalised_markdown_reads_back_into_the_same_blocks():
    blocks = [
        Heading(1, "Title", ("Title",)),
        Paragraph("A * star, 2*3*4, <T> and _private_ stay; max_length too, [x](y) is text."),
        Paragraph("1996. A year that opens a line."),
        Paragraph("# not a heading"),
        ListItem("- looks like a marker", "-"),
        ListItem("one `code` item", "1."),
        ListItem("nested", "-", 1),
        CodeBlock("python", "print('```')"),
        CodeBlock("python", "code example from a.py", "a.py"),
        Table(("a|b", "c"), (("1", "2"),)),
        Admonition("note", "Careful", (Paragraph("Inside."), ListItem("item", "-"))),
    ]
    assert read_markdown(render(blocks), indented_code=False).blocks == blocks


def one_line(blocks):
    """The blocks with each paragraph's hard wraps as spaces, as render writes them. A
    list's numbering and depth may change (two lists in a row read as one; an item nested
    after a code block in its parent item reads as a top-level one)."""
    return [
        Paragraph(" ".join(b.text.split()))
        if isinstance(b, Paragraph)
        else ListItem(b.text)
        if isinstance(b, ListItem)
        else b
        for b in flat(blocks)
    ]


@pytest.mark.slow
@pytest.mark.skipif(not DOCS.is_dir(), reason="the shared documentation sets are not here")
def test_every_page_of_the_documentation_sets_reads_back_from_its_rendering():
    pages = sorted(DOCS.rglob("*.md"))
    assert len(pages) > 250, f"the four documentation sets (289 pages) should be in {DOCS}"
    for path in pages:
        blocks = read_markdown(path.read_text(encoding="utf-8")).blocks
        again = read_markdown(render(blocks), indented_code=False).blocks
        assert one_line(again) == one_line(blocks), path


SPHINX_PAGE = (
    "<html><head><title>Quickstart</title></head><body>"
    '<div class="related" role="navigation"><h3>Navigation</h3><ul><li>index</li>'
    "<li>next</li></ul></div>"
    '<div class="document"><div class="body" role="main"><section id="quickstart">'
    '<h1>Quickstart<a class="headerlink" href="#quickstart">¶</a></h1>'
    "<p>Call <code>run_simple()</code> to serve the app.</p></section></div></div>"
    '<div class="sphinxsidebar" role="navigation"><h3>Contents</h3><p>Quickstart</p>'
    '<div role="search"><h3>Quick search</h3></div></div>'
    '<div class="footer">© Copyright 2007 Pallets.</div></body></html>'
)


def test_an_html_file_is_read_from_its_main_content(tmp_path):
    from ragcli.blocks.html import html_document
    from ragcli.ingest.loaders.markup import load_html

    page = tmp_path / "quickstart.html"
    page.write_text(SPHINX_PAGE, encoding="utf-8")
    [section] = load_html(page).sections
    assert section.text == "# Quickstart\n\nCall `run_simple()` to serve the app."

    title, main = html_document(SPHINX_PAGE, main_only=True)
    assert (title, main) == (
        "Quickstart",
        [Heading(1, "Quickstart", ()), Paragraph("Call `run_simple()` to serve the app.")],
    )
    # A fragment, or a page that marks no main content, is read whole, less its navigation.
    _, whole = html_document(SPHINX_PAGE.replace(' role="main"', ""), main_only=True)
    texts = [getattr(b, "text", None) or getattr(b, "title", "") for b in whole]
    assert texts == [
        "Quickstart",
        "Call `run_simple()` to serve the app.",
        "© Copyright 2007 Pallets.",
    ]


def test_html_reads_into_the_same_blocks():
    from ragcli.blocks.html import html_document

    page = (
        "<html><head><title>Guide</title><script>x()</script></head><body>"
        "<h1>Guide</h1><p>Use <code>httpx.get()</code> and <a href='/x'>the client</a>.</p>"
        "<div class='admonition warning'><p class='admonition-title'>Warning</p>"
        "<p>Close it.</p></div><ul><li>one</li><li>two<ul><li>inner</li></ul></li></ul>"
        "<pre><code class='language-python'>print(1)</code></pre>"
        "<table><tr><th>Name</th><th>Value</th></tr><tr><td>a</td><td>1</td></tr></table>"
        "</body></html>"
    )
    title, blocks = html_document(page)
    assert title == "Guide"
    assert blocks == [
        Heading(1, "Guide", ()),
        Paragraph("Use `httpx.get()` and the client."),
        Admonition("warning", "", (Paragraph("Close it."),)),
        ListItem("one", "-"),
        ListItem("two", "-"),
        ListItem("inner", "-", 1),
        CodeBlock("python", "print(1)"),
        Table(("Name", "Value"), (("a", "1"),)),
    ]


def test_a_version_note_is_one_sentence_that_holds_the_version():
    blocks = read_markdown(
        "/// version-added | v2.12\n\nThe `exclude_if` parameter.\n\n///\n"
    ).blocks
    assert blocks == [Paragraph("Version added v2.12: the `exclude_if` parameter.")]


def test_a_markdown_file_read_in_pieces_gives_the_blocks_read_whole():
    """A file too large to hold is read in pieces; a block a cut falls inside (a code
    block with blank lines, a list) is carried into the next piece, headings keep paths."""
    from ragcli.blocks.markdown import iter_markdown_blocks

    part = (
        "# Guide\n\nIntro text.\n\n## Install\n\n```bash\npip install x\n\n\npip check\n```\n\n"
        "- one\n- two\n\nClosing words.\n\n"
    )
    text = part * 40
    pieces = [text[i : i + 97] for i in range(0, len(text), 97)]
    assert list(iter_markdown_blocks(pieces)) == read_markdown(text).blocks


def test_a_terminal_transcript_loses_its_colour_tags_only():
    text = '```console\n$ python main.py\n\n<font color="#F92672"><b>Alert!</b></font> 1 < 2\n```'
    assert read_markdown(text).blocks == [CodeBlock("console", "$ python main.py\n\nAlert! 1 < 2")]


def test_a_heading_inside_a_quote_titles_the_aside_not_a_section():
    blocks = read_markdown("# Ownership\n\n> ### The Stack\n>\n> Aside.\n\nAfter.").blocks
    assert blocks[1:] == [Paragraph("The Stack"), Paragraph("Aside."), Paragraph("After.")]


def test_sloppy_html_keeps_what_an_unclosed_heading_swallowed():
    from ragcli.blocks.html import html_document

    _, blocks = html_document("<body><h1>Title<p>Text under it, the tag never closed.</body>")
    assert blocks == [Heading(1, "Title", ()), Paragraph("Text under it, the tag never closed.")]


def test_html_list_items_without_end_tags_are_items_of_their_own():
    """HTML lets a page leave out `</li>` and `</p>`: each ends where the next begins, as a
    browser reads it, not nested in the one before (one item holding the whole list)."""
    from ragcli.blocks.html import html_document

    page = "<ul><li>Backups run nightly<li>Restores take an hour</ul><p>First<p>Second"
    _, blocks = html_document(page)
    assert blocks == [
        ListItem("Backups run nightly"),
        ListItem("Restores take an hour"),
        Paragraph("First"),
        Paragraph("Second"),
    ]


def test_html_nested_thousands_deep_keeps_its_text():
    from ragcli.blocks.html import html_document

    page = "<b>" * 3000 + "The vault opens at nine.<p>After it.</p>"
    texts = " ".join(getattr(b, "text", "") for b in html_document(page)[1])
    assert "The vault opens at nine." in texts and "After it." in texts


def test_an_xhtml_chapter_reads_without_a_warning():
    from ragcli.blocks.html import html_document

    chapter = (
        '<?xml version="1.0" encoding="utf-8"?>\n'
        '<html xmlns="http://www.w3.org/1999/xhtml"><body><p>Text</p></body></html>'
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a warning would be a note on the file
        assert html_document(chapter)[1] == [Paragraph("Text")]


def test_deeply_nested_markdown_is_not_dropped():
    # CommonMark's preset of markdown-it stops at 20 levels and drops the rest silently.
    document = read_markdown("# H\n\n" + "> " * 40 + "deep text\n")
    assert "deep text" in [getattr(b, "text", "") for b in flat(document.blocks)]


def test_a_numbered_heading_is_its_own_title_in_a_chunk(tmp_path):
    """ "## 8. Your rights" is a heading, not a list: its title is not escaped, so its chunk
    opens with it and gets no second heading line (`# Policy > 8. Your rights`)."""
    from ragcli.config import Settings
    from ragcli.embedding.embedder import tokenizer_dir
    from ragcli.embedding.wordpieces import TokenCounter
    from ragcli.ingest.chunker import Chunker
    from ragcli.ingest.parse_pool import parse

    assert render(read_markdown("## 8. Your rights\n\nText.\n").blocks).startswith(
        "## 8. Your rights\n"
    )
    page = tmp_path / "policy.md"
    page.write_text(
        "# Policy\n\nIntro.\n\n## 8. Your rights\n\nYou may ask.\n\n## _private names\n\nNo.\n"
    )
    settings = Settings()
    chunker = Chunker(TokenCounter(tokenizer_dir(settings.embedding)), 40, 0)
    texts = [chunk.text for chunk in parse(page, chunker).chunks]
    assert "## 8. Your rights\n\nYou may ask." in texts
    assert not any(text.startswith("# Policy > ") for text in texts), texts


def test_an_example_shown_once_per_tab_and_again_in_a_preview_is_one_reference():
    """A SQLModel-style section: the example's file in three version tabs, then all three
    again in a "Full file preview" details block. Its chunk keeps the prose and one
    reference; a second example, and a file included again between paragraphs (an mdBook
    chapter's `main.rs:here`, then `main.rs:print`), keep theirs."""
    from ragcli.ingest.loaders.text import markdown_sections

    def tabs(name: str) -> str:
        return "".join(
            f"//// tab | Python {version}\n\n"
            f"```Python\n{{!./docs_src/{name}{suffix}.py!}}\n```\n\n////\n\n"
            for version, suffix in (("3.10+", "_py310"), ("3.9+", "_py39"), ("3.7+", ""))
        )

    page = (
        "# Sessions\n\n## Use the Dependency\n\nWe import `Depends()` from `fastapi`.\n\n"
        + tabs("tutorial001")
        + "/// details | 👀 Full file preview\n\n"
        + tabs("tutorial001")
        + "///\n\nThe session closes after the request.\n\n"
        + tabs("tutorial002")
        + "## Listing\n\n{{#include ../listings/src/main.rs:here}}\n\nThen print it:\n\n"
        "{{#include ../listings/src/main.rs:print}}\n\n"
        "{{#include ../listings/src/lib.rs}}\n"
    )
    dependency, listing = markdown_sections(page)
    assert dependency.text == (
        "## Use the Dependency\n\nWe import `Depends()` from `fastapi`.\n\n"
        "```python include=./docs_src/tutorial001_py310.py\n"
        "code example from ./docs_src/tutorial001_py310.py\n```\n\n"
        "The session closes after the request.\n\n"
        "```python include=./docs_src/tutorial002_py310.py\n"
        "code example from ./docs_src/tutorial002_py310.py\n```"
    )
    assert [b.include for b in listing.blocks if isinstance(b, CodeBlock)] == [
        "../listings/src/main.rs",
        "../listings/src/main.rs",
        "../listings/src/lib.rs",
    ]


MDX_PAGE = """\
---
title: Installation
description: Get the app running.
tags: [setup, npm]
author: Jane Doe
sidebar_position: 2
---

import Tabs from '@theme/Tabs';
import TabItem from '@theme/TabItem';
export const Highlight = ({children}) => <span>{children}</span>;

{/* a comment the site never shows */}

Install it with your package manager:

<Tabs>
  <TabItem value="npm" label="npm" default>

    ```bash
    npm install app
    ```

  </TabItem>
  <TabItem value="yarn" label="Yarn">
    Run it in the project's folder, {props.where}.
  </TabItem>
</Tabs>

:::tip[Faster installs]

Use `pnpm` for speed.

:::

:::info
The color scheme follows the system.
:::

<Callout type="warning">Do not run as root.</Callout>

<Aside type="caution" title="Careful">
Back up first.
</Aside>

<details>
  <summary>Why?</summary>

  Because it works.
</details>

<DocCardList />
"""


def test_an_mdx_page_reads_as_its_site_shows_it():
    """ESM and expressions are no text; a tab reads as its label (a lead-in) and its
    content, callouts and Docusaurus admonitions as admonitions of their kind, <details> by
    its summary, a component without content as nothing; front matter's title and
    description are the page's text, its other keys metadata (issue 66)."""
    doc = read_markdown(MDX_PAGE, mdx_page=True)
    assert doc.blocks == [
        Heading(1, "Installation", ("Installation",)),
        Paragraph("Get the app running."),
        Paragraph("Install it with your package manager:"),
        Paragraph("npm:"),
        CodeBlock("bash", "npm install app"),
        Paragraph("Yarn:"),
        Paragraph("Run it in the project's folder, ."),
        Admonition("tip", "Faster installs", (Paragraph("Use `pnpm` for speed."),)),
        Admonition("info", "", (Paragraph("The color scheme follows the system."),)),
        Admonition("warning", "", (Paragraph("Do not run as root."),)),
        Admonition("caution", "Careful", (Paragraph("Back up first."),)),
        Admonition("details", "Why?", (Paragraph("Because it works."),)),
    ]
    assert doc.metadata == {
        "tags": ["setup", "npm"],
        "author": "Jane Doe",
        "sidebar_position": "2",
    }
    # A .md page of a Docusaurus site that imports its components is read as MDX.
    assert read_markdown(MDX_PAGE).blocks == doc.blocks
    # mdBook's <Listing> in a page that imports nothing stays HTML in Markdown.
    listing = read_markdown('<Listing number="1">\n\n    indented code\n\n</Listing>\n')
    assert listing.blocks == [CodeBlock("", "indented code")]


def test_hugo_shortcodes_and_toml_front_matter():
    text = (
        '+++\ntitle = "Configure"\ndescription = "Set the site up."\n'
        'categories = ["config"]\ndate = 2024-01-02\n[menu.main]\nparent = "x"\n+++\n\n'
        'See [the install page]({{< ref "install.md" >}}) and {{< param "v" >}} first.\n\n'
        "{{< code-toggle file=\"hugo\" >}}\nbaseURL = 'https://example.org/'\n"
        "{{< /code-toggle >}}\n\n"
        '{{< highlight go "linenos=table" >}}\nfunc main() {}\n{{< /highlight >}}\n\n'
        '{{% include "content/shared/notes.md" %}}\n\n'
        "{{% notice warning %}}\nDo **not** commit secrets.\n{{% /notice %}}\n\n"
        "{{< youtube w7Ft2ymGmfc >}}\n\n"
        '{{< alert icon="👉" text="The Quick Start is for **advanced** users." />}}\n\n'
        '{{< alert text="Learn about <a href=\\"https://semver.org\\">versions</a>." />}}\n'
    )
    doc = read_markdown(text)
    assert doc.blocks == [
        Heading(1, "Configure", ("Configure",)),
        Paragraph("Set the site up."),
        Paragraph("See the install page and first."),
        CodeBlock("toml", "baseURL = 'https://example.org/'"),
        CodeBlock("go", "func main() {}"),
        CodeBlock("", "text included from content/shared/notes.md", "content/shared/notes.md"),
        Paragraph("Do not commit secrets."),
        Paragraph("The Quick Start is for advanced users."),
        Paragraph("Learn about versions."),  # a Go string's escaped quotes, an HTML link
    ]
    assert doc.metadata == {"categories": ["config"], "date": "2024-01-02"}


def test_a_page_of_only_front_matter_is_a_short_page(tmp_path):
    """A Hugo section page (`_index.md`, a title and a description) is read, not failed
    with "no text found"; JSON front matter too; a title alone is the page's text."""
    from ragcli.ingest.loaders import load

    page = tmp_path / "_index.md"
    page.write_text('---\ntitle: "Prologue"\ndescription: "Prologue Doks."\nweight: 100\n---\n')
    loaded = load(page)
    assert [s.text for s in loaded.sections] == ["# Prologue\n\nPrologue Doks."]
    assert loaded.metadata == {"weight": "100"}
    page.write_text('{\n  "title": "Only a title",\n  "tags": ["a"]\n}\n')
    loaded = load(page)
    assert [s.text for s in loaded.sections] == ["Only a title"]
    assert loaded.metadata == {"tags": "a"}  # a list of one is its value (metadata.clean)


def test_an_mdx_file_is_a_format(tmp_path):
    from ragcli.ingest.loaders import file_type_of, load, reading_of

    page = tmp_path / "intro.mdx"
    page.write_text("import X from './x';\n\n# Intro\n\n<X />\n\nHello `x[0][1]`.\n")
    assert file_type_of(page) == "mdx" and reading_of("mdx") >= 1
    assert [s.text for s in load(page).sections] == ["# Intro\n\nHello `x[0][1]`."]


@pytest.mark.parametrize(
    "text",
    ["> " * 300 + "deep text\n", "- " * 300 + "deep text\n", "> - " * 200 + "deep text\n"],
)
def test_markdown_nested_hundreds_of_levels_is_read_not_dropped(text):
    assert "deep text" in [getattr(b, "text", "") for b in flat(read_markdown(text).blocks)]


def test_a_list_indented_hundreds_of_levels_keeps_its_deepest_items():
    text = "\n".join("  " * depth + f"- item{depth}" for depth in range(300))
    texts = [getattr(b, "text", "") for b in read_markdown(text).blocks]
    assert texts[0] == "item0" and texts[-1] == "item299" and len(texts) == 300
