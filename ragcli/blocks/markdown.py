"""Markdown into blocks, from the token stream of markdown-it-py (CommonMark) and the rules
markdown_rules.py adds for what documentation sites write: MkDocs, pymdownx, MyST,
Docusaurus, Nextra and Starlight admonitions, GitHub callouts (a quote opening with
`[!NOTE]`), MDX (mdx.py), Hugo's shortcodes (hugo.py), front matter (front_matter.py). The
parser, not a regular expression, decides what is a heading, a list, a code block or a
table. Include directives (includes.py) become include blocks; HTML inside Markdown is
read by the HTML reader (html.py).

What a page holds that is not its text is left out on purpose: front matter's keys other
than title and description (metadata), link and image targets, HTML tags and comments,
attribute lists, footnote marks, MyST comments and targets, a directive's options,
template tags and shortcode calls, MDX's ESM and `{…}` expressions; a site's include
directive becomes a reference to what it includes.

The chunker's text is normalised Markdown (render.py) read back by this same reader, with
`indented_code=False`: ragcli writes code fenced, and text of other formats read at
question time (a PDF's, a Word document's) has indented lines that are not code."""

from __future__ import annotations

import re
import textwrap
from collections.abc import Callable, Iterable, Iterator
from contextvars import ContextVar
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Any

from ragcli.blocks import hugo, mdx
from ragcli.blocks.front_matter import FrontMatter, Metadata, read_front_matter
from ragcli.blocks.includes import LANGUAGES, Include, include_of, includes_in
from ragcli.blocks.inline import INLINE_ATTRIBUTES, block_text, code_span, heading_title
from ragcli.blocks.markdown_rules import parser
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
from ragcli.blocks.sphinx_names import (
    ADMONITION_NODES,
    AUTODOC,
    CODE_DIRECTIVES,
    INCLUDES,
    ONLY,
    SILENT,
    VERSIONS,
    role_text,
    shown_on_html,
    version_and_words,
)
from ragcli.text.sentences import continuing

if TYPE_CHECKING:
    from markdown_it.token import Token

