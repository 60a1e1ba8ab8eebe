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


@pytest.mark.slow
@pytest.mark.skipif(not DOCS.is_dir(), reason="the shared documentation sets are not here")
def test_every_page_of_the_documentation_sets_reads_back_from_its_rendering():
    pages = sorted(DOCS.rglob("*.md"))
    assert len(pages) > 250, f"the four documentation sets (289 pages) should be in {DOCS}"
    for path in pages:
        blocks = read_markdown(path.read_text(encoding="utf-8")).blocks
        again = read_markdown(render(blocks), indented_code=False).blocks
        assert one_line(again) == one_line(blocks), path


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


RST = """\
Quickstart
==========

.. module:: requests.models

See :class:`~requests.cookies.RequestsCookieJar`, :func:`requests.get`, ``json=`` and
`Sending JSON <https://example.org/json>`_.

.. versionadded:: 2.4.2
   The ``json`` parameter.

Make a Request
--------------

Begin by importing the module::

    >>> import requests

.. code-block:: python
   :emphasize-lines: 1

   s = requests.Session()

.. note:: Sessions persist cookies.

.. literalinclude:: ../examples/session.py
   :language: python

.. autoclass:: requests.Session
   :members:

.. |ver| replace:: 2.31

Version |ver| is current; :unknownrole:`text` and :ref:`the guide <guide>`.

.. toctree::

   user/install
"""


def test_rst_is_read_by_docutils_with_sphinx_roles_and_directives(capfd):
    from ragcli.blocks.rst import read_rst

    blocks = read_rst(RST).blocks
    assert blocks == [
        Heading(1, "Quickstart", ("Quickstart",)),
        Paragraph("See `RequestsCookieJar`, `requests.get()`, `json=` and\nSending JSON."),
        Paragraph("New in version 2.4.2: the `json` parameter."),
        Heading(2, "Make a Request", ("Quickstart", "Make a Request")),
        Paragraph("Begin by importing the module:"),
        CodeBlock("", ">>> import requests"),
        CodeBlock("python", "s = requests.Session()"),
        Admonition("note", "", (Paragraph("Sessions persist cookies."),)),
        CodeBlock("python", "code example from ../examples/session.py", "../examples/session.py"),
        CodeBlock("", "API reference: requests.Session", "requests.Session"),
        Paragraph("Version 2.31 is current; text and the guide."),
    ]
    out, err = capfd.readouterr()
    assert out == err == ""  # no docutils system message


def test_an_extensions_example_directive_is_code_and_its_prose_directive_text():
    """Click's docs write each example in `.. click:example::` and its run in `..
    click:run::`, directives docutils lacks: read as reST, the example was one sentence
    ("@click.command() @click.option(…) def hello(name):"). A body that is Python doing
    something, or a Python session, is code; one in words stays text, as does a list of
    names."""
    from ragcli.blocks.rst import read_rst

    text = (
        ".. click:example::\n\n    @click.command()\n    @click.option('--n', default=1)\n"
        "    def dots(n):\n        click.echo('.' * n)\n\n"
        ".. click:run::\n\n    invoke(dots, args=['--n=2'])\n\n"
        ".. doctest::\n\n    >>> 1 + 1\n    2\n\n"
        ".. tip:: x\n\n.. custom-box::\n\n    Use :func:`dots` (twice).\n\n"
        ".. custom-list::\n\n    install\n    quickstart\n"
    )
    assert read_rst(text).blocks == [
        CodeBlock(
            "python",
            "@click.command()\n@click.option('--n', default=1)\ndef dots(n):\n"
            "    click.echo('.' * n)",
        ),
        CodeBlock("python", "invoke(dots, args=['--n=2'])"),
        CodeBlock("pycon", ">>> 1 + 1\n2"),
        Admonition("tip", "", (Paragraph("x"),)),
        Paragraph("Use `dots()` (twice)."),
        Paragraph("install\nquickstart"),
    ]


def test_a_role_inside_strong_or_emphasised_text_reads_as_the_role():
    """reST does not nest inline markup, so docutils leaves a role inside `**…**` as it
    was written; Sphinx sites write it all the same (aiohttp's "**Never set
    :attr:`ClientRequest.body` directly!**")."""
    from ragcli.blocks.rst import read_rst

    text = (
        "Title\n=====\n\n**Never set :attr:`Request.body` directly!** Call "
        "*:meth:`update` or see :ref:`the guide <guide>`* instead.\n"
    )
    assert read_rst(text).blocks[1:] == [
        Paragraph("Never set `Request.body` directly! Call `update()` or see the guide instead.")
    ]


