"""HTML into blocks, by BeautifulSoup: headings, paragraphs, list items, code (`<pre>`),
data tables, admonitions (`<div class="admonition note">`, as Sphinx and MkDocs write
them) and definition lists. Inline elements stay inside their sentence: `<code>` and
`<kbd>` as code spans, links as their text, other tags dropped."""

from __future__ import annotations

import re
from typing import Any

from ragcli.blocks.inline import block_text, code_span, heading_title
from ragcli.blocks.model import (
    Admonition,
    Block,
    CodeBlock,
    Heading,
    ListItem,
    Paragraph,
    Table,
)

HIDDEN = ["script", "style", "noscript", "template", "head", "svg", "button", "nav"]
# What a page marks as around its content, as `<nav>` is: Sphinx's "Navigation" bar and
# sidebar (`role="navigation"`), its search box, and a heading's permalink (`¶`).
AROUND = "[role=navigation], [role=search], a.headerlink"
# An element that marks a page's main content, in the order they are looked for.
LANDMARKS = ("main", "[role=main]", "article")
CODE = frozenset({"code", "kbd", "samp", "tt", "var"})
INLINE = frozenset(
    "a abbr b bdi bdo cite code data del dfn em font i ins kbd label mark q s samp small span "
    "strong sub sup time tt u var wbr".split()
)
# Inline elements and the void ones read inline: what runs on within a line of text.
PHRASING = INLINE | {"br", "img"}
HEADINGS = {f"h{n}": n for n in range(1, 7)}
# A cell holding one of these is a page's layout, not data: such a table is read as blocks.
LAYOUT = "address article blockquote div dl form h1 h2 h3 h4 h5 h6 ol p pre section table ul"
# A table that names its columns (a first row of `<th>`) is data, and its cells may hold
# paragraphs, lists or line blocks: Sphinx writes every cell's text as a `<p>` (strftime()'s
# directives, a LogRecord's attributes). Only a cell holding a page's structure makes it
# layout.
STRUCTURE = "address article form h1 h2 h3 h4 h5 h6 section table"
# How deep the walk goes into nested elements; real pages stay far above it.
MAX_DEPTH = 100
XML_DECLARATION = re.compile(r"^\s*<\?xml[^>]*>")
LANGUAGE_CLASS = re.compile(r"^(?:language|lang|highlight|sourceCode)-(\w[\w+#-]*)$")
ADMONITION_KINDS = frozenset(
    "note tip hint important warning caution danger error attention info seealso todo "
    "abstract summary success question failure bug example quote".split()
)


def html_document(html: str, main_only: bool = False) -> tuple[str | None, list[Block]]:
    """The page's title and its blocks; with `main_only`, those of its main content when
    it marks one (main_landmark): not the sidebars, banners and footer around it."""
    from bs4 import BeautifulSoup

    # lxml builds the tree as browsers do: an `<li>` or `<p>` whose end tag is left out
    # (as HTML allows) ends at the next one. html.parser nests each in the one before, so
    # a list of items without `</li>` would read as one item. An EPUB chapter is XHTML,
    # read as HTML on purpose: without its XML declaration BeautifulSoup does not warn
    # about that (a warning would become a note on the file, ingest/warning_notes.py).
    soup = BeautifulSoup(XML_DECLARATION.sub("", html, count=1), "lxml")
    title = soup.title.get_text(" ", strip=True) if soup.title else None
    for hidden in [*soup(HIDDEN), *soup.select(AROUND)]:
        hidden.decompose()
    root = (main_landmark(soup) if main_only else None) or soup
    _flatten_below(root, MAX_DEPTH)
    walker = _Walker()
    walker.walk(root, 0)
    walker.flush()
    return title or None, walker.found


def main_landmark(soup: Any) -> Any | None:
    """The page's one `<main>` (or `role="main"`, or `<article>`) with text in it, as
    documentation generators write (Sphinx, MkDocs, Docusaurus); None when there is no such
    one element."""
    for selector in LANDMARKS:
        found = soup.select(selector)
        if len(found) == 1 and found[0].get_text(strip=True):
            return found[0]
    return None


