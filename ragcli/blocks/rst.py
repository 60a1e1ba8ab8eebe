"""reStructuredText into blocks, by docutils: sections from the title adornments, literal
blocks after `::`, `code-block` and `code`, roles, substitutions, admonitions, tables,
definition and field lists.

Sphinx adds directives and roles docutils does not know (`.. autoclass::`, `:class:`,
`.. versionadded::`, `.. literalinclude::`). Docutils knows them for the length of a read
(docutils_scope.py), so they are read rather than reported: a role as its target's name
(`:class:`~requests.cookies.RequestsCookieJar`` reads `RequestsCookieJar`, as code), an
include or autodoc directive as an include block that names what it pulls in (the file is
never read), a version note as its text, any other directive as its content: code where
that is Python (`.. click:example::`), reST otherwise. Docutils' system messages are
neither printed nor kept."""

from __future__ import annotations

import ast
import io
import re
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path, PurePosixPath
from typing import Any

from ragcli.blocks.docutils_scope import Names, sphinx_names
from ragcli.blocks.includes import LANGUAGES
from ragcli.blocks.inline import code_span
from ragcli.blocks.markdown import read_markdown, with_paths
from ragcli.blocks.model import (
    Admonition,
    Block,
    CodeBlock,
    Document,
    Heading,
    ListItem,
    Paragraph,
    Table,
    include_text,
)
from ragcli.blocks.rst_lines import block_lines, title_starts
from ragcli.blocks.sphinx_names import (
    ADMONITION_NODES,
    AUTODOC,
    CODE_DIRECTIVES,
    INCLUDES,
    ONLY,
    PYTHON_DOMAIN_CLASS,
    SILENT,
    STYLE_CLASS,
    VALUED_OBJECTS,
    VERSIONS,
    described_target,
    info_field_term,
    role_text,
    shown_on_html,
    typed_target,
    version_and_words,
)
from ragcli.blocks.sphinx_pages import labelled_page, linked_page, page_head
from ragcli.text.sentences import continuing

ROLE_USE = re.compile(r"(?<![\w`]):((?:[A-Za-z][\w+.-]*:)?[A-Za-z][\w+.-]*):`")
# A role inside emphasis or strong text, which reST does not parse (inline markup does not
# nest): "**Never set :attr:`Request.body` directly!**" is one Text node.
NESTED_ROLE = re.compile(ROLE_USE.pattern + r"([^`]+)`")
# A substitution reference left unresolved (`|version|`, `|name|_`): its name is group 1.
SUBSTITUTION = re.compile(r"^\|([^|\s](?:[^|]*[^|\s])?)\|_{0,2}$")
# Directives whose argument is a title or a line in words, not a signature: sphinx-tabs'
# `.. tab:: ``netstat`` (Linux)`, sphinx-design's `.. tab-item::`, `.. card::`, and
# Sphinx's `.. centered:: LICENSE AGREEMENT`.
TITLED_CONTAINERS = frozenset(
    "tab group-tab tab-item dropdown card grid-item-card centered".split()
)
# Of those, the tabs: sphinx-tabs' and sphinx-design's.
TABS = frozenset({"tab", "group-tab", "tab-item"})
# docutils directives read as Sphinx means them, not as docutils does (blocks/sphinx_names.py).
REPLACED = (*CODE_DIRECTIVES, "include", PYTHON_DOMAIN_CLASS)
# A signature written over several lines, each but the last ending in a backslash.
CONTINUED_LINE = re.compile(r"\\[ \t]*\n")
# An option indented deeper than the directive's body (aiohttp's `.. method:: read()` over
# `      :async:`): docutils reads it as a line of the signature; Sphinx as an option.
OPTION_LINE = re.compile(r"^[ \t]+:[\w-]+:[^\n]*$", re.M)
# The longest line docutils reads: a section's worth (ingest/loaders/text.py's SECTION_CHARS).
LINE_LENGTH_LIMIT = 1 << 20


@dataclass
class RstDocument(Document):
    # Its block_lines leave out the blank lines around each block. It has a
    # `.. toctree::` (read as nothing: the pages it lists are read themselves).
    lists_pages: bool = False


