"""QnA files: curated question/answer pairs for the tos mode's FAQ stage.

Formats: YAML or JSON (a list of {question, answer} mappings, or a mapping holding such a
list under `questions`, `faq`, `qna` or `items`), CSV and spreadsheets (.xlsx .xls .ods)
with `question` and `answer` columns, and Markdown with `Q:` / `A:` pairs. Each pair
becomes one chunk that is embedded by its question alone (a question matches a question
best) and keeps its answer in its text and metadata. A malformed entry is reported by its
number and skipped; the good ones load.
"""

from __future__ import annotations

import csv
import io
import itertools
import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ragcli.embedding.wordpieces import TokenCounter
from ragcli.ingest.chunker import Chunk, with_languages
from ragcli.ingest.loaders import LoadError, read_text
from ragcli.ingest.loaders.encoding import decode
from ragcli.ingest.loaders.tables import cell_text

QNA_SUFFIXES = {".yaml": "yaml", ".yml": "yaml", ".json": "json", ".csv": "csv"}
MARKDOWN_SUFFIXES = {".md", ".markdown"}
WORKBOOK_SUFFIXES = {".xlsx": "xlsx", ".xls": "xls", ".ods": "ods"}
# Rows read from a sheet's top to find its header (a title row may come first).
HEADER_SEARCH_ROWS = 5
LIST_KEYS = ("questions", "faq", "qna", "items")
# `Q:` / `A:` at the start of a line, also written `**Q:**`, `Question:` or `- Q:`.
MD_MARKER = re.compile(
    r"^\s*(?:[-*]\s+)?(?:\*\*)?(Q|A|Question|Answer)\s*:(?:\*\*)?\s*(.*)$", re.IGNORECASE
)
HEADING = re.compile(r"^#{1,6}\s")
SHOWN_ERRORS = 5  # entry problems listed in the ingest report; the rest are counted


class NotQnaFile(LoadError):
    """A structured file found outside the QnA collection that holds no QnA pairs (a
    package.json, a mkdocs.yml): skipped there, not failed."""


@dataclass
class QnaPair:
    question: str
    answer: str
    entry: int  # 1-based position in the file, as reported to the user
    topic: str | None = None  # the Markdown heading the pair sits under

    @property
    def text(self) -> str:
        """The stored document: shown as the source, and what answers are checked against."""
        return f"Q: {self.question}\nA: {self.answer}"


@dataclass
class QnaFile:
    file_type: str
    pairs: list[QnaPair]
    problems: list[str] = field(default_factory=list)  # "entry 3: missing answer"

    def notes(self) -> list[str]:
        if not self.problems:
            return []
        shown = "; ".join(self.problems[:SHOWN_ERRORS])
        more = len(self.problems) - SHOWN_ERRORS
        extra = f"; and {more} more" if more > 0 else ""
        count = len(self.problems)
        entries = "entry" if count == 1 else "entries"
        return [f"{count} malformed {entries} skipped: {shown}{extra}"]


def qna_format(path: Path, collection: str, qna_collection: str | None) -> str | None:
    """The QnA format of `path` (yaml/json/csv/xlsx/xls/ods/md), or None for a document.

    YAML and JSON files are always QnA files: ragcli has no other use for them. A CSV or
    a workbook is one in the tos QnA collection, or when its header has `question` and
    `answer` columns; any other is a table (loaders/sheets.py). Markdown is a QnA file when
    ingested into the tos QnA collection, or when its first line of text starts with `Q:`."""
    suffix = path.suffix.lower()
    in_qna_collection = qna_collection is not None and collection == qna_collection
    if suffix == ".csv" and not in_qna_collection:
        return "csv" if _csv_has_qna_header(path) else None
    if suffix in WORKBOOK_SUFFIXES:
        file_format = WORKBOOK_SUFFIXES[suffix]
        return file_format if in_qna_collection or _workbook_has_qna(path, file_format) else None
    if suffix in QNA_SUFFIXES:
        return QNA_SUFFIXES[suffix]
    if suffix not in MARKDOWN_SUFFIXES:
        return None
    if in_qna_collection:
        return "md"
    return "md" if _starts_with_question(path) else None


def _csv_has_qna_header(path: Path) -> bool:
    try:
        with path.open("rb") as handle:
            head = handle.read(65536)
        text, _ = decode(head)
    except (OSError, LoadError):
        return False
    first = next(csv.reader(io.StringIO(text.split("\n", 1)[0])), [])
    columns = {cell.strip().lower() for cell in first}
    return {"question", "answer"} <= columns


def _is_qna_header(row: Sequence[object]) -> bool:
    return {"question", "answer"} <= {cell_text(cell).lower() for cell in row}


