"""A Git repository as an ingest source: fetched shallow (depth 1) by the `git` binary
into the user cache, its tree at the ref read as files are, keyed `REPO#path`. The next
sync fetches the ref again and reads only what `git diff` between the stored commit and
the new one names (added, modified, renamed, deleted); a renamed file's content is found
in the store and keeps its chunks, as a local rename does (ingest/reuse.py).

The tree is what the repository tracks, less what its `.gitignore` and `.ragignore` and
hidden names exclude, as for a folder. Credentials come from git's own means (a
credential helper, ~/.netrc, ssh keys); git never prompts (GIT_TERMINAL_PROMPT=0), and a
URL's credentials are left out of every message and key."""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pathspec

from ragcli.ingest.files import FileSource
from ragcli.ingest.items import FileOutcome, Item
from ragcli.ingest.walker import IGNORE_FILE
from ragcli.remote.roots import GitRoot
from ragcli.remote.state import RemoteState, RootSync

GIT_TIMEOUT = 600  # seconds a fetch may take
UNFETCHED = Path("(repository not fetched)")  # the one entry of a repository that failed
CREDENTIALS = re.compile(r"(://)[^/@\s]+@")


class GitError(Exception):
    """A repository that could not be fetched: one line naming it."""


def cache_dir() -> Path:
    import platformdirs

    return Path(os.environ.get("RAGCLI_CACHE") or platformdirs.user_cache_dir("ragcli")) / "git"


def _git(args: list[str], cwd: Path | None = None, timeout: float = GIT_TIMEOUT) -> str:
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "GIT_ASKPASS": "", "LC_ALL": "C"}
    env.setdefault("GIT_SSH_COMMAND", "ssh -o BatchMode=yes")
    try:
        done = subprocess.run(
            ["git", *args],
            cwd=cwd,
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
            stdin=subprocess.DEVNULL,
        )
    except FileNotFoundError:
        raise GitError("git is not installed (ragcli fetches repositories with it)") from None
    except subprocess.TimeoutExpired:
        raise GitError(f"git {args[0]} took more than {timeout:.0f} s") from None
    if done.returncode != 0:
        lines = [line for line in done.stderr.splitlines() if line.strip()]
        said = lines[-1] if lines else f"git {args[0]} failed"
        raise GitError(CREDENTIALS.sub(r"\1", said.removeprefix("fatal: ")))
    return done.stdout


def forge_url(shown: str, commit: str, path: str) -> str | None:
    """The file's page at `commit` on a forge known by its host, else None."""
    parts = urlsplit(shown.removeprefix("git+"))
    host = (parts.hostname or "").lower()
    repo = parts.path.strip("/").removesuffix(".git")
    if parts.scheme == "file" or repo.count("/") < 1:
        return None
    if host in ("github.com", "www.github.com"):
        return f"https://github.com/{repo}/blob/{commit}/{path}"
    if host == "gitlab.com" or host.startswith("gitlab."):
        return f"https://{host}/{repo}/-/blob/{commit}/{path}"
    if host in ("codeberg.org", "gitea.com") or host.startswith("gitea."):
        return f"https://{host}/{repo}/src/commit/{commit}/{path}"
    if host == "bitbucket.org":
        return f"https://bitbucket.org/{repo}/src/{commit}/{path}"
    return None


class Checkout:
    """The cache's clone of one repository: fetched shallow, its work tree at a commit."""

    def __init__(self, root: GitRoot):
        self.root = root
        name = hashlib.sha256(root.shown.encode()).hexdigest()[:16]
        self.path = cache_dir() / name

    def fetch(self) -> str:
        """Fetch the ref and check it out; returns the commit."""
        if not (self.path / ".git").is_dir():
            shutil.rmtree(self.path, ignore_errors=True)
            self.path.mkdir(parents=True, exist_ok=True)
            _git(["init", "-q"], cwd=self.path)
        ref = self.root.ref or "HEAD"
        try:
            _git(["fetch", "-q", "--depth=1", "--no-tags", self.root.remote, ref], cwd=self.path)
        except GitError as first:
            # A commit id a server does not hand out alone: the whole history, then it.
            if not re.fullmatch(r"[0-9a-f]{7,40}", ref):
                raise GitError(f"{self.root.shown}: {first}") from None
            try:
                _git(["fetch", "-q", "--no-tags", self.root.remote], cwd=self.path)
                _git(["rev-parse", "--verify", f"{ref}^{{commit}}"], cwd=self.path)
                _git(["update-ref", "FETCH_HEAD", ref], cwd=self.path)
            except GitError as second:
                raise GitError(f"{self.root.shown}: {second}") from None
        commit = _git(["rev-parse", "FETCH_HEAD^{commit}"], cwd=self.path).strip()
        _git(["checkout", "-q", "--force", "--detach", commit], cwd=self.path)
        _git(["clean", "-q", "-f", "-d", "-x"], cwd=self.path)
        # Refs keep the commits stored ones are compared with: a later fetch never prunes them.
        _git(["update-ref", f"refs/ragcli/{commit}", commit], cwd=self.path)
        return commit

    def has(self, commit: str) -> bool:
        try:
            _git(["cat-file", "-e", f"{commit}^{{commit}}"], cwd=self.path)
        except GitError:
            return False
        return True

    def files(self, commit: str) -> list[str]:
        out = _git(["ls-tree", "-r", "-z", "--name-only", commit], cwd=self.path)
        return [name for name in out.split("\0") if name]

    def changed(self, old: str, new: str) -> set[str]:
        """Paths `git diff` names between two commits (a rename's new path among them)."""
        # Without rename detection a rename is a deletion and an addition: the added path is
        # read, and its content, found stored under the deleted one, keeps its chunks.
        out = _git(["diff", "--name-status", "-z", "--no-renames", old, new], cwd=self.path)
        fields = [f for f in out.split("\0") if f]
        return {fields[i + 1] for i in range(0, len(fields) - 1, 2)}


