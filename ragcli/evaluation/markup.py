"""Raw markup left in an answer (scripts/howto_benchmark.py) or a chunk
(scripts/reading_fidelity.py): source syntax of reST, MkDocs, mdBook, HTML, MDX,
Docusaurus or Hugo that a reader should see rendered, not as written.

Each kind is a regular expression over the answer text. They are written to catch the
syntax, not ordinary code: Rust generics (`Vec<T>`, `Box<dyn Error>`) are not HTML, a
Rust doc comment (`/// Adds one`) is not a `/// tip` block, `{:#?}` is not an anchor, and a
Markdown code span holding a backtick (`` `x` ``) is not a reST literal.
"""

from __future__ import annotations

import re

# Elements that documentation writes inline (mdBook's `<Listing>` and `<span
# class="filename">`, MkDocs' `<div>`, `<abbr>`, `<img>`, `<a href>`); a name outside the
# list (`<T>`, `<Response [200 OK]>`) is taken for code.
HTML_ELEMENTS = (
    "a abbr b blockquote br caption center code dd details div dl dt em figcaption figure "
    "font h1 h2 h3 h4 h5 h6 hr i iframe img input kbd li ol p picture pre script section "
    "small source span strong style sub summary sup table tbody td th thead tr u ul video"
)
ADMONITION_TYPES = (
    "abstract admonition attention bug caution check danger details error example failure "
    "hint important info note question quote success summary tab tip todo warning"
)
_ELEMENT = "|".join(HTML_ELEMENTS.split())
_ADMONITION = "|".join(ADMONITION_TYPES.split())

PATTERNS: dict[str, re.Pattern[str]] = {
    # :class:`~requests.Session`, :func:`get`, :py:meth:`x`
    "rest-role": re.compile(r"(?<![\w`]):(?:[a-z]+:)?[a-z][\w-]*:`[^`\n]+`"),
    # MyST Markdown's {func}`attrs.define`, {doc}`install`
    "myst-role": re.compile(r"(?<![\w`{])\{[A-Za-z][\w:+-]*\}`[^`\n]+`"),
    # ``literal`` (a Markdown span with a backtick inside pads it: `` `x` ``)
    "rest-literal": re.compile(r"(?<!`)``(?![\s`])[^`\n]+?(?<![\s`])``(?!`)"),
    # `text <https://...>`_ and an anonymous `reference`__ (a named `reference`_ is left
    # out: "_use `x`_" is Markdown emphasis around a code span)
    "rest-link": re.compile(r"(?<![\w`])`[^`\n]*<[^<>`\n]+>`__?(?![\w`])|`[^`\n]+`__(?![\w`])"),
    # {#anchor}, { #anchor }, {.internal-link target=_blank}, {: .class} (not Rust's
    # `{:#x}` or `{:#?}`, nor `{ ..base }`)
    # and a fence's attributes: ```python {test="skip"} (mdBook's `{{#include}}` is an include)
    "attribute-list": re.compile(
        r"(?<!\{)\{(?::\s+|\s*)(?:#[\w-]+|\.[A-Za-z][\w-]*)(?:\s[^{}\n]*)?\}"
        r"|```[\w+-]*[ \t]*\{[^{}\n]*=[^{}\n]*\}"
    ),
    # [`model_dump()`][pydantic.BaseModel.model_dump], [dict][]: a reference link whose
    # definition is elsewhere (MkDocs autorefs) shows as written (not `matrix[i][j]`)
    "reference-link": re.compile(r"(?<![\w\])\[(])\[[^\[\]\n]+\]\[[\w.:-]*\]"),
    # a footnote's mark, text[^1] or text [^1], or its definition, [^note]: (a code span's
    # `[^a-z]` is a regular expression: EXAMPLES_IN_SPANS)
    "footnote": re.compile(r"(?<!`)\[\^[\w-]+\]|(?m:^\[\^[\w-]+\]:)"),
    "html": re.compile(
        rf"<(?:{_ELEMENT})(?:\s[^<>]*)?/?>|</(?:{_ELEMENT}|Listing)>"
        r"|<Listing\s[^<>]*>|<!--"  # lower case only: `Option<U>`, `<B>` are generics
    ),
    # {* ../docs_src/x.py *}, {!./docs_src/x.py!}, --8<-- "file", {{#include f}},
    # {{#rustdoc_include f}}, .. literalinclude:: f, ::: httpx.Client
    "include": re.compile(
        r"\{\*.*?\*\}|\{!.*?!\}|--8<--|\{\{#(?:include|rustdoc_include|playground)\b"
        r"|(?<!\S)\.\. (?:literal)?include::|(?<!\S):::\s*[A-Za-z_][\w.]*"
    ),
    # !!! note, ??? api "API Documentation", /// tip, //// tab | Python, > [!NOTE],
    # === "pip" (content tabs), .. note::
    "admonition": re.compile(
        r"(?<!\S)(?:!!!|\?\?\?\+?)\s*[a-z][\w-]*"
        rf"|(?<!\S)/{{3,4}}\s*(?:{_ADMONITION}|version-[a-z]+)\b(?!\s+(?:that|this|the|a|is)\b)"
        r"|\[!(?:NOTE|TIP|IMPORTANT|WARNING|CAUTION)\]"
        r'|(?m:^[ \t]*===\s+"[^"\n]*"[ \t]*$)'  # a tab's title alone on its line, not `a === "x"`
        r"|(?<!\S)\.\. [a-z][\w-]*::",
    ),
    # {{ pydantic_settings }}, {% if sponsors %}: a site's template, not its text
    "template": re.compile(r"\{\{\s*[A-Za-z_][\w.]*\s*\}\}|\{%-?\s.*?%\}"),
    # MDX's ESM: import Tabs from '@theme/Tabs'; export const x = ...
    "esm": re.compile(
        r"(?m)^[ \t]*(?:import\s+[\w*{}\s,$]+\s+from\s+['\"][^'\"\n]+['\"]"
        r"|export\s+(?:const|default|function|let)\b)"
    ),
    # A JSX element: <Tabs>, <TabItem value="npm">, </Callout>, <DocCardList /> (a
    # capitalised name of two letters or more, not after a word: `Option<String>` is Rust)
    "jsx": re.compile(
        r"(?<![\w:.<])</?[A-Z][a-z]\w*(?:\.[A-Za-z]\w*)*"
        r"(?:\s+[\w-]+(?:=(?:\"[^\"]*\"|'[^']*'|\{[^{}]*\}))?)*\s*/?>"
    ),
    # an MDX expression's comment, {/* ... */}
    "mdx-expression": re.compile(r"\{/\*.*?\*/\}"),
    # Docusaurus, Nextra, Starlight admonitions: :::tip[Title], :::info, and the closing :::
    "directive": re.compile(r"(?m)^[ \t]*:::(?:[a-z]+\b|[ \t]*$)"),
    # Hugo's shortcodes: {{< highlight go >}}, {{% notice %}}, {{< /tab >}}
    "shortcode": re.compile(r"\{\{[<%]-?\s*/?[A-Za-z][\w./-]*"),
}


