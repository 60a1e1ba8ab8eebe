"""AsciiDoc, read by Asciidoctor into blocks: sections with their levels, paragraphs,
lists, listing and source blocks with their language, tables, admonitions (`NOTE:`,
`[TIP]` blocks), each with its line in the file, attributes substituted.

Asciidoctor (Ruby) is the reference implementation of today's AsciiDoc, the one the
documents people keep are written for (asciidoc-py, the Python original, reads an older
dialect: no Markdown-style fences, other table and attribute rules). It runs as one
process per ingest worker (`ragcli/data/asciidoc_blocks.rb`), which reads a file per
request and answers with its blocks as JSON; inline text comes as Asciidoctor's HTML,
read here as text (code spans kept). An include directive is a reference to the file it
names ("text included from chapter.adoc"), never its text: the included file is read on
its own, as reST's are (blocks/includes.py); a file of attribute entries only is read, so
the attributes it defines are substituted."""

from __future__ import annotations

import atexit
import html
import json
import re
import shutil
import subprocess
import threading
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path, PurePosixPath
from typing import Any

from ragcli.blocks.includes import LANGUAGES
from ragcli.blocks.inline import code_span
from ragcli.blocks.model import (
    Admonition,
    Block,
    CodeBlock,
    Heading,
    ListItem,
    Paragraph,
    Table,
    include_text,
)

MARK = "\u0001ragcli-include\u0001"
CODE = re.compile(r"<code\b[^>]*>(.*?)</code>", re.S)
FOOTNOTE = re.compile(r'<sup class="footnote[^"]*"[^>]*>.*?</sup>', re.S)
TAG = re.compile(r"<[^>]+>")
INCLUDE = re.compile(r"^include::([^\[\s]+)\[", re.M)
TEXT_SUFFIXES = {".adoc", ".asciidoc", ".asc", ".ad", ".txt"}
# How deep the include loop check follows includes (each file's include lines only).
INCLUDE_DEPTH = 16


class AsciidoctorMissing(Exception):
    """Asciidoctor is not installed; the message says how to install it."""


class AsciidoctorFailed(Exception):
    """Asciidoctor could not read the file; the message is its reason, one line."""


@dataclass
class AsciiDocument:
    blocks: list[Block] = field(default_factory=list)
    lines: dict[int, tuple[int, int]] = field(default_factory=dict)
    metadata: dict[str, str | list[str]] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)


def read_asciidoc(path: Path, text: str) -> AsciiDocument:
    """The blocks of the AsciiDoc file at `path`, whose text is `text` (for lines)."""
    answer = _server().read(path)
    if "error" in answer:
        raise AsciidoctorFailed(str(answer["error"]))
    document = AsciiDocument(warnings=[str(w) for w in answer.get("warnings", [])])
    file_lines = text.split("\n")
    spans = _reader(document, file_lines)
    for raw in answer.get("blocks", []):
        spans.add(raw, document.blocks)
    spans.close()
    for key, value in (answer.get("metadata") or {}).items():
        if key == "keywords" and isinstance(value, str):
            document.metadata[key] = [k.strip() for k in value.split(",") if k.strip()]
        elif isinstance(value, list):
            document.metadata[key] = [str(v) for v in value]
        else:
            document.metadata[key] = str(value)
    return document


def inline(fragment: str) -> str:
    """Asciidoctor's inline HTML as text: `<code>` as code spans, other tags dropped,
    entities decoded, one line."""
    fragment = FOOTNOTE.sub("", fragment)
    parts: list[str] = []
    start = 0
    for match in CODE.finditer(fragment):
        parts.append(_plain(fragment[start : match.start()]))
        parts.append(code_span(" ".join(_plain(match.group(1)).split())))
        start = match.end()
    parts.append(_plain(fragment[start:]))
    return " ".join("".join(parts).split())


def _plain(fragment: str) -> str:
    return html.unescape(TAG.sub("", fragment))


class _reader:
    """Turns the JSON blocks into blocks, each with its lines: from its first line to the
    line before the next block's, blank lines and delimiters aside."""

    def __init__(self, document: AsciiDocument, file_lines: list[str]) -> None:
        self.document = document
        self.file_lines = file_lines
        self.open: list[tuple[Block, int]] = []  # blocks whose last line is not known yet

    def add(self, raw: dict[str, Any], into: list[Block]) -> None:
        block = self._block(raw)
        if block is None:
            return
        into.append(block)
        line = raw.get("line")
        if isinstance(line, int) and into is self.document.blocks:
            self._end_open(line - 1)
            if isinstance(block, CodeBlock) and raw.get("lines") and not block.is_reference:
                # A listing's own lines (between its delimiters) are the code's.
                first = line + 1 if self._delimited(line) else line
                self.document.lines[id(block)] = (first, first + int(raw["lines"]) - 1)
            else:
                self.open.append((block, line))

    def close(self) -> None:
        self._end_open(len(self.file_lines))

    def _delimited(self, line: int) -> bool:
        if 0 < line <= len(self.file_lines):
            return self.file_lines[line - 1].strip() in ("----", "....", "```") or self.file_lines[
                line - 1
            ].startswith(("----", "....", "```"))
        return False

    def _end_open(self, last: int) -> None:
        for block, first in self.open:
            end = max(first, last)
            while end > first and not self.file_lines[end - 1].strip():
                end -= 1
            self.document.lines[id(block)] = (first, end)
        self.open.clear()

    def _block(self, raw: dict[str, Any]) -> Block | None:
        kind = raw.get("t")
        if kind == "h":
            title = inline(str(raw.get("html", ""))) or "(untitled)"
            return Heading(int(raw.get("level", 2)), title, ())
        if kind == "p":
            text = str(raw.get("html", ""))
            if text.strip().startswith(MARK):
                return _include(text.strip()[len(MARK) :], "")
            words = inline(text)
            if raw.get("title") and words and not words.endswith((":", ".", "?", "!")):
                words += ":"
            return Paragraph(words) if words else None
        if kind == "li":
            words = inline(str(raw.get("html", "")))
            marker = str(raw.get("marker", "-"))
            return ListItem(words, marker, int(raw.get("depth", 0))) if words else None
        if kind == "code":
            return _code(str(raw.get("lang") or ""), str(raw.get("text", "")))
        if kind == "table":
            return _table(raw)
        if kind == "adm":
            inner: list[Block] = []
            for nested in raw.get("blocks", []):
                if (block := self._block(nested)) is not None:
                    inner.append(block)
            title = inline(str(raw.get("html", "")))
            return Admonition(str(raw.get("kind") or "note").lower(), title, tuple(inner))
        return None