# A GitHub callout's first line: `[!NOTE]`, `[!WARNING] Title`.
CALLOUT = re.compile(r"^\[!([A-Za-z][\w-]*)\][ \t]*(.*)$")
# A MyST directive: a fence's info `{name} argument`, and the opening of a colon fence;
# a MyST target, `(label)=` alone on its line.
MYST_DIRECTIVE = re.compile(r"^\{([A-Za-z][\w:+-]*)\}\s*(.*)$", re.S)
MYST_TARGET = re.compile(r"\([\w.:-]+\)=")
# A MyST page (one writing a role, a directive fence or a target the MyST way) also has
# line comments (`% …`) and block breaks (`+++`); elsewhere a line that starts with `%`
# is text ("… 50\n% of users").
MYST_PAGE = re.compile(
    r"^\([\w.:-]+\)=[ \t]*$|^[ \t]*(?:`{3,}|:{3,})\{[\w:-]+\}"
    r"|(?<![\w}`:])\{[A-Za-z][\w:+-]*\}`[^`\n]+`",
    re.M,
)
# A directive's options: `:key: value` lines, or YAML between `---` lines, before its body.
MYST_OPTION = re.compile(r"^:[\w-]+:(?:\s.*)?$")
# MyST's directives are Sphinx's (sphinx_names.py), with MyST's own generic admonition,
# MyST-NB's code cell, and the table of contents MyST writes with `{contents}`.
MYST_ADMONITIONS = frozenset({*ADMONITION_NODES, *VERSIONS, "admonition"})
MYST_CODE = frozenset({*CODE_DIRECTIVES, "code-cell"})
MYST_SILENT = SILENT | {"contents"}
MYST_REST = frozenset({"eval-rst", "eval-rest"})
ReadRest = Callable[[str], list[Block]]
# The title of the page a MyST `{doc}` role links to, or of the section a `{ref}` names
# (blocks/rst.py's linked_title, bound to the page being read); "" when not found.
LinkTitle = Callable[[bool, str], str]
_link_title: ContextVar[LinkTitle | None] = ContextVar("link_title", default=None)
# pymdownx tabs hold alternatives of the same content (a Python 3.10+ version and a 3.7+
# one): their blocks are read in place, not as an admonition.
TRANSPARENT = frozenset({"tab", "html", "div"})
# An admonition that notes a version: pymdownx's `version-added`, `version-changed`,
# `deprecated-removed`.
VERSION_NOTE = re.compile(r"^(?:version|deprecated)[\w-]*$")
# A terminal transcript's colours, as MkDocs sites that animate it (termynal) write them:
# `<font color="#F92672"><b>Alert!</b></font>`. Its reader sees the colour, not the tag.
TRANSCRIPTS = frozenset({"console", "shell-session", "termynal"})
COLOUR_TAG = re.compile(r"</?(?:font|b|i|u|strong|em|span)(?:\s[^<>]*)?>")
# Tags and comments, to tell an HTML block that holds no text without parsing it.
TAG_OR_COMMENT = re.compile(r"<!--.*?(?:-->|$)|<[^<>]*>", re.S)
# A line's end as markdown-it reads it (its token maps count lines so).
LINE_BREAK = re.compile(r"\r\n?|\n")
# A streamed document's unfinished block is carried into the next piece up to this size.
MAX_CARRIED = 8 << 20
# Nesting markdown-it reads (markdown_rules.parser): deeper, it drops the rest of the page
# without a word. A line holding more quote or list markers than MAX_MARKERS, or a list
# item indented more than MAX_INDENT columns, is read at that depth instead.
MAX_MARKERS = 40
MAX_INDENT = 80
# One marker and the spaces after it (a marker is never a space: no two ways to match).
MARKER = r"(?:>|[-+*](?=[ \t])|\d{1,9}[.)](?=[ \t]))[ \t]*"
# Tried at line starts only (as DEEP_LINE is): unanchored, it cost 44 ms a megabyte.
DEEP_HINT = re.compile(
    rf"^[ \t]*(?:>[ \t]*|[-+*][ \t]+){{{MAX_MARKERS}}}|^[ \t]{{{MAX_INDENT + 1}}}", re.M
)
DEEP_LINE = re.compile(
    rf"^([ \t]*(?:{MARKER}){{{MAX_MARKERS}}})(?:{MARKER})+"
    rf"|^[ \t]{{{MAX_INDENT + 1},}}(?=(?:[-+*]|\d{{1,9}}[.)])[ \t])",
    re.M,
)


def read_markdown(
    text: str,
    indented_code: bool = True,
    lines: bool = False,
    rest: ReadRest | None = None,
    mdx_page: bool | None = None,
    link_title: LinkTitle | None = None,
) -> Document:
    """`text` as blocks; headings carry their path from the document's top. With `lines`,
    each block's lines in `text` too (Document.block_lines). `rest` reads the reST body of
    a MyST `{eval-rst}` fence (blocks/rst.py's embedded_rest; without it the fence is
    code), and `link_title` names the page an untitled MyST `{doc}` links to: the reST
    reader reads Markdown pages' titles, so this module does not import it. `mdx_page`:
    read as MDX (a `.mdx` file); None: when the page writes MDX's constructs (mdx.py).
    Front matter's title and description are the page's first blocks (front_matter.py)."""
    myst = MYST_PAGE.search(text) is not None
    mdx_page = mdx.is_mdx_page(text) if mdx_page is None else mdx_page
    if DEEP_HINT.search(text):
        text = DEEP_LINE.sub(_shallower, text)
    reader = _Reader(lines, myst, rest, mdx_page)
    token = _link_title.set(link_title)
    try:
        blocks = reader.blocks(_tree(parser(indented_code, myst, mdx_page).parse(text)))
    finally:
        _link_title.reset(token)
    blocks = reader.with_front_matter(blocks)
    placed = with_paths(blocks)
    in_file = LINE_BREAK.split(text) if reader.marked else []
    spans = {key: _trimmed(in_file, span) for key, (_, span) in reader.marked.items()}
    for block, heading in zip(blocks, placed, strict=True):
        if heading is not block and id(block) in spans:  # a heading given its path
            spans[id(heading)] = spans.pop(id(block))
    return Document(placed, reader.metadata, spans)


