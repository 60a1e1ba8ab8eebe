"""The `ragcli chat` loop: prompt_toolkit reads each line (editing, a history file, Alt-Enter
for a new line), a slash command acts on the session, anything else is a turn of the
conversation, answered by service.AskSession with the answer streamed as `ask` streams it."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console
from rich.markup import escape

from ragcli.chat.cancel import AnswerCancelled, Cancel, typed_ahead_cancel
from ragcli.chat.commands import COMMANDS, Command, help_lines, parse
from ragcli.errors import RagcliError
from ragcli.service import AskSession, cost_of


def history_path() -> Path:
    """Where typed questions are remembered between sessions (the platform's data dir)."""
    import platformdirs

    return Path(platformdirs.user_data_dir("ragcli")) / "chat_history"


class ChatLoop:
    def __init__(self, session: AskSession, console: Console, errors: Console):
        self.session = session
        self.console = console
        self.errors = errors
        self.cancel = Cancel()

    def _prompt(self):
        from prompt_toolkit import PromptSession
        from prompt_toolkit.history import FileHistory, History, InMemoryHistory
        from prompt_toolkit.key_binding import KeyBindings

        keys = KeyBindings()

        @keys.add("escape", "enter")  # Alt-Enter: a new line inside the question
        def _newline(event) -> None:
            event.current_buffer.insert_text("\n")

        path = history_path()
        history: History
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            history = FileHistory(str(path))
        except OSError:  # a read-only home: the session still works, without memory
            history = InMemoryHistory()
        return PromptSession(history=history, key_bindings=keys, multiline=False)

    def run(self) -> None:
        self.cancel.install()  # for the whole session: see chat/cancel.py
        try:
            self._loop()
        finally:
            self.cancel.restore()

    def _loop(self) -> None:
        prompt = self._prompt()

        def rendered(_app) -> None:
            # Every render of the prompt, its last one after Enter included, happens in raw
            # mode, where Ctrl-C is a key: a signal before it (a late Ctrl-C of the last
            # answer, a kill at the prompt) is spent; one after the last render, in the
            # prompt's teardown, is kept and cancels the question just asked.
            self.cancel.clear()

        prompt.app.after_render += rendered
        filters = self.session.filters
        scope = f" · filter {filters.describe()}" if filters is not None and filters.active else ""
        self.console.print(
            f"ragcli chat · mode {self.session.mode}{scope} · conversation "
            f"{self.session.conversation.id} · /help for commands, Ctrl-D to leave",
            style="dim",
            highlight=False,
        )
        while True:
            try:
                # Ctrl-C at the prompt is a key (raw mode); a SIGINT in the prompt's
                # teardown, after Enter, must reach our handler, not prompt_toolkit's.
                line = prompt.prompt(f"{self.session.mode}> ", handle_sigint=False)
            except KeyboardInterrupt:  # at the prompt: drop the line, as a shell does
                continue
            except EOFError:
                break
            if not line.strip():
                continue
            command = parse(line)
            if command is None:
                if typed_ahead_cancel(prompt.input):
                    self.cancel.set()
                self.answer(line.strip())
            elif not self.command(command):
                break

    def _error(self, message: str) -> None:
        self.errors.print(f"[red]error:[/] {escape(message)}", highlight=False, soft_wrap=True)

    def answer(self, question: str) -> None:
        from ragcli.pipeline.conversation import check_length
        from ragcli.terminal import LiveAnswer, can_animate
        from ragcli.views.chat import chat_answer

        cancel = self.cancel
        try:
            check_length(question, self.session.settings.conversation)
            if can_animate(self.console):
                with LiveAnswer(self.console) as live:

                    def on_token(piece: str) -> None:
                        cancel.check()  # an interrupt a library swallowed still stops it
                        live(piece)

                    with cancel.armed():
                        result = self.session.ask(question, on_token, checkpoint=cancel)
            else:  # NO_COLOR or TERM=dumb: no redrawing, the answer when complete
                with cancel.armed():
                    result = self.session.ask(question, checkpoint=cancel)
        except AnswerCancelled:
            self.console.print("cancelled: that question is not part of the conversation")
            return
        except RagcliError as error:
            self._error(str(error))
            return
        usd = cost_of(self.session.settings, result.backend.model_dump(), result.usage.model_dump())
        self.console.print(chat_answer(result, usd))

    def command(self, command: Command) -> bool:
        """Acts on one slash command; False to leave."""
        from ragcli.pipeline.modes.registry import runnable

        session = self.session
        if command.name == "/exit":
            return False
        if command.name == "/help":
            for line in help_lines():
                self.console.print(line, highlight=False)
        elif command.name == "/mode":
            modes = list(runnable())
            if not command.argument:
                self.console.print(f"mode {session.mode}; choose one of {', '.join(modes)}")
            elif command.argument not in modes:
                self._error(f"/mode {command.argument!r}: choose one of {', '.join(modes)}")
            else:
                session.mode = command.argument
                self.console.print(f"mode {session.mode}", highlight=False)
        elif command.name == "/new":
            session.new()
            self.console.print(f"new conversation {session.conversation.id}", highlight=False)
        elif command.name == "/sources":
            self.show_sources()
        elif command.name == "/trace":
            self.show_trace()
        else:
            known = ", ".join(COMMANDS)
            self._error(f"unknown command {command.name}; the commands are {known}")
        return True

    def show_sources(self) -> None:
        from ragcli.views.ask import sources_table

        last = self.session.last
        if last is None:
            self.console.print("no answer yet in this conversation")
        elif not last.sources:
            self.console.print("the last answer drew on no source")
        else:
            stale: dict[str, str] = {s.path: s.state for s in last.stale_sources}
            self.console.print(sources_table(last.sources, stale=stale))

    def show_trace(self) -> None:
        from ragcli.views.trace import trace_view

        trace = self.session.last_trace()
        if trace is None:
            self.console.print("no run yet in this conversation")
            return
        usd = cost_of(self.session.settings, trace.backend, trace.usage())
        self.console.print(trace_view(trace, cost=usd))
