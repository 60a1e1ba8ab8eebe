"""`ragcli chat`'s conversation: warm resources, the turns so far, the last answer."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from ragcli.config import Settings
from ragcli.pipeline.conversation import Conversation
from ragcli.pipeline.results import AskResult
from ragcli.service.asking import Checkpoint, ask
from ragcli.service.conversations import new_conversation, prior_turn
from ragcli.service.resources import Resources
from ragcli.service.traces import saved_trace
from ragcli.trace.recorder import Trace

if TYPE_CHECKING:
    from ragcli.models import SearchFilters


class AskSession:
    """A conversation kept by a long-lived front end (`ragcli chat`): warm resources, the
    turns so far, and the last answer for /sources and /trace. Every turn is `ask`."""

    def __init__(
        self,
        settings: Settings,
        mode: str = "standard",
        collection: str | None = None,
        filters: SearchFilters | None = None,
        conversation: Conversation | None = None,
        on_export: Callable[[str], None] | None = None,
    ):
        self.settings = settings
        self.mode = mode
        self.collection = collection
        self.filters = filters
        self.on_export = on_export
        self.resources = Resources(settings)
        self.conversation = conversation or new_conversation()
        self.last: AskResult | None = None

    def ask(
        self,
        question: str,
        on_token: Callable[[str], None] | None = None,
        checkpoint: Checkpoint | None = None,
    ) -> AskResult:
        result = ask(
            self.settings,
            question,
            self.mode,
            collection=self.collection,
            on_export=self.on_export,
            on_token=on_token,
            filters=self.filters,
            resources=self.resources,
            conversation=self.conversation,
            checkpoint=checkpoint,
        )
        self.conversation.turns.append(prior_turn(result))
        self.last = result
        return result

    def new(self) -> None:
        """A fresh conversation: earlier turns no longer shape the questions."""
        self.conversation = new_conversation()
        self.last = None

    def last_trace(self) -> Trace | None:
        return saved_trace(self.settings, self.last.trace_id) if self.last else None