def _shallower(match: re.Match[str]) -> str:
    """A line nested deeper than markdown-it reads, at the deepest depth it reads."""
    return match.group(1) if match.group(1) is not None else " " * MAX_INDENT


def _trimmed(lines: list[str], span: tuple[int, int]) -> tuple[int, int]:
    """`span` without the blank lines a token's map counts at its end (a list's item)."""
    first, last = span[0], min(span[1], len(lines))
    while last > first and not lines[last - 1].strip():
        last -= 1
    return first, last


def with_paths(blocks: list[Block], above: tuple[tuple[int, str], ...] = ()) -> list[Block]:
    """The headings among `blocks` (not those inside admonitions) with their paths, the
    headings in `above` ((level, title), outermost first) taken as those before them."""
    stack = list(above)
    found: list[Block] = []
    for block in blocks:
        if isinstance(block, Heading):
            stack = [(level, title) for level, title in stack if level < block.level]
            stack.append((block.level, block.title))
            block = Heading(block.level, block.title, tuple(title for _, title in stack))
        found.append(block)
    return found


class _Node:
    """A block of the token stream with the blocks inside it: an opening token's type
    without `_open` (`bullet_list`), or a token of its own (`fence`, `inline`). Lighter
    than markdown-it's SyntaxTreeNode, which the reader does not need."""

    __slots__ = ("type", "token", "children")

    def __init__(self, token: Token) -> None:
        self.token = token
        self.type = token.type[:-5] if token.nesting == 1 else token.type
        self.children: list[_Node] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self.token, name)  # tag, info, content, markup, attrs, meta, map


def _tree(tokens: list[Token]) -> list[_Node]:
    top: list[_Node] = []
    stack = [top]
    for token in tokens:
        if token.nesting == -1:
            stack.pop()
            continue
        node = _Node(token)
        stack[-1].append(node)
        if token.nesting == 1:
            stack.append(node.children)
    return top


