"""Markdown into blocks, by markdown-it-py (CommonMark) and mdit-py-plugins.

The parser's token stream, not a regular expression, decides what is a heading, a list, a
code block or a table. Plugins read what documentation sites add to CommonMark: front
matter, attribute lists (`{ #anchor }`, `{.class}`), definition lists, footnotes; GitHub
tables. More are read here on the token stream, by block rules below: MkDocs admonitions
(`!!! note "Title"`, an indented body that blank lines do not end, as in Python-Markdown),
pymdownx blocks (`/// tip | Title` ... `///`), content tabs, and GitHub callouts (a quote
opening with `[!NOTE]`). Include directives (includes.py) become include blocks; HTML
inside Markdown is read by the HTML reader (html.py).

The chunker's text is normalised Markdown (render.py) read back by this same reader, with
`indented_code=False`: ragcli writes code fenced, and text of other formats read at
question time (a PDF's, a Word document's) has indented lines that are not code."""

from __future__ import annotations

import re
import textwrap
from collections.abc import Callable, Iterable, Iterator
from functools import lru_cache
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Any

from ragcli.blocks.includes import LANGUAGES, Include, include_of, includes_in
from ragcli.blocks.inline import block_text, code_span, heading_title
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
    CODE_DIRECTIVES,
    INCLUDES,
    ONLY,
    SILENT,
    VERSIONS,
    role_text,
    shown_on_html,
    version_and_words,
)

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.rules_block import StateBlock
    from markdown_it.rules_inline import StateInline
    from markdown_it.token import Token

# `/// tip | Title`: a pymdownx block's opening line (three or more slashes and a name).
SLASH_OPEN = re.compile(r"^(/{3,})\s*([A-Za-z][\w-]*)\s*(?:\|\s*(.*?))?\s*$")
# pymdownx options under the opening line: `    type: warning`, `    attrs: {class: x}`.
SLASH_OPTION = re.compile(r"^\s{2,}[\w-]+\s*:")
# A content tab's title line (pymdownx.tabbed): `=== "pip"`, `===! "Tab"`, `===+ "Tab"`.
TAB_OPEN = re.compile(r'^={3}[!+]?\s+"([^"\n]*)"\s*$')
# An MkDocs admonition's opening line (Python-Markdown's admonition, pymdownx.details):
# `!!! note`, `!!! tip "Title"`, `??? example`, `???+ note inline end ""`.
ADMONITION_OPEN = re.compile(
    r'^(?:!!!|\?\?\?\+?)[ \t]+([A-Za-z][\w-]*)[^"\n]*?(?:[ \t]*"(.*)")?[ \t]*$'
)
# A GitHub callout's first line: `[!NOTE]`, `[!WARNING] Title`.
CALLOUT = re.compile(r"^\[!([A-Za-z][\w-]*)\][ \t]*(.*)$")
# Where a MyST role starts: {name} and its backticks.
MYST_ROLE_START = re.compile(r"\{[A-Za-z0-9_+:-]+\}`")
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
MYST_COLON_OPEN = re.compile(r":{3,}\{[A-Za-z][\w:+-]*\}")
# A directive's options: `:key: value` lines, or YAML between `---` lines, before its body.
MYST_OPTION = re.compile(r"^:[\w-]+:(?:\s.*)?$")
# MyST's directives are Sphinx's (sphinx_names.py), with MyST's own generic admonition,
# MyST-NB's code cell, and the table of contents MyST writes with `{contents}`.
MYST_ADMONITIONS = frozenset({*ADMONITION_NODES, *VERSIONS, "admonition"})
MYST_CODE = frozenset({*CODE_DIRECTIVES, "code-cell"})
MYST_SILENT = SILENT | {"contents"}
MYST_REST = frozenset({"eval-rst", "eval-rest"})
ReadRest = Callable[[str], list[Block]]
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


def read_markdown(
    text: str, indented_code: bool = True, lines: bool = False, rest: ReadRest | None = None
) -> Document:
    """`text` as blocks; headings carry their path from the document's top. With `lines`,
    each block's lines in `text` too (Document.block_lines). `rest` reads the reST body of
    a MyST `{eval-rst}` fence (blocks/rst.py's embedded_rest; without it the fence is
    code): the reST reader reads Markdown pages' titles, so this module does not import
    it."""
    myst = MYST_PAGE.search(text) is not None
    reader = _Reader(lines, myst, rest)
    blocks = reader.blocks(_tree(_parser(indented_code, myst).parse(text)))
    placed = with_paths(blocks)
    in_file = LINE_BREAK.split(text) if reader.marked else []
    spans = {key: _trimmed(in_file, span) for key, (_, span) in reader.marked.items()}
    for block, heading in zip(blocks, placed, strict=True):
        if heading is not block and id(block) in spans:  # a heading given its path
            spans[id(heading)] = spans.pop(id(block))
    return Document(placed, reader.metadata, spans)


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


