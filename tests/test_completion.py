"""Shell completion (Typer/Click's protocol, as bash calls it): commands, options, modes,
retrievers and the store's collection names."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from ragcli.pipeline.modes.registry import AUTO, MODE_NAMES
from ragcli.retrieval.retriever import MODES as RETRIEVERS
from ragcli.store.manifest import FileRecord, Manifest

ROOT = Path(__file__).resolve().parent.parent
RAGCLI = Path(sys.executable).parent / "ragcli"


def complete(words: str, cwd: Path, **env: str) -> list[str]:
    """What bash's completion gets for the command line `words` (the cursor at its end)."""
    cword = len(words.split()) - (0 if words.endswith(" ") else 1)
    environ = {k: v for k, v in os.environ.items() if not k.startswith("RAGCLI_")}
    environ |= {
        "_RAGCLI_COMPLETE": "complete_bash",
        "COMP_WORDS": words,
        "COMP_CWORD": str(cword),
        "PYTHONPATH": str(ROOT),
        **env,
    }
    out = subprocess.run(
        [str(RAGCLI)], cwd=cwd, env=environ, capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0, out.stderr
    return out.stdout.split()


def make_store(store: Path, collections: list[str]) -> None:
    store.mkdir(parents=True)
    manifest = Manifest(store / "manifest.sqlite")
    for i, name in enumerate(collections):
        manifest.put(FileRecord(name, f"/x/{i}.md", "0" * 64, 1, 1, "md", 1, None, "2026-01-01"))
    manifest.close()


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("project")
    make_store(folder / ".ragcli", ["docs", "qna", "policies"])
    make_store(folder / "other", ["elsewhere"])
    return folder


def test_commands_and_options(project: Path) -> None:
    assert complete("ragcli as", project) == ["ask"]
    assert "--mode" in complete("ragcli ask --mo", project)
    assert complete("ragcli search --retr", project) == ["--retriever"]


def test_modes(project: Path) -> None:
    assert complete("ragcli ask --mode ", project) == [*MODE_NAMES, AUTO]
    assert complete("ragcli ask --mode ag", project) == ["agentic"]
    assert complete("ragcli chat -m re", project) == ["reflect"]
    assert complete("ragcli eval q.yaml --mode a", project) == ["agentic", "auto"]


def test_retrievers(project: Path) -> None:
    assert complete("ragcli search --retriever ", project) == list(RETRIEVERS)


@pytest.mark.slow
def test_collections_of_the_store_in_force(project: Path) -> None:
    assert complete("ragcli search --collection ", project) == ["docs", "policies", "qna"]
    assert complete("ragcli ask Q --collection p", project) == ["policies"]
    assert complete("ragcli sources -c ", project) == ["docs", "policies", "qna"]
    # --store typed before it, or RAGCLI_STORE, choose the store read.
    assert complete("ragcli search --store other --collection ", project) == ["elsewhere"]
    assert complete("ragcli search --collection ", project, RAGCLI_STORE="other") == ["elsewhere"]


def test_no_store_completes_nothing(tmp_path: Path) -> None:
    assert complete("ragcli search --collection ", tmp_path) == []
    assert not (tmp_path / ".ragcli").exists()  # completing never creates a store
