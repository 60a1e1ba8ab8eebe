"""reStructuredText by docutils, with Sphinx's roles and directives, and MyST Markdown's
roles and directives read as their reST twins (ragcli/blocks/rst.py): into the same
blocks as Markdown and HTML."""

from __future__ import annotations

import pytest

from ragcli.blocks.markdown import read_markdown
from ragcli.blocks.model import (
    Admonition,
    CodeBlock,
    Heading,
    ListItem,
    Paragraph,
)

# ../shared/eval/docs beside the checkout (or a git worktree's ancestor).

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