def _flatten_below(soup: Any, depth: int) -> None:
    """Each element `depth` levels down holds its text alone: the walk below goes a level
    deeper in Python's stack for each nested element, and sloppy HTML (hundreds of unclosed
    `<font>` or `<b>` tags) nests that deep. Its text is kept, its structure not."""
    levels = {id(soup): 0}
    for tag in soup.find_all(True):  # in document order: a parent before its children
        above = levels.get(id(tag.parent))
        if above is None:
            continue  # inside an element flattened already
        level = above + 1
        levels[id(tag)] = level
        if level == depth and tag.find(True) is not None:
            tag.string = tag.get_text(" ")


def html_blocks(html: str) -> list[Block]:
    """An HTML fragment's blocks (HTML written inside Markdown)."""
    return html_document(html)[1]


class _Walker:
    def __init__(self) -> None:
        self.found: list[Block] = []
        self.inline: list[str] = []

    def flush(self) -> None:
        text = block_text(_collapse("".join(self.inline)))
        self.inline.clear()
        if any(c.isalnum() for c in text):
            self.found.append(Paragraph(text))

    def walk(self, element: Any, depth: int) -> None:
        from bs4 import Comment, NavigableString, Tag

        for child in element.children:
            if isinstance(child, Comment) or (
                isinstance(child, NavigableString) and type(child).__name__ != "NavigableString"
            ):
                continue  # comments, doctypes, CDATA
            if isinstance(child, NavigableString):
                self.inline.append(str(child))
            elif isinstance(child, Tag):
                self.element(child, depth)

    def element(self, tag: Any, depth: int) -> None:
        name = tag.name
        if name in PHRASING:
            self.inline.append(_inline(tag))
            return
        self.flush()
        if name in HEADINGS:
            self.heading(tag, depth)
        elif name == "p":
            self.inline.append(_inline_children(tag))
            self.flush()
        elif name == "pre":
            self.found.append(CodeBlock(_language(tag), tag.get_text().strip("\n")))
        elif name in ("ul", "ol"):
            self.items(tag, depth)
        elif name == "table" and _is_data_table(tag):
            self.found.append(_table(tag))
        elif name == "dl":
            self.definitions(tag, depth)
        elif _admonition_kind(tag):
            self.admonition(tag, depth)
        else:
            self.walk(tag, depth)
        self.flush()

    def heading(self, tag: Any, depth: int) -> None:
        """A heading, and what an unclosed one swallowed: `<h1>Title<p>Text…` (sloppy HTML,
        which the parser may nest as written) is a heading "Title" and a paragraph."""
        from bs4 import NavigableString, Tag

        children = list(tag.children)
        block = next(
            (
                i
                for i, child in enumerate(children)
                if isinstance(child, Tag) and child.name not in PHRASING
            ),
            len(children),
        )
        title = heading_title(_collapse("".join(_part(c) for c in children[:block])))
        if title:
            self.found.append(Heading(HEADINGS[tag.name], title, ()))
        for child in children[block:]:
            if isinstance(child, Tag):
                self.element(child, depth)
            elif type(child) is NavigableString:  # text, not a comment or a doctype
                self.inline.append(str(child))

    def items(self, tag: Any, depth: int) -> None:
        ordered = tag.name == "ol"
        number = int(tag.get("start", 1)) if str(tag.get("start", "1")).isdigit() else 1
        for item in tag.find_all("li", recursive=False):
            marker = f"{number}." if ordered else "-"
            number += 1
            inner = _Walker()
            inner.walk(item, depth + 1)
            inner.flush()
            texts: list[str] = []
            rest: list[Block] = []
            for block in inner.found:
                if isinstance(block, Paragraph) and not rest:
                    texts.append(block.text)
                else:
                    rest.append(block)
            if texts:
                self.found.append(ListItem(" ".join(texts), marker, depth))
            self.found.extend(rest)

    def definitions(self, tag: Any, depth: int) -> None:
        term = ""
        for child in tag.find_all(["dt", "dd"], recursive=False):
            if child.name == "dt":
                term = _collapse(_inline_children(child))
                continue
            inner = _Walker()
            inner.walk(child, depth + 1)
            inner.flush()
            first = (
                inner.found[0] if inner.found and isinstance(inner.found[0], Paragraph) else None
            )
            text = f"{term}: {first.text}" if first and term else (first.text if first else term)
            if text:
                self.found.append(ListItem(text, "-", depth))
            self.found.extend(inner.found[1:] if first else inner.found)

    def admonition(self, tag: Any, depth: int) -> None:
        title_tag = tag.find(class_="admonition-title")
        title = _collapse(title_tag.get_text(" ")) if title_tag else ""
        if title_tag:
            title_tag.decompose()
        inner = _Walker()
        inner.walk(tag, depth)
        inner.flush()
        kind = _admonition_kind(tag)
        self.found.append(
            Admonition(kind, "" if title.lower() == kind else title, tuple(inner.found))
        )


