"""Conversations: a new one, a turn as the next one reads it, and a stored one continued
(`ask -c`, `--conversation ID`) from the trace database."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ragcli.config import Settings
from ragcli.errors import ConfigError
from ragcli.pipeline.conversation import Conversation
from ragcli.wiring import trace_store

if TYPE_CHECKING:
    from ragcli.models import PriorTurn
    from ragcli.pipeline.results import AskResult


def new_conversation() -> Conversation:
    import uuid

    return Conversation(id=uuid.uuid4().hex[:12])


# The sources whose sections tell what a turn asked about: the first few, as an answer
# cites them first.
SECTION_SOURCES = 3


def prior_turn(result: AskResult) -> PriorTurn:
    from ragcli.models import PriorTurn

    turn = result.conversation
    asked = turn.asked if turn else result.query
    return PriorTurn(
        question=asked,
        standalone=turn.standalone if turn else asked,
        answer=result.answer,
        sections=sections([s.metadata.heading for s in result.sources]),
    )


def sections(headings: list[str | None]) -> list[str]:
    """The heading paths of the first SECTION_SOURCES sources that have one."""
    return [h for h in headings[:SECTION_SOURCES] if h]


def continue_conversation(settings: Settings, conversation_id: str | None) -> Conversation:
    """`ask -c` (the latest conversation, `conversation_id` None) or `--conversation ID`
    (a prefix is enough): the conversation with its stored turns."""
    from ragcli.models import PriorTurn

    traces = trace_store(settings)
    if conversation_id is None:
        found = traces.latest_conversation()
        if found is None:
            raise ConfigError(f"-c: no conversation yet in {traces.path}: ask a question first")
    else:
        matches = traces.conversation_ids(conversation_id)
        if len(matches) != 1:
            raise ConfigError(
                f"--conversation {conversation_id!r}: "
                + ("a prefix of several" if matches else "no such conversation")
                + f" in {traces.path} (`ragcli trace --list` shows the runs)"
            )
        found = matches[0]
    turns = [
        PriorTurn(
            question=t.question,
            standalone=t.standalone or t.question,
            answer=t.answer,
            sections=sections([(s.get("metadata") or {}).get("heading") for s in t.sources or []]),
        )
        for t in traces.conversation(found)
    ]
    return Conversation(id=found, turns=turns)