@lru_cache(maxsize=4)
def _parser(indented_code: bool, myst: bool = False) -> MarkdownIt:
    from markdown_it import MarkdownIt
    from mdit_py_plugins.attrs import attrs_block_plugin, attrs_plugin
    from mdit_py_plugins.deflist import deflist_plugin
    from mdit_py_plugins.footnote import footnote_plugin
    from mdit_py_plugins.front_matter import front_matter_plugin
    from mdit_py_plugins.myst_blocks import myst_block_plugin

    # CommonMark's preset stops reading at 20 levels of nesting and drops what is deeper
    # without a word; 100 (markdown-it's own default) keeps any real page whole.
    md = MarkdownIt("commonmark", {"html": True, "maxNesting": 100}).enable("table")
    md.use(front_matter_plugin).use(attrs_plugin).use(attrs_block_plugin)
    md.use(deflist_plugin)
    # A footnote's mark (`[^1]`) is no text, also where its definition is out of sight (a
    # directive's body is parsed on its own); the definition is read where it is written,
    # under its own heading, not moved to the page's end.
    md.use(footnote_plugin, move_to_end=False, always_match_refs=True)
    # MyST (Sphinx's Markdown) writes a role as {class}`~x.Y`, read as reST's is
    # (sphinx_names.py), and a directive as a fence of backticks or colons named in
    # braces: :::{note}.
    md.inline.ruler.before("backticks", "myst_role", _myst_role)
    md.inline.ruler.after("link", "unresolved_reference", _unresolved_reference)
    md.block.ruler.before(
        "fence",
        "colon_fence",
        _myst_colon_fence,
        {"alt": ["paragraph", "reference", "blockquote", "list"]},
    )
    md.block.ruler.before(
        "fence",
        "admonition",
        _admonition_block,
        {"alt": ["paragraph", "reference", "blockquote", "list"]},
    )
    md.block.ruler.before(
        "fence", "slash_block", _slash_block, {"alt": ["paragraph", "reference", "blockquote"]}
    )
    md.block.ruler.before(
        "fence", "content_tab", _content_tab, {"alt": ["paragraph", "reference", "blockquote"]}
    )
    if myst:  # comments, block breaks and targets, read as nothing
        md.use(myst_block_plugin)
    if not indented_code:
        md.disable("code")
    return md


def _myst_role(state: StateInline, silent: bool) -> bool:
    """mdit-py-plugins' MyST role rule, tried only where a role starts: it copies the rest
    of the paragraph at each position it is tried, which a long paragraph would pay for
    at every `{`."""
    from mdit_py_plugins.myst_role.index import myst_role

    if state.src[state.pos] != "{" or not MYST_ROLE_START.match(state.src, state.pos):
        return False
    return bool(myst_role(state, silent))


def _unresolved_reference(state: StateInline, silent: bool) -> bool:
    """A full or collapsed reference link whose definition is not in the page
    (`[`complex`][]`, `[text][pydantic.main.BaseModel]`: mkdocs-autorefs resolves them from
    API pages the sources do not hold) reads as its text. CommonMark leaves it as written;
    tried after the link rule, so a defined reference is a link. Read here, on the source,
    so that a code span's brackets (`grid[0][1]`) are never taken for one."""
    start = state.pos
    if state.src[start] != "[":
        return False
    label_end = state.md.helpers.parseLinkLabel(state, start, True)
    after = label_end + 1
    if label_end < 0 or after >= state.posMax or state.src[after] != "[":
        return False
    reference_end = state.src.find("]", after + 1, state.posMax)
    if reference_end < 0 or "[" in state.src[after + 1 : reference_end]:
        return False
    if not silent:
        old_max = state.posMax
        state.pos, state.posMax = start + 1, label_end
        state.md.inline.tokenize(state)
        state.posMax = old_max
    state.pos = reference_end + 1
    return True


def _myst_colon_fence(state: StateBlock, start: int, end: int, silent: bool) -> bool:
    """mdit-py-plugins' colon fence, only for a MyST directive (`:::{note}`): mkdocstrings'
    `::: httpx.Client` is an API reference line, not a fence to the end of the page."""
    from mdit_py_plugins.colon_fence import _rule

    first = state.bMarks[start] + state.tShift[start]
    if state.src[first : first + 1] != ":" or not MYST_COLON_OPEN.match(state.src, first):
        return False
    return bool(_rule(state, start, end, silent))


def _content_tab(state: StateBlock, start: int, end: int, silent: bool) -> bool:
    """A content tab: `=== "Title"` and the lines indented under it, read as blocks in
    place (tabs hold alternatives of one content: `pip` and `uv` install lines)."""
    if state.is_code_block(start):
        return False
    opening = TAB_OPEN.match(_line(state, start))
    if opening is None:
        return False
    if not silent:
        _indented_block(state, start, end, "content_tab", {"title": opening.group(1)})
    return True


