"""Many strings on disk, opened without parsing them: the BM25 index's row ids and terms.

A JSON list of a million ids, or bm25s's JSON vocabulary of two million terms, takes a cold
process a second or more to parse into Python objects before its first query. Here the
strings are one UTF-8 blob plus an offsets array, memory-mapped on open, with a hash table
beside them; a lookup decodes only what it touches.

    StringColumn   position -> string, in the order written (the matrix rows' ids)
    StringLookup   string -> its position, or the value written with it (a term's token id)

Files for a name ``ids`` in a directory: ``ids.utf8`` (the blob), ``ids.offsets.npy``
(int64, one more than the strings); for a lookup ``ids.hash.npy`` (positions grouped by
bucket), ``ids.buckets.npy`` (each bucket's start in it) and, with values, ``ids.values.npy``.
"""

from __future__ import annotations

import mmap
import zlib
from collections.abc import Iterable, Iterator, Sequence
from itertools import pairwise
from pathlib import Path
from typing import overload

import numpy as np

_BLOB, _OFFSETS = ".utf8", ".offsets.npy"
_HASH, _BUCKETS, _VALUES = ".hash.npy", ".buckets.npy", ".values.npy"


class StringColumn(Sequence[str]):
    """Strings addressed by position, memory-mapped."""

    def __init__(self, directory: Path, name: str) -> None:
        self._offsets = np.load(directory / (name + _OFFSETS), mmap_mode="r")
        blob = directory / (name + _BLOB)
        self._blob: bytes | mmap.mmap = b""
        if blob.stat().st_size:  # mmap refuses an empty file
            with open(blob, "rb") as f:
                self._blob = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)

    @staticmethod
    def write(directory: Path, name: str, strings: Iterable[str]) -> list[bytes]:
        """Save the strings; returns them encoded, for an index built over them."""
        encoded = [s.encode("utf-8") for s in strings]
        offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
        np.cumsum([len(b) for b in encoded], out=offsets[1:])
        (directory / (name + _BLOB)).write_bytes(b"".join(encoded))
        np.save(directory / (name + _OFFSETS), offsets)
        return encoded

    def __len__(self) -> int:
        return len(self._offsets) - 1

    @overload
    def __getitem__(self, position: int) -> str: ...
    @overload
    def __getitem__(self, position: slice) -> list[str]: ...
    def __getitem__(self, position: int | slice) -> str | list[str]:
        if isinstance(position, slice):
            return [self[i] for i in range(*position.indices(len(self)))]
        return self.raw(position).decode("utf-8")

    def __iter__(self) -> Iterator[str]:
        blob = self._blob
        for start, end in pairwise(self._offsets.tolist()):
            yield blob[start:end].decode("utf-8")

    def raw(self, position: int) -> bytes:
        if position < 0:
            position += len(self)
        if not 0 <= position < len(self):
            raise IndexError(position)
        return self._blob[int(self._offsets[position]) : int(self._offsets[position + 1])]


class StringLookup:
    """string -> int through a hash table on disk: the string's position in its column, or
    the value written with it. Written in O(n); sorting two million terms took seconds."""

    def __init__(self, directory: Path, name: str) -> None:
        self.column = StringColumn(directory, name)
        self._by_bucket = np.load(directory / (name + _HASH), mmap_mode="r")
        self._starts = np.load(directory / (name + _BUCKETS), mmap_mode="r")
        values = directory / (name + _VALUES)
        self._values = np.load(values, mmap_mode="r") if values.exists() else None

    @staticmethod
    def write(
        directory: Path, name: str, keys: Sequence[str], values: Sequence[int] | None = None
    ) -> None:
        """Distinct `keys`, each mapped to its position, or to `values[i]` when given."""
        encoded = StringColumn.write(directory, name, keys)
        buckets = np.fromiter(map(zlib.crc32, encoded), dtype=np.int64, count=len(encoded))
        count = max(len(encoded), 1)  # as many buckets as keys: about one key in each
        buckets %= count
        by_bucket = np.argsort(buckets, kind="stable")
        starts = np.searchsorted(buckets[by_bucket], np.arange(count + 1))
        np.save(directory / (name + _HASH), by_bucket.astype(np.int64))
        np.save(directory / (name + _BUCKETS), starts.astype(np.int64))
        if values is not None:
            np.save(directory / (name + _VALUES), np.asarray(values, dtype=np.int64))

    def __len__(self) -> int:
        return len(self.column)

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and self.get(key) is not None

    def get(self, key: str, default: int | None = None) -> int | None:
        wanted = key.encode("utf-8")
        # crc32, not hash(): the table outlives the process, and str hashes are salted.
        bucket = zlib.crc32(wanted) % (len(self._starts) - 1)
        for slot in range(int(self._starts[bucket]), int(self._starts[bucket + 1])):
            position = int(self._by_bucket[slot])
            if self.column.raw(position) == wanted:
                return position if self._values is None else int(self._values[position])
        return default

    def __getitem__(self, key: str) -> int:
        found = self.get(key)
        if found is None:
            raise KeyError(key)
        return found
