"""MDX: Markdown with JSX, as Docusaurus, Nextra, Mintlify and Astro Starlight sites write
their pages (`.mdx`, and `.md` pages of such sites that use its constructs).

No maintained MDX parser exists for Python (MDX's own is JavaScript), so its constructs
are markdown-it rules beside CommonMark's, as MyST's are (markdown_rules.py):
- ESM: `import Tabs from '@theme/Tabs';` and `export const x = …` lines, to the next blank
  line, are code the site runs, not text;
- JSX elements written as blocks (`<Tabs>` … `</Tabs>`) are read as their content, inside a
  `jsx` token that names the element and holds its attributes; an element with no content
  (`<DocCardList />`) is no text;
- `{…}` expressions, as blocks or inside a paragraph (`{/* a comment */}`, `{props.x}`),
  are no text.
How an element reads (a tab with its label, a callout with its kind) is `element_reading`.
MDX has no indented code: its pages are parsed without it (markdown_rules.parser)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ragcli.blocks.hugo import past_gap
from ragcli.blocks.model import Admonition, Block, Paragraph

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.rules_block import StateBlock
    from markdown_it.rules_inline import StateInline

# An ESM statement's first line: `import X from 'y'`, `import {a, b} from "y"`,
# `import 'y'`, `export const/let/function/default/{…}`.
ESM = re.compile(
    r"(?:import\s+(?:[\w*{}\s,$]+\s+from\s+)?['\"]|import\s*\{|import\s+[\w$]+\s*,"
    r"|import\s+\*\s+as\s|export\s+(?:const|let|var|function|async|default|class|\{|\*))"
)
# A JSX element's opening at a line's start: a component (capitalised, or a member such
# as `Tabs.Tab`) or `<details>`; a fragment `<>` too.
JSX_OPEN = re.compile(r"<(?:([A-Z][\w]*(?:\.[A-Za-z_]\w*)*)|(details))(?=[\s/>])|<>")
ATTRIBUTE = re.compile(r"([A-Za-z_:][\w:.-]*)(?:\s*=\s*(?:\"([^\"]*)\"|'([^']*)'|\{([^{}]*)\}))?")
# What says a `.md` page is MDX: it imports (or exports) what it uses, as a Docusaurus,
# Nextra or Starlight page does its components. A component alone is not enough: mdBook's
# `<Listing>` is HTML in Markdown.
MDX_PAGE = re.compile(
    r"^(?:import\s+[\w*{}\s,$]+\s+from\s+['\"][^'\"\n]+['\"];?[ \t]*$"
    r"|export\s+(?:const|default)\s)",
    re.M,
)


@dataclass(frozen=True)
class Element:
    name: str  # "Tabs", "TabItem", "details", "" for a fragment
    attributes: dict[str, str]  # string values (an expression's text as written)


def is_mdx_page(text: str) -> bool:
    return MDX_PAGE.search(text) is not None


def add_rules(md: MarkdownIt) -> None:
    md.block.ruler.before("fence", "mdx_esm", _esm, {"alt": []})
    md.block.ruler.before(
        "html_block", "jsx_flow", _jsx_flow, {"alt": ["paragraph", "reference", "blockquote"]}
    )
    md.block.ruler.before("fence", "mdx_expression", _flow_expression, {"alt": []})
    # after the text rule, which stops at a brace: tried there only, not at every character
    md.inline.ruler.after("text", "mdx_expression", _inline_expression)


def _esm(state: StateBlock, start: int, end: int, silent: bool) -> bool:
    """ESM at the page's top level, to the next blank line: no token, no text."""
    if state.blkIndent != 0 or state.sCount[start] != 0 or state.parentType != "root":
        return False
    first = state.bMarks[start] + state.tShift[start]
    if state.src[first] not in "ie" or not ESM.match(state.src, first):
        return False
    if silent:
        return True
    line = start + 1
    while line < end and not state.isEmpty(line):
        line += 1
    state.line = line
    return True


def _flow_expression(state: StateBlock, start: int, end: int, silent: bool) -> bool:
    """An expression that opens a line (`{/* comment */}`), to its closing brace and the
    end of that line: no text. A brace that never closes is text."""
    if state.is_code_block(start):
        return False
    first = state.bMarks[start] + state.tShift[start]
    if state.src[first : first + 1] != "{":
        return False
    close = _balanced(state.src, first, "{", "}")
    if close < 0:
        return False
    line = start
    while line < end and state.eMarks[line] < close:
        line += 1
    if line >= end or state.src[close + 1 : state.eMarks[line]].strip():
        return False  # text follows on its line: an inline expression in a paragraph
    if not silent:
        state.line = line + 1
    return True


