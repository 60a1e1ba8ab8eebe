"""Conversations: the history a follow-up is read with, bounded so it never overflows the
model's context, and the step that makes the follow-up a standalone question."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import Field

from ragcli.config import ConversationSettings
from ragcli.errors import ConfigError
from ragcli.models import PriorTurn, Record, Standalone

if TYPE_CHECKING:
    from ragcli.llm.base import LLMBackend
    from ragcli.trace.recorder import Trace

# Characters per token, as English text averages: enough to bound a history, no tokenizer.
CHARS_PER_TOKEN = 4


class ConversationDetails(Record):
    """The turn's place in its conversation and the question retrieval searched for."""

    id: str
    turn: int  # 1 for the first question
    asked: str  # the question as the user asked it
    standalone: str  # what retrieval searched for
    rewritten: bool = False
    reason: str = ""  # why it was (or was not) rewritten
    history_turns: int = 0  # earlier turns the rewrite read (bounded)
    history_tokens: int = 0  # their estimated size in tokens


class Conversation(Record):
    """A conversation as the service continues it: its id and its turns so far."""

    id: str
    turns: list[PriorTurn] = Field(default_factory=list)


def estimate_tokens(text: str) -> int:
    return len(text) // CHARS_PER_TOKEN + 1


def bounded(turns: list[PriorTurn], options: ConversationSettings) -> list[PriorTurn]:
    """The latest turns, at most `max_turns` and `max_tokens`; older ones drop first."""
    kept: list[PriorTurn] = []
    used = 0
    for turn in reversed(turns[-options.max_turns :]):
        size = sum(estimate_tokens(t) for t in (turn.question, turn.answer))
        if kept and used + size > options.max_tokens:
            break
        if not kept and size > options.max_tokens:  # one huge answer: keep its start
            chars = max(0, options.max_tokens * CHARS_PER_TOKEN - len(turn.question))
            turn = turn.model_copy(update={"answer": turn.answer[:chars]})
            size = options.max_tokens
        kept.append(turn)
        used += size
    return kept[::-1]


def check_length(question: str, options: ConversationSettings) -> None:
    """A question longer than the limit (a stray paste) is refused before any work."""
    if len(question) > options.max_question_chars:
        raise ConfigError(
            f"the question is {len(question):,} characters; the limit is "
            f"{options.max_question_chars:,} (conversation.max_question_chars)"
        )


def standalone_step(
    llm: LLMBackend,
    trace: Trace,
    question: str,
    conversation: Conversation,
    options: ConversationSettings,
) -> ConversationDetails:
    """The follow-up made standalone, recorded as the trace's `standalone` step. A first
    question has nothing to refer back to: no step, no model call."""
    if not conversation.turns:
        return ConversationDetails(
            id=conversation.id,
            turn=1,
            asked=question,
            standalone=question,
            reason="first question of the conversation",
        )
    history = bounded(conversation.turns, options)
    tokens = sum(estimate_tokens(t.question) + estimate_tokens(t.answer) for t in history)
    with trace.step("standalone", question=question, history_turns=len(history)) as step:
        made: Standalone = llm.standalone(question, history)
        step.scores = {"history_turns": len(history), "history_tokens": tokens}
        step.threshold = {
            "conversation.max_turns": options.max_turns,
            "conversation.max_tokens": options.max_tokens,
        }
        step.decision = f"rewritten: {made.question}" if made.rewritten else "asked as it stands"
        step.note(made.reason)
    return ConversationDetails(
        id=conversation.id,
        turn=len(conversation.turns) + 1,
        asked=question,
        standalone=made.question,
        rewritten=made.rewritten,
        reason=made.reason,
        history_turns=len(history),
        history_tokens=tokens,
    )