class _Reader:
    """The block tree's nodes into blocks."""

    def __init__(
        self,
        lines: bool = False,
        myst: bool = False,
        rest: ReadRest | None = None,
        mdx_page: bool = False,
    ):
        self.metadata: Metadata = {}
        self.front: FrontMatter | None = None
        self.front_lines: list[int] | None = None
        self.myst = myst  # a directive's body is read as its page is
        self.mdx = mdx_page
        self.rest = rest
        # With `lines`, each block's first and last line (1-based) from its token's map,
        # by the block's id; the block is held too, so that no other takes its id.
        self.lines = lines
        self.marked: dict[int, tuple[Block, tuple[int, int]]] = {}
        self.nested = 0  # inside a body parsed on its own, whose lines are not the file's

    def blocks(self, nodes: list[_Node], depth: int = 0) -> list[Block]:
        found: list[Block] = []
        for node in nodes:
            found.extend(self.marked_block(node, depth))
        return found

    def marked_block(self, node: _Node, depth: int) -> list[Block]:
        """`node`'s blocks, each marked with the node's lines unless marked already (by a
        node inside it, which is nearer)."""
        made = self.block(node, depth)
        self.mark(made, node.map)
        return made

    def mark(self, blocks: list[Block], where: list[int] | None) -> None:
        if not self.lines or self.nested or not where:
            return
        span = (where[0] + 1, max(where[0] + 1, where[1]))
        for block in blocks:
            self.marked.setdefault(id(block), (block, span))

    def parsed(self, text: str, depth: int) -> list[Block]:
        """The blocks of a directive's body, parsed on its own."""
        self.nested += 1
        try:
            return self.blocks(_tree(parser(True, self.myst, self.mdx).parse(text)), depth)
        finally:
            self.nested -= 1

    def block(self, node: _Node, depth: int) -> list[Block]:
        kind = node.type
        if kind == "heading":
            return [Heading(int(node.tag[1:]), heading_title(_inline(node)), ())]
        if kind == "paragraph":
            return _paragraph(block_text(_inline(node)), _inline_source(node))
        if kind in ("fence", "colon_fence"):
            directive = MYST_DIRECTIVE.match(node.info.strip())
            if directive:
                name, argument = directive.group(1).lower(), directive.group(2).strip()
                read = self.myst_directive(name, argument, node.content, depth)
                if read is not None:
                    return read
                if not _without_options(node.content).strip():
                    return []  # a directive not known here, with no body: nothing to read
            if kind == "colon_fence":  # another directive: its body is Markdown
                return self.parsed(node.content, depth)
        if kind in ("fence", "code_block"):
            code = _code(node.info if kind == "fence" else "", node.content)
            if node.map and node.content.strip():  # cited by its code's lines, not fences
                first = node.map[0] + (kind == "fence")
                self.mark([code], [first, first + node.content.rstrip("\n").count("\n") + 1])
            return [code]
        if kind in ("bullet_list", "ordered_list"):
            return self.list_items(node, depth)
        if kind == "table":
            return [_table(node)]
        if kind == "blockquote":
            return self.quote(node, depth)
        if kind == "admonition":
            return self.admonition(node, depth)
        if kind == "slash_block":
            inner = self.blocks(node.children, depth)
            if node.info in TRANSPARENT:
                return inner
            return _admonition(node.info, _text(node.meta.get("title", "")), inner)
        if kind == "dl":
            return self.definitions(node, depth)
        if kind == "html_block":
            if not TAG_OR_COMMENT.sub("", node.content).strip():
                return []  # tags and comments only (`<Listing …>`, `<!-- … -->`): no text
            from ragcli.blocks.html import html_blocks

            return html_blocks(node.content)
        if kind == "front_matter":
            if self.front is None:
                self.front = read_front_matter(node.content, node.info)
                self.front_lines = node.map
                self.metadata.update(self.front.metadata)
            return []
        if kind == "container":  # `:::tip[Title]` (Docusaurus, Nextra, Starlight)
            title = _text(str(node.meta.get("title", "")))
            return _admonition(str(node.meta["kind"]), title, self.blocks(node.children, depth))
        if kind == "jsx":
            return self.jsx(node, depth)
        if kind.startswith("shortcode"):
            return self.shortcode(node, depth)
        if kind in ("hr", "attrs_block", "myst_line_comment", "myst_block_break", "myst_target"):
            return []
        return self.blocks(node.children, depth)  # a container of blocks

    def with_front_matter(self, blocks: list[Block]) -> list[Block]:
        """The page's blocks after its front matter's title and description; a page of
        only a title reads as that title. A page that opens with a title of its own shows
        that one (as Docusaurus does): the front matter's, if another, is kept as
        metadata."""
        front = self.front
        if front is None or not (front.title or front.description):
            return blocks
        found: list[Block] = []
        first = blocks[0] if blocks else None
        opens = isinstance(first, Heading) and first.level == 1
        if (
            isinstance(first, Heading)
            and opens
            and front.title
            and front.title.lower() != first.title.lower()
        ):
            self.metadata["title"] = front.title
        elif front.title and not opens:
            texts = front.description or any(not isinstance(b, Heading) for b in blocks)
            found.append(Heading(1, front.title, ()) if texts else Paragraph(front.title))
        if front.description:
            found.append(Paragraph(front.description))
        self.mark(found, self.front_lines)
        return [*blocks[:1], *found, *blocks[1:]] if opens else [*found, *blocks]

    def jsx(self, node: _Node, depth: int) -> list[Block]:
        """A JSX element, as mdx.element_blocks reads it."""
        if node.nesting == 0:  # the element as written, read on its own
            inner = self.parsed(node.content, depth) if node.content.strip() else []
            return mdx.element_blocks(node.meta["element"], inner)
        children = node.children
        summary = ""
        if children and children[0].type == "html_block":
            summary = mdx.summary_of(children[0].content)
            children = children[1:] if summary else children
        return mdx.element_blocks(node.meta["element"], self.blocks(children, depth), summary)

    def shortcode(self, node: _Node, depth: int) -> list[Block]:
        """A Hugo shortcode, as hugo.call_blocks reads it."""
        inner = self.blocks(node.children, depth) if node.nesting == 1 else []
        return hugo.call_blocks(node.token.type, node.meta["call"], node.content, inner)

    def myst_directive(
        self, name: str, argument: str, content: str, depth: int
    ) -> list[Block] | None:
        """A MyST directive read as its reST twin is (blocks/rst.py); None for one not
        known here (a `{doctest}` fence stays code)."""
        body = _without_options(content)
        if name in MYST_ADMONITIONS:
            inner = self.parsed(body, depth)
            if name.startswith(("version", "deprecated")):
                version, said = version_and_words(argument)
                if said:
                    inner = [Paragraph(_text(said)), *inner]
                return _admonition(name.replace("version", "version-"), version, inner)
            title = "" if name == "admonition" and not argument else _text(argument)
            return _admonition("note" if name == "admonition" else name, title, inner)
        if name in MYST_CODE:
            language = argument.split()[0].lower() if argument else ""
            return [CodeBlock(language, body.strip("\n"))]
        if name in INCLUDES and argument:
            text = name == "include"
            language = "" if text else LANGUAGES.get(PurePosixPath(argument).suffix.lower(), "")
            return [CodeBlock(language, include_text(argument, text=text), argument)]
        if AUTODOC.match(name):
            if not name.startswith("auto") or not argument:  # `{currentmodule}` sets a name
                return []
            target = argument.split("(")[0].strip()
            return [CodeBlock("", include_text(target, api=True), target)]
        if name in MYST_SILENT or (name == ONLY and not shown_on_html(argument)):
            return []
        if name == "glossary":
            return self.parsed(_glossary_as_definitions(body), depth)
        if name in MYST_REST and self.rest is not None:  # its body is reST
            return self.rest(content)
        return None

    def list_items(self, node: _Node, depth: int) -> list[Block]:
        found: list[Block] = []
        ordered = node.type == "ordered_list"
        start = int(node.attrs.get("start", 1)) if ordered else 1
        for number, item in enumerate(node.children, start=start):
            marker = f"{number}{node.markup or '.'}" if ordered else "-"
            lines: list[str] = []
            rest: list[Block] = []
            for child in item.children:
                if child.type == "paragraph" and not rest:
                    lines.append(block_text(_inline(child)))
                else:
                    rest.extend(self.marked_block(child, depth + 1))
            text = " ".join(" ".join(lines).split())
            if text:
                found.append(ListItem(text, marker, depth))
                self.mark(found[-1:], item.map)
            found.extend(rest)
        return found

    def quote(self, node: _Node, depth: int) -> list[Block]:
        """A quote's blocks; a GitHub callout (`> [!NOTE]`) is an admonition."""
        children = node.children
        if children and children[0].type == "paragraph":
            source = _inline_source(children[0])
            first, _, rest = source.partition("\n")
            callout = CALLOUT.match(first.strip())
            if callout:
                inner: list[Block] = _paragraph(_text(rest), rest) if rest.strip() else []
                inner += self.blocks(children[1:], depth)
                title = _text(callout.group(2))
                return [Admonition(callout.group(1).lower(), title, tuple(inner))]
        # A quote is an aside (the Rust book's "> ### The Stack and the Heap"): a heading
        # inside it titles the aside, not a section of the page.
        return [
            Paragraph(block.title) if isinstance(block, Heading) else block
            for block in self.blocks(children, depth)
        ]

    def admonition(self, node: _Node, depth: int) -> list[Block]:
        title, inner = "", []
        for child in node.children:
            if child.type == "admonition_title":
                title = _inline(child)
            else:
                inner.extend(self.block(child, depth))
        kind = str(node.meta.get("tag", "") or "note").lower()
        return _admonition(kind, title if title.lower() != kind else "", inner)

    def definitions(self, node: _Node, depth: int) -> list[Block]:
        """A definition list: each term with its definitions, as a list item."""
        found: list[Block] = []
        term = ""
        term_line: list[int] | None = None
        for child in node.children:
            if child.type == "dt":
                term, term_line = _inline(child), child.map
            elif child.type == "dd":
                inner = self.blocks(child.children, depth + 1)
                first = inner[0] if inner and isinstance(inner[0], Paragraph) else None
                text = f"{term}: {' '.join(first.text.split())}" if first else term
                found.append(ListItem(text, "-", depth))
                if term_line and child.map:  # the term and its first definition
                    self.mark(found[-1:], [term_line[0], child.map[1]])
                found.extend(inner[1:] if first else inner)
        return found


