"""Loading a retrieval test collection in BEIR format.

DIR/corpus.jsonl[.gz]   {"_id", "title", "text"} per line
DIR/queries.jsonl       {"_id", "text"} per line
DIR/qrels/SPLIT.tsv     query-id <TAB> corpus-id <TAB> score, after a header line
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from ragcli.errors import ConfigError


class DatasetError(ConfigError):
    """The dataset directory is missing a file or a file is malformed."""


@dataclass(frozen=True)
class Document:
    title: str
    text: str

    @property
    def full_text(self) -> str:
        """Title and body as one passage, the way BEIR baselines index them."""
        return f"{self.title} {self.text}".strip()


@dataclass(frozen=True)
class BeirDataset:
    corpus: dict[str, Document]
    queries: dict[str, str]  # only the queries judged in this split
    qrels: dict[str, dict[str, int]]  # query id -> corpus id -> grade


def load_beir(directory: Path, split: str = "test") -> BeirDataset:
    directory = Path(directory)
    if not directory.is_dir():
        raise DatasetError(f"BEIR dataset directory not found: {directory}")
    qrels = load_qrels(directory / "qrels" / f"{split}.tsv")
    queries = load_queries(directory / "queries.jsonl")
    missing = [qid for qid in qrels if qid not in queries]
    if missing:
        raise DatasetError(
            f"{directory}: qrels/{split}.tsv judges {len(missing)} queries absent from "
            f"queries.jsonl (e.g. {missing[:3]})"
        )
    return BeirDataset(
        corpus=load_corpus(directory),
        queries={qid: queries[qid] for qid in qrels},
        qrels=qrels,
    )


def load_corpus(directory: Path) -> dict[str, Document]:
    """Read corpus.jsonl, or corpus.jsonl.gz when there is no uncompressed copy."""
    for name in ("corpus.jsonl", "corpus.jsonl.gz"):
        path = Path(directory) / name
        if path.is_file():
            return {
                _field(row, "_id", path, n): Document(
                    title=str(row.get("title") or ""), text=str(row.get("text") or "")
                )
                for n, row in _jsonl(path)
            }
    raise DatasetError(f"{directory}: missing corpus.jsonl (or corpus.jsonl.gz)")


def load_queries(path: Path) -> dict[str, str]:
    if not path.is_file():
        raise DatasetError(f"missing queries file: {path}")
    return {_field(row, "_id", path, n): str(row.get("text") or "") for n, row in _jsonl(path)}


def load_qrels(path: Path) -> dict[str, dict[str, int]]:
    """Tab-separated triples after a header line; CRLF line ends are fine; grade 0 is kept."""
    if not path.is_file():
        available = sorted(p.stem for p in path.parent.glob("*.tsv"))
        hint = f" (available splits: {', '.join(available)})" if available else ""
        raise DatasetError(f"missing qrels file: {path}{hint}")
    qrels: dict[str, dict[str, int]] = {}
    # Text mode with newline=None turns \r\n into \n.
    with open(path, encoding="utf-8-sig", newline=None) as f:
        for n, line in enumerate(f, start=1):
            line = line.strip()
            if not line or n == 1:  # the first line is the header
                continue
            parts = line.split("\t")
            try:
                qid, doc_id, grade = parts
                qrels.setdefault(qid, {})[doc_id] = int(grade)
            except ValueError:
                raise DatasetError(
                    f"{path}:{n}: expected 'query-id<TAB>corpus-id<TAB>integer score', got {line!r}"
                ) from None
    if not qrels:
        raise DatasetError(f"{path}: no judgements after the header line")
    return qrels


def _open_text(path: Path) -> IO[str]:
    if path.suffix == ".gz":
        return gzip.open(path, "rt", encoding="utf-8-sig")
    return open(path, encoding="utf-8-sig")


def _jsonl(path: Path) -> Iterator[tuple[int, dict]]:
    try:
        with _open_text(path) as f:
            for n, line in enumerate(f, start=1):
                if not line.strip():
                    continue
                try:
                    row = json.loads(line)
                except json.JSONDecodeError as e:
                    raise DatasetError(f"{path}:{n}: invalid JSON ({e.msg})") from None
                if not isinstance(row, dict):
                    raise DatasetError(f"{path}:{n}: expected a JSON object")
                yield n, row
    except (OSError, EOFError) as e:  # e.g. a truncated .gz
        raise DatasetError(f"{path}: cannot read ({e})") from None


def _field(row: dict, key: str, path: Path, line: int) -> str:
    if key not in row:
        raise DatasetError(f"{path}:{line}: missing {key!r}")
    return str(row[key])
