"""A heading path closer to the question than its chunk's text lifts the chunk in the
ranking (retrieval/headings.py); the chunk's score stays its text's cosine."""

from pathlib import Path

import pytest

from ragcli import service
from ragcli.retrieval.headings import lifted
from tests.support.common import settings_for

QUESTION = "How do I remove an old backup?"

# The section that answers is named by its heading; its text is an example listing.
LISTING = """# Storage

## Removing old backups

```json
{"id": "bk-2024-01-07", "bytes": 1048576, "region": "eu-west-1", "tier": "cold",
 "checksum": "sha256:9f2c", "labels": ["nightly", "db"], "owner": "ops"}
{"id": "bk-2024-01-08", "bytes": 1049001, "region": "eu-west-1", "tier": "cold",
 "checksum": "sha256:77aa", "labels": ["nightly", "db"], "owner": "ops"}
```
"""
# A paragraph that shares the question's words without saying how.
RETENTION = """# Retention

An old backup is kept for thirty days, then the nightly backup job replaces it with a new
one.
"""


def test_a_heading_lifts_a_chunk_towards_its_cosine_and_never_sinks_one():
    dense = {"a": 0.40, "b": 0.50, "c": 0.30}
    heading = {"a": 0.80, "b": 0.20}  # c has no heading
    assert lifted(dense, heading, 0.5) == pytest.approx({"a": 0.60, "b": 0.50, "c": 0.30})
    assert list(lifted(dense, heading, 0.5)) == ["a", "b", "c"]  # best first, for rank fusion
    assert lifted(dense, heading, 0.0) == dense
    assert lifted(dense, heading, 1.0)["a"] == pytest.approx(0.80)


def test_rank_fusion_follows_the_lift_too(store):
    plain = search(store, 0.0, "hybrid", fusion="rrf")
    assert Path(plain[0].metadata.source_file).name == "retention.md"
    lifted_order = search(store, 1.0, "hybrid", fusion="rrf")
    assert Path(lifted_order[0].metadata.source_file).name == "storage.md"


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("headings")
    docs = root / "docs"
    docs.mkdir()
    (docs / "storage.md").write_text(LISTING)
    (docs / "retention.md").write_text(RETENTION)
    service.ingestor(settings_for(root / "store")).run([docs], "docs")
    return root / "store"


def search(store: Path, weight: float, mode: str, fusion: str = "weighted"):
    settings = settings_for(
        store, **{"retrieval.heading_weight": weight, "retrieval.fusion": fusion}
    )
    retriever = service.retriever(
        settings, service.vector_store(settings), service.embedder(settings), "docs"
    )
    return retriever.search(QUESTION, 2, mode=mode)


def test_the_section_its_heading_names_comes_first(store):
    plain = search(store, 0.0, "dense")
    assert [Path(c.metadata.source_file).name for c in plain] == ["retention.md", "storage.md"]
    assert all("heading" not in c.component_scores for c in plain)

    lifted_order = search(store, 0.5, "dense")
    assert [Path(c.metadata.source_file).name for c in lifted_order] == [
        "storage.md",
        "retention.md",
    ]
    storage = lifted_order[0]
    # The heading's cosine is shown; the score is still the text's, as without the lift.
    assert storage.component_scores["heading"] > storage.score + 0.2
    assert storage.score == next(c.score for c in plain if c.chunk_id == storage.chunk_id)


def test_hybrid_shows_the_heading_cosine_beside_the_other_scores(store):
    chunks = search(store, 0.5, "hybrid")
    assert Path(chunks[0].metadata.source_file).name == "storage.md"
    for chunk in chunks:
        assert set(chunk.component_scores) == {"dense", "bm25", "fused", "heading"}
        assert chunk.score == chunk.component_scores["dense"]