def test_an_rst_include_says_what_it_includes_without_reading_it(tmp_path):
    """Flask's changes.rst is a title and `.. include:: ../CHANGES.rst`: the page says
    where its text is rather than coming out empty ("no text found"); `:code:` or
    `:literal:` make the include a code example. The file is never read. A set of
    substitutions docutils ships (`<isonum.txt>`) is read from docutils: |copy| is ©."""
    from ragcli.ingest.loaders.text import rst_sections

    (tmp_path / "CHANGES.rst").write_text("Version 3.1\n-----------\n\nReleased.\n")
    page = tmp_path / "docs" / "changes.rst"
    page.parent.mkdir()
    text = (
        "Changes\n=======\n\n.. include:: ../CHANGES.rst\n\n"
        ".. include:: ../examples/app.py\n   :code: python\n\n"
        ".. include:: ../NOTICE\n   :literal:\n\n"
        ".. include:: <isonum.txt>\n\n|copy| 2010 Pallets.\n"
    )
    [section] = rst_sections(text, str(page))
    assert section.heading == "Changes"
    assert section.blocks[1:] == (
        CodeBlock("rst", "text included from ../CHANGES.rst", "../CHANGES.rst"),
        CodeBlock("python", "code example from ../examples/app.py", "../examples/app.py"),
        CodeBlock("", "code example from ../NOTICE", "../NOTICE"),
        Paragraph("© 2010 Pallets."),
    )
    assert "Released" not in section.text


def test_an_rst_paragraph_ending_in_double_colon_leads_in_to_its_code():
    """All three forms of `::` make the paragraph the code's lead-in (a colon), where
    docutils renders `ends. ::` as a sentence of its own."""
    from ragcli.blocks.rst import read_rst

    text = (
        "This example adds the command ``create-user``. ::\n\n    @app.cli.command()\n\n"
        "A common pattern is this::\n\n    app.config.from_envvar('X')\n\n"
        "A plain paragraph.\n\n::\n\n    alone = 1\n"
    )
    assert read_rst(text).blocks == [
        Paragraph("This example adds the command `create-user`:"),
        CodeBlock("", "@app.cli.command()"),
        Paragraph("A common pattern is this:"),
        CodeBlock("", "app.config.from_envvar('X')"),
        Paragraph("A plain paragraph."),
        CodeBlock("", "alone = 1"),
    ]


def test_a_sphinx_tab_title_is_words_and_a_code_tab_is_code():
    """sphinx-tabs' and sphinx-design's containers take a title, not a signature: read as
    inline text ("`netstat` (Linux)"), where a domain directive's argument stays code. A
    tab that holds code is one alternative of an example ("Sync", "Bash"): it reads without
    its title, as a Markdown content tab does, so the lead-in before the tabs is followed by
    their code."""
    from ragcli.blocks.rst import read_rst

    text = (
        "List the open ports like this:\n\n"
        ".. tabs::\n\n"
        "    .. tab:: Linux\n\n"
        "        .. code-block:: text\n\n            $ netstat -nlp\n\n"
        "    .. tab:: ``netstat`` (Windows)\n\n"
        "        Run it in an administrator's shell.\n\n"
        "    .. code-tab:: python\n\n        print(1)\n\n"
        ".. function:: get(url)\n\n   Sends a GET request.\n"
    )
    assert read_rst(text).blocks == [
        Paragraph("List the open ports like this:"),
        CodeBlock("text", "$ netstat -nlp"),
        Paragraph("`netstat` (Windows)"),
        Paragraph("Run it in an administrator's shell."),
        CodeBlock("python", "print(1)"),
        Paragraph("`get(url)`"),
        Paragraph("Sends a GET request."),
    ]


