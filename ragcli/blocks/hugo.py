"""Hugo's shortcodes: `{{< name args >}}` (its body is Markdown Hugo leaves alone) and
`{{% name args %}}` (its body is Markdown), closed by `{{< /name >}}`.

Hugo runs them when it builds the site; a copy of the sources holds only the calls. As
markdown-it rules:
- `highlight`, `code-toggle` and `code` are code blocks (their body, as written);
- `include` and `readfile` pull in another file: a reference to it, as other includes are
  (includes.py), never read;
- a `tab` with a `lang` (Docsy's tab panes) is code under its header;
- any other shortcode with a body is read as that body, in place; one without a body
  is its `text` argument, read as a paragraph (Doks' `{{< alert text="…" />}}`), or no
  text (`{{< youtube id >}}`);
- inside a paragraph, a link to `{{< ref "page.md" >}}` or `relref` reads as its text, and
  any other shortcode call is no text (a paired one's words between its tags stay)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import TYPE_CHECKING

from ragcli.blocks.includes import LANGUAGES
from ragcli.blocks.model import Block, CodeBlock, Paragraph, include_text

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.rules_block import StateBlock
    from markdown_it.rules_inline import StateInline
    from markdown_it.token import Token

# One call: `{{<` or `{{%`, a closing slash, the name, its arguments, `>}}` or `%}}`.
CALL = re.compile(
    r"\{\{([<%])-?\s*(/?)\s*([A-Za-z][\w./-]*)((?:[^}\n]|\}(?!\}))*?)\s*(/?)\s*-?[>%]\}\}"
)
# An argument, named or not: a Go string ("…", with backslash escapes), '…', or a word.
ARGUMENT = re.compile(
    r"""([\w-]+)=(?:"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+))|"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+)"""
)
ESCAPE = re.compile(r"\\(.)")
REF_LINK = re.compile(
    r"\[([^\]\n]*)\]\(\s*\{\{[<%]\s*(?:rel)?ref\s+(?:[^}\n]|\}(?!\}))*?[>%]\}\}\s*\)"
)
CODE = frozenset({"highlight", "code-toggle", "code"})
INCLUDES = frozenset({"include", "readfile"})


@dataclass(frozen=True)
class Call:
    name: str
    positional: tuple[str, ...] = ()
    named: dict[str, str] = field(default_factory=dict)

    @property
    def language(self) -> str:
        """The language a code shortcode names (`highlight go`, `lang="toml"`)."""
        if self.name == "highlight" and self.positional:
            return self.positional[0].lower()
        return self.named.get("lang", "").lower()

    @property
    def target(self) -> str:
        """What an include names: its first argument, or its `file`."""
        return self.positional[0] if self.positional else self.named.get("file", "")


def parse_call(match: re.Match[str]) -> Call:
    positional: list[str] = []
    named: dict[str, str] = {}
    for argument in ARGUMENT.finditer(match.group(4)):
        if argument.group(1):
            named[argument.group(1).lower()] = _value(argument, 2)
        else:
            positional.append(_value(argument, 5))
    return Call(match.group(3).lower(), tuple(positional), named)


def _value(argument: re.Match[str], first: int) -> str:
    """An argument's value from its groups `first` ("…", escapes read as Go reads them),
    `first` + 1 ('…') and `first` + 2 (a word)."""
    if (go_string := argument.group(first)) is not None:
        return ESCAPE.sub(r"\1", go_string)
    return next(g for g in argument.group(first + 1, first + 2) if g is not None)


def add_rules(md: MarkdownIt) -> None:
    md.block.ruler.before(
        "fence", "hugo_shortcode", _block, {"alt": ["paragraph", "reference", "blockquote"]}
    )
    md.inline.ruler.before("link", "hugo_ref_link", _ref_link)
    # after the text rule, which stops at a brace: tried there only, not at every character
    md.inline.ruler.after("text", "hugo_call", _inline_call)


def _line(state: StateBlock, line: int) -> str:
    return state.src[state.bMarks[line] + state.tShift[line] : state.eMarks[line]]


def _block(state: StateBlock, start: int, end: int, silent: bool) -> bool:
    """A shortcode call alone on its line: a code block, an include, a body read in place
    (`shortcode_open` … `shortcode_close`), or nothing."""
    if state.is_code_block(start):
        return False
    first = state.bMarks[start] + state.tShift[start]
    if state.src[first : first + 2] != "{{" or state.src[first + 2 : first + 3] not in "<%":
        return False
    text = _line(state, start).rstrip()
    opening = CALL.match(text)
    if opening is None or opening.end() != len(text):
        return False  # words after it: a paragraph, whose inline rule reads the call
    if silent:
        return True
    call = parse_call(opening)
    if opening.group(2):  # a stray closing tag
        state.line = start + 1
        return True
    close = None if opening.group(5) else _closing_line(state, call.name, start + 1, end)
    if call.name in INCLUDES:
        _push(state, "shortcode_include", call, start, start + 1)
        state.line = start + 1
        return True
    if close is None:
        if words := call.named.get("text", "").strip():
            # A callout that carries its words in an argument: a paragraph of them, read
            # as Markdown like any other.
            state.push("paragraph_open", "p", 1).map = [start, start + 1]
            inline = state.push("inline", "", 0)
            inline.content, inline.map, inline.children = words, [start, start + 1], []
            state.push("paragraph_close", "p", -1)
        state.line = start + 1  # no body and no text argument: no text
        return True
    if call.name in CODE or (call.name == "tab" and call.language):
        token = _push(state, "shortcode_code", call, start, close + 1)
        token.content = state.getLines(start + 1, close, state.sCount[start], True)
        state.line = close + 1
        return True
    old_parent, old_max = state.parentType, state.lineMax
    state.parentType = "shortcode"
    state.lineMax = close
    token = _push(state, "shortcode_open", call, start, close + 1)
    token.nesting = 1
    token.block = True
    state.md.block.tokenize(state, start + 1, close)
    state.push("shortcode_close", "div", -1).block = True
    state.parentType, state.lineMax = old_parent, old_max
    state.line = close + 1
    return True


def _push(state: StateBlock, kind: str, call: Call, first: int, last: int) -> Token:
    token = state.push(kind, "div", 0)
    token.meta = {"call": call}
    token.map = [first, last]
    token.block = True
    return token


def _closing_line(state: StateBlock, name: str, line: int, end: int) -> int | None:
    """The line whose call closes `name` (calls of the same name nest), or None."""
    depth = 0
    while line < end:
        if state.sCount[line] < state.blkIndent and not state.isEmpty(line):
            return None  # the list or quote holding the call ended
        text = _line(state, line).rstrip()
        found = CALL.match(text) if text.startswith("{{") else None
        if found is not None and found.group(3).lower() == name and found.end() == len(text):
            if found.group(2):
                if depth == 0:
                    return line
                depth -= 1
            elif not found.group(5):
                depth += 1
        line += 1
    return None


def _ref_link(state: StateInline, silent: bool) -> bool:
    """`[text]({{< ref "page.md" >}})`: the link's text."""
    if state.src[state.pos] != "[":
        return False
    found = REF_LINK.match(state.src, state.pos, state.posMax)
    if found is None:
        return False
    if not silent:
        old_max = state.posMax
        state.pos, state.posMax = found.start(1), found.end(1)
        state.md.inline.tokenize(state)
        state.posMax = old_max
    state.pos = found.end()
    return True