def _glossary_as_definitions(body: str) -> str:
    """A glossary's body (a term on a line of its own, its definition indented under it,
    as Sphinx writes one) as a Markdown definition list. Read as paragraphs, the term ran
    into its definition: "dict classes A regular class whose …"."""
    out: list[str] = []
    terms: list[str] = []
    definition: list[str] = []

    def flush() -> None:
        if terms:
            first, *rest = textwrap.dedent("\n".join(definition)).strip("\n").split("\n")
            out.extend([", ".join(terms), f":   {first}"])
            out.extend(f"    {line}" if line.strip() else "" for line in rest)
            out.append("")
        terms.clear()
        definition.clear()

    for line in body.split("\n"):
        if line.strip() and not line[:1].isspace():  # a term
            if definition:
                flush()
            terms.append(line.strip())
        elif terms:
            definition.append(line)
    flush()
    return "\n".join(out)


def _without_options(content: str) -> str:
    """A MyST directive's body: its leading `:key: value` lines, or YAML block between
    `---` lines, left out."""
    lines = content.split("\n")
    if lines and lines[0].strip() == "---" and "---" in (line.strip() for line in lines[1:]):
        end = next(i for i, line in enumerate(lines[1:], 1) if line.strip() == "---")
        return "\n".join(lines[end + 1 :])
    start = 0
    while start < len(lines) and MYST_OPTION.match(lines[start].strip()):
        start += 1
    return "\n".join(lines[start:])


