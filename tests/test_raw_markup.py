"""The raw-markup detector of scripts/howto_benchmark.py (ragcli/evaluation/markup.py):
every kind of source syntax named in issue 43 is caught, and ordinary code and prose,
Markdown included, are not flagged."""

from __future__ import annotations

import pytest

from ragcli.evaluation.markup import markup_examples, raw_markup

CAUGHT = [
    ("rest-role", "Returns a :class:`~requests.cookies.RequestsCookieJar` of cookies."),
    ("rest-role", "Call :func:`requests.get` or :py:meth:`Session.send`."),
    ("myst-role", "Decorate it with {func}`~attrs.define` first."),
    ("rest-literal", "Pass ``stream=True`` to the request."),
    ("rest-link", "See `Sending JSON in Requests <https://example.org/json>`_ for more."),
    ("rest-link", "as `the quickstart`__ shows"),
    ("attribute-list", "## `GZipMiddleware` { #gzipmiddleware }"),
    ("attribute-list", "## Strict mode and data coercion {#strict-lax}"),
    ("attribute-list", "[](){#number-types}"),
    ("attribute-list", "see [Order Matters](x.md#order){.internal-link target=_blank} first"),
    ("attribute-list", "A heading {: .class }"),
    ("attribute-list", '```python {test="skip"}\nprint(1)\n```'),
    ("reference-link", "[`model_dump()`][pydantic.BaseModel.model_dump] also provides"),
    ("reference-link", "Calling [dict][] on the instance"),
    ("html", '<Listing number="1-2" file-name="Cargo.toml" caption="Contents">'),
    ("html", "the code</Listing> above"),
    ("html", '<span class="filename">Filename: src/main.rs</span>'),
    ("html", 'Install <a href="https://sqlitebrowser.org/">DB Browser</a>, it is free.'),
    ("html", "in <abbr title='Also called relational'>SQL databases</abbr>"),
    ("html", "chapter 9.<!-- ignore --> The next"),
    ("html", "line one<br>line two"),
    ("html", "`x` is set<br>and `y` too"),
    ("include", "{* ../docs_src/first_steps/tutorial001.py hl[3] *}"),
    ("include", "{!./docs_src/tutorial/select/tutorial001.py[ln:1-3]!}"),
    ("include", '--8<-- "docs/snippets/example.py"'),
    ("include", "```rust\n{{#rustdoc_include ../listings/ch04/src/main.rs:here}}\n```"),
    ("include", "{{#include ../listings/ch02/no-listing-01/Cargo.toml}}"),
    ("include", "{{#rustdoc_include ../listings/ch02/listing-02-01/src/main.rs:all}}"),
    ("include", ".. literalinclude:: ../examples/client.py"),
    ("include", "::: httpx.Client\n    :docstring:"),
    ("include", "Client instances ::: pydantic.BaseModel options: show_root_heading: true"),
    ("admonition", "!!! note\n    Response event hooks are called first."),
    ("admonition", '!!! tip "Gotcha"\n    The proxy URL should use http.'),
    ("admonition", '??? api "API Documentation"'),
    ("admonition", "/// tip\n\nYou will learn how later.\n\n///"),
    ("admonition", "/// version-added | v2.12\nThe `exclude_if` parameter.\n///"),
    ("admonition", "//// tab | Python 3.10+"),
    ("admonition", "> [!NOTE]\n> Useful information."),
    ("admonition", '=== "pip"\n\n    pip install pydantic'),
    ("admonition", ".. note::\n\n   Sessions are not thread safe."),
    ("footnote", "a very common problem.[^immutable] Not only"),
    ("footnote", "tables [^siphash] are hashed"),
    ("footnote", "[^siphash]: https://en.wikipedia.org/wiki/SipHash"),
    ("template", "{{ pydantic_settings }}"),
    ("template", "{% if sponsors %}"),
]

CLEAN = [
    "Use `httpx.Client(follow_redirects=True)` to follow redirects.",
    "A `Vec<T>` or `Box<dyn Error>` holds it; `Option<U>` and `HashMap<String, i32>` too.",
    "fn largest<T: PartialOrd>(list: &[T]) -> &T { &list[0] }",
    "```rust\n/// Adds one to the number given.\n///\n/// # Examples\n"
    "fn add_one(x: i32) -> i32 { x + 1 }\n```",
    '```rust\nprintln!("rect1 is {rect1:#?}");\nprintln!("{:#x} {:#?}", 255, v);\n```',
    'let user2 = User { email: String::from("x"), ..user1 };',
    ">>> httpx.get('https://example.org')\n<Response [200 OK]>",
    "Use `` `code` `` spans for names with backticks in Markdown.",
    "```python\nfrom pydantic import BaseModel\n\n\nclass Model(BaseModel):\n    x: int = 1\n```",
    'if (value === "ok") { return; }',
    "Wow!!! That was quick. What??? Really.",
    "Run `cargo build --release` and then `./target/release/app`.",
    "*emphasis*, **strong**, _also emphasis_, a [link](https://example.org) and a list:\n- one",
    "Note: `timeout=None` disables it; the ratio is 3:2.",
    "The default is 5 seconds {so to speak}.",
    "x = {'a': 1, 'b': {2, 3}}",
    "value = matrix[i][j] + grid[0][1] + rows()[0][2]",
    "```python\nprint({'a': 1})\n```",
    # a code block's own text: a console's keys, an HTML example
    "```console\n$ typer ./main.py run --name [TAB][TAB]\n```",
    '```html\n<div class="note">Hi</div>\n```',
    # and an HTML example written as code in prose
    "Strip them with `re.sub(r'[^a-z]', '', name)` or `[^0-9]`.",
    "1. A `<form>` tag is marked and an `<input type=file>` is placed in that form.",
]


@pytest.mark.parametrize(("kind", "text"), CAUGHT)
def test_each_pattern_is_caught(kind: str, text: str) -> None:
    assert kind in raw_markup(text), text
    assert markup_examples(text), text


def test_an_include_is_not_also_an_anchor() -> None:
    assert raw_markup("{{#include ../listings/ch05/output.txt:9:10}}") == ["include"]


@pytest.mark.parametrize("text", CLEAN)
def test_ordinary_code_and_prose_are_not_flagged(text: str) -> None:
    assert raw_markup(text) == [], (text, markup_examples(text))


def test_the_examples_show_the_markup_found() -> None:
    text = "Returns :class:`~x.Jar` and ``y`` {#anchor}"
    assert markup_examples(text) == [":class:`~x.Jar`", "``y``", "{#anchor}"]