def _inline_call(state: StateInline, silent: bool) -> bool:
    """A call inside a paragraph: no text."""
    if not state.src.startswith("{{", state.pos):
        return False
    found = CALL.match(state.src, state.pos, state.posMax)
    if found is None:
        return False
    state.pos = past_gap(state, found.end())
    return True


def past_gap(state: StateInline, end: int) -> int:
    """Where reading goes on after markup that is no text, ending at `end`: past the
    spaces after it too when spaces came before it ("and {{< param >}} first" reads "and
    first", with one space)."""
    if state.pending.endswith((" ", "\t")):
        while end < state.posMax and state.src[end] in " \t":
            end += 1
    return end


def call_blocks(kind: str, call: Call, content: str, inner: list[Block]) -> list[Block]:
    """What a call read by the block rule is: an include's reference (a Markdown file's
    included text, else a code example), a code block, a tab's header (a lead-in ending in
    a colon) before its code or body, any other body as itself."""
    if kind == "shortcode_include":
        if not call.target:
            return []
        language = LANGUAGES.get(PurePosixPath(call.target).suffix.lower(), "")
        text = language in ("", "markdown")
        return [
            CodeBlock("" if text else language, include_text(call.target, text=text), call.target)
        ]
    header = " ".join(call.named.get("header", "").split()) if call.name == "tab" else ""
    if kind == "shortcode_code":
        code = CodeBlock(call.language or _config_language(content), content.rstrip("\n"))
        inner = [code]
    return [Paragraph(f"{header}:"), *inner] if header and inner else inner


def _config_language(text: str) -> str:
    """The language of a configuration example `code-toggle` shows, by its first line:
    TOML, YAML or JSON."""
    first = next((line.strip() for line in text.split("\n") if line.strip()), "")
    if first.startswith("{"):
        return "json"
    if first.startswith("[") or re.match(r"^[\w.-]+\s*=", first):
        return "toml"
    return "yaml" if re.match(r"^[\w.-]+\s*:", first) else ""
