"""A heading path closer to the question than its chunk's text lifts the chunk in the
ranking (retrieval/headings.py); the chunk's score stays its text's cosine."""

import io
from pathlib import Path

import pytest
from rich.console import Console

from ragcli import service
from ragcli.models import ChunkMetadata, RetrievedChunk, SearchHit, SearchResult
from ragcli.retrieval.headings import lifted
from ragcli.views.search import search_view
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


def test_search_shows_the_heading_score_of_a_hit_it_lifted():
    def hit(rank: int, dense: float, heading: float) -> SearchHit:
        meta = ChunkMetadata(chunk_id=f"c{rank}", source_file=f"/docs/{rank}.md", file_type="md")
        scores = {"dense": dense, "bm25": 1.0, "fused": 1.0 / rank, "heading": heading}
        return SearchHit.of(
            RetrievedChunk(content="text", score=dense, metadata=meta, component_scores=scores),
            rank,
        )

    result = SearchResult(
        query=QUESTION,
        retriever="hybrid",
        collection="docs",
        top_k=2,
        results=[hit(1, 0.48, 0.80), hit(2, 0.55, 0.30)],
    )
    console = Console(width=80, record=True, force_terminal=False, file=io.StringIO())
    console.print(search_view(result))
    lines = [line for line in console.export_text().splitlines() if "fused" in line]
    assert lines[0].strip().endswith("· heading 0.80")  # it lifted the first
    assert "heading" not in lines[1]  # a heading further from the query than the text
    assert [h["heading_cosine"] for h in result.to_json_dict()["results"]] == [0.8, 0.3]
