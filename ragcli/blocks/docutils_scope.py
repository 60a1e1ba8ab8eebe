"""Sphinx's roles and directives, known to docutils for the length of a read only.

Docutils keeps its roles and directives in process-wide registries; registering Sphinx's
there (as ragcli once did) changed docutils for every other reader in the process, and
knowing what it held meant reading private names. Instead, as Sphinx's own
`sphinx.util.docutils` does for its domains, a read replaces docutils' two public lookup
functions (`roles.role`, `directives.directive`) with ones that answer for the names the
read's `Names` give and defer to docutils' for the rest, and puts them back when the last
read in the process ends. Whether a lookup is inside one of ragcli's reads is a context
variable, so another thread's docutils (or a read of another library) meanwhile sees
docutils as it is; nothing is ever written into docutils' registries."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Names:
    """What a read knows beyond docutils: a directive that replaces docutils' own of the
    same name (or None), and the role and directive read for a name docutils lacks."""

    replacing: Callable[[str], type | None]
    unknown_role: Callable[[str], Any]
    unknown_directive: Callable[[str], type]


_current: ContextVar[Names | None] = ContextVar("ragcli_docutils_names", default=None)
_lock = threading.Lock()
_reads = 0
_docutils_lookups: tuple[Any, Any] | None = None  # docutils' own, while ours stand in


@contextmanager
def sphinx_names(names: Names) -> Iterator[None]:
    """Docutils knows `names` inside the block, in this context only."""
    _install()
    token = _current.set(names)
    try:
        yield
    finally:
        _current.reset(token)
        _uninstall()


def _install() -> None:
    global _reads, _docutils_lookups
    from docutils.parsers.rst import directives, roles

    with _lock:
        if _reads == 0:
            _docutils_lookups = (roles.role, directives.directive)
            roles.role = _role
            directives.directive = _directive
        _reads += 1


def _uninstall() -> None:
    global _reads, _docutils_lookups
    from docutils.parsers.rst import directives, roles

    with _lock:
        _reads -= 1
        if _reads == 0 and _docutils_lookups is not None:
            roles.role, directives.directive = _docutils_lookups
            _docutils_lookups = None


def _originals() -> tuple[Any, Any]:
    found = _docutils_lookups
    if found is None:  # a lookup racing the last read's end: docutils' own are back
        from docutils.parsers.rst import directives, roles

        return roles.role, directives.directive
    return found


def _role(role_name: str, language_module: Any, lineno: int, reporter: Any) -> Any:
    docutils_role = _originals()[0]
    names = _current.get()
    found, messages = docutils_role(role_name, language_module, lineno, reporter)
    if names is None or found is not None:
        return found, messages
    return names.unknown_role(role_name.lower()), []


def _directive(directive_name: str, language_module: Any, document: Any) -> Any:
    docutils_directive = _originals()[1]
    names = _current.get()
    if names is not None:
        replacing = names.replacing(directive_name.lower())
        if replacing is not None:
            return replacing, []
    found, messages = docutils_directive(directive_name, language_module, document)
    if names is None or found is not None:
        return found, messages
    return names.unknown_directive(directive_name.lower()), []
