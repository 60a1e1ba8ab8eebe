"""Consoles that respect NO_COLOR and dumb terminals, and the live view of a streamed answer.

Plain output (NO_COLOR set, TERM=dumb, or not a terminal) carries no control codes at all:
no colours, no bold, no cursor movement, so it can be piped, logged or read aloud."""

from __future__ import annotations

import os
import threading
from typing import Any

from rich.console import Console, Group
from rich.live import Live
from rich.panel import Panel
from rich.spinner import Spinner
from rich.text import Text


def plain_requested() -> bool:
    return bool(os.environ.get("NO_COLOR")) or os.environ.get("TERM") == "dumb"


def make_console(stderr: bool = False) -> Console:
    if plain_requested():
        # color_system=None renders no escape sequence of any kind (styles, links, colours).
        return Console(stderr=stderr, color_system=None, highlight=False, emoji=False)
    return Console(stderr=stderr)


def can_animate(console: Console) -> bool:
    """Progress bars and live views redraw with cursor movements: terminals only."""
    return console.is_terminal and not console.is_dumb_terminal and not plain_requested()


class LiveAnswer:
    """The answer as it is generated, in a transient region that the rendered result
    replaces when the run ends. A new generating step (another reflection round) starts
    the text over, so the view always shows the generation in progress."""

    def __init__(self, console: Console):
        self.console = console
        self.text = ""
        self.rounds = 0
        self._step: Any = None
        self._lock = threading.Lock()
        self._live = Live(
            Spinner("dots", text=" working"),
            console=console,
            transient=True,
            refresh_per_second=12,
        )

    def __enter__(self) -> LiveAnswer:
        self._live.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._live.stop()

    def __call__(self, piece: str) -> None:
        from ragcli.trace.recorder import current_step

        with self._lock:
            step = current_step()
            if step is not self._step or not self.rounds:
                self._step = step
                self.rounds += 1
                self.text = ""
            self.text += piece
            self._live.update(self._view())

    def _view(self) -> Group:
        # Only the tail fits on screen: show the latest lines, as a terminal scrolls.
        width = max(20, self.console.size.width - 4)
        lines = Text(self.text).wrap(self.console, width)
        height = max(3, self.console.size.height - 4)
        tail = Text("\n").join(lines[-height:])
        title = "generating" + (f" (round {self.rounds})" if self.rounds > 1 else "")
        return Group(Panel(tail, title=title, title_align="left", border_style="dim"))