def _workbook_has_qna(path: Path, file_format: str) -> bool:
    """A sheet with `question` and `answer` among its first rows' cells. A damaged file
    is not a QnA file here: the document loader reports why it cannot be read."""
    from ragcli.ingest.loaders.sheets import workbook_rows

    try:
        for _, rows in workbook_rows(path, file_format):
            if any(_is_qna_header(row) for row in itertools.islice(rows, HEADER_SEARCH_ROWS)):
                return True
    except (LoadError, OSError):
        return False
    return False


def _starts_with_question(path: Path) -> bool:
    try:
        with path.open(encoding="utf-8", errors="replace") as handle:
            for line in handle:
                if line.strip() and not HEADING.match(line):
                    match = MD_MARKER.match(line)
                    return match is not None and match.group(1).lower().startswith("q")
    except OSError:
        return False
    return False


def load_qna(path: Path, file_format: str) -> QnaFile:
    """Parse a QnA file. Raises LoadError when the file as a whole is unusable."""
    if file_format in WORKBOOK_SUFFIXES.values():
        pairs, problems = _parse_workbook(path, file_format)
    else:
        text, _ = read_text(path)
        parse = {"yaml": _parse_yaml, "json": _parse_json, "csv": _parse_csv, "md": _parse_markdown}
        pairs, problems = parse[file_format](text)
    pairs, duplicates = _drop_duplicates(pairs)
    problems = sorted(problems + duplicates, key=_entry_number)
    if not pairs:
        detail = f" ({problems[0]})" if problems else ""
        raise LoadError(f"no valid question/answer pairs{detail}")
    return QnaFile(file_format, pairs, problems)


def _entry_number(problem: str) -> int:
    match = re.match(r"entry (\d+)", problem)
    return int(match.group(1)) if match else 0


def _drop_duplicates(pairs: list[QnaPair]) -> tuple[list[QnaPair], list[str]]:
    seen: dict[str, int] = {}
    kept, problems = [], []
    for pair in pairs:
        key = " ".join(pair.question.lower().split())
        if key in seen:
            problems.append(f"entry {pair.entry}: repeats the question of entry {seen[key]}")
            continue
        seen[key] = pair.entry
        kept.append(pair)
    return kept, problems


def _from_records(records: Any, where: str) -> tuple[list[QnaPair], list[str]]:
    if isinstance(records, dict):
        lists = [records[k] for k in LIST_KEYS if isinstance(records.get(k), list)]
        if not lists:
            if "question" in records:
                records = [records]
            else:
                raise LoadError(
                    f"expected a list of question/answer entries{where} "
                    f"(or a mapping with one of: {', '.join(LIST_KEYS)})"
                )
        else:
            records = lists[0]
    if not isinstance(records, list):
        raise LoadError(f"expected a list of question/answer entries{where}")
    pairs, problems = [], []
    for number, record in enumerate(records, start=1):
        pair, problem = _pair_from(record, number)
        if pair:
            pairs.append(pair)
        else:
            problems.append(problem)
    return pairs, problems


def _pair_from(record: Any, number: int) -> tuple[QnaPair | None, str]:
    if not isinstance(record, dict):
        return None, f"entry {number}: not a mapping with question and answer"
    fields = {str(k).strip().lower(): v for k, v in record.items()}
    values = {}
    for name in ("question", "answer"):
        value = fields.get(name)
        if value is None or (isinstance(value, str) and not value.strip()):
            return None, f"entry {number}: missing {name}"
        if isinstance(value, dict | list):
            return None, f"entry {number}: {name} is not text"
        values[name] = " ".join(str(value).split()) if name == "question" else str(value).strip()
    return QnaPair(values["question"], values["answer"], number), ""


def _parse_yaml(text: str) -> tuple[list[QnaPair], list[str]]:
    import yaml

    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark else ""
        raise LoadError(f"not valid YAML{where}") from None
    return _from_records(data, "")


def _parse_json(text: str) -> tuple[list[QnaPair], list[str]]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise LoadError(f"not valid JSON at line {exc.lineno}: {exc.msg}") from None
    return _from_records(data, "")


def _parse_csv(text: str) -> tuple[list[QnaPair], list[str]]:
    reader = csv.reader(io.StringIO(text))
    try:
        header = next(reader)
    except StopIteration:
        raise LoadError("empty CSV") from None
    columns = [h.strip().lower() for h in header]
    missing = [name for name in ("question", "answer") if name not in columns]
    if missing:
        raise LoadError(f"CSV header lacks column(s): {', '.join(missing)}")
    try:
        return _pairs_from_rows(columns, reader, strict_width=True)
    except csv.Error as exc:
        raise LoadError(f"not valid CSV at line {reader.line_num}: {exc}") from None