def read_rst(text: str, source: str = "") -> RstDocument:
    """`text`'s blocks; `source`, the file it was read from, places the pages its `:doc:`
    and `:ref:` links name (sphinx_pages.py)."""
    from docutils.transforms import references

    document = _doctree(text, source)
    document.transformer.add_transform(references.Substitutions)
    document.transformer.apply_transforms()
    walker = _Walker()
    read = walker.blocks(document.children, 0)
    blocks = with_paths(read)  # the same blocks in order, headings given their paths
    lines = text.splitlines()  # as docutils splits them, whatever the line ends
    starts = title_starts(lines, walker.titles)
    first_lines: list[int | None] = []
    for before, block in zip(read, blocks, strict=True):
        if isinstance(block, Heading):
            first_lines.append(starts.pop(0) if starts else None)
        else:
            first_lines.append(walker.first_line(before))
    spans = block_lines(lines, blocks, first_lines)
    return RstDocument(blocks, {}, spans, bool(document.get("ragcli_toctree")))


def _doctree(text: str, source: str = "") -> Any:
    """`text` parsed by docutils, which knows Sphinx's roles and directives for the length
    of the parse (docutils_scope.py); no transform applied yet."""
    from docutils.parsers.rst import Parser
    from docutils.utils import new_document

    document = new_document(source or "<rst>", _settings())
    with sphinx_names(SPHINX):
        Parser().parse(text, document)
    return document


@lru_cache(maxsize=1)
def _settings() -> Any:
    from docutils.frontend import get_default_settings
    from docutils.parsers.rst import Parser

    settings = get_default_settings(Parser)
    settings.report_level = 5  # no system message is printed ...
    settings.halt_level = 5  # ... nor raised
    settings.warning_stream = io.StringIO()
    settings.file_insertion_enabled = False  # `.. include::` never reads a file
    # A longer line is an error that drops its paragraph, unread (docutils' default is
    # 10,000 characters). Docutils parses a paragraph's inline markup as one text, so one
    # long line costs what the same paragraph over many lines does.
    settings.line_length_limit = LINE_LENGTH_LIMIT
    # Raw HTML is parsed so that a substitution defined with it (`.. |br| raw:: html`) is
    # known, and then left out; with file insertion off, `:file:` and `:url:` read nothing.
    settings.raw_enabled = True
    settings.syntax_highlight = "none"  # no Pygments tokens in code
    return settings


def _replacing(name: str) -> type | None:
    """A directive read as Sphinx means it where docutils has its own: `include` (docutils'
    would read the file, or with file insertion off give nothing; here the page says what
    it includes), the code directives, and `class`, Sphinx's documentation of a class
    (docutils' is a style class, Sphinx's `rst-class`: it refused `ClientSession(url)` as a
    style name and the class's whole body was lost)."""
    if name == STYLE_CLASS:
        from docutils.parsers.rst.directives.misc import Class

        return Class
    return _directive_class(name) if name in REPLACED else None


def _unknown_role(name: str) -> Any:
    return _role


def _role(
    name: str, rawtext: str, text: str, lineno: int, inliner: Any, options=None, content=None
):
    from docutils import nodes

    shown = role_text(name, text)
    if shown.code:
        return [nodes.literal(rawtext, shown.text)], []
    if shown.target:  # an untitled :doc: or :ref: shows what it links to
        is_doc = name.lower().endswith("doc")
        source = inliner.document.get("source", "")
        return [nodes.Text(linked_title(is_doc, shown.target, source) or shown.text)], []
    return [nodes.Text(shown.text)], []


def linked_title(is_doc: bool, target: str, source: str) -> str:
    """The title Sphinx shows for an untitled `:doc:` (the page's) or `:ref:` (the labelled
    section's); "" when the page is not found or cannot be read."""
    try:
        if is_doc:
            page = linked_page(target, source)
            return (page and _page_title(page, page.stat().st_mtime_ns)) or ""
        page = labelled_page(target, source)
        titles = _section_titles(page, page.stat().st_mtime_ns) if page else {}
        return titles.get(target.strip().lower(), "")
    except OSError:  # removed or unreadable since it was found: the link reads as written
        return ""


@lru_cache(maxsize=1024)
def _page_title(page: Path, mtime_ns: int) -> str | None:  # mtime: a changed page is read again
    """The first title of a page a `:doc:` link names."""
    head = page_head(page)
    # Read with no source: the links in the page's head stay as written.
    blocks = read_markdown(head).blocks if page.suffix == ".md" else read_rst(head).blocks
    return next((b.title for b in blocks if isinstance(b, Heading) and b.title), None)


