"""One Ctrl-C cancels the answer in progress, whenever it is pressed after Enter.

Python's default SIGINT handling loses some of them in `chat`:
- a Ctrl-C typed while prompt_toolkit still holds the terminal in raw mode (after Enter,
  before the prompt is torn down) is a key, not a signal: prompt_toolkit keeps it as
  type-ahead, or it stays in the terminal's input queue, and the *next* prompt reads it
  and drops an empty line;
- a SIGINT during the prompt's teardown goes to the handler prompt_toolkit installs for
  the prompt, and is dropped there or raised out of `prompt()` as if typed at the prompt;
- between `prompt()` returning and the answer's `try`, a KeyboardInterrupt ended chat.

So `chat` keeps its own SIGINT handler for the whole session (the prompt is told not to
replace it): a signal always sets a flag; while an answer runs it also raises
AnswerCancelled at once, so a wait for the model's first token or a retrieval ends
without waiting for its call to return. The run checks the flag between its stages and
at every streamed token, so an interrupt that a library swallowed still cancels, and a
Ctrl-C left in the type-ahead counts as pressed during the answer."""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


class AnswerCancelled(KeyboardInterrupt):
    """A KeyboardInterrupt, so that no `except Exception` on the way (a retry, a
    fallback) turns a cancel into an error or an answer."""


class Cancel:
    """The session's SIGINT handler and the cancel flag it sets; also the run's
    checkpoint (service.Checkpoint)."""

    def __init__(self) -> None:
        self.event = threading.Event()
        self._armed = False
        self._previous: Any = None
        self._installed = False

    def _handle(self, signum: int, _frame: object) -> None:
        self.event.set()
        if self._armed:
            self._armed = False  # one raise: cleanup code on the way is not interrupted
            raise AnswerCancelled

    def install(self) -> None:
        if threading.current_thread() is threading.main_thread():
            self._previous = signal.signal(signal.SIGINT, self._handle)
            self._installed = True

    def restore(self) -> None:
        if self._installed:
            signal.signal(signal.SIGINT, self._previous)
            self._installed = False

    def clear(self) -> None:
        """At each render of the prompt: a SIGINT before it is spent (session.py)."""
        self.event.clear()

    def set(self) -> None:
        self.event.set()

    def check(self) -> None:
        if self.event.is_set():
            raise AnswerCancelled

    def commit(self) -> None:
        """The run is about to be saved as a turn: cancelled now or never. A Ctrl-C after
        this finds nothing left to cancel (the answer is complete)."""
        self._armed = False
        self.check()

    @contextmanager
    def armed(self) -> Iterator[None]:
        """While the answer runs, a SIGINT raises AnswerCancelled where the run is."""
        self._armed = True
        try:
            self.check()  # pressed before this point (type-ahead, the prompt's teardown)
            yield
        finally:
            self._armed = False


def typed_ahead_cancel(prompt_input: Any) -> bool:
    """True when a Ctrl-C was typed after Enter while the terminal was still in raw mode.
    It is taken out of the type-ahead; the keys typed after it stay for the next prompt
    (those before it, a line begun, are dropped with it, as Ctrl-C at a prompt does)."""
    from prompt_toolkit.input.typeahead import get_typeahead, store_typeahead
    from prompt_toolkit.keys import Keys

    keys = get_typeahead(prompt_input) + _queued_keys(prompt_input)
    cancels = [n for n, key in enumerate(keys) if key.key in (Keys.ControlC, Keys.SIGINT)]
    if cancels:
        keys = keys[cancels[-1] + 1 :]
    store_typeahead(prompt_input, keys)
    return bool(cancels)


def _queued_keys(prompt_input: Any) -> list:
    """The keys waiting in the terminal's input queue, read without blocking. The terminal
    keeps ISIG on meanwhile, so a Ctrl-C typed now is a signal, never a byte left behind."""
    import os
    import select
    import termios

    from prompt_toolkit.input.vt100_parser import Vt100Parser

    try:
        fd = prompt_input.fileno()
        saved = termios.tcgetattr(fd)
    except (AttributeError, NotImplementedError, OSError, termios.error):
        return []
    quiet = list(saved)
    quiet[3] &= ~(termios.ICANON | termios.ECHO)  # bytes readable as they are, not echoed
    quiet[6] = list(saved[6])
    quiet[6][termios.VMIN], quiet[6][termios.VTIME] = 0, 0
    data = b""
    termios.tcsetattr(fd, termios.TCSANOW, quiet)
    try:
        while select.select([fd], [], [], 0)[0]:
            chunk = os.read(fd, 4096)
            if not chunk:
                break
            data += chunk
    finally:
        termios.tcsetattr(fd, termios.TCSANOW, saved)
    keys: list = []
    parser = Vt100Parser(keys.append)
    parser.feed(data.decode("utf-8", "surrogateescape"))
    parser.flush()
    return keys