def _admonition_block(state: StateBlock, start: int, end: int, silent: bool) -> bool:
    """An MkDocs admonition: `!!! note "Title"` and the lines indented under it. As in
    Python-Markdown, blank lines do not end it (a code example in it has two between its
    imports and its class), the first line indented less does; mdit-py-plugins' admon
    plugin ended it at two blank lines and read the rest as an indented code block."""
    if state.is_code_block(start):
        return False
    opening = ADMONITION_OPEN.match(_line(state, start))
    if opening is None:
        return False
    if not silent:
        # No title given reads as the kind's name; `""` is none at all.
        meta = {"tag": opening.group(1).lower()}
        _indented_block(state, start, end, "admonition", meta, opening.group(2) or "")
    return True


def _line(state: StateBlock, line: int) -> str:
    return state.src[state.bMarks[line] + state.tShift[line] : state.eMarks[line]]


def _indented_block(
    state: StateBlock, start: int, end: int, name: str, meta: dict[str, str], title: str = ""
) -> None:
    """Line `start` opens a `name` block of the lines indented under it, blank lines
    included: its tokens (`name`_open, a title paragraph when `title`, the blocks, the
    close), and the state moved past it."""
    indent = state.sCount[start] + 4
    line = start + 1
    while line < end and (state.isEmpty(line) or state.sCount[line] >= indent):
        line += 1
    while line > start + 1 and state.isEmpty(line - 1):
        line -= 1  # trailing blank lines belong to what follows
    old_indent, old_parent, old_max = state.blkIndent, state.parentType, state.lineMax
    state.blkIndent = indent
    state.parentType = name
    state.lineMax = line
    token = state.push(f"{name}_open", "div", 1)
    token.meta = meta
    token.map = [start, line]
    token.block = True
    if title:
        state.push(f"{name}_title_open", "p", 1)
        inline = state.push("inline", "", 0)
        inline.content = title
        inline.map = [start, start + 1]
        inline.children = []
        state.push(f"{name}_title_close", "p", -1)
    state.md.block.tokenize(state, start + 1, line)
    state.push(f"{name}_close", "div", -1).block = True
    state.blkIndent, state.parentType, state.lineMax = old_indent, old_parent, old_max
    state.line = line


def _slash_block(state: StateBlock, start: int, end: int, silent: bool) -> bool:
    """A pymdownx block, `/// name | title` to a line of the same slashes; blocks of the
    same name nest, as do blocks with more slashes (`//// tab`) inside."""
    if state.is_code_block(start):
        return False
    first = _line(state, start)
    opening = SLASH_OPEN.match(first)
    if opening is None:
        return False
    if silent:
        return True
    marker = opening.group(1)
    line, depth, closed = start + 1, 0, False
    while line < end:
        if state.sCount[line] < state.blkIndent and not state.isEmpty(line):
            break  # less indented than the block: the list or quote holding it ended
        text = _line(state, line).rstrip()
        if text == marker:
            if depth == 0:
                closed = True
                break
            depth -= 1
        elif (inner := SLASH_OPEN.match(text)) and inner.group(1) == marker:
            depth += 1
        line += 1
    body = start + 1
    while body < line and SLASH_OPTION.match(state.getLines(body, body + 1, 0, False)):
        body += 1
    old_parent, old_max = state.parentType, state.lineMax
    state.parentType = "slash_block"
    state.lineMax = line
    token = state.push("slash_block_open", "div", 1)
    token.info = opening.group(2).lower()
    token.meta = {"title": opening.group(3) or ""}
    token.map = [start, line]
    token.block = True
    state.md.block.tokenize(state, body, line)
    state.push("slash_block_close", "div", -1).block = True
    state.parentType, state.lineMax = old_parent, old_max
    state.line = line + 1 if closed else line
    return True


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

    def __init__(self, lines: bool = False, myst: bool = False, rest: ReadRest | None = None):
        self.metadata: dict[str, str] = {}
        self.myst = myst  # a directive's body is read as its page is
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
            return self.blocks(_tree(_parser(True, self.myst).parse(text)), depth)
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
            self.metadata.update(_front_matter(node.content))
            return []
        if kind in ("hr", "attrs_block", "myst_line_comment", "myst_block_break", "myst_target"):
            return []
        return self.blocks(node.children, depth)  # a container of blocks

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
        if name.startswith("auto") and argument:
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
        return [Paragraph(f"{said}: {text[:1].lower()}{text[1:]}"), *inner[1:]]
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
    for token in tokens:
        kind = token.type
        if kind == "text":
            parts.append(token.content)
        elif kind == "code_inline":
            parts.append(code_span(token.content))
        elif kind == "myst_role":
            shown = role_text(token.meta["name"], token.content)
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
    for token in _parser(False).parseInline(source):
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


def _front_matter(source: str) -> dict[str, str]:
    """Front matter's scalar fields as text; a header that is not YAML is left out."""
    import yaml

    try:
        data = yaml.safe_load(source)
    except yaml.YAMLError:
        return {}
    if not isinstance(data, dict):
        return {}
    return {str(k): str(v) for k, v in data.items() if isinstance(v, str | int | float)}


def tokens_of(text: str) -> list[Token]:
    """The token stream (for tests and debugging)."""
    return _parser(True).parse(text)


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
        nodes = _tree(_parser(True).parse(text))
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
        nodes = _tree(_parser(True).parse(carried))
        yield from paths.place(reader.blocks(nodes))
