"""A reply's `usage`. When the run called a model, its calls' tokens as the model counted
them (what a metered model charges for). The offline backend calls none: then the
request's messages and the reply, counted in the embedder's word pieces, so a client's
usage display still means something."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from ragcli.config import Settings
from ragcli.pipeline.conversation import estimate_tokens

if TYPE_CHECKING:
    from ragcli.pipeline.results import AskResult
    from ragcli.serve.openai.protocol import ChatRequest


class UsageCounter:
    def __init__(self, settings: Settings):
        self.settings = settings
        self._counter: Any = None
        self._lock = threading.Lock()

    def of(self, chat: ChatRequest, result: AskResult, reply: str) -> dict[str, int]:
        used = result.usage
        if used.llm_calls:
            prompt, completion = used.prompt_tokens, used.completion_tokens
        else:
            asked = "\n".join(str(m.get("content") or "") for m in chat.messages)
            prompt, completion = self.count(asked), self.count(reply)
        return {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
        }

    def count(self, text: str) -> int:
        counter = self._word_pieces()
        return counter.count(text) if counter is not None else estimate_tokens(text)

    def _word_pieces(self) -> Any:
        with self._lock:
            if self._counter is None:
                try:
                    from ragcli.embedding.embedder import tokenizer_dir
                    from ragcli.embedding.wordpieces import TokenCounter

                    self._counter = TokenCounter(tokenizer_dir(self.settings.embedding))
                except Exception:  # no tokenizer here: estimate instead
                    self._counter = False
            return self._counter or None