@lru_cache(maxsize=256)
def _section_titles(page: Path, mtime_ns: int) -> dict[str, str]:
    """Each label of `page` (lower-cased) that stands before a section: the section's title."""
    from docutils import nodes

    # No source: the page's own links are not followed.
    document = _doctree(page.read_text(encoding="utf-8", errors="replace"))
    titles: dict[str, str] = {}
    for target in document.findall(nodes.target):
        if target.get("refuri") or not target.get("names"):
            continue  # a link's URL, or an anonymous target
        section = target.next_node(nodes.section, include_self=False, descend=True, ascend=True)
        if section is not None and section.children and isinstance(section[0], nodes.title):
            for name in target["names"]:
                titles.setdefault(name.lower(), section[0].astext())
    return titles


# Python statements that do something: a body holding one is code, not a list of names.
DOING = (
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.ClassDef,
    ast.Import,
    ast.ImportFrom,
    ast.Assign,
    ast.AnnAssign,
    ast.AugAssign,
    ast.Call,
)


def embedded_rest(text: str) -> list[Block]:
    """The blocks of reST inside a Markdown page (MyST's `{eval-rst}`), without titles:
    one there cannot open a section of the page around it."""
    return [block for block in read_rst(text).blocks if not isinstance(block, Heading)]


def _code_language(content: Any) -> str:
    """The language of a directive's body: pycon for a Python session, python for Python
    source that does something (a definition, an import, an assignment, a call), "" for
    reST text. Read as reST, an extension's example (`.. click:example::`) was one long
    sentence of code ("@click.command() @click.option(…) def hello(name):")."""
    text = "\n".join(content).strip()
    if text.startswith(">>> "):
        return "pycon"
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):  # prose, or reST markup
        return ""
    return "python" if any(isinstance(node, DOING) for node in ast.walk(tree)) else ""


class _AnyOption(dict):
    """A directive's option spec that takes any option as text (Sphinx's `:emphasize-lines:`,
    `:members:`): docutils refuses options its own directives do not declare."""

    def __bool__(self) -> bool:
        return True

    def __missing__(self, key: str) -> Any:
        from docutils.parsers.rst import directives

        return directives.unchanged