def test_a_sphinx_class_is_read_with_its_signature_and_body():
    """In Sphinx `.. class::` documents a Python class (docutils' style class is
    `.. rst-class::` there): read as docutils', `ClientSession(base_url=None, …)` was
    refused as a style name and the class's whole body lost, and a `session` class gave
    its literal blocks the language "session"."""
    from ragcli.blocks.rst import read_rst

    text = (
        ".. rst-class:: hide-header\n\n"
        "Welcome.\n\n"
        ".. class:: ClientSession(base_url=None, *, \\\n"
        "                         timeout=sentinel)\n\n"
        "   The class for making requests.\n\n"
        "   .. attribute:: closed\n"
        "      :type: bool\n"
        "      :value: False\n\n"
        "      ``True`` if the session is closed. For example::\n\n"
        "          session.closed\n\n"
        ".. class:: session\n\n"
        "   A proxy. Here an example::\n\n"
        "       session['a'] = 1\n\n"
        ".. method:: StreamReader.read(n=-1)\n"
        "      :async:\n\n"
        "   Read up to *n* bytes.\n"
    )
    assert read_rst(text).blocks == [
        Paragraph("Welcome."),
        Paragraph("`ClientSession(base_url=None, *, timeout=sentinel)`"),
        Paragraph("The class for making requests."),
        Paragraph("`closed: bool = False`"),  # its options, as Sphinx shows them
        Paragraph("`True` if the session is closed. For example:"),
        CodeBlock("", "session.closed"),
        Paragraph("`session`"),
        Paragraph("A proxy. Here an example:"),
        CodeBlock("", "session['a'] = 1"),
        Paragraph("`StreamReader.read(n=-1)`"),  # its option, indented deeper, is no text
        Paragraph("Read up to n bytes."),
    ]


def test_sphinx_info_fields_read_as_the_built_page_shows_them():
    """`:param int port:` was "param int port: …" in answers; Sphinx shows "port (int) – …",
    with a `:type port:` field's type, and "Raises", "Returns", "Return type"."""
    from ragcli.blocks.rst import read_rst

    text = (
        ".. function:: run_app(app, *, host=None, port=None)\n\n"
        "   :param str host: HOST to listen on.\n"
        "   :param port: PORT to listen on, ``8080`` if ``None``.\n"
        "   :type port: int\n"
        "   :raises ValueError: if the port is taken.\n"
        "   :returns: nothing.\n"
        "   :rtype: None\n"
        "   :Platform: Unix\n"
        "   :type timeout: float\n"
    )
    assert read_rst(text).blocks[1:] == [
        ListItem("`host` (str): HOST to listen on.", "-", 0),
        ListItem("`port` (int): PORT to listen on, `8080` if `None`.", "-", 0),
        ListItem("Raises `ValueError`: if the port is taken.", "-", 0),
        ListItem("Returns: nothing.", "-", 0),
        ListItem("Return type: None", "-", 0),
        ListItem("Platform: Unix", "-", 0),
        ListItem("type timeout: float", "-", 0),  # no `:param timeout:` to show it in
    ]


def test_only_hlist_and_centered_show_what_the_html_site_shows():
    """`.. only::` shows its body when its builder tags hold for HTML; `.. hlist::` is its
    list in columns and `.. centered::` a line of text: all three were read as nothing."""
    from ragcli.blocks.rst import read_rst

    text = (
        ".. only:: html\n\n   On the site.\n\n"
        ".. only:: latex\n\n   In the PDF.\n\n"
        ".. only:: not (latex or epub)\n\n   Not in the PDF.\n\n"
        ".. hlist::\n   :columns: 2\n\n   * alpha\n   * beta\n\n"
        ".. centered:: LICENSE AGREEMENT\n"
    )
    assert read_rst(text).blocks == [
        Paragraph("On the site."),
        Paragraph("Not in the PDF."),
        ListItem("alpha", "-", 0),
        ListItem("beta", "-", 0),
        Paragraph("LICENSE AGREEMENT"),
    ]
    myst = ":::{only} latex\nIn the PDF.\n:::\n\n:::{only} html\nOn the site.\n:::\n"
    assert read_markdown(myst).blocks == [Paragraph("On the site.")]