def _admonition(kind: str, title: str, inner: list[Block]) -> list[Block]:
    """An admonition; a version note (`/// version-added | v2.12`) is its sentence, as
    reST's `.. versionadded::` is: "Version added v2.12: the `exclude_if` parameter."
    (one sentence, so that a quote of it holds the version)."""
    if not VERSION_NOTE.match(kind):
        return [Admonition(kind, title, tuple(inner))]
    said = f"{kind.replace('-', ' ').capitalize()} {title}".strip()
    if inner and isinstance(inner[0], Paragraph):
        text = inner[0].text
        return [Paragraph(f"{said}: {continuing(text)}"), *inner[1:]]
    return [Paragraph(f"{said}."), *inner]


def _inline(node: _Node) -> str:
    """The text of a block's inline content: links as their text, emphasis dropped, code
    spans in backticks, HTML tags and images dropped; a soft break stays a line break."""
    parts: list[str] = []
    for child in node.children:
        if child.type == "inline":
            _render_inline(child.token.children or [], parts)
    return "".join(parts).strip()


def _inline_source(node: _Node) -> str:
    return "".join(child.token.content for child in node.children if child.type == "inline")


def _render_inline(tokens: list[Token], parts: list[str]) -> None:
    """Inline tokens (a flat stream: a link's text between link_open and link_close)."""
    for number, token in enumerate(tokens):
        kind = token.type
        if kind == "text":
            text = token.content
            if number and tokens[number - 1].type in ("strong_close", "em_close", "s_close"):
                text = INLINE_ATTRIBUTES.sub("", text, count=1)  # the element's attributes
            parts.append(text)
        elif kind == "code_inline":
            parts.append(code_span(token.content))
        elif kind == "myst_role":
            shown = role_text(token.meta["name"], token.content)
            title = _link_title.get()
            if shown.target and title is not None:  # an untitled {doc} or {ref}
                is_doc = token.meta["name"].lower().endswith("doc")
                parts.append(title(is_doc, shown.target) or shown.text)
            else:
                parts.append(code_span(shown.text) if shown.code else shown.text)
        elif kind == "footnote_ref" and parts:  # no text, and no gap left: "see [^1]."
            parts[-1] = parts[-1].rstrip(" ")
        elif kind in ("softbreak", "hardbreak"):
            parts.append("\n")
        elif kind == "html_inline":
            if token.content.lower().startswith("<br"):
                parts.append(" ")
        elif kind != "image" and token.nesting == 0 and token.content:
            parts.append(token.content)  # another plugin's text-bearing token