@cache  # one class per name, as a registration made it
def _directive_class(name: str) -> type:
    from docutils import nodes
    from docutils.parsers.rst import Directive

    class Tolerated(Directive):
        """A directive docutils lacks (or whose Sphinx options it refuses)."""

        required_arguments = 0
        optional_arguments = 1
        final_argument_whitespace = True
        has_content = True
        option_spec: dict[str, Any] = _AnyOption()

        def run(self) -> list[Any]:
            found = self.read()
            for node in found:  # cited from the directive's line, not the line after it
                if node.line is None:
                    node.line = self.lineno
            return found

        def read(self) -> list[Any]:
            argument = self.arguments[0].strip() if self.arguments else ""
            if self.name in CODE_DIRECTIVES:
                block = nodes.literal_block("", "\n".join(self.content))
                block["language"] = argument.split()[0].lower() if argument else ""
                return [block]
            if self.name == "include" and argument.startswith("<") and argument.endswith(">"):
                return self._standard_definitions(argument[1:-1])
            if self.name == "include" and not {"code", "literal"} & set(self.options):
                # docutils' `.. include::` pulls in reST text unless told it is code.
                return [_include_node(argument, "rst", api=False, text=True)]
            if self.name in INCLUDES:
                language = self.options.get("language") or self.options.get("code") or ""
                language = language or LANGUAGES.get(PurePosixPath(argument).suffix.lower(), "")
                return [_include_node(argument, str(language), api=False)]
            if AUTODOC.match(self.name):
                if not self.name.startswith("auto"):  # `module` only sets the module
                    return []
                return [_include_node(argument.split("(")[0].strip(), "", api=True)]
            if self.name == ONLY and not shown_on_html(argument):
                return []
            if self.name in SILENT:
                if self.name == "toctree":
                    self.state.document["ragcli_toctree"] = True
                return []
            found: list[Any] = []
            if self.name in VERSIONS:
                # One sentence, so that a quote of it holds the version.
                version, said = version_and_words(argument)
                said = continuing(said)
                inline, _ = self.state.inline_text(said, self.lineno)
                words = f"{VERSIONS[self.name]} {version}" + (": " if said else ".")
                found.append(nodes.paragraph("", "", nodes.Text(words), *inline))
            elif self.name in ADMONITION_NODES:
                box = nodes.admonition()
                box["classes"] = [self.name]
                self.state.nested_parse(self.content, self.content_offset, box)
                return [box]
            elif self.name == ONLY:
                pass  # its argument is the builders it is for
            elif argument and self.name in TITLED_CONTAINERS:
                title, _ = self.state.inline_text(" ".join(argument.split()), self.lineno)
                found.append(nodes.paragraph("", "", *title))
            elif argument:  # a domain directive's signature: `.. function:: get(url)`
                signature = CONTINUED_LINE.sub("", OPTION_LINE.sub("", argument))
                signature = " ".join(signature.split()) + self._annotation()
                found.append(nodes.paragraph("", "", nodes.literal(signature, signature)))
            language = _code_language(self.content)
            if language:  # an extension's example (`.. click:example::`, `.. doctest::`)
                block = nodes.literal_block("", "\n".join(self.content))
                block["language"] = language
                return [*found, block]
            container = nodes.container()
            self.state.nested_parse(self.content, self.content_offset, container)
            body = list(container.children)
            if self.name in TABS and body and isinstance(body[0], nodes.literal_block):
                # A tab of code ("Sync", "Bash") is one alternative of an example: read as
                # Markdown's content tabs are, its code right after the lead-in before it.
                found = [n for n in found if not isinstance(n, nodes.paragraph)]
            return found + body

        def _annotation(self) -> str:
            """An attribute's `:type: int` and `:value: 300` options, as Sphinx shows them
            after its name ("timeout: int = 300"); other directives' options say nothing."""
            if self.name.removeprefix("py:") not in VALUED_OBJECTS:
                return ""
            kind = " ".join(str(self.options.get("type") or "").split())
            value = " ".join(str(self.options.get("value") or "").split())
            return (f": {kind}" if kind else "") + (f" = {value}" if value else "")

        def _standard_definitions(self, name: str) -> list[Any]:
            """`.. include:: <isonum.txt>`: one of the substitution sets docutils ships
            (|copy| is ©), read from docutils itself, never from the user's files."""
            from docutils.parsers.rst.directives.misc import Include

            folder = Path(Include.standard_include_path)  # where docutils keeps them
            path = folder / name
            if path.parent != folder or not path.is_file():
                return []  # not a standard set: nothing to say
            lines = path.read_text(encoding="utf-8").splitlines()
            self.state_machine.insert_input(lines, str(path))
            return []

    Tolerated.__name__ = "Tolerated_" + re.sub(r"\W", "_", name)
    return Tolerated


def _include_node(target: str, language: str, api: bool, text: bool = False) -> Any:
    from docutils import nodes

    block = nodes.literal_block("", include_text(target, api, text))
    block["language"] = language
    block["ragcli_include"] = target
    return block


