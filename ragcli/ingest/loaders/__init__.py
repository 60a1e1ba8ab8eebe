"""Loaders turn a file into sections of text, each with the locator a citation shows: a
page of a PDF, a slide, a sheet's rows, a notebook cell, a heading's section, a range of
lines. A file that cannot be read raises LoadError with a one-line reason.

One module per format family; this one maps suffixes to them (the walker yields every
file, the runner asks `file_type_of` which it can read). A family's module, and its
library, is imported only when a file of that family is met, so ingesting text files
costs no Office or OCR import."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ragcli.ingest.loaders.base import (
    LoadedFile,
    LoadError,
    LoadOptions,
    NothingOfItsOwn,
    Section,
    lines_locator,
)
from ragcli.ingest.loaders.encoding import read_text
from ragcli.ingest.loaders.text import iter_sections
from ragcli.ingest.maildir import in_maildir
from ragcli.metadata import clean

__all__ = [
    "FORMATS",
    "LoadError",
    "LoadOptions",
    "LoadedFile",
    "NothingOfItsOwn",
    "Section",
    "configure",
    "current_options",
    "file_type_of",
    "iter_sections",
    "lines_locator",
    "load",
    "read_text",
    "reading_of",
]


@dataclass(frozen=True)
class Format:
    file_type: str  # as the manifest and `ragcli sources` show it
    loader: str  # "module:function" in this package, imported on first use


def _formats() -> dict[str, Format]:
    from ragcli.ingest.loaders.code import LANGUAGES

    table = {
        ".txt": Format("txt", "text:load_text"),
        ".text": Format("txt", "text:load_text"),
        ".md": Format("md", "text:load_text"),
        ".markdown": Format("md", "text:load_text"),
        ".mdx": Format("mdx", "text:load_text"),
        ".rst": Format("rst", "text:load_text"),
        ".rest": Format("rst", "text:load_text"),
        ".html": Format("html", "markup:load_html"),
        ".htm": Format("html", "markup:load_html"),
        ".xhtml": Format("html", "markup:load_html"),
        ".pdf": Format("pdf", "pdf:load_pdf"),
        ".docx": Format("docx", "word:load_docx"),
        ".pptx": Format("pptx", "slides:load_pptx"),
        ".xlsx": Format("xlsx", "sheets:load_workbook"),
        ".xlsm": Format("xlsx", "sheets:load_workbook"),
        ".xls": Format("xls", "sheets:load_workbook"),
        ".ods": Format("ods", "sheets:load_workbook"),
        ".csv": Format("csv", "sheets:load_delimited"),
        ".tsv": Format("tsv", "sheets:load_delimited"),
        ".epub": Format("epub", "ebook:load_epub"),
        ".ipynb": Format("ipynb", "notebook:load_notebook"),
        ".rtf": Format("rtf", "richtext:load_rtf"),
        ".odt": Format("odt", "richtext:load_odt"),
        ".adoc": Format("adoc", "asciidoc:load_asciidoc"),
        ".asciidoc": Format("adoc", "asciidoc:load_asciidoc"),
        ".org": Format("org", "org:load_org"),
        ".eml": Format("eml", "mail:load_eml"),
        ".mbox": Format("mbox", "mail:load_mbox"),
        # Legacy binary Office formats: named, so they are refused with a reason.
        ".doc": Format("doc", "legacy"),
        ".ppt": Format("ppt", "legacy"),
        ".msg": Format("msg", "legacy"),
    }
    for suffix in (".png", ".jpg", ".jpeg", ".tif", ".tiff", ".webp", ".bmp", ".gif"):
        table[suffix] = Format("image", "ocr:load_image")
    for suffix, language in LANGUAGES.items():
        table.setdefault(suffix, Format(language, "code:load_code"))
    return table


FORMATS = _formats()
# The version of the reading of each file type whose reading changed since the first: a
# file stored with an older one is read again by the next ingest (store/manifest.py).
# 2: Markdown, reST and HTML read into blocks (ragcli/blocks/) by the parser made for each.
# 3: one reference per code example in a section (blocks/examples.py).
# 4 (reST): a paragraph ending in `::` ends in a colon, as the lead-in to its code it is;
#   a tab's title (sphinx-tabs, sphinx-design) is words, a `code-tab` code.
#   (Markdown): an MkDocs admonition ends where its indent does, not at two blank lines.
# 5 (reST): a substitution defined outside the file reads as its name (|version| is
#   "version"), one defined as raw HTML as nothing; :rfc: and :pep: read "RFC 7230"; a
#   line block keeps its lines apart.
# 6 (reST): an untitled `:doc:` link reads as the linked page's title, as Sphinx shows it
#   ("Command Line Interface", not "/cli"); an untitled `:ref:` as its section's title.
# 7 (reST): `.. include::` reads as a block naming the file ("text included from
#   ../CHANGES.rst"), so a page that only includes another is no longer empty; one of
#   docutils' own substitution sets (`<isonum.txt>`) is read, so |copy| reads ©.
# 8 (reST): a paragraph on a line over 10,000 characters is read, not dropped;
#   `.. automodule::` is a reference to its module; a `:data:` role is read after a page
#   with a `data` directive; a page that is only a toctree is skipped, not failed.
# 9 (reST): a chunk is cited by its own lines, not its section's; a section's lines start
#   at its title.
# 10 (reST): a role inside emphasis or strong text reads as the role does
#   (**Never set :attr:`Request.body` directly!**), not as it was written; each part of a
#   code block cut in several is cited by its own lines.
# 11 (reST): a directive docutils lacks whose body is Python (`.. click:example::`) or a
#   Python session (`.. doctest::`) is a code block, not a sentence.
# 12 (reST): a version note's words on the directive's line (`.. versionchanged:: 14.0.0
#   Allow …`) are its sentence, as MyST's are (blocks/sphinx_names.py version_and_words).
# Markdown 5: MyST's roles ({func}`attrs.define`) and directive fences (:::{warning},
#   ```{include} x```) read as their reST twins do.
# Markdown 6: a section and a chunk are cited by their lines in the file, as reST's are;
#   a code block by its code's lines, each part of one cut in several by its own.
# Markdown 7: a MyST page's line comments (`% …`) and block breaks (`+++`) are not text.
# Markdown 8: a footnote's mark (`text[^1]`) is no text, and its definition reads as a
#   paragraph where it is written; a MyST `{eval-rst}` fence's body is read as reST, a
#   `{glossary}` as terms with their definitions, and a version note's words after its
#   version (`:::{versionchanged} 14.0 Return a {any}`dict`.`) as its sentence.
# reST 13 and Markdown 9 (a MyST `{eval-rst}` body): `.. class:: Session(url)` is Sphinx's,
#   a class's signature and its body (docutils' refused the signature and dropped the body,
#   18% of aiohttp's pages' text); `.. rst-class::` is docutils' style class and reads as
#   nothing; a signature continued over lines with `\` reads as one line, an attribute's
#   `:type:` and `:value:` after its name; an info field as Sphinx shows it
#   (`:param int port: …` reads "`port` (int): …"); `.. only::` shows its body when its
#   builder tags hold for HTML, `.. hlist::` its list and `.. centered::` its line (all three
#   read as nothing), in MyST as in reST.
# HTML 4 and EPUB 3: lxml builds the tree, so an `<li>` or `<p>` whose end tag is left out
#   ends at the next one, as in a browser (html.parser nested it in the one before).
# Markdown 10, reST 14, HTML 5, notebooks 3, EPUB 4: a chunk that ends with a lead-in
#   ("… like this:") whose code the window cut into the next chunk stores that code
#   (ChunkMetadata.continues), which an answer quoting the lead-in shows after it.
# reST 15: a tab whose body opens with code (sphinx-tabs' `.. tab:: Sync`, sphinx-design's
#   `.. tab-item::`) reads without its title, as a Markdown content tab does, so the
#   lead-in before the tabs brings their code.
# PDF 2: a table drawn with ruling lines is read as rows (`page 4, table 2, row 7`), its
#   words no longer also the page's loose text (loaders/pdf_tables.py).
# AsciiDoc, Org, e-mail (.eml, .mbox, Maildir): read from their first version, 1.
# Markdown 11: a code span's brackets are kept (`grid[0][1]` had read `grid0` where an
#   unresolved reference link was rewritten over the rendered text); a chunk cut inside a
#   nested list writes its items from the margin (it read as an indented code block).
# docx 2, pptx 2, PDF 3: the document's properties (title, author, keywords, dates …) are
#   stored with every chunk, for `--meta` filters; a Word or PDF title the text does not
#   say opens its first chunk.
# Markdown 12: front matter's title and description are the page's text, its other keys
#   the file's metadata (YAML, TOML and JSON); Docusaurus, Nextra and Starlight admonitions
#   (`:::tip[Title]`), MDX's ESM, JSX and expressions, Hugo's shortcodes; a MyST `{doc}`
#   reads as the page's title; a list nested deeper than markdown-it reads is read at that
#   depth, not dropped. MDX (`.mdx`) is read from its first version so.
# Markdown 13: a Hugo shortcode without a body reads as its `text` argument (Doks'
#   `{{< alert text="…" />}}`), where it had read as no text; a quoted argument's
#   backslash escapes are read as Go reads them (`\"` is a quote).
# Markdown 14: an attribute list on emphasis (`**`css_class`**{ #css_class }`, Python-
#   Markdown's attr_list) is not text.
# HTML 6: a page that marks its main content (`<main>`, `role="main"`, one `<article>`)
#   is read from it alone, not its sidebars, banners and footer (a Sphinx page's
#   "Navigation" bar and "Quick search"); `role="navigation"` and `role="search"` are
#   left out as `<nav>` is, and a heading's permalink (`¶`) is no part of its title.
# reST 16 and Markdown 15 (MyST): a role the site defines (`:setting:`broker_url``) reads
#   as code when its target is a name, as Sphinx shows a cross-reference; extlinks'
#   (`:issue:`123``) and words stay words.
# Markdown 16 and reST 17: a MyST `{currentmodule}` or `{module}` fence, and one of a
#   directive not known here with no body, reads as nothing (it read as an empty code
#   block); a version note's words keep an acronym's case ("Changed in version 26.2:
#   PEP 695 …", where it read "pEP 695").
# HTML 7 (and Markdown 17, EPUB 5, e-mail 2, which read HTML the same way): a table whose
#   first row names its columns (`<th>`) reads as rows though its cells hold paragraphs (Sphinx
#   writes each cell as a `<p>`: its tables had read as loose paragraphs, a cell each,
#   `%j` apart from "Day of the year …"); a cell's code spans are kept.
READINGS = {
    "md": 17,
    "mdx": 1,
    "rst": 17,
    "html": 7,
    "eml": 2,
    "mbox": 2,
    "ipynb": 3,
    "epub": 5,
    "pdf": 3,
    "docx": 2,
    "pptx": 2,
}


def reading_of(file_type: str) -> int:
    """The version of the reading files of this type get now."""
    return READINGS.get(file_type, 1)


LEGACY = {
    "doc": "legacy Word 97-2003 .doc is not read (save it as .docx)",
    "ppt": "legacy PowerPoint 97-2003 .ppt is not read (save it as .pptx)",
    "msg": "Outlook .msg is not read (save the message as .eml, or export the folder as mbox)",
}

# Set once per process by the service layer from config.yaml (`ingest.ocr`,
# `ingest.ocr_languages`): the runner calls `load(path)` without them.
_options = LoadOptions()


def configure(options: LoadOptions) -> None:
    global _options
    _options = options


def current_options() -> LoadOptions:
    """What `configure` set, for worker processes that parse (ingest/parse_pool.py)."""
    return _options


# A Maildir's message files have no suffix of their own (`1700000000.M1P2.host:2,S`):
# each file in its cur/ or new/ is read as a message (its tmp/ holds deliveries in
# progress, which the walker passes over).
MAILDIR_MESSAGE = Format("eml", "mail:load_eml")


def format_of(path: Path) -> Format | None:
    if in_maildir(path):
        return MAILDIR_MESSAGE
    return FORMATS.get(path.suffix.lower())


def file_type_of(path: Path) -> str | None:
    found = format_of(path)
    return found.file_type if found else None


def load(path: Path, options: LoadOptions | None = None) -> LoadedFile:
    found = format_of(path)
    if found is None:
        raise LoadError(f"unsupported file type {path.suffix or '(none)'}")
    if found.loader == "legacy":
        raise LoadError(LEGACY[found.file_type])
    options = options or _options
    if path.stat().st_size == 0:  # whatever its type: nothing to read, nothing wrong
        raise NothingOfItsOwn("empty file")
    module_name, function_name = found.loader.split(":")
    module = importlib.import_module(f"ragcli.ingest.loaders.{module_name}")
    function: Callable[..., LoadedFile] = getattr(module, function_name)
    try:
        if module_name in ("pdf", "ocr"):
            from ragcli.ingest.prefetch import stopping

            loaded = function(path, options, stopping)
        elif module_name in ("text", "sheets"):
            loaded = function(path, found.file_type)
        else:
            loaded = function(path)
    except RecursionError:
        # docutils goes a level deeper in Python's stack for each nested block: a few
        # hundred levels of quotes exhaust it. (HTML is read flat below 100 levels.)
        raise LoadError("nested too deeply to read (hundreds of levels)") from None
    loaded.sections = [s for s in loaded.sections if s.text.strip()]
    if not loaded.sections:
        raise _nothing_read(loaded)
    loaded.metadata = clean(loaded.metadata)
    for section in loaded.sections:  # a section's key wins over its file's
        section.metadata = {**loaded.metadata, **clean(section.metadata)}
    return loaded


def _nothing_read(loaded: LoadedFile) -> LoadError:
    """Why a file gave no text. A file whose text could not be reached (a scan with OCR
    off) failed; one read whole that holds none (only markup, a blank scan OCR found empty)
    is skipped, with the loader's last note when it says more ("OCR found no text")."""
    from ragcli.ingest.loaders.pdf import NO_TEXT_LAYER

    if NO_TEXT_LAYER in loaded.notes:
        return LoadError(NO_TEXT_LAYER)
    if loaded.notes and loaded.file_type in ("pdf", "image", "eml", "mbox"):
        return NothingOfItsOwn(loaded.notes[-1])
    return NothingOfItsOwn("no text")
