"""Sphinx's roles and directives by name, for reST (blocks/rst.py) and MyST Markdown
(blocks/markdown.py) alike.

How a role reads on the built page (`:class:`~x.Y`` in reST, `{class}`~x.Y`` in MyST):
a Python object by its name, as code (`Y`, a function as `get()`), an option or a file
as code, `:rfc:`7230`` as "RFC 7230", a role the site defines (`:setting:`) as code when
its target is a name, any other role as its title or target in words. An
untitled `:doc:` or `:ref:` shows the title of what it links to, which only the caller
can look up (blocks/rst.py). And which directive is which: an admonition, code, a
version note, an include, autodoc, or one that says how the site is built."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

# `title <target>` inside a role.
TITLED = re.compile(r"^(.*?)\s*<([^<>]+)>$", re.S)
# Roles naming a Python object (Sphinx's Python domain, and its short forms): shown as code.
OBJECT_ROLES = frozenset(
    "class func meth attr mod obj data const exc type any py:class py:func py:meth py:attr "
    "py:mod py:obj py:data py:const py:exc py:type".split()
)
CALLABLE_ROLES = frozenset({"func", "meth", "py:func", "py:meth"})
# Roles whose text is code-like: an option, a file, a command.
LITERAL_ROLES = frozenset(
    "option envvar file program command kbd samp code literal makevar regexp mailheader".split()
)
# Roles citing a standard by number, named as Sphinx shows them.
STANDARDS = {"rfc": "RFC", "pep": "PEP"}
LINKS = frozenset({"doc", "std:doc", "ref", "std:ref"})
# Roles of Sphinx and docutils that show words: a glossary term, a GUI label, a formula.
TEXT_ROLES = frozenset(
    "term abbr abbreviation acronym dfn guilabel menuselection sub sup subscript superscript "
    "math eq numref download index emphasis strong title-reference title t raw manpage".split()
)
# A role a site defines itself is most often a cross-reference type (`:setting:`,
# `:confval:`, a domain's `:js:func:`), whose target Sphinx shows as code, as it shows the
# Python domain's; a role made by sphinx.ext.extlinks (`:issue:`123``, `:wiki:`Some
# page``) shows words. The target tells them apart: a name written as code is (snake_case,
# dotted, --option, camelCase, CONSTANT, call()), a number, a word or words are not.
NAME_TARGET = re.compile(r"^[~!]?[A-Za-z_-][\w.:-]*(?:\(\))?$")
WRITTEN_AS_CODE = re.compile(r"[_.:()-]|[a-z][A-Z]|^[~!]?[A-Z][A-Z0-9]+$")

AUTODOC = re.compile(r"^(?:auto\w+|(?:py:)?(?:currentmodule|module))$")
INCLUDES = frozenset({"literalinclude", "include"})
VERSIONS = {
    "versionadded": "New in version",
    "versionchanged": "Changed in version",
    "deprecated": "Deprecated since version",
    "versionremoved": "Removed in version",
}
CODE_DIRECTIVES = ("code", "code-block", "sourcecode", "code-tab")
# Directive names Sphinx takes from docutils: `.. class:: Session(url)` is the Python
# domain's class, its signature and its body; docutils' `class` (set a style class on what
# follows) is `.. rst-class::` there.
PYTHON_DOMAIN_CLASS = "class"
STYLE_CLASS = "rst-class"
# Python domain directives whose `:type:` and `:value:` options Sphinx shows after the name.
VALUED_OBJECTS = frozenset({"attribute", "data", "property"})
ADMONITION_NODES = (
    "attention caution danger error hint important note tip warning seealso todo".split()
)
# Directives that say how the site is built, not what it says.
SILENT = frozenset(
    "toctree index highlight tabularcolumns sectionauthor codeauthor "
    "moduleauthor default-role default-domain meta raw image figure".split()
)
# `.. only:: <expression>`: its body is on the built site when the expression of builder
# tags holds for an HTML build (`html`, `not latex`, `html or epub`).
ONLY = "only"
HTML_TAGS = frozenset({"html", "format_html", "builder_html"})


def shown_on_html(expression: str) -> bool:
    """Whether `.. only:: expression` shows its body on an HTML site; an expression that
    is not one of tags, `and`, `or`, `not` and brackets shows it (Sphinx would fail)."""
    try:
        tree = ast.parse(expression.strip() or "html", mode="eval")
    except SyntaxError:
        return True

    def holds(node: ast.AST) -> bool:
        if isinstance(node, ast.Name):
            return node.id in HTML_TAGS
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            return not holds(node.operand)
        if isinstance(node, ast.BoolOp):
            values = [holds(v) for v in node.values]
            return all(values) if isinstance(node.op, ast.And) else any(values)
        raise ValueError(node)

    try:
        return holds(tree.body)
    except ValueError:
        return True


def version_and_words(argument: str) -> tuple[str, str]:
    """A version note's argument as Sphinx splits it: the version, then the words saying
    what changed, on its line or the lines under it (`14.0.0 Allow a dict.`)."""
    version, _, said = " ".join(argument.split()).partition(" ")
    return version, said


@dataclass(frozen=True)
class RoleText:
    text: str
    code: bool = False
    target: str = ""  # an untitled :doc: or :ref: link's target, whose title it shows


def role_text(name: str, text: str) -> RoleText:
    """What the role `name` with `text` reads as."""
    name = name.lower()
    titled = TITLED.match(text)
    title, target = (titled.group(1), titled.group(2)) if titled else ("", text)
    if name in OBJECT_ROLES or name.startswith("py:"):
        shown = title or object_name(target)
        if name in CALLABLE_ROLES and not title and not shown.endswith(")"):
            shown += "()"
        return RoleText(shown, code=True)
    if name in LITERAL_ROLES:
        return RoleText(title or target, code=True)
    if name in STANDARDS and not title:  # :rfc:`7230#section-3` reads "RFC 7230"
        return RoleText(f"{STANDARDS[name]} {target.split('#')[0].strip()}")
    if name in LINKS and not title:
        return RoleText(target, target=target)
    if name not in TEXT_ROLES and not title and is_name(target.strip()):
        return RoleText(target.strip().lstrip("~!"), code=True)
    return RoleText(title or target)


def is_name(target: str) -> bool:
    """`worker_prefetch_multiplier`, `conf.html_theme`, `--fast`, `fetch()`, `MAX_SIZE`; not
    `123`, `Python` or `Event loop`."""
    return bool(NAME_TARGET.match(target) and WRITTEN_AS_CODE.search(target))


def object_name(target: str) -> str:
    """`~requests.cookies.RequestsCookieJar` -> `RequestsCookieJar`; `!x` -> `x`."""
    target = target.strip().lstrip("!")
    if target.startswith("~"):
        return target[1:].rsplit(".", 1)[-1]
    return target


# Sphinx's info fields (`:param int port: …`, `:type port: int`, `:raises KeyError: …`),
# shown on the page as "port (int) – …", "Raises: KeyError – …": by the words the field's
# name starts with.
PARAMETER_FIELDS = frozenset("param parameter arg argument key keyword kwarg kwparam".split())
VARIABLE_FIELDS = frozenset("var ivar cvar".split())
TYPE_FIELDS = frozenset("type paramtype vartype".split())
RAISES_FIELDS = frozenset("raises raise exception except".split())
LABELLED_FIELDS = {"returns": "Returns", "return": "Returns", "rtype": "Return type"}


def described_target(field_name: str) -> str | None:
    """The parameter or variable a `:param int port:` field describes, or None."""
    words = field_name.split()
    described = len(words) >= 2 and words[0].lower() in PARAMETER_FIELDS | VARIABLE_FIELDS
    return words[-1] if described else None


def typed_target(field_name: str) -> str | None:
    """The parameter a `:type port:` field gives the type of, or None."""
    words = field_name.split()
    return words[1] if len(words) == 2 and words[0].lower() in TYPE_FIELDS else None


def info_field_term(field_name: str, types: dict[str, str]) -> str | None:
    """What Sphinx shows for an info field's name, as this package writes a term:
    `:param int port:` reads "`port` (int)" (its type from `types` when a `:type port:`
    field gives it), `:raises KeyError:` "Raises `KeyError`", `:returns:` "Returns". None
    for a field Sphinx does not know, which keeps its name as written."""
    words = field_name.split()
    kind = words[0].lower() if words else ""
    if target := described_target(field_name):
        kind_of = " ".join(words[1:-1]) or types.get(target, "")
        return f"`{target}`" + (f" ({kind_of})" if kind_of else "")
    if kind in RAISES_FIELDS:
        return " ".join(["Raises", *(f"`{w}`" for w in words[1:])])
    if kind in LABELLED_FIELDS and len(words) == 1:
        return LABELLED_FIELDS[kind]
    return None
