"""A chunk's heading path as a second reading of what the chunk is about, for ranking.

Documentation names a section for what it teaches ("Delete the Hero from the Session",
"Generating JSON Schema"), while the section's chunks spend most of their word pieces on
an example, its output or a list of parameters, which pulls their vectors away from the
question the heading answers. So a candidate whose heading path is closer to the question
than its text is ranked `retrieval.heading_weight` of the way from its text's cosine
towards its heading's. One whose heading says less ("Introduction", or no heading at all)
keeps its own cosine: a heading lifts a chunk, it never sinks one.

Only the order changes. A chunk's `score` stays its text's cosine, the scale every
threshold compares; the heading's cosine is shown as `component_scores["heading"]`.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

import numpy as np

# Heading vectors kept in the process (a long-lived `serve` or `chat`, an `eval` run):
# the same pages' headings come back question after question.
KEPT = 20_000


def lifted(dense: dict[str, float], heading: dict[str, float], weight: float) -> dict[str, float]:
    """Each candidate's cosine for ranking: its text's, or, where its heading's is higher,
    `weight` of the way up to it; best first, as rank fusion reads a ranking (sorted()
    is stable: equal scores keep their order). Without a lift, `dense` as it is."""
    if weight <= 0 or not heading:
        return dict(dense)
    scores = {
        chunk_id: cosine + weight * max(0.0, heading.get(chunk_id, cosine) - cosine)
        for chunk_id, cosine in dense.items()
    }
    return dict(sorted(scores.items(), key=lambda item: item[1], reverse=True))


class HeadingVectors:
    """Heading paths' vectors, each embedded once in the process."""

    def __init__(self, embedder: Any):
        self.embedder = embedder  # best a cached one (embedding/sentence_vectors.py)
        self._vectors: OrderedDict[str, np.ndarray] = OrderedDict()

    def __call__(self, texts: list[str]) -> np.ndarray:
        """One row per text, in order."""
        missing = [t for t in dict.fromkeys(texts) if t not in self._vectors]
        if missing:
            self._vectors.update(zip(missing, self.embedder.embed(missing), strict=True))
            while len(self._vectors) > KEPT:
                self._vectors.popitem(last=False)
        return np.stack([self._vectors[t] for t in texts])