def test_rst_substitutions_standards_and_footnotes_read_as_sphinx_shows_them():
    """A substitution Sphinx fills in from conf.py reads as its name, not `|version|`; one
    defined as raw HTML reads as nothing; `:rfc:` and `:pep:` name the standard; a
    footnote mark leaves no gap behind."""
    from ragcli.blocks.rst import read_rst

    text = (
        "Requests |version| follows :rfc:`7230#section-3` and :pep:`8`, |br| see [#f1]_.\n\n"
        ".. |br| raw:: html\n\n   <br />\n\n"
        ".. [#f1] A footnote.\n"
    )
    blocks = read_rst(text).blocks
    assert blocks[0] == Paragraph("Requests version follows RFC 7230 and PEP 8, see.")


def test_a_markdown_footnote_mark_is_no_text_and_its_definition_stays_in_its_section():
    """mdBook and Material write footnotes: `tables[^siphash]` read as text put "[^siphash]"
    in answers, and its definition a line below. The mark leaves no gap, as reST's does;
    the definition is a paragraph where it is written, under its own heading."""
    from ragcli.blocks.markdown import read_markdown

    text = (
        "# Hash maps\n\nIt uses SipHash[^siphash], see [^2].\n\n"
        "[^siphash]: A keyed hash.\n[^2]: Chapter 10.\n\n## Summary\n\nDone.\n"
    )
    assert read_markdown(text).blocks == [
        Heading(1, "Hash maps", ("Hash maps",)),
        Paragraph("It uses SipHash, see."),
        Paragraph("A keyed hash."),
        Paragraph("Chapter 10."),
        Heading(2, "Summary", ("Hash maps", "Summary")),
        Paragraph("Done."),
    ]


def test_an_rst_line_block_keeps_its_lines_apart():
    from ragcli.blocks.rst import read_rst

    text = "| Requests Inc.\n|    1 Main Street\n|    Springfield\n| USA\n"
    assert read_rst(text).blocks == [Paragraph("Requests Inc.\n1 Main Street\nSpringfield\nUSA")]


def test_a_myst_pages_comments_and_block_breaks_are_not_text():
    """A MyST page's `% …` line is a comment and `+++` a block break (attrs' "% {func}
    syntax does currently not work …" was quoted as text). On a page that writes no MyST,
    a line starting with `%` is text."""
    from ragcli.blocks.markdown import read_markdown

    myst = (
        "(names)=\n# Names\n\nUse {func}`attrs.define`.\n% a note to the authors\n\n+++\n\nMore.\n"
    )
    assert read_markdown(myst).blocks[1:] == [
        Paragraph("Use `attrs.define()`."),
        Paragraph("More."),
    ]
    plain = "# Share\n\nThe share is 50\n% of users, and +++ is text.\n"
    assert read_markdown(plain).blocks[1:] == [
        Paragraph("The share is 50\n% of users, and +++ is text.")
    ]


def test_myst_roles_in_markdown_read_as_rest_roles_do():
    """Sphinx's Markdown (MyST) writes a role as {name}`target`: it reads as the same role
    written in reST, not as the syntax."""
    text = (
        "Use {func}`~attrs.define` or {class}`attr.s <attr.s>`, see {doc}`init`, "
        "{ref}`the guide <how>` and {option}`--fast`; a Rust `{:?}` stays."
    )
    assert read_markdown(text).blocks == [
        Paragraph(
            "Use `define()` or `attr.s`, see init, the guide and `--fast`; a Rust `{:?}` stays."
        )
    ]


def test_a_role_the_site_defines_reads_as_code_when_it_names_something():
    """Celery's docs write their settings as `:setting:`worker_prefetch_multiplier``, a
    cross-reference type of their own, which Sphinx shows as code: read as words, the
    sentence naming the setting named nothing for the answer's features. A role made by
    extlinks (`:issue:`, a number; `:wiki:`, words) and Sphinx's own word roles stay
    words, in reST and in MyST."""
    from ragcli.blocks.rst import read_rst

    text = (
        "Set :setting:`worker_prefetch_multiplier` and :confval:`~conf.html_theme`, "
        "call :js:func:`fetch()`; see :issue:`123`, :wiki:`Event loop`, "
        ":term:`event loop` and :guilabel:`Save`.\n"
    )
    expected = (
        "Set `worker_prefetch_multiplier` and `conf.html_theme`, call `fetch()`; "
        "see 123, Event loop, event loop and Save."
    )
    assert read_rst(text).blocks == [Paragraph(expected)]
    myst = "Set {setting}`worker_prefetch_multiplier`; see {issue}`123`.\n"
    assert read_markdown(myst).blocks == [Paragraph("Set `worker_prefetch_multiplier`; see 123.")]


