"""Shared fixtures: an isolated working directory for every test, and one ingest of the
sample corpus per session (copied for tests that change the store)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from ragcli import service
from tests.support.common import ROOT, SAMPLE, settings_for

# Every process a test starts (`python -c`, `python -m ragcli`, the `ragcli` script) imports
# this checkout's ragcli, not whichever one the virtualenv has installed (in a git worktree,
# the editable install points at the main checkout).
os.environ["PYTHONPATH"] = os.pathsep.join(
    p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p
)


@pytest.fixture(autouse=True)
def isolated(tmp_path_factory, monkeypatch):
    """No test reads the user's config, keys or store."""
    work = tmp_path_factory.mktemp("work")
    monkeypatch.chdir(work)
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "TAVILY_API_KEY", "RAGCLI_STORE"):
        monkeypatch.delenv(name, raising=False)
    for name in list(os.environ):
        if name.startswith("RAGCLI_"):
            monkeypatch.delenv(name, raising=False)
    return work


@pytest.fixture(scope="session")
def sample_store_master(tmp_path_factory) -> Path:
    store = tmp_path_factory.mktemp("sample") / "store"
    settings = settings_for(store)
    report = service.ingestor(settings).run([SAMPLE], "docs")
    assert report.count("failed") == 0, report.to_dict()
    faq = service.ingestor(settings).run([SAMPLE / "faq" / "faq.yaml"], "qna")
    assert faq.count("failed") == 0 and faq.chunks_added == 29, faq.to_dict()
    return store


@pytest.fixture
def sample_store(sample_store_master, tmp_path) -> Path:
    """A private copy of the ingested sample corpus."""
    store = tmp_path / "store"
    shutil.copytree(sample_store_master, store)
    return store


@pytest.fixture(scope="session")
def cross_encoder_folder(tmp_path_factory) -> Path:
    """A real cross-encoder folder (the bundled encoder, a seeded random one-label head):
    tests/support/rerankers.py."""
    from tests.support.rerankers import build_cross_encoder

    return build_cross_encoder(tmp_path_factory.mktemp("reranker") / "cross-encoder")


@pytest.fixture(scope="session")
def llama(tmp_path_factory):
    """llama.cpp's server (tests/support/llama_server.py), started once for every module
    that needs a real answer model; its OpenAI base url."""
    from tests.support.llama_server import start_llama

    log = tmp_path_factory.mktemp("llama") / "llama.log"
    process, url = start_llama(log)
    yield url
    process.terminate()
    process.wait(timeout=30)
