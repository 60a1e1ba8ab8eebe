"""A Git repository as an ingest root: cloned shallow into the cache over file:// and
from `git http-backend` on 127.0.0.1, kept in step by the diff between commits."""

from __future__ import annotations

import pytest

from ragcli.remote.roots import parse_root
from ragcli.remote.run import ingest_roots
from tests.support.embedders import CountingEmbedder
from tests.support.git_server import GitHttpServer, commit, git, have_git, make_repo

pytestmark = [
    pytest.mark.server,
    pytest.mark.skipif(not have_git(), reason="the git binary is not installed"),
]

FILES = {
    "README.md": "# Widget\n\nWidget turns sprockets into gears.\n",
    "docs/install.md": "# Install\n\nRun `pip install widget` to install it.\n",
    "docs/usage.md": "# Usage\n\nCall `widget.spin()` to spin a sprocket.\n",
    "build/out.md": "# Built\n\nGenerated output, ignored.\n",
    ".gitignore": "build/\n",
}


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGCLI_CACHE", str(tmp_path / "cache"))


def _ingestor(store):
    from ragcli import service
    from tests.support.common import settings_for

    ingestor = service.ingestor(settings_for(store))
    ingestor.embedder = CountingEmbedder()
    return ingestor


def _metas(ingestor):
    data = ingestor.store.collection("docs").get(include=["metadatas"])
    return data["metadatas"]


def test_a_repository_is_ingested_then_synced_by_its_diff(tmp_path):
    repo = make_repo(tmp_path / "repo", FILES)
    git("add", "-f", "build/out.md", cwd=repo)  # tracked, yet its .gitignore excludes it
    first_commit = commit(repo, {}, "track build output")
    root = parse_root(f"git+file://{repo}@main")
    ingestor = _ingestor(tmp_path / "store")
    report = ingest_roots(ingestor, [root], "docs")
    keys = sorted(f.path for f in report.files if f.status == "new")
    shown = f"git+file://{repo}"
    assert keys == [f"{shown}#README.md", f"{shown}#docs/install.md", f"{shown}#docs/usage.md"]
    assert {m["commit"] for m in _metas(ingestor)} == {first_commit}
    assert report.remote[0]["commit"] == first_commit

    # Unchanged: nothing read, nothing embedded.
    ingestor.embedder.calls.clear()
    again = ingest_roots(ingestor, [root], "docs")
    assert again.count("unchanged") == 3 and ingestor.embedder.texts == 0

    # A change, a rename, a deletion and an addition in one commit.
    git("mv", "docs/usage.md", "docs/guide.md", cwd=repo)
    second = commit(
        repo,
        {
            "README.md": FILES["README.md"] + "\nNow with cogs.\n",
            "docs/install.md": None,
            "docs/faq.md": "# FAQ\n\nWidgets are blue.\n",
        },
        "second",
    )
    ingestor.embedder.calls.clear()
    synced = ingest_roots(ingestor, [root], "docs", prune=True)
    status = {f.path.split("#", 1)[1]: f.status for f in synced.files}
    assert status == {
        "README.md": "changed",
        "docs/faq.md": "new",
        "docs/guide.md": "new",
        "docs/install.md": "removed",
    }
    assert synced.moved == [
        {"from": f"{shown}#docs/usage.md", "to": f"{shown}#docs/guide.md", "chunks": 1}
    ]
    embedded = ingestor.embedder.seen
    assert not any("spin a sprocket" in text for text in embedded)  # the rename's chunks kept
    assert any("cogs" in text for text in embedded)
    metas = _metas(ingestor)
    assert {m["source_file"].split("#")[1] for m in metas} == {
        "README.md",
        "docs/faq.md",
        "docs/guide.md",
    }
    assert {m["commit"] for m in metas} == {second}

    # History rewritten (a force-push): the new tree is what is stored.
    git("reset", "-q", "--hard", first_commit, cwd=repo)
    commit(repo, {"docs/usage.md": "# Usage\n\nRewritten history.\n"}, "rewritten")
    rewritten = ingest_roots(ingestor, [root], "docs", prune=True)
    assert rewritten.new_failures() == 0
    names = {m["source_file"].split("#")[1] for m in _metas(ingestor)}
    assert names == {"README.md", "docs/install.md", "docs/usage.md"}


def test_a_repository_served_over_http_and_one_that_is_unreachable(tmp_path):
    served = tmp_path / "served"
    served.mkdir()
    make_repo(tmp_path / "work", FILES)
    git("clone", "-q", "--bare", str(tmp_path / "work"), str(served / "widget.git"), cwd=tmp_path)
    ingestor = _ingestor(tmp_path / "store")
    with GitHttpServer(served) as server:
        root = parse_root(f"git+{server.url}/widget.git")
        report = ingest_roots(ingestor, [root], "docs")
    assert report.stored() == 3, report.to_dict()
    # The server is gone now: one line, nothing stored is lost.
    again = ingest_roots(ingestor, [root], "docs", prune=True)
    assert again.remote[0]["error"].startswith(f"git+{server.url}/widget.git:")
    assert "\n" not in again.remote[0]["error"]
    (failed,) = [f for f in again.files if f.status == "failed"]  # exit code 3, as for files
    assert failed.path == f"git+{server.url}/widget.git" and "stored is kept" in failed.reason
    assert again.count("removed") == 0
    assert len({m["source_file"] for m in _metas(ingestor)}) == 3


def test_a_local_clone_at_a_ref(tmp_path):
    repo = make_repo(tmp_path / "repo", FILES)
    git("checkout", "-q", "-b", "next", cwd=repo)
    commit(repo, {"docs/next.md": "# Next\n\nOnly on the next branch.\n"}, "next")
    git("checkout", "-q", "main", cwd=repo)
    ingestor = _ingestor(tmp_path / "store")
    root = parse_root(str(repo), git_ref="next")
    report = ingest_roots(ingestor, [root], "docs")
    assert any(f.path.endswith("#docs/next.md") for f in report.files)
    # `ragcli rm` takes the repository's URL: every file of it matches.
    from ragcli.ingest.removal import remove_paths

    removal = remove_paths(ingestor.manifest, "docs", [root.shown])
    assert len(removal.files) == 4 and removal.dry_run