def test_myst_directives_read_as_their_rest_twins():
    """MyST's directives, in fences of colons or backticks named in braces: an admonition
    is an admonition, an include or autodoc directive a reference, a toctree nothing,
    `{eval-rst}`'s body reST (attrs' answers quoted `.. function:: your_hook(…)`), a
    version note's words after the version its sentence (structlog's read "Version
    changed 14.0.0 Allow … a {any}`dict`.."). A
    directive not known here keeps its fence (`{doctest}` is code), a target `(label)=` is
    nothing, and mkdocstrings' `::: module.Name` is still an API reference, not a colon
    fence."""
    from ragcli.blocks.rst import embedded_rest

    text = (
        ":::{warning}\nSet **eq** and order apart.\n:::\n\n"
        "::::{admonition} Custom title\n:class: tip\n\nBody.\n::::\n\n"
        "```{include} ../CHANGELOG.md\n:end-before: Changes\n```\n\n"
        "```{toctree}\n:maxdepth: 2\n\noverview\n```\n\n"
        "```{autoclass} attrs.Attribute(name)\n:members:\n```\n\n"
        "```{code-block} python\n:caption: x\n\nprint(1)\n```\n\n"
        "```{doctest}\n>>> 1 + 1\n2\n```\n\n"
        "```{eval-rst}\n.. function:: your_hook(cls: type)\n   :noindex:\n\n"
        "See :class:`~a.B`.\n```\n\n"
        "```{versionadded} 22.2.0\nThe *alias* argument.\n```\n\n"
        ":::{versionchanged} 14.0 Return a {any}`dict`.\n:::\n\n"
        "::: httpx.Client\n\n(custom-comparison)=\n\n## Customization\n\n"
        "After (a) = b.\n"
    )
    assert read_markdown(text, rest=embedded_rest).blocks == [
        Admonition("warning", "", (Paragraph("Set eq and order apart."),)),
        Admonition("note", "Custom title", (Paragraph("Body."),)),
        CodeBlock("", "text included from ../CHANGELOG.md", "../CHANGELOG.md"),
        CodeBlock("", "API reference: attrs.Attribute", "attrs.Attribute"),
        CodeBlock("python", "print(1)"),
        CodeBlock("doctest", ">>> 1 + 1\n2"),
        Paragraph("`your_hook(cls: type)`"),
        Paragraph("See `B`."),
        Paragraph("Version added 22.2.0: the alias argument."),
        Paragraph("Version changed 14.0: return a `dict`."),
        CodeBlock("", "API reference: httpx.Client", "httpx.Client"),
        Heading(2, "Customization", ("Customization",)),
        Paragraph("After (a) = b."),
    ]


def test_a_myst_directive_that_only_sets_a_name_reads_as_nothing():
    """cattrs' pages open with ```{currentmodule} cattrs``` and an empty body: an answer
    quoted it as an empty code block titled `currentmodule`. It sets the module names are
    resolved in, as `{module}` does, and shows nothing on the site (reST's `..
    currentmodule::` read as nothing already); so does a directive not known here whose
    fence holds nothing. One that is not known but has a body stays code."""
    text = (
        "# Converters\n\n```{currentmodule} cattrs\n```\n\nConverters are registries.\n\n"
        "```{py:module} cattrs.gen\n```\n\n```{someextension} argument\n:option: 1\n```\n\n"
        "```{doctest}\n>>> 1\n1\n```\n"
    )
    assert read_markdown(text).blocks == [
        Heading(1, "Converters", ("Converters",)),
        Paragraph("Converters are registries."),
        CodeBlock("doctest", ">>> 1\n1"),
    ]


def test_a_version_notes_words_keep_an_acronyms_case():
    """A version note is one sentence, its words lower-cased after the version; an
    acronym or a name starting them keeps its case (cattrs' read "Version changed 26.2.0:
    pEP 695 type aliases …")."""
    from ragcli.blocks.rst import read_rst

    assert read_markdown("```{versionchanged} 26.2.0\nPEP 695 aliases work.\n```\n").blocks == [
        Paragraph("Version changed 26.2.0: PEP 695 aliases work.")
    ]
    assert read_rst(".. versionadded:: 2.4\n   HTTPX is supported.\n").blocks == [
        Paragraph("New in version 2.4: HTTPX is supported.")
    ]