def _pairs_from_rows(
    columns: list[str],
    rows: Iterable[Sequence[object]],
    strict_width: bool = False,
    first_entry: int = 1,
    topic: str | None = None,
) -> tuple[list[QnaPair], list[str]]:
    """The pairs of a table whose header is `columns` (lower-cased), an entry per row.
    `strict_width`: a row with another number of fields than the header is malformed (a
    CSV's stray comma); a spreadsheet's rows may end early."""
    q_at, a_at = columns.index("question"), columns.index("answer")
    pairs, problems = [], []
    for number, row in enumerate(rows, start=first_entry):
        cells = [cell_text(cell) for cell in row]
        if not any(cells):
            continue
        if strict_width and len(cells) != len(columns):
            problems.append(f"entry {number}: {len(cells)} fields, the header has {len(columns)}")
            continue
        record = {
            "question": cells[q_at] if q_at < len(cells) else "",
            "answer": cells[a_at] if a_at < len(cells) else "",
        }
        pair, problem = _pair_from(record, number)
        if pair:
            pair.topic = topic
            pairs.append(pair)
        else:
            problems.append(problem)
    return pairs, problems


def _parse_workbook(path: Path, file_format: str) -> tuple[list[QnaPair], list[str]]:
    """Every sheet whose header (within its first rows) has question and answer columns;
    with several such sheets, each pair's topic is its sheet's name."""
    from ragcli.ingest.loaders.sheets import workbook_rows

    found: list[tuple[str, list[QnaPair], list[str]]] = []
    entries = 0
    for name, rows in workbook_rows(path, file_format):
        for row in itertools.islice(rows, HEADER_SEARCH_ROWS):
            if _is_qna_header(row):
                columns = [cell_text(cell).lower() for cell in row]
                pairs, problems = _pairs_from_rows(columns, rows, first_entry=entries + 1)
                entries += len(pairs) + len(problems)
                found.append((name, pairs, problems))
                break
    if not found:
        raise LoadError("no sheet has a header with question and answer columns")
    if len(found) > 1:
        for name, pairs, _ in found:
            for pair in pairs:
                pair.topic = name
    return [p for _, pairs, _ in found for p in pairs], [q for _, _, probs in found for q in probs]


def _parse_markdown(text: str) -> tuple[list[QnaPair], list[str]]:
    """`Q:` starts an entry, `A:` its answer; following lines continue whichever is open."""
    entries: list[dict[str, Any]] = []
    problems: list[str] = []
    topic: str | None = None
    current: dict[str, Any] | None = None
    part = ""
    for line in text.splitlines():
        if HEADING.match(line):
            topic = line.lstrip("#").strip() or topic
            current, part = None, ""
            continue
        match = MD_MARKER.match(line)
        if match:
            kind = match.group(1).lower()[0]
            if kind == "q":
                current = {"q": [match.group(2)], "a": [], "topic": topic, "answers": 0}
                entries.append(current)
                part = "q"
            elif current is None or current["answers"]:
                entries.append({"q": [], "a": [match.group(2)], "topic": topic, "answers": 1})
                current, part = entries[-1], "a"
            else:
                current["a"].append(match.group(2))
                current["answers"] = 1
                part = "a"
        elif current is not None and part:
            current[part].append(line)
    pairs = []
    for number, entry in enumerate(entries, start=1):
        question = " ".join(" ".join(entry["q"]).split())
        answer = "\n".join(entry["a"]).strip()
        if not question:
            problems.append(f"entry {number}: an answer without a Q: line before it")
        elif not answer:
            problems.append(f"entry {number}: missing answer (no A: line)")
        else:
            pairs.append(QnaPair(question, answer, number, entry["topic"]))
    if not entries:
        raise LoadError("no Q:/A: pairs found")
    return pairs, problems


@dataclass
class QnaChunk(Chunk):
    """A pair as a chunk: stored as its Q/A text, embedded by its question alone."""

    embed_text: str = ""


def qna_chunks(
    path: Path, file_format: str, counter: TokenCounter, strict: bool = True
) -> tuple[list[Chunk], list[str]]:
    """One chunk per valid pair, and the notes for the ingest report. Unless `strict` (the
    file goes into the QnA collection), a file with no usable pairs is NotQnaFile."""
    try:
        loaded = load_qna(path, file_format)
    except LoadError as exc:
        if strict or file_format == "md":
            raise
        raise NotQnaFile(f"not a QnA file: {exc}") from None
    chunks: list[Chunk] = []
    for pair, tokens in zip(
        loaded.pairs, counter.counts([p.text for p in loaded.pairs]), strict=True
    ):
        extra: dict[str, Any] = {
            "question": pair.question,
            "answer": pair.answer,
            "entry": pair.entry,
        }
        if pair.topic:
            extra["topic"] = pair.topic
        chunks.append(
            QnaChunk(
                text=pair.text,
                token_count=tokens + counter.special,
                method="qna",
                page=None,
                heading=pair.question,
                embed_text=pair.question,
                extra=extra,
            )
        )
    return with_languages(chunks), loaded.notes()
