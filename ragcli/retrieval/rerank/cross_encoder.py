"""sentence-transformers' CrossEncoder in this process (`retrieval.rerank.provider:
cross-encoder`), from a model folder or a Hugging Face name already on this machine.

Answering never downloads: a name is looked up in the local Hugging Face cache only (with
HF_HUB_OFFLINE set, so no library call can hang on the network), and a model that is not
there is one line saying which setting names it and how to fetch it once. torch and
sentence-transformers are imported at the first rerank, not before."""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ragcli.config import RerankSettings
from ragcli.retrieval.rerank.base import RerankUnavailable, checked


def model_folder(model: str) -> Path:
    """The folder holding the model: the one named, or the local cache's copy of a hub
    name. Raises RerankUnavailable, naming the setting and what to do."""
    path = Path(model).expanduser()
    if path.is_dir():
        return path
    if path.exists() or model.startswith((".", "/", "~")):
        raise RerankUnavailable(f"retrieval.rerank.model: {model!r} is not a model folder")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from huggingface_hub import snapshot_download

    try:
        return Path(snapshot_download(model, local_files_only=True))
    except Exception:  # not in the cache (or a malformed name): the same advice
        raise RerankUnavailable(
            f"retrieval.rerank.model: {model!r} is not on this machine and ragcli does not "
            f"download while answering: fetch it once (`hf download {model}`) or set the "
            "setting to a model folder"
        ) from None


class CrossEncoderReranker:
    provider = "cross-encoder"

    def __init__(self, options: RerankSettings):
        assert options.model  # RerankSettings requires it for a cross-encoder
        self.model = options.model
        self.device = options.device
        self.batch_size = options.batch_size
        self._encoder: Any = None
        self._lock = threading.Lock()  # serve's threads share one loaded model

    def _load(self) -> Any:
        with self._lock:
            if self._encoder is None:
                folder = model_folder(self.model)
                os.environ.setdefault("HF_HUB_OFFLINE", "1")  # a folder: no hub calls
                os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")  # no loading bars
                from sentence_transformers import CrossEncoder
                from transformers.utils import logging as transformers_logging

                transformers_logging.disable_progress_bar()  # no "Loading weights" bar

                try:
                    self._encoder = CrossEncoder(
                        str(folder), device=self.device, local_files_only=True
                    )
                except Exception as exc:
                    raise RerankUnavailable(
                        f"retrieval.rerank.model: no cross-encoder loads from {folder} "
                        f"({type(exc).__name__}: {str(exc)[:200]})"
                    ) from None
            return self._encoder

    def scores(self, query: str, passages: Sequence[str]) -> list[float]:
        encoder = self._load()
        values = encoder.predict(
            [(query, passage) for passage in passages],
            batch_size=self.batch_size,
            show_progress_bar=False,
            convert_to_numpy=True,
        )
        return checked(values.reshape(-1).tolist(), len(passages), f"cross-encoder {self.model}")