def _inline_expression(state: StateInline, silent: bool) -> bool:
    """An expression inside a paragraph (`{props.name}`): no text."""
    if state.src[state.pos] != "{":
        return False
    close = _balanced(state.src, state.pos, "{", "}", state.posMax)
    if close < 0:
        return False
    state.pos = past_gap(state, close + 1)
    return True


def _jsx_flow(state: StateBlock, start: int, end: int, silent: bool) -> bool:
    """A JSX element opening a line. With its closing tag alone on a line below, its
    content is read in place (a `jsx_open` … `jsx_close` pair of tokens, the element in
    meta); else the whole element is one `jsx` token whose content is the element's
    content as written, read on its own."""
    if state.is_code_block(start):
        return False
    first = state.bMarks[start] + state.tShift[start]
    if state.src[first] != "<":
        return False
    opening = JSX_OPEN.match(state.src, first)
    if opening is None:
        return False
    name = opening.group(1) or opening.group(2) or ""
    limit = state.eMarks[end - 1]
    tag_end = _tag_end(state.src, opening.end(), limit) if name else opening.end() - 1
    if tag_end < 0:
        return False
    if silent:
        return True
    element = Element(name, _attributes(state.src[opening.end() : tag_end]))
    self_closing = state.src[tag_end - 1] == "/"
    line = start
    while state.eMarks[line] < tag_end:
        line += 1
    rest = state.src[tag_end + 1 : state.eMarks[line]]
    if self_closing:
        token = state.push("jsx", "", 0)
        token.meta = {"element": element}
        token.content = rest if rest.strip() else ""
        token.map = [start, line + 1]
        state.line = line + 1
        return True
    closing, close_line = _closing_tag(state, name, tag_end + 1, line, end)
    if not rest.strip() and closing >= 0 and _alone(state, close_line, closing):
        old_parent, old_max, old_indent = state.parentType, state.lineMax, state.blkIndent
        state.parentType = "jsx"
        state.lineMax = close_line
        state.blkIndent = _body_indent(state, line + 1, close_line, old_indent)
        token = state.push("jsx_open", "div", 1)
        token.meta = {"element": element}
        token.map = [start, close_line + 1]
        token.block = True
        state.md.block.tokenize(state, line + 1, close_line)
        state.push("jsx_close", "div", -1).block = True
        state.parentType, state.lineMax, state.blkIndent = old_parent, old_max, old_indent
        state.line = close_line + 1
        return True
    if closing < 0:  # never closed: its content runs to the end of what holds it
        closing, close_line = state.eMarks[end - 1], end - 1
    token = state.push("jsx", "", 0)
    token.meta = {"element": element}
    token.content = _dedented(state.src[tag_end + 1 : closing])
    token.map = [start, close_line + 1]
    state.line = close_line + 1
    return True


def _tag_end(src: str, position: int, limit: int) -> int:
    """The index of the `>` that ends an opening tag whose attributes start at
    `position`; -1 when it does not end before `limit`. Quotes and `{…}` may hold `>`."""
    while position < limit:
        char = src[position]
        if char == ">":
            return position
        if char in "\"'":
            position = src.find(char, position + 1, limit)
            if position < 0:
                return -1
        elif char == "{":
            position = _balanced(src, position, "{", "}", limit)
            if position < 0:
                return -1
        elif char == "<":
            return -1  # not a tag after all (`<Foo <`)
        position += 1
    return -1


def _closing_tag(
    state: StateBlock, name: str, position: int, line: int, end: int
) -> tuple[int, int]:
    """Where `</name>` closes the element opened before `position` (same-name elements
    nest), and its line; (-1, -1) when it is not closed before `end`."""
    limit = state.eMarks[end - 1]
    pattern = re.compile(rf"<(/?){re.escape(name)}(?=[\s/>])" if name else r"<(/?)>")
    depth = 0
    for found in pattern.finditer(state.src, position, limit):
        if found.group(1):
            if depth == 0:
                while state.eMarks[line] < found.start():
                    line += 1
                return found.start(), line
            depth -= 1
        else:
            tag_end = _tag_end(state.src, found.end(), limit) if name else found.end() - 1
            if tag_end >= 0 and state.src[tag_end - 1] != "/":
                depth += 1
    return -1, -1


