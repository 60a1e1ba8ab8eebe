"""`embedding.precision: int8`: the quantised graph is made once beside the fp32 one, its
vectors stay close to fp32's, and a collection keeps the precision it was built with."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from ragcli.config import EmbeddingSettings
from ragcli.embedding.embedder import make_embedder
from ragcli.errors import ConfigError
from tests.support.storecheck import cli_env, ragcli

SAMPLE = Path(__file__).resolve().parent.parent / "sample_corpus" / "docs"
TEXTS = [
    "Driftwood keeps a copy of every note on each device.",
    "Backups are encrypted with AES-256-GCM.",
    "The Rhine flows into the North Sea.",
]


def test_int8_graph_is_cached_beside_fp32_and_close_to_it():
    fp32 = make_embedder(EmbeddingSettings())
    int8 = make_embedder(EmbeddingSettings(precision="int8"))
    assert int8.precision == "int8" and fp32.precision == "fp32"
    assert int8.onnx_path.parent == fp32.onnx_path.parent
    assert int8.onnx_path.stat().st_size < fp32.onnx_path.stat().st_size / 3
    cosines = np.sum(fp32.embed(TEXTS) * int8.embed(TEXTS), axis=1)
    assert cosines.min() > 0.97, cosines
    again = make_embedder(EmbeddingSettings(precision="int8"))
    assert again.onnx_path == int8.onnx_path  # cached, not quantised again


def test_int8_needs_the_onnx_backend():
    with pytest.raises(ConfigError, match="precision int8 needs embedding.backend onnx"):
        make_embedder(EmbeddingSettings(backend="torch", precision="int8"))


@pytest.mark.slow
def test_a_collection_keeps_its_precision(tmp_path):
    docs = tmp_path / "docs"
    shutil.copytree(SAMPLE, docs, ignore=shutil.ignore_patterns("*.pdf"))
    int8 = tmp_path / "int8.yaml"
    int8.write_text("embedding:\n  precision: int8\n")
    store = str(tmp_path / "store")
    env = cli_env()

    def ingest_int8():
        return ragcli(
            "ingest",
            str(docs),
            "--store",
            store,
            "--config",
            str(int8),
            "--json",
            cwd=tmp_path,
            env=env,
        )

    built = ingest_int8()
    assert built.returncode == 0, built.stderr
    chunks = json.loads(built.stdout)["chunks_added"]
    from ragcli.embedding.identity import built_with
    from ragcli.store.vectors import VectorStore

    recorded = built_with(VectorStore(tmp_path / "store"), tmp_path / "store", "docs")
    assert recorded is not None and recorded.precision == "int8"

    asked = ragcli(
        "ask",
        "How do I restore a backup?",
        "--store",
        store,
        "--config",
        str(int8),
        cwd=tmp_path,
        env=env,
    )
    assert asked.returncode == 0, asked.stderr

    refused = ragcli("ask", "How do I restore a backup?", "--store", store, cwd=tmp_path, env=env)
    assert refused.returncode == 2
    message = refused.stderr.strip()
    assert "Traceback" not in refused.stderr and len(message.splitlines()) == 1
    assert "built with int8 embeddings and embedding.precision is fp32" in message
    assert "re-ingesting" in message

    (docs / "new.md").write_text("# New\n\nA note added later, about ferries.\n")
    mixed = ragcli("ingest", str(docs), "--store", store, "--json", cwd=tmp_path, env=env)
    assert mixed.returncode == 2 and "built with int8" in mixed.stderr
    status = ingest_int8()
    report = json.loads(status.stdout)  # nothing was lost: only the new file is added
    assert report["files_new"] == 1 and report["files_unchanged"] > 0
    assert report["chunks_removed"] == 0 and chunks > 0


def test_a_store_from_before_precisions_is_fp32(tmp_path):
    from ragcli import service
    from tests.support.common import settings_for

    store = tmp_path / "store"
    service.ingestor(settings_for(store)).run([SAMPLE / "backups_and_restore.md"], "docs")
    _forget_identity(store)  # as a store written by an older ragcli
    settings = settings_for(store, **{"embedding.precision": "int8"})
    with pytest.raises(ConfigError, match="built with fp32 embeddings"):
        service.search(settings, "restore a backup")
    assert service.search(settings_for(store), "restore a backup").results


def _forget_identity(store):
    """Take the collection's recorded identity away, as in a store from before records."""
    from ragcli.embedding.identity import PREFIX
    from ragcli.store.vectors import VectorStore

    collection = VectorStore(store).collection("docs")
    kept = {k: v for k, v in (collection.metadata or {}).items() if not k.startswith(PREFIX)}
    collection.modify(metadata=kept or {"ragcli": "older"})


@pytest.mark.slow
def test_embeddings_json_of_an_older_store_is_read_then_migrated_into_the_collection(tmp_path):
    from ragcli import service
    from ragcli.embedding.identity import built_with
    from tests.support.common import settings_for

    store = tmp_path / "store"
    service.ingestor(settings_for(store)).run([SAMPLE / "backups_and_restore.md"], "docs")
    _forget_identity(store)
    (store / "embeddings.json").write_text(
        json.dumps({"docs": {"model": "all-MiniLM-L6-v2", "precision": "int8"}})
    )
    with pytest.raises(ConfigError, match="built with int8 embeddings"):
        service.search(settings_for(store), "restore a backup")
    int8 = settings_for(store, **{"embedding.precision": "int8"})
    service.ingestor(int8).run([SAMPLE / "installation.md"], "docs")
    recorded = built_with(service.vector_store(int8), tmp_path / "elsewhere", "docs")
    assert recorded is not None and (recorded.precision, recorded.dimension) == ("int8", 384)
