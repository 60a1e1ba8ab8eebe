"""A library's warning while it reads a file ("Palette images with Transparency …") becomes
that file's note, one line naming the library. Printed, it would break the progress line (a
parse worker writes straight to the terminal) and show a source line nobody can act on.
The notes are kept per thread, since the first files are read beside the ingest's other
work; a warning outside a file's read is shown as before."""

from __future__ import annotations

import sys
import threading
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TextIO

_reading = threading.local()
_show_warning = warnings.showwarning  # how warnings were shown before the hook went in


@contextmanager
def warnings_as_notes() -> Iterator[list[str]]:
    """The notes of the warnings raised in this thread inside the `with` block."""
    global _show_warning
    if warnings.showwarning is not _warning_to_note:
        _show_warning, warnings.showwarning = warnings.showwarning, _warning_to_note
    notes: list[str] = []
    _reading.notes, _reading.warned_from = notes, set()
    try:
        yield notes
    finally:
        # Within a file its registry keeps a warning repeated a million times cheap; after
        # it, the next file that warns alike must get its note.
        _forget_shown(_reading.warned_from)
        _reading.notes = _reading.warned_from = None


def _warning_to_note(
    message: Warning | str,
    category: type[Warning],
    filename: str,
    lineno: int,
    file: TextIO | None = None,
    line: str | None = None,
) -> None:
    notes: list[str] | None = getattr(_reading, "notes", None)
    if notes is None:  # not while reading a file
        _show_warning(message, category, filename, lineno, file, line)
        return
    note = f"{_library(filename)} warned: {str(message).strip()}"
    if note not in notes:
        notes.append(note)
    _reading.warned_from.add(filename)


def _forget_shown(filenames: set[str]) -> None:
    """Python shows a warning from one line once per process, recording it in the warning
    module's registry: the registries of the modules in `filenames` forget what they
    showed."""
    if not filenames:
        return
    for module in list(sys.modules.values()):
        if getattr(module, "__file__", None) in filenames:
            registry = getattr(module, "__warningregistry__", None)
            if isinstance(registry, dict):
                registry.clear()


def _library(filename: str) -> str:
    """`PIL` for …/site-packages/PIL/Image.py: the package that warned."""
    _, installed, inside = Path(filename).as_posix().rpartition("/site-packages/")
    return Path(inside.split("/")[0] if installed else filename).stem