class GitSource(FileSource):
    """The files of a repository's tree at the ref, read from the cache's work tree."""

    def __init__(self, root: GitRoot, state: RemoteState, *args: Any, **kwargs: Any):
        self.root = root
        self.state = state
        self.checkout = Checkout(root)
        super().__init__([self.checkout.path], *args, **kwargs)
        self.commit = ""
        self.previous = ""
        self.notes: list[str] = []
        self.error = ""
        self.tree: list[str] = []
        self.changed: set[str] | None = None  # None: every file is compared by content

    def entries(self) -> list[Path]:
        known = self.state.root(self.collection, self.root.shown)
        self.previous = known.revision if known else ""
        try:
            self.commit = self.checkout.fetch()
        except GitError as failed:
            self.error = str(failed)
            return [UNFETCHED]  # one entry: the repository itself, failed
        self.tree = [p for p in self.checkout.files(self.commit) if self._visible(p)]
        if self.previous and self.previous != self.commit:
            if self.checkout.has(self.previous):
                self.changed = self.checkout.changed(self.previous, self.commit)
            else:
                self.notes.append(
                    f"stored commit {self.previous[:12]} is not in the cache: every file "
                    "compared by content"
                )
        elif self.previous == self.commit:
            self.changed = set()
        found = []
        for name in self.tree:
            path = self.checkout.path / name
            self._keys[path] = self.root.key(name)
            found.append(path)
        return found

    def prepare(self, path: Path, find_copy: bool = True) -> FileOutcome | Item:
        if path is UNFETCHED:  # counted as a failure, as a file that cannot be read is
            reason = self.error.removeprefix(self.root.shown + ": ")
            return FileOutcome(self.root.shown, "failed", f"{reason}; what is stored is kept")
        name = path.relative_to(self.checkout.path).as_posix()
        key = self.root.key(name)
        known = self.manifest.get(self.collection, key)
        if self.changed is not None and name not in self.changed and known is not None:
            from ragcli.ingest.loaders import reading_of

            if known.reading >= reading_of(known.file_type):
                return FileOutcome(key, "unchanged", chunks=known.chunk_count)
        outcome = super().prepare(path, find_copy)
        if isinstance(outcome, Item):
            outcome.metadata["commit"] = self.commit
            if url := forge_url(self.root.shown, self.commit, name):
                outcome.metadata["url"] = url
        return outcome

    def gone(self) -> list[tuple[str, str]]:
        if self.error:
            return []  # nothing is known to be gone from a repository that was not read
        present = {self.root.key(name) for name in self.tree}
        prefix = self.root.shown + "#"
        return [
            (record.path, f"not in {self.commit[:12]}")
            for record in self.manifest.files(self.collection)
            if record.path.startswith(prefix) and record.path not in present
        ]

    def close(self, stopping: bool = False) -> None:
        super().close(stopping)
        if stopping:
            return
        prefix = self.root.shown + "#"
        stored = sum(1 for r in self.manifest.files(self.collection) if r.path.startswith(prefix))
        errors = ([self.error] if self.error else []) + self.notes
        self.state.put_root(
            RootSync(
                self.collection,
                self.root.shown,
                "git",
                datetime.now(UTC).isoformat(timespec="seconds"),
                self.commit or self.previous,
                stored,
                1 if self.error else 0,
                errors,
            )
        )

    def summary(self) -> dict[str, Any]:
        return {
            "root": self.root.shown,
            "kind": "git",
            "ref": self.root.ref,
            "commit": self.commit,
            "previous": self.previous,
            "error": self.error,
            "notes": list(self.notes),
        }

    def _visible(self, name: str) -> bool:
        if any(part.startswith(".") for part in name.split("/")):
            return False
        for spec in self._specs():
            if spec.match_file(name):
                return False
        return True

    def _specs(self) -> list[pathspec.PathSpec]:
        specs = getattr(self, "_spec_cache", None)
        if specs is None:
            specs = []
            for name in (".gitignore", IGNORE_FILE):
                path = self.checkout.path / name
                if path.is_file():
                    lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
                    specs.append(pathspec.GitIgnoreSpec.from_lines(lines))
            self._spec_cache = specs
        return specs