class _Walker:
    """The doctree's body elements into blocks."""

    def __init__(self) -> None:
        self.titles: list[str] = []  # each section title's source, in order
        # id of a block: the block (kept, so that no later block takes its id) and the
        # first line (1-based) of the node it was read from.
        self.first_lines: dict[int, tuple[Block, int]] = {}

    def blocks(self, children: Any, depth: int, level: int = 0) -> list[Block]:
        found: list[Block] = []
        for node in children:
            read = self.block(node, depth, level)
            self.mark(read, node)
            found.extend(read)
        return found

    def mark(self, blocks: list[Block], node: Any) -> None:
        """`blocks` were read from `node`: each has its first line, unless a node inside it
        gave one already (a list's items each have their own)."""
        line = next((n.line for n in node.findall(include_self=True) if n.line), None)
        if line is not None:
            for block in blocks:
                self.first_lines.setdefault(id(block), (block, line))

    def first_line(self, block: Block) -> int | None:
        found = self.first_lines.get(id(block))
        return found[1] if found is not None else None

    def block(self, node: Any, depth: int, level: int) -> list[Block]:
        from docutils import nodes

        if isinstance(node, nodes.section):
            title = node.next_node(nodes.title)
            self.titles.append(title.rawsource if title is not None else "")
            heading = Heading(level + 1, _inline(title) if title is not None else "", ())
            body = [child for child in node.children if not isinstance(child, nodes.title)]
            return [heading, *self.blocks(body, depth, level + 1)]
        if isinstance(node, nodes.paragraph | nodes.line_block | nodes.rubric):
            # A line block (`| line`) keeps its lines apart: an address, a verse.
            text = "\n".join(_lines(node)) if isinstance(node, nodes.line_block) else _inline(node)
            if isinstance(node, nodes.paragraph) and node.rawsource.rstrip().endswith("::"):
                text = _leading_in(text)
            return [Paragraph(text)] if text.strip() else []
        if isinstance(node, nodes.literal_block | nodes.doctest_block):
            return [_code(node)]
        if isinstance(node, nodes.bullet_list | nodes.enumerated_list):
            return self.items(node, depth, level)
        if isinstance(node, nodes.definition_list):
            return self.definitions(node, depth, level)
        if isinstance(node, nodes.field_list | nodes.docinfo):
            return self.fields(node, depth, level)
        if isinstance(node, nodes.option_list):
            return self.options(node, depth, level)
        if isinstance(node, nodes.table):
            return [_table(node)]
        if isinstance(node, nodes.Admonition):
            return [self.admonition(node, depth, level)]
        if isinstance(
            node,
            nodes.comment
            | nodes.system_message
            | nodes.target
            | nodes.substitution_definition
            | nodes.transition
            | nodes.raw
            | nodes.image
            | nodes.footnote
            | nodes.citation
            | nodes.pending,
        ):
            return []
        if isinstance(node, nodes.title | nodes.subtitle):
            text = _inline(node)
            return [Paragraph(text)] if text else []
        if isinstance(node, nodes.Text):
            text = str(node).strip()
            return [Paragraph(text)] if text else []
        return self.blocks(node.children, depth, level)  # quotes, containers, topics

    def items(self, node: Any, depth: int, level: int) -> list[Block]:
        from docutils import nodes

        found: list[Block] = []
        ordered = isinstance(node, nodes.enumerated_list)
        start = int(node.get("start", 1))
        for number, item in enumerate(node.children, start=start):
            marker = f"{number}." if ordered else "-"
            found.extend(self.item(item, item.children, marker, depth, level))
        return found

    def item(
        self, node: Any, children: Any, marker: str, depth: int, level: int, term: str = ""
    ) -> list[Block]:
        """The item `node` of a list (of bullets, definitions, fields or options), read
        from its `children`: each item is cited from its own line."""
        inner = self.blocks(children, depth + 1, level)
        texts: list[str] = [term] if term else []
        rest: list[Block] = []
        for block in inner:
            if isinstance(block, Paragraph) and not rest:
                texts.append(" ".join(block.text.split()))
            else:
                rest.append(block)
        if term and len(texts) > 1:
            texts = [f"{term}: {' '.join(texts[1:])}"]
        text = " ".join(texts)
        found = ([ListItem(text, marker, depth)] if text else []) + rest
        self.mark(found, node)
        return found

    def definitions(self, node: Any, depth: int, level: int) -> list[Block]:
        from docutils import nodes

        found: list[Block] = []
        for item in node.children:
            term = " ".join(_inline(t) for t in item.children if isinstance(t, nodes.term))
            body = [c for c in item.children if isinstance(c, nodes.definition)]
            children = [grand for d in body for grand in d.children]
            found.extend(self.item(item, children, "-", depth, level, term))
        return found

    def fields(self, node: Any, depth: int, level: int) -> list[Block]:
        from docutils import nodes

        found: list[Block] = []
        named = [item for item in node.children if isinstance(item, nodes.field)]
        parameters = {described_target(item[0].astext()) for item in named}
        # A `:type port: int` field is shown in its parameter's, when the list has it.
        types = {
            target: " ".join(_inline(item[1]).split())
            for item in named
            if (target := typed_target(item[0].astext())) and target in parameters
        }
        for item in node.children:
            if not isinstance(item, nodes.field):
                text = _inline(item)  # docinfo's own fields (author, version)
                if text:
                    found.append(ListItem(f"{item.tagname}: {text}", "-", depth))
                continue
            written = item[0].astext()
            if typed_target(written) in types:
                continue
            name = info_field_term(written, types) or " ".join(_inline(item[0]).split())
            found.extend(self.item(item, item[1].children, "-", depth, level, name))
        return found

    def options(self, node: Any, depth: int, level: int) -> list[Block]:
        found: list[Block] = []
        for item in node.children:
            group, description = item.children[0], item.children[-1]
            name = ", ".join(option.astext() for option in group.children)
            found.extend(self.item(item, description.children, "-", depth, level, f"`{name}`"))
        return found

    def admonition(self, node: Any, depth: int, level: int) -> Admonition:
        from docutils import nodes

        classes = [c for c in node.get("classes", []) if not c.startswith("admonition")]
        kind = node.tagname if node.tagname != "admonition" else (classes[0] if classes else "note")
        title_node = node.next_node(nodes.title) if node.children else None
        title = ""
        if title_node is not None and title_node.parent is node:
            title = _inline(title_node)
        body = [c for c in node.children if not isinstance(c, nodes.title)]
        return Admonition(kind.lower(), title, tuple(self.blocks(body, depth, level)))