def _include(target: str, language: str) -> CodeBlock:
    suffix = PurePosixPath(target).suffix.lower()
    if not language and suffix in TEXT_SUFFIXES:
        return CodeBlock("", include_text(target, text=True), include=target)
    language = language or LANGUAGES.get(suffix, "")
    return CodeBlock(language, include_text(target), include=target)


def _code(language: str, source: str) -> CodeBlock:
    lines = source.split("\n")
    targets = [line[len(MARK) :] for line in lines if line.startswith(MARK)]
    rest = [line for line in lines if not line.startswith(MARK)]
    if targets and not any(line.strip() for line in rest):
        return _include(targets[0], language)  # a listing of an included file
    if targets:  # an include among the code's own lines: say which file it is
        source = "\n".join(
            f"// code example from {line[len(MARK) :]}" if line.startswith(MARK) else line
            for line in lines
        )
    return CodeBlock(language, source.strip("\n"))


def _table(raw: dict[str, Any]) -> Table | None:
    def cells(rows: Any) -> list[tuple[str, ...]]:
        return [tuple(inline(str(cell)) for cell in row) for row in rows or []]

    head, body = cells(raw.get("head")), cells(raw.get("body")) + cells(raw.get("foot"))
    if head:
        return Table(head[-1], tuple(body))
    if not body:
        return None
    return Table(body[0], tuple(body[1:]))


def include_loop(path: Path) -> list[str] | None:
    """The chain of files leading back to one already in it, when `path`'s includes
    (followed through their own include lines, never parsed) form a loop; else None."""

    def follow(current: Path, chain: list[Path]) -> list[Path] | None:
        if len(chain) > INCLUDE_DEPTH:
            return None
        try:
            text = current.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return None
        for target in INCLUDE.findall(text):
            if "{" in target or "://" in target:
                continue  # an attribute in the path, a URL: not followed
            found = (current.parent / target).resolve()
            if found in chain:
                return [*chain, found]
            if found.suffix.lower() in TEXT_SUFFIXES and found.is_file():
                loop = follow(found, [*chain, found])
                if loop:
                    return loop
        return None

    start = path.resolve()
    loop = follow(start, [start])
    if loop is None:
        return None
    base = start.parent
    return [_relative(p, base) for p in loop]


def _relative(path: Path, base: Path) -> str:
    try:
        return path.relative_to(base).as_posix()
    except ValueError:
        return path.name


class _Asciidoctor:
    """One Asciidoctor process, started on first use and kept for the process's life."""

    def __init__(self) -> None:
        self.process: subprocess.Popen[str] | None = None
        self.lock = threading.Lock()

    def read(self, path: Path) -> dict[str, Any]:
        with self.lock:
            for attempt in (1, 2):
                process = self._started()
                assert process.stdin is not None and process.stdout is not None
                try:
                    process.stdin.write(json.dumps({"path": str(path)}) + "\n")
                    process.stdin.flush()
                    line = process.stdout.readline()
                except (BrokenPipeError, OSError):
                    line = ""
                if line:
                    answer: dict[str, Any] = json.loads(line)
                    return answer
                self.stop()  # it died (a Ctrl-C reached it, a crash): start it once more
                if attempt == 2:
                    raise AsciidoctorFailed("Asciidoctor stopped while reading it")
        raise AssertionError("unreachable")

    def _started(self) -> subprocess.Popen[str]:
        if self.process is not None and self.process.poll() is None:
            return self.process
        ruby = shutil.which("ruby")
        if ruby is None:
            raise AsciidoctorMissing(MISSING)
        script = resources.files("ragcli") / "data" / "asciidoc_blocks.rb"
        self.process = subprocess.Popen(
            [ruby, str(script)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            encoding="utf-8",
            bufsize=1,
        )
        atexit.register(self.stop)
        if self.process.poll() is not None or not _alive(self.process):
            raise AsciidoctorMissing(MISSING)
        return self.process

    def stop(self) -> None:
        process, self.process = self.process, None
        if process is not None and process.poll() is None:
            process.kill()
            process.wait()


MISSING = "AsciiDoc is read by Asciidoctor, which is not installed (apt-get install asciidoctor)"


def _alive(process: subprocess.Popen[str]) -> bool:
    """Whether the script loaded Asciidoctor: it answers an empty request at once."""
    assert process.stdin is not None and process.stdout is not None
    try:
        process.stdin.write(json.dumps({"path": ""}) + "\n")
        process.stdin.flush()
        return bool(process.stdout.readline())
    except (BrokenPipeError, OSError):
        return False


_instance: _Asciidoctor | None = None


def _server() -> _Asciidoctor:
    global _instance
    if _instance is None:
        _instance = _Asciidoctor()
    return _instance