def _text(source: str) -> str:
    """Inline Markdown (a title) as text."""
    if not source.strip():
        return ""
    parts: list[str] = []
    for token in parser(False).parseInline(source):
        if token.type == "inline":
            _render_inline(token.children or [], parts)
    return " ".join("".join(parts).split())


def _paragraph(text: str, source: str) -> list[Block]:
    """A paragraph's blocks: itself, or the include blocks its directives are; a MyST
    target alone (`(label)=`, the anchor of the heading after it) is none."""
    if MYST_TARGET.fullmatch(source.strip()):
        return []
    found = includes_in(source)
    if found and _all_directives(source):
        return [_include_block(include, "") for include in found]
    if found:  # directives among text: each its own block, out of the sentence
        kept = "\n".join(line for line in text.split("\n") if include_of(line) is None)
        blocks: list[Block] = [Paragraph(kept.strip())] if kept.strip() else []
        return blocks + [_include_block(include, "") for include in found]
    return [Paragraph(text)] if text.strip() else []


def _all_directives(source: str) -> bool:
    """Every line an include directive, or an option line of the `:::` one above it."""
    lines = [line for line in source.split("\n") if line.strip()]
    first = include_of(lines[0]) if lines else None
    if first is not None and first.api:
        return True  # mkdocstrings' options follow, indented
    return all(include_of(line) is not None for line in lines)


def _code(info: str, text: str) -> CodeBlock:
    """A fenced or indented block; one holding an include directive is an include block.
    ragcli's own include blocks carry `include=TARGET` in the info string (render.py)."""
    words = info.split()
    language = words[0].split(",")[0].lower() if words and "=" not in words[0] else ""
    if language.startswith("{"):
        language = language.strip("{}.")
    own = next((w.split("=", 1)[1] for w in words if w.startswith("include=")), None)
    if own is not None:
        return CodeBlock(language, text.strip("\n"), own)
    found = includes_in(text)
    if found:
        return _include_block(found[0], language)
    if language in TRANSCRIPTS:
        text = COLOUR_TAG.sub("", text)
    return CodeBlock(language, text.rstrip("\n"))


def _include_block(include: Include, language: str) -> CodeBlock:
    return CodeBlock(
        language or include.language, include_text(include.target, include.api), include.target
    )


def _table(node: _Node) -> Table:
    rows: list[tuple[str, ...]] = []
    header: tuple[str, ...] = ()
    for part in node.children:  # thead, tbody
        for row in part.children:
            cells = tuple(" ".join(_inline(cell).split()) for cell in row.children)
            if part.type == "thead":
                header = cells
            else:
                rows.append(cells)
    return Table(header, tuple(rows))


def tokens_of(text: str) -> list[Token]:
    """The token stream (for tests and debugging)."""
    return parser(True).parse(text)


class HeadingPath:
    """The headings above the next block, carried from one part of a long document to the
    next."""

    def __init__(self) -> None:
        self.stack: tuple[tuple[int, str], ...] = ()

    def place(self, blocks: list[Block]) -> list[Block]:
        placed = with_paths(blocks, self.stack)
        for block in placed:
            if isinstance(block, Heading):
                self.stack = tuple(
                    (level, title) for level, title in self.stack if level < block.level
                ) + ((block.level, block.title),)
        return placed


def iter_markdown_blocks(pieces: Iterable[str]) -> Iterator[Block]:
    """The blocks of a document read in pieces (a file too large to hold whole): each
    piece is parsed with what the last one left unfinished, its last block held back
    until the next piece shows where it ends."""
    reader = _Reader()
    paths = HeadingPath()
    carried = ""
    for piece in pieces:
        text = carried + piece
        nodes = _tree(parser(True).parse(text))
        last = nodes[-1].map[0] if nodes and nodes[-1].map else None
        if len(text) > MAX_CARRIED:  # one block as long as this: read as it stands
            yield from paths.place(reader.blocks(nodes))
            carried = ""
            continue
        if len(nodes) < 2 or last is None:
            carried = text
            continue
        yield from paths.place(reader.blocks(nodes[:-1]))
        carried = "\n".join(text.split("\n")[last:])
    if carried.strip():
        nodes = _tree(parser(True).parse(carried))
        yield from paths.place(reader.blocks(nodes))