def _leading_in(text: str) -> str:
    """A paragraph ending in `::` introduces the literal block after it, whichever of the
    three forms it takes: docutils renders `this::` as "this:", but `it ends. ::` as "it
    ends.", which reads as a sentence of its own. It ends in a colon here, as a lead-in
    does in every format, so the answer quotes it with its code."""
    text = text.rstrip()
    return text if not text or text.endswith(":") else text.rstrip(".") + ":"


def _code(node: Any) -> CodeBlock:
    from docutils import nodes

    include = node.get("ragcli_include")
    language = node.get("language") or ""
    classes = node.get("classes", [])
    if not language and "code" in classes:  # docutils' `.. code:: python`: ["code", "python"]
        language = next((c for c in classes if c not in ("code", "literal-block")), "")
    if isinstance(node, nodes.doctest_block):
        language = "pycon"
    return CodeBlock(str(language).lower(), node.astext().rstrip("\n"), include)


def _lines(block: Any) -> list[str]:
    """A line block's lines, those of the blocks nested in it included."""
    from docutils import nodes

    found: list[str] = []
    for child in block.children:
        if isinstance(child, nodes.line_block):
            found.extend(_lines(child))
        elif text := _inline(child):
            found.append(text)
    return found


def _inline(node: Any) -> str:
    """A text element's text: literals as code spans, references as their text."""
    from docutils import nodes

    parts: list[str] = []
    dropped = False  # the element before was left out (a footnote mark, raw HTML)
    emphasised = isinstance(node, nodes.emphasis | nodes.strong)
    for child in node.children:
        if isinstance(child, nodes.Text):
            text = NESTED_ROLE.sub(_nested_role, str(child)) if emphasised else str(child)
            if dropped and parts and (text[:1].isspace() or text[:1] in ".,;:!?)"):
                parts[-1] = parts[-1].rstrip(" ")  # "citation [1]_." reads "citation."
            parts.append(text)
        elif isinstance(child, nodes.literal):
            parts.append(code_span(child.astext()))
        elif isinstance(child, nodes.title_reference):
            parts.append(code_span(child.astext()))
        elif isinstance(
            child,
            nodes.footnote_reference
            | nodes.citation_reference
            | nodes.image
            | nodes.system_message
            | nodes.target
            | nodes.raw,
        ):
            if isinstance(child, nodes.target) and child.children:
                parts.append(_inline(child))
            else:
                dropped = True
                continue
        elif isinstance(child, nodes.problematic):
            # A substitution defined outside the file (Sphinx's |version|, a conf.py
            # rst_epilog) reads as its name; any other problem as it was written.
            parts.append(SUBSTITUTION.sub(r"\1", child.astext()))
        elif isinstance(child, nodes.Element):
            parts.append(_inline(child))
        dropped = False
    return "".join(parts).strip()


def _nested_role(match: re.Match[str]) -> str:
    shown = role_text(match.group(1), match.group(2))
    return code_span(shown.text) if shown.code else shown.text


def _table(node: Any) -> Table:
    from docutils import nodes

    header: tuple[str, ...] = ()
    rows: list[tuple[str, ...]] = []
    for part in node.findall(lambda n: isinstance(n, nodes.thead | nodes.tbody)):
        for row in part.children:
            cells = tuple(
                " ".join(" ".join(_inline(p) for p in entry.children).split())
                for entry in row.children
            )
            if isinstance(part, nodes.thead) and not header:
                header = cells
            else:
                rows.append(cells)
    if not header and rows:
        header, rows = rows[0], rows[1:]
    return Table(header, tuple(rows))


# What a read knows beyond docutils (docutils_scope.py): Sphinx's directives in place of
# docutils' own, and any role or directive docutils lacks read as Sphinx's.
SPHINX = Names(_replacing, _unknown_role, lambda name: _directive_class(name))
