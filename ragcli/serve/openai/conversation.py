"""A chat request's messages as ragcli reads them: the last user message is the question;
the user and assistant messages before it are the conversation, whose follow-ups are made
standalone as `ragcli chat` does. System and tool messages are not the user's words and
are left out (a client's own system prompt does not steer the answer)."""

from __future__ import annotations

import hashlib
import re
from typing import Any

from ragcli.models import PriorTurn
from ragcli.pipeline.conversation import Conversation
from ragcli.serve.openai.protocol import ApiError
from ragcli.serve.openai.reply import SOURCES_HEADING

# The sources list a reply ends with (reply.py): not part of the answer a follow-up reads.
_SOURCES_BLOCK = re.compile(
    rf"\n\n(?:\*\*)?{re.escape(SOURCES_HEADING)}(?:\*\*)?\n(?:- \[\d+\] [^\n]*(?:\n|$))+\s*$"
)


def text_of(message: dict[str, Any], index: int) -> str:
    """A message's text: a string, or the text parts of a list of parts (an image part
    is not read)."""
    content = message.get("content")
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = [
            str(part.get("text", ""))
            for part in content
            if isinstance(part, dict) and part.get("type") in ("text", "input_text")
        ]
        return "\n".join(t for t in texts if t)
    raise ApiError(
        400,
        f"messages[{index}].content: a string or a list of content parts",
        param=f"messages.{index}.content",
    )


def read_messages(
    messages: list[dict[str, Any]], user: str | None = None
) -> tuple[str, Conversation]:
    """The question and the conversation before it. The conversation's id is the same for
    every request of one chat (it hashes the chat's first question and the client's
    `user`), so its runs are one conversation in `ragcli trace`."""
    said: list[tuple[str, str]] = []
    for index, message in enumerate(messages):
        if not isinstance(message, dict) or not isinstance(message.get("role"), str):
            raise ApiError(
                400, f"messages[{index}]: an object with a role", param=f"messages.{index}"
            )
        if message["role"] in ("user", "assistant"):
            said.append((message["role"], text_of(message, index)))
    if not said or said[-1][0] != "user":
        raise ApiError(
            400, "messages: the last message must be the user's question", param="messages"
        )
    question = said[-1][1].strip()
    if not question:
        raise ApiError(
            400, "messages: the question (the last user message) is empty", param="messages"
        )
    turns: list[PriorTurn] = []
    asked: str | None = None
    for role, text in said[:-1]:
        if role == "user":
            if asked is not None:  # a question left unanswered: a turn with no answer
                turns.append(PriorTurn(question=asked, standalone=asked, answer=""))
            asked = text.strip()
        elif asked is not None:
            answer = _SOURCES_BLOCK.sub("", text).strip()
            turns.append(PriorTurn(question=asked, standalone=asked, answer=answer))
            asked = None
    if asked is not None:
        turns.append(PriorTurn(question=asked, standalone=asked, answer=""))
    first = turns[0].question if turns else question
    digest = hashlib.sha256(f"{user or ''}\n{first}".encode()).hexdigest()[:12]
    return question, Conversation(id=f"oai-{digest}", turns=turns)