def _alone(state: StateBlock, line: int, position: int) -> bool:
    """The closing tag at `position` is alone on its line."""
    before = state.src[state.bMarks[line] : position]
    after = state.src[position : state.eMarks[line]]
    return not before.strip() and after.rstrip().endswith(">") and after.count("<") == 1


def _body_indent(state: StateBlock, first: int, last: int, least: int) -> int:
    """The indent of an element's least indented line: its content reads as if written
    at the margin (components indent their children)."""
    indents = [state.sCount[line] for line in range(first, last) if not state.isEmpty(line)]
    return max(least, min(indents)) if indents else least


def _attributes(text: str) -> dict[str, str]:
    found: dict[str, str] = {}
    for match in ATTRIBUTE.finditer(text):
        value = next((g for g in match.group(2, 3, 4) if g is not None), "")
        found[match.group(1)] = value
    return found


def _balanced(src: str, position: int, opening: str, closing: str, limit: int = -1) -> int:
    """The index of the `closing` that balances the `opening` at `position` (strings and
    comments inside skipped); -1 when there is none before `limit`."""
    limit = len(src) if limit < 0 else limit
    depth = 0
    index = position
    while index < limit:
        char = src[index]
        if char == opening:
            depth += 1
        elif char == closing:
            depth -= 1
            if depth == 0:
                return index
        elif char in "\"'`":
            index = src.find(char, index + 1, limit)
            if index < 0:
                return -1
        elif char == "/" and src.startswith("/*", index):
            index = src.find("*/", index + 2, limit)
            if index < 0:
                return -1
            index += 1
        index += 1
    return -1


def _dedented(text: str) -> str:
    import textwrap

    return textwrap.dedent(text.strip("\n"))


# Components that are callouts, by name: the kind a callout is when its `type` does not
# say (Nextra's `<Callout>`, Starlight's `<Aside>`, Docusaurus' `<Admonition>`,
# Mintlify's `<Note>`, `<Tip>`, `<Warning>`, `<Info>`, `<Check>`).
CALLOUTS = {
    "callout": "note",
    "aside": "note",
    "admonition": "note",
    "note": "note",
    "tip": "tip",
    "warning": "warning",
    "info": "info",
    "check": "success",
    "caution": "caution",
    "danger": "danger",
}
# Components that hold alternatives, each under a label (Docusaurus' `<TabItem
# label="npm">`, Starlight's `<TabItem label=…>`, Nextra's `<Tabs.Tab>`, Mintlify's
# `<Tab title=…>`), and the attributes a label is written in.
TABS = frozenset({"tabitem", "tab", "tabs.tab"})
LABELS = ("label", "title", "value")


SUMMARY = re.compile(r"<summary[^>]*>(.*?)</summary>", re.I | re.S)
TAG = re.compile(r"<[^<>]*>")


def summary_of(html: str) -> str:
    """The words of a `<summary>` that opens a `<details>`' content; "" without one."""
    found = SUMMARY.search(html)
    return " ".join(TAG.sub("", found.group(1)).split()) if found else ""


def element_blocks(element: Element, inner: list[Block], summary: str = "") -> list[Block]:
    """What an element with `inner` content reads as: a callout as an admonition of its
    kind (and title), a tab as its label, a lead-in ending in a colon, before its content,
    `<details>` as an admonition titled by its summary, anything else as its content."""
    name = element.name.lower()
    attributes = element.attributes
    if name in CALLOUTS:
        kind = (attributes.get("type") or CALLOUTS[name]).lower()
        return [Admonition(kind, " ".join(attributes.get("title", "").split()), tuple(inner))]
    if name in TABS:
        label = next((attributes[a] for a in LABELS if attributes.get(a)), "")
        label = " ".join(label.split())
        return [Paragraph(f"{label}:"), *inner] if label and inner else inner
    if name == "details":
        if not summary and inner and isinstance(inner[0], Paragraph):
            summary, inner = inner[0].text, inner[1:]  # read from a `<summary>` line
        return [Admonition("details", summary, tuple(inner))]
    return inner