def test_a_myst_glossary_reads_as_terms_with_their_definitions():
    """Sphinx's glossary writes a term on its own line and its definition indented under
    it. Read as paragraphs, the term ran into its definition ("dict classes A regular
    class whose …"); a footnote mark whose definition is outside the directive is no text
    either."""
    text = (
        "# Glossary\n\n:::{glossary}\ndict classes\n  A regular class[^a].\n\n"
        "  Its second paragraph.\n\nslotted classes\n  Classes with {attr}`__slots__`.\n"
        ":::\n\n[^a]: Mostly.\n"
    )
    assert read_markdown(text).blocks[1:] == [
        ListItem("dict classes: A regular class.", "-", 0),
        Paragraph("Its second paragraph."),
        ListItem("slotted classes: Classes with `__slots__`.", "-", 0),
        Paragraph("Mostly."),
    ]


def test_a_directive_read_first_does_not_hide_the_role_of_its_name():
    """Sphinx has a `data` directive and a `data` role (and others alike). Roles and
    directives are registered as pages use them, in one process: a page using the
    directive, read first, must leave the role of the same name registered too."""
    from ragcli.ingest.loaders.text import rst_sections

    # A name no other test uses, so that this one is the first to register it.
    directive_page = "Codes\n=====\n\n.. tallymark:: STATUS_CODES\n\n   A table of codes.\n"
    role_page = "Logging\n=======\n\nThe level is set to :tallymark:`~logging.INFO` at first.\n"
    assert "`STATUS_CODES`" in rst_sections(directive_page)[0].text
    text = rst_sections(role_page)[0].text
    assert ":tallymark:" not in text and "`logging.INFO` at first." in text


def test_an_rst_page_of_autodoc_alone_names_its_module():
    """An API page that is a title and `.. automodule::` is a reference to the module, not
    "no text found" (Sphinx's `module` directive alone says nothing)."""
    from ragcli.ingest.loaders.text import rst_sections

    page = "SOCKS Proxies\n=============\n\n.. automodule:: urllib3.contrib.socks\n   :members:\n"
    [section] = rst_sections(page)
    assert section.blocks[1] == CodeBlock(
        "", "API reference: urllib3.contrib.socks", "urllib3.contrib.socks"
    )
    assert rst_sections("Title\n=====\n\n.. module:: urllib3\n\nText.\n")[0].text == (
        "# Title\n\nText."
    )


def test_an_rst_page_that_is_only_a_toctree_is_skipped_not_failed(tmp_path):
    """A Sphinx index page lists other pages and says nothing itself: ingest skips it with
    that reason (a failure would set the exit code for a folder of good pages)."""
    from ragcli.ingest.files import _failure
    from ragcli.ingest.loaders import NothingOfItsOwn, load

    page = tmp_path / "index.rst"
    page.write_text("API Reference\n=============\n\n.. toctree::\n   :maxdepth: 2\n\n   request\n")
    with pytest.raises(NothingOfItsOwn) as caught:
        load(page)
    outcome = _failure(page, str(page), caught.value)
    assert (outcome.status, outcome.reason) == (
        "skipped",
        "only a table of contents (toctree): its pages are read",
    )
    page.write_text("API Reference\n=============\n\nThe classes.\n\n.. toctree::\n\n   request\n")
    assert load(page).sections[0].text == "# API Reference\n\nThe classes."
    empty = tmp_path / "empty.rst"  # no toctree, no text: skipped as holding none
    empty.write_text("Title\n=====\n")
    with pytest.raises(NothingOfItsOwn, match="^no text$"):
        load(empty)


