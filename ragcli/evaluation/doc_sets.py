"""The documentation sets the offline answers are measured and fitted on: where each site's
pages come from and which question file labels them (scripts/howto_benchmark.py,
scripts/fit_answers.py, scripts/ablate_answers.py). Which questions are train and which
test is ragcli/evaluation/split.py's.

Five sites are in ../shared/eval/; the others are read from a package as its registry
publishes it (a PyPI sdist, an npm tarball, a Debian documentation package of built HTML),
fetched once into a folder the caller names, with the registry's ordinary client
(`pip download`, `npm pack`, `apt-get download`)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tarfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "scripts" / "data"
DOC_SUFFIXES = frozenset({".md", ".rst"})
# A Debian documentation package ships the site built: its pages are HTML.
BUILT_SUFFIXES = frozenset({".html"})
# apt-get's words for a package or version its package lists do not hold
NOT_LISTED = re.compile(r"Unable to locate package|was not found")


def shared_eval() -> Path:
    """../shared/eval beside the checkout (a worktree's parent holds a `shared` link too),
    or $RAGCLI_SHARED_EVAL."""
    import os

    if given := os.environ.get("RAGCLI_SHARED_EVAL"):
        return Path(given)
    return ROOT.parent / "shared" / "eval"


@dataclass(frozen=True)
class DocSet:
    name: str
    questions: Path
    shared: str = ""  # a folder under ../shared/eval/
    package: str = ""  # "pip:flask==3.1.0", "npm:fastify@5.12.8" or "deb:NAME=VERSION"
    folder: str = ""  # the docs' folder inside the unpacked package
    skip: tuple[str, ...] = ()  # glob patterns (relative to the docs) left out
    only: tuple[str, ...] = ()  # glob patterns (relative to the docs): when given, all that is read

    def docs(self, sources: Path | None) -> Path:
        if self.shared:
            return shared_eval() / self.shared
        if sources is None:
            raise SystemExit(f"{self.name}: its pages come from {self.package}: give --sources DIR")
        return sources / self.name / self.folder

    def files(self, docs: Path) -> list[Path]:
        skipped = {p for pattern in self.skip for p in docs.glob(pattern)}
        kept = {p for pattern in self.only for p in docs.glob(pattern)}
        suffixes = BUILT_SUFFIXES if self.package.startswith("deb:") else DOC_SUFFIXES
        return sorted(
            p
            for p in docs.rglob("*")
            if p.suffix in suffixes
            and p not in skipped
            and (not self.only or p in kept)
            and not any(parent in skipped for parent in p.parents)
        )


PYLIB_PAGES = (
    "datetime time logging logging.handlers string struct codecs sqlite3 re argparse json"
    " csv unittest locale array decimal zipfile tarfile itertools operator pathlib"
    " collections.abc urllib.parse warnings statistics sys uuid tomllib venv fnmatch"
    " resource webbrowser functions http difflib __future__ profile dbm pickle select"
).split()


def _questions(name: str) -> Path:
    return DATA / (
        "typer_howto.yaml" if name == "typer" else f"{name.replace('-', '_')}_questions.yaml"
    )


def _set(name: str, **where: object) -> DocSet:
    return DocSet(name, _questions(name), **where)  # type: ignore[arg-type]


SETS: dict[str, DocSet] = {
    s.name: s
    for s in (
        _set("typer", shared="typer-docs"),
        _set("httpx", shared="docs/httpx"),
        _set("pydantic", shared="docs/pydantic"),
        _set("rust-book", shared="docs/rust-book"),
        _set("sqlmodel", shared="docs/sqlmodel"),
        _set("flask", package="pip:flask==3.1.0", folder="flask-3.1.0/docs"),
        _set("starlette", package="pip:starlette==0.41.3", folder="starlette-0.41.3/docs"),
        _set("attrs", package="pip:attrs==25.1.0", folder="attrs-25.1.0/docs"),
        _set("click", package="pip:click==8.1.8", folder="click-8.1.8/docs"),
        _set("aiohttp", package="pip:aiohttp==3.14.5", folder="aiohttp-3.14.5/docs"),
        _set("urllib3", package="pip:urllib3==2.3.0", folder="urllib3-2.3.0/docs"),
        _set("treq", package="pip:treq==24.9.1", folder="treq-24.9.1/docs"),
        _set(
            "toolbelt",
            package="pip:requests-toolbelt==1.0.0",
            folder="requests-toolbelt-1.0.0/docs",
        ),
        _set("structlog", package="pip:structlog==26.1.0", folder="structlog-26.1.0/docs"),
        _set(
            "pytest",
            package="pip:pytest==9.2.0",
            folder="pytest-9.2.0/doc/en",
            # release notes and the generated list of 1,600 plugins: no how-to text
            skip=("announce", "changelog.rst", "reference/plugin_list.rst", "proposals"),
        ),
        _set("fastify", package="npm:fastify@5.12.8", folder="package/docs"),
        _set("pino", package="npm:pino@10.4.0", folder="package/docs"),
        _set(
            "marshmallow",
            package="pip:marshmallow==4.4.0",
            folder="marshmallow-4.4.0/docs",
            # the changelog, authors and licence (includes of files outside docs/) and the
            # API reference's autodoc stubs: no how-to text
            skip=(
                "changelog.rst",
                "authors.rst",
                "license.rst",
                "api_reference.rst",
                "marshmallow.*.rst",
            ),
        ),
        _set("undici", package="npm:undici@8.13.1", folder="package/docs/docs"),
        _set(
            "markdown",
            package="pip:markdown==3.11.3",
            folder="markdown-3.11.3/docs",
            # release notes and the guide for the project's contributors: no how-to text
            skip=("change_log", "changelog.md", "contributing.md"),
        ),
        _set(
            "anyio",
            package="pip:anyio==4.16.0",
            folder="anyio-4.16.0/docs",
            # release notes and the API page's autodoc directives: no how-to text
            skip=("versionhistory.rst", "api.rst"),
        ),
        _set(
            "cattrs",
            package="pip:cattrs==26.2.1",
            folder="cattrs-26.2.1/docs",
            # include stubs of the release notes and contributing guide (files outside docs/),
            # and the autodoc API stubs: no how-to text
            skip=("history.md", "contributing.md", "modules.rst", "cattrs*.rst"),
        ),
        _set(
            "werkzeug",
            package="deb:python-werkzeug-doc=2.2.2-3+deb12u1",
            folder="usr/share/doc/python-werkzeug-doc/html",
            # Sphinx's generated index, search and 404 pages, release notes, the licence
            skip=("genindex.html", "search.html", "py-modindex.html", "404.html")
            + ("changes.html", "license.html", "_static", "_sources"),
        ),
        _set(
            "pylib",
            package="deb:python3.11-doc=3.11.2-6+deb12u9",
            folder="usr/share/doc/python3.11/html/library",
            # 40 of the library reference's ~300 pages: those whose tables state values
            # (format codes, type codes, attributes, conversions), with their prose
            only=tuple(f"{page}.html" for page in PYLIB_PAGES),
        ),
    )
}


def fetch_command(registry: str, requirement: str, target: Path) -> list[str]:
    """The registry's ordinary client fetching `requirement` into `target` (its working
    folder); [] for a registry it does not know."""
    if registry == "pip":
        download = [sys.executable, "-m", "pip", "download", requirement, "--no-deps", "-q"]
        return [*download, "--no-binary", ":all:", "-d", str(target)]
    if registry == "npm":
        return ["npm", "pack", requirement, "--silent", "--pack-destination", str(target)]
    if registry == "deb":
        return ["apt-get", "download", requirement]
    return []


def fetch(doc_set: DocSet, sources: Path) -> Path:
    """The set's docs folder under `sources`, fetched and unpacked first when absent."""
    docs = doc_set.docs(sources)
    if doc_set.shared or docs.is_dir():
        return docs
    target = sources / doc_set.name
    target.mkdir(parents=True, exist_ok=True)
    registry, _, requirement = doc_set.package.partition(":")
    print(f"{doc_set.name}: fetching {requirement} ({registry}) into {target}", file=sys.stderr)
    command = fetch_command(registry, requirement, target)
    if not command or not shutil.which(command[0]):
        client = f" (is {command[0]} installed?)" if command else ""
        raise SystemExit(f"{doc_set.name}: cannot fetch {doc_set.package}{client}")
    result = _run(command, target)
    if registry == "deb" and NOT_LISTED.search(result.stderr) and os.geteuid() == 0:
        _run(["apt-get", "update", "-qq"], target)  # the package lists were absent or old
        result = _run(command, target)
    archives = [p for glob in ("*.tar.gz", "*.tgz", "*.deb") for p in sorted(target.glob(glob))]
    if not archives:
        reason = (result.stderr.strip().splitlines() or ["no archive"])[-1]
        raise SystemExit(f"{doc_set.name}: fetching {requirement} failed: {reason}")
    if archives[0].suffix == ".deb":
        unpacked = _run(["dpkg-deb", "-x", str(archives[0]), str(target)], target)
        if unpacked.returncode != 0:
            reason = (unpacked.stderr.strip().splitlines() or ["no output"])[-1]
            raise SystemExit(f"{doc_set.name}: unpacking {archives[0].name} failed: {reason}")
    else:
        with tarfile.open(archives[0]) as archive:
            archive.extractall(target, filter="data")
    if not docs.is_dir():
        raise SystemExit(f"{doc_set.name}: {requirement} holds no {doc_set.folder}/")
    return docs


def _run(command: list[str], folder: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=folder, capture_output=True, text=True, check=False)
