"""A served model checked against the same model run here, once per server and model.

A serving engine that claims a model this machine also has (the bundled all-MiniLM-L6-v2,
or a model folder) shares collections with it (embedding/identity.py), so its vectors must
be that model's: some engines return silently different vectors under the same name (other
pooling, a truncated window, another revision). A fixed probe of a dozen sentences is
embedded both ways on first use; below MIN_COSINE the server is refused with the figure.
A passed check is remembered in the store directory (`embedding-probes.json`)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from ragcli.atomic import write_text_atomically
from ragcli.config import EmbeddingSettings
from ragcli.errors import ConfigError

FILE = "embedding-probes.json"
MIN_COSINE = 0.99
PROBE = [
    "How do I reset my password?",
    "The invoice is sent on the first working day of each month.",
    "Mitochondria produce most of the chemical energy a cell uses.",
    "def parse(path: str) -> dict: return json.loads(Path(path).read_text())",
    "Der Rhein fließt von den Alpen bis zur Nordsee.",
    "Refunds for annual plans are possible within 30 days.",
    "Error 503: the service is temporarily unavailable, retry later.",
    "A short one.",
    "Table 3 lists the median latency per region: 42 ms in eu-west, 87 ms in ap-south.",
    "The committee approved the budget after a two-hour debate on Tuesday.",
    "Use --json for machine-readable output and --quiet to print nothing else.",
    "Photosynthesis turns light, water and carbon dioxide into sugar and oxygen.",
]


def has_local_twin(settings: EmbeddingSettings) -> bool:
    """Whether this machine can run the model the server claims to serve."""
    from ragcli.embedding.embedder import BUNDLED_ALIASES

    return settings.model in BUNDLED_ALIASES or Path(settings.model).expanduser().is_dir()


def verify(store_dir: Path, settings: EmbeddingSettings, server: Any) -> float | None:
    """Check `server` against the local model of the same name, unless already done for
    this server and model; returns the lowest cosine measured (None: nothing to check)."""
    if settings.provider != "openai" or not has_local_twin(settings):
        return None
    key = f"{settings.url}|{settings.model}"
    checked = _read(store_dir)
    if key in checked:
        return float(checked[key]["cosine"])
    from ragcli.embedding.embedder import make_embedder

    local = make_embedder(settings.model_copy(update={"provider": "local"}))
    cosine = lowest_cosine(server.embed(PROBE), local.embed(PROBE))
    if cosine < MIN_COSINE:
        raise ConfigError(
            f"embedding server {settings.url} says it serves {settings.model}, but its vectors "
            f"differ from the local model's (lowest cosine {cosine:.3f} over {len(PROBE)} "
            f"probe sentences, {MIN_COSINE} needed): it serves another model or pooling under "
            "that name; name the model as the server knows it (embedding.model) and ingest "
            "into a new collection"
        )
    checked[key] = {"cosine": round(cosine, 5), "checked_at": _now()}
    _write(store_dir, checked)
    return cosine


def lowest_cosine(a: np.ndarray, b: np.ndarray) -> float:
    norms = np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1)
    return float(np.min(np.sum(a * b, axis=1) / np.where(norms == 0, 1.0, norms)))


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _read(store_dir: Path) -> dict[str, Any]:
    try:
        found = json.loads((Path(store_dir) / FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return found if isinstance(found, dict) else {}


def _write(store_dir: Path, checked: dict[str, Any]) -> None:
    try:
        Path(store_dir).mkdir(parents=True, exist_ok=True)
        write_text_atomically(Path(store_dir) / FILE, json.dumps(checked, indent=2))
    except OSError:
        pass  # a read-only store: the check runs again next time, nothing worse
