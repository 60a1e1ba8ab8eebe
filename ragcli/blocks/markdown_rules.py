"""The markdown-it parser ragcli reads Markdown with, and the rules it adds for what
documentation sites write beyond CommonMark.

markdown-it-py's CommonMark with GitHub tables, and mdit-py-plugins' attribute lists,
definition lists and footnotes (and MyST's comments, block breaks and targets on a MyST
page), through their public plugin functions only. The rules here read, on the token
stream:
- MkDocs admonitions (`!!! note "Title"`, an indented body that blank lines do not end, as
  in Python-Markdown), pymdownx blocks (`/// tip | Title` ... `///`) and content tabs;
- MyST roles ({func}`name`) and colon directives (`:::{note}`, body kept as written for the
  directive's reader), and Docusaurus, Nextra and Starlight admonitions (`:::tip[Title]`,
  body read in place);
- a reference link whose definition is not in the page (`[dict][]`), read as its text;
- front matter in YAML, TOML or JSON (front_matter.py), MDX (mdx.py) and Hugo's shortcodes
  (hugo.py)."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING

from ragcli.blocks import hugo, mdx
from ragcli.blocks.front_matter import front_matter_rule

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.ruler import RuleOptionsType
    from markdown_it.rules_block import StateBlock
    from markdown_it.rules_inline import StateInline

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
# A MyST role: {name} and its code span, `{class}`~x.Y``.
MYST_ROLE = re.compile(r"\{([A-Za-z0-9_+:-]+)\}(`+)(?!`)")
# A colon fence's opening line: MyST's directive (`:::{note} Title`) or a Docusaurus,
# Nextra or Starlight admonition (`:::tip[Title]`, `:::info{title="x"}`, `:::note Title`).
# mkdocstrings' `::: httpx.Client` (a space after the colons) is an API reference line.
COLON_OPEN = re.compile(
    r"^(:{3,})(?:(\{[A-Za-z][\w:+-]*\}.*)"
    r"|([A-Za-z][\w-]*)(?:\[([^\]\n]*)\])?(?:\{([^}\n]*)\})?[ \t]*(.*))$"
)
CONTAINER_TITLE = re.compile(r"""title=(?:"([^"]*)"|'([^']*)'|(\S+))""")
COLON_CLOSE = re.compile(r"^(:{3,})[ \t]*$")
BLOCK_ALTERNATIVES: RuleOptionsType = {"alt": ["paragraph", "reference", "blockquote", "list"]}


@lru_cache(maxsize=8)
def parser(indented_code: bool, myst: bool = False, mdx_page: bool = False) -> MarkdownIt:
    """The parser for a page: `indented_code` off for ragcli's own chunk text (it writes
    code fenced); a MyST page's comments and block breaks; an MDX page's ESM, JSX and
    expressions (MDX has no indented code)."""
    from markdown_it import MarkdownIt
    from mdit_py_plugins.attrs import attrs_block_plugin, attrs_plugin
    from mdit_py_plugins.deflist import deflist_plugin
    from mdit_py_plugins.footnote import footnote_plugin
    from mdit_py_plugins.myst_blocks import myst_block_plugin

    # CommonMark's preset stops reading at 20 levels of nesting and drops what is deeper
    # without a word; 100 (markdown-it's own default) keeps any real page whole (and the
    # reader flattens what is deeper: markdown.py).
    md = MarkdownIt("commonmark", {"html": True, "maxNesting": 100}).enable("table")
    md.block.ruler.before("table", "front_matter", front_matter_rule)
    md.use(attrs_plugin).use(attrs_block_plugin)
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
    md.block.ruler.before("fence", "colon_fence", _colon_fence, BLOCK_ALTERNATIVES)
    md.block.ruler.before("fence", "admonition", _admonition_block, BLOCK_ALTERNATIVES)
    md.block.ruler.before(
        "fence", "slash_block", _slash_block, {"alt": ["paragraph", "reference", "blockquote"]}
    )
    md.block.ruler.before(
        "fence", "content_tab", _content_tab, {"alt": ["paragraph", "reference", "blockquote"]}
    )
    hugo.add_rules(md)
    if myst:  # comments, block breaks and targets, read as nothing
        md.use(myst_block_plugin)
    if mdx_page:
        mdx.add_rules(md)
    if not indented_code or mdx_page:
        md.disable("code")
    return md


def _myst_role(state: StateInline, silent: bool) -> bool:
    """A MyST role, {name}`content`: a `myst_role` token, its name in meta. Tried only
    where a role starts."""
    if state.src[state.pos] != "{":
        return False
    opening = MYST_ROLE.match(state.src, state.pos, state.posMax)
    if opening is None:
        return False
    ticks = opening.group(2)
    start = opening.end()
    close = state.src.find(ticks, start, state.posMax)
    while close >= 0 and state.src[close + len(ticks) : close + len(ticks) + 1] == "`":
        close = state.src.find(ticks, close + len(ticks) + 1, state.posMax)
    if close < 0:
        return False
    if not silent:
        token = state.push("myst_role", "", 0)
        token.meta = {"name": opening.group(1)}
        token.content = state.src[start:close].replace("\n", " ")
    state.pos = close + len(ticks)
    return True


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


def _colon_fence(state: StateBlock, start: int, end: int, silent: bool) -> bool:
    """A colon fence, to a line of as many colons or more: a MyST directive
    (`:::{note}`, a `colon_fence` token holding its body as written, which the directive's
    reader parses) or an admonition as Docusaurus, Nextra and Starlight write one
    (`:::tip[Title]` ... `:::`, its body read in place as a `container`)."""
    if state.is_code_block(start):
        return False
    first = state.bMarks[start] + state.tShift[start]
    if state.src[first : first + 3] != ":::":
        return False
    opening = COLON_OPEN.match(_line(state, start))
    if opening is None:
        return False
    if silent:
        return True
    colons = len(opening.group(1))
    line = start + 1
    while line < end:
        if state.sCount[line] < state.blkIndent and not state.isEmpty(line):
            break  # less indented than the fence: the list or quote holding it ended
        closing = COLON_CLOSE.match(_line(state, line))
        if closing and len(closing.group(1)) >= colons:
            break
        line += 1
    closed = line < end and COLON_CLOSE.match(_line(state, line)) is not None
    if opening.group(2) is not None:  # MyST
        token = state.push("colon_fence", "div", 0)
        token.info = opening.group(2)
        token.content = state.getLines(start + 1, line, state.sCount[start], True)
        token.markup = opening.group(1)
        token.map = [start, line + closed]
        state.line = line + closed
        return True
    title = opening.group(4) or opening.group(6) or ""
    if not title and opening.group(5):
        named = CONTAINER_TITLE.search(opening.group(5))
        title = next((g for g in named.groups() if g), "") if named else ""
    old_parent, old_max = state.parentType, state.lineMax
    state.parentType = "container"
    state.lineMax = line
    token = state.push("container_open", "div", 1)
    token.meta = {"kind": opening.group(3).lower(), "title": title.strip()}
    token.map = [start, line + closed]
    token.block = True
    state.md.block.tokenize(state, start + 1, line)
    state.push("container_close", "div", -1).block = True
    state.parentType, state.lineMax = old_parent, old_max
    state.line = line + closed
    return True


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
