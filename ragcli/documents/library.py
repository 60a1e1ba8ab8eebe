"""The documents of a collection a run may read whole: those `ask --file` named, or, for
`--mode auto`, those a question names ("Summarise the refund policy": refund_policy.md),
found by their file names' words, without a model call."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import PurePath

from ragcli.documents.model import StoredDocument
from ragcli.documents.reading import document_of
from ragcli.store.manifest import FileRecord
from ragcli.terms import terms

# A file name's words: "refund_policy.md" → refund, policy; "TermsOfService" → terms, of, service.
MIN_NAME_WORD = 8  # a one-word file name this long or longer names its file alone
_NAME_WORD = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")


@dataclass
class Library:
    """`load_records()`: the collection's files, read on first use (most questions never
    need them); `read_chunks(paths)`: their stored chunks."""

    load_records: Callable[[], list[FileRecord]]
    read_chunks: Callable[[list[str]], list[tuple[str, dict]]]
    _records: list[FileRecord] | None = None

    @property
    def records(self) -> list[FileRecord]:
        if self._records is None:
            self._records = self.load_records()
        return self._records

    def read(self, records: list[FileRecord]) -> list[StoredDocument]:
        """Each file's whole document, in the order given."""
        chunks = self.read_chunks([r.path for r in records])
        by_path: dict[str, list[tuple[str, dict]]] = {}
        for text, meta in chunks:
            by_path.setdefault(str(meta.get("source_file")), []).append((text, meta))
        return [document_of(r, by_path.get(r.path, [])) for r in records]

    def by_paths(self, paths: list[str]) -> list[FileRecord]:
        known = {record.path: record for record in self.records}
        return [known[path] for path in paths if path in known]

    def named_in(self, question: str) -> list[FileRecord]:
        """The files whose every name word the question holds (stemmed, stopwords
        aside): "the refund policy" names refund_policy.md, "the terms of service"
        terms-of-service.md. A one-word name names a file only when the word is long enough
        not to be any question's ("installation" does, "faq" or "notes" do not)."""
        asked = set(terms(question))
        found = []
        for record in self.records:
            for name in self._names(record):
                words = _NAME_WORD.findall(name)
                wanted = set(terms(" ".join(words)))
                long_enough = len(wanted) >= 2 or any(len(w) >= MIN_NAME_WORD for w in words)
                if wanted and long_enough and wanted <= asked:
                    found.append(record)
                    break
        return found

    def _names(self, record: FileRecord) -> list[str]:
        return [PurePath(record.path.split("://")[-1]).stem]
