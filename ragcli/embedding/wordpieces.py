"""The embedding model's own tokenizer, for counting word pieces (special tokens included)."""

from __future__ import annotations

from pathlib import Path

from tokenizers import Tokenizer


def load_tokenizer(model_dir: Path) -> Tokenizer:
    """A fresh tokenizer each call: callers set their own limits (the embedder truncates at
    the model window; counting must not)."""
    tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
    # The bundled tokenizer.json truncates and pads at 128: counting must see every piece.
    tokenizer.no_truncation()
    tokenizer.no_padding()
    return tokenizer


class TokenCounter:
    def __init__(self, model_dir: Path):
        self.tokenizer = load_tokenizer(model_dir)
        # [CLS] and [SEP] are added to every sequence the model sees.
        self.special = len(self.tokenizer.encode("").ids)

    def count(self, text: str) -> int:
        """Word pieces of `text` alone, without special tokens."""
        return len(self.tokenizer.encode(text, add_special_tokens=False).ids)

    def counts(self, texts: list[str]) -> list[int]:
        encodings = self.tokenizer.encode_batch(texts, add_special_tokens=False)
        return [len(e.ids) for e in encodings]

    def offsets(self, text: str) -> list[tuple[int, int]]:
        return self.tokenizer.encode(text, add_special_tokens=False).offsets