def test_rst_doc_links_read_as_the_linked_pages_title(tmp_path):
    """Sphinx shows an untitled `:doc:` or `:ref:` link as the title it names; so does a chunk."""
    from ragcli.ingest.loaders.text import load_text

    docs = tmp_path / "docs"
    (docs / "deploying").mkdir(parents=True)
    (docs / "conf.py").write_text("project = 'x'\n")
    (docs / "cli.rst").write_text(".. _cli:\n\nCommand Line Interface\n======================\n")
    deploying = "Deploying to Production\n" + "=" * 23 + "\n\nText.\n"
    (docs / "deploying" / "index.rst").write_text(deploying)
    (docs / "deploying" / "nginx.md").write_text("# Serving with nginx\n\nText.\n")
    (tmp_path / "secret.rst").write_text("Outside the Docs\n================\n")
    page = docs / "deploying" / "guide.rst"
    page.write_text(
        "Guide\n=====\n\nSee :doc:`/cli`, :doc:`index`, :doc:`nginx`, :doc:`the CLI </cli>`, "
        ":doc:`missing` and :doc:`../../secret`. Read :ref:`CLI` and :ref:`nowhere`.\n"
    )
    text = load_text(page, "rst").sections[0].text
    assert (
        "See Command Line Interface, Deploying to Production, Serving with nginx, the CLI, "
        "missing and ../../secret." in text
    )
    # An untitled :ref: reads as its labelled section's title (labels match in any case).
    assert "Read Command Line Interface and nowhere." in text
    # Without conf.py a "/" path has no root to start from: the link reads as written.
    (docs / "conf.py").unlink()
    from ragcli.blocks.sphinx_pages import sphinx_root

    sphinx_root.cache_clear()
    text = load_text(page, "rst").sections[0].text
    assert "See /cli, Deploying to Production" in text
    assert "Read CLI and nowhere." in text  # no project: no folder to search for labels


def test_rst_sections_cite_their_lines():
    from ragcli.ingest.loaders.text import rst_sections

    sections = rst_sections(RST)
    # From the title to the section's last line (a toctree's too), blank lines left out.
    assert [(s.heading, s.locator) for s in sections] == [
        ("Quickstart", "lines 1–10"),
        ("Quickstart > Make a Request", "lines 12–38"),
    ]
    assert ":class:" not in sections[0].text and "RequestsCookieJar" in sections[0].text


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


def test_a_rest_version_notes_words_may_follow_the_version_on_its_line():
    """Sphinx splits `.. versionchanged:: 14.0.0 Allow …` into the version and its words,
    as MyST's twin is read; the words were kept with the version, the role raw and two
    full stops: "Changed in version 14.0.0 Allow a :class:`dict`..". Words on the lines
    under it read as before."""
    from ragcli.blocks.rst import read_rst

    text = (
        ".. versionchanged:: 14.0.0 Allow a :class:`dict`.\n\n"
        ".. versionadded:: 2.4\n   The *json* parameter.\n\n.. versionadded:: 3.0\n"
    )
    assert read_rst(text).blocks == [
        Paragraph("Changed in version 14.0.0: allow a `dict`."),
        Paragraph("New in version 2.4: the json parameter."),
        Paragraph("New in version 3.0."),
    ]


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


def test_a_myst_doc_link_reads_as_the_linked_pages_title(tmp_path):
    from ragcli.ingest.loaders import load

    (tmp_path / "conf.py").write_text("")
    (tmp_path / "install.md").write_text("# Installing the tool\n\nSteps.\n")
    page = tmp_path / "index.md"
    page.write_text("# Home\n\nFirst read {doc}`install`, then {doc}`the guide <guide>`.\n")
    assert "First read Installing the tool, then the guide." in load(page).sections[0].text


def test_reading_rest_leaves_docutils_as_it_was():
    """Sphinx's roles and directives are known to docutils only during a read: after one,
    docutils' own lookups are back and know nothing of them (another user of docutils in
    the process sees docutils as it is)."""
    import io

    from docutils.frontend import get_default_settings
    from docutils.parsers.rst import Parser, directives, languages, roles
    from docutils.utils import new_document

    from ragcli.blocks.rst import read_rst

    role_lookup, directive_lookup = roles.role, directives.directive
    blocks = read_rst("T\n=\n\nSee :class:`~a.B`.\n\n.. versionadded:: 2.0\n   Added.\n").blocks
    assert Paragraph("See `B`.") in blocks
    assert (roles.role, directives.directive) == (role_lookup, directive_lookup)
    settings = get_default_settings(Parser)
    settings.report_level, settings.warning_stream = 5, io.StringIO()
    document = new_document("<other>", settings)
    english = languages.get_language("en")
    assert roles.role("class", english, 1, document.reporter)[0] is None
    assert directives.directive("versionadded", english, document)[0] is None
