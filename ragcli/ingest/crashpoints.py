"""Named points in the ingest where a test can make the process die, to prove that a
SIGKILL anywhere leaves a store the next ingest repairs.

`RAGCLI_CRASH_AT=NAME` (or `NAME:N`, the N-th time the point is reached) makes the process
SIGKILL itself there. Unset, a crash point costs one dictionary lookup."""

from __future__ import annotations

import os
import signal

ENV = "RAGCLI_CRASH_AT"
_passes: dict[str, int] = {}


def _target() -> tuple[str, int] | None:
    raw = os.environ.get(ENV, "").strip()
    if not raw:
        return None
    name, _, count = raw.partition(":")
    return name, int(count) if count.isdigit() else 1


_TARGET = _target()


def crash_point(name: str) -> None:
    if _TARGET is None or _TARGET[0] != name:
        return
    _passes[name] = _passes.get(name, 0) + 1
    if _passes[name] >= _TARGET[1]:
        os.kill(os.getpid(), signal.SIGKILL)
