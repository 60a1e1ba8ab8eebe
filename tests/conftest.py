"""Shared fixtures: an isolated working directory for every test, and one ingest of the
sample corpus per session (copied for tests that change the store)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from ragcli import service
from ragcli.config import Settings, load_settings

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "sample_corpus"


@pytest.fixture(autouse=True)
def isolated(tmp_path_factory, monkeypatch):
    """No test reads the user's config, keys or store."""
    work = tmp_path_factory.mktemp("work")
    monkeypatch.chdir(work)
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "TAVILY_API_KEY", "RAGCLI_STORE"):
        monkeypatch.delenv(name, raising=False)
    import os

    for name in list(os.environ):
        if name.startswith("RAGCLI_"):
            monkeypatch.delenv(name, raising=False)
    return work


def settings_for(store: Path, **overrides) -> Settings:
    values = {"store.path": str(store)}
    values.update(overrides)
    return load_settings(None, values, environ={})


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


def quoted_in(quote: str, source: str) -> bool:
    """`quote`, a piece of an offline answer, is text of `source` (hard wraps undone). A
    Markdown table row is quoted as a list item (`- a | b`) of the source's `| a | b |`."""
    quote, source = " ".join(quote.split()), " ".join(source.split())
    if quote.startswith("- ") and " | " in quote:
        return f"| {quote[2:]} |" in source or quote in source
    return quote in source