def _inline(tag: Any) -> str:
    if tag.name == "br":
        return "\n"
    if tag.name == "img":
        return ""
    if tag.name in CODE:
        return code_span(" ".join(tag.get_text().split()))
    return _inline_children(tag)


def _inline_children(tag: Any) -> str:
    return "".join(_part(child) for child in tag.children)


def _part(child: Any) -> str:
    """A child's text inline: a comment none, a block's text set apart by spaces."""
    from bs4 import Comment, NavigableString, Tag

    if isinstance(child, Comment):
        return ""
    if isinstance(child, NavigableString):
        return str(child)
    if isinstance(child, Tag):
        if child.name in PHRASING:
            return _inline(child)
        return " " + child.get_text(" ") + " "
    return ""


def _collapse(text: str) -> str:
    lines = [" ".join(line.split()) for line in text.replace("\xa0", " ").split("\n")]
    return "\n".join(line for line in lines if line).strip()


def _language(pre: Any) -> str:
    for element in (pre, pre.find("code"), pre.parent):
        if element is None or not hasattr(element, "get"):
            continue
        for name in element.get("class") or []:
            match = LANGUAGE_CLASS.match(name)
            if match:
                return match.group(1).lower()
    return ""


def _is_data_table(table: Any) -> bool:
    rows = [row for row in table.find_all("tr") if row.find_parent("table") is table]
    if not rows:
        return False
    cells = [cell for row in rows for cell in row.find_all(["td", "th"], recursive=False)]
    layout = (STRUCTURE if _names_columns(rows[0]) else LAYOUT).split()
    return not any(cell.find(layout) for cell in cells)


def _names_columns(first_row: Any) -> bool:
    """The first row is a header row: its cells are all `<th>` (a `<th>` opening each row
    names the row, as docutils' field lists and option lists written as tables do)."""
    cells = first_row.find_all(["td", "th"], recursive=False)
    return len(cells) > 1 and all(cell.name == "th" for cell in cells)


def _table(table: Any) -> Table:
    rows = [row for row in table.find_all("tr") if row.find_parent("table") is table]
    cells = [
        tuple(" ".join(_cell_text(c).split()) for c in row.find_all(["td", "th"], recursive=False))
        for row in rows
    ]
    cells = [row for row in cells if any(row)]
    if not cells:
        return Table((), ())
    return Table(cells[0], tuple(cells[1:]))


def _cell_text(tag: Any) -> str:
    """A table cell's text as `_inline_children` reads it, but through the paragraphs,
    lists and line blocks a cell may hold (a Sphinx cell is a `<p>`), so that their code
    spans are kept where `_part` would take a block's plain text."""
    from bs4 import Tag

    return "".join(
        f" {_cell_text(child)} "
        if isinstance(child, Tag) and child.name not in PHRASING
        else _part(child)
        for child in tag.children
    )


def _admonition_kind(tag: Any) -> str:
    classes = [c.lower() for c in (tag.get("class") or [])]
    if tag.name not in ("div", "aside", "section") or "admonition" not in classes:
        return ""
    kinds = [c for c in classes if c in ADMONITION_KINDS]
    return kinds[0] if kinds else "note"