# Kinds looked for in code blocks too: an include or a fence's attributes left in a code
# block are the site's syntax; the others there are the example's own text (a console's
# `[TAB][TAB]`, an HTML or Jinja example, a Rust doc comment).
IN_CODE_TOO = ("attribute-list", "include")
FENCED_BODY = re.compile(r"(?ms)^([ \t]*```[^\n]*\n).*?^([ \t]*```[ \t]*$)")


def raw_markup(text: str) -> list[str]:
    """The kinds of raw markup in `text`, in the order of PATTERNS; [] when it is clean."""
    return [kind for kind, pattern in PATTERNS.items() if pattern.search(_scope(text, kind))]


# Kinds not looked for in a code span either: "a `<form>` tag" writes HTML as the
# example it is, and `[^a-z]` a regular expression's character class.
EXAMPLES_IN_SPANS = ("html", "footnote", "jsx", "shortcode", "mdx-expression")
CODE_SPAN = re.compile(r"(?<!`)`[^`\n]+`(?!`)")


def _scope(text: str, kind: str) -> str:
    """`text`, without its code blocks' bodies unless `kind` is looked for in code too,
    and without its code spans for a kind an example may write there."""
    if kind in IN_CODE_TOO:
        return text
    text = FENCED_BODY.sub(r"\1\2", text)
    return CODE_SPAN.sub("``", text) if kind in EXAMPLES_IN_SPANS else text


def markup_examples(text: str, limit: int = 3) -> list[str]:
    """Up to `limit` of the raw markup snippets found in `text`, to show where they are."""
    found: list[str] = []
    for kind, pattern in PATTERNS.items():
        found.extend(m.group(0) for m in pattern.finditer(_scope(text, kind)))
    return found[:limit]
