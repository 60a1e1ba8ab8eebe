"""The slash commands of `ragcli chat`: a line starting with `/` is one of these."""

from __future__ import annotations

from dataclasses import dataclass

COMMANDS = {  # name: (usage, what it does)
    "/mode": ("/mode NAME", "answer the next questions in mode NAME (no NAME: the current one)"),
    "/sources": ("/sources", "the last answer's sources"),
    "/trace": ("/trace", "the last run's steps, scores and decisions"),
    "/new": ("/new", "start a fresh conversation (earlier turns no longer count)"),
    "/help": ("/help", "this list"),
    "/exit": ("/exit", "leave (or Ctrl-D)"),
}
ALIASES = {"/quit": "/exit", "/q": "/exit", "/?": "/help"}

KEYS = (
    "Enter sends · Alt-Enter (or Esc then Enter) starts a new line · "
    "Ctrl-C cancels the answer in progress · Ctrl-D leaves"
)


@dataclass(frozen=True)
class Command:
    name: str  # one of COMMANDS, or an unknown name as typed
    argument: str = ""

    @property
    def known(self) -> bool:
        return self.name in COMMANDS


def parse(line: str) -> Command | None:
    """The command on `line`, or None when the line is a question."""
    text = line.strip()
    if not text.startswith("/") or text.startswith("//"):
        return None
    name, _, argument = text.partition(" ")
    name = ALIASES.get(name.lower(), name.lower())
    return Command(name, argument.strip())


def help_lines() -> list[str]:
    return [f"{usage:<12} {text}" for usage, text in COMMANDS.values()] + ["", KEYS]
