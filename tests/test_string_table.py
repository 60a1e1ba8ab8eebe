from pathlib import Path

import pytest

from ragcli.bm25.string_table import StringColumn, StringLookup

# Ids and terms as they come: accents, CJK, emoji, a prefix of another, the empty string.
STRINGS = ["zeta", "Ärger", "数据", "🚀 launch", "ab", "a", "", "abc", "docs/a.md#3"]


def test_a_column_gives_back_each_string_in_the_order_written(tmp_path: Path) -> None:
    StringColumn.write(tmp_path, "ids", STRINGS)
    column = StringColumn(tmp_path, "ids")
    assert len(column) == len(STRINGS)
    assert list(column) == STRINGS
    assert [column[i] for i in range(len(STRINGS))] == STRINGS
    assert column[-1] == "docs/a.md#3" and column[1:3] == ["Ärger", "数据"]
    with pytest.raises(IndexError):
        column[len(STRINGS)]


def test_a_lookup_finds_every_string_and_nothing_else(tmp_path: Path) -> None:
    StringLookup.write(tmp_path, "rows", STRINGS)
    lookup = StringLookup(tmp_path, "rows")
    assert {s: lookup.get(s) for s in STRINGS} == {s: row for row, s in enumerate(STRINGS)}
    assert list(lookup.column) == STRINGS
    for missing in ["b", "abcd", "Ä", "zz", "数", " "]:
        assert lookup.get(missing) is None and missing not in lookup
    with pytest.raises(KeyError):
        lookup["b"]


def test_empty_tables(tmp_path: Path) -> None:
    StringColumn.write(tmp_path, "ids", [])
    StringLookup.write(tmp_path, "terms", [], [])
    StringLookup.write(tmp_path, "rows", [])
    assert StringLookup(tmp_path, "rows").get("") is None
    assert list(StringColumn(tmp_path, "ids")) == []
    assert StringLookup(tmp_path, "terms").get("cat") is None


def test_a_lookup_gives_the_value_written_with_a_string(tmp_path: Path) -> None:
    StringLookup.write(tmp_path, "terms", STRINGS, [7 * i for i in range(len(STRINGS))])
    terms = StringLookup(tmp_path, "terms")
    assert [terms[s] for s in STRINGS] == [7 * i for i in range(len(STRINGS))]


def test_a_lookup_of_many_strings_finds_each(tmp_path: Path) -> None:
    """Thousands of keys share buckets: every one is still found, at its own position."""
    keys = [f"doc-{i}.md#{i % 7}" for i in range(20_000)]
    StringLookup.write(tmp_path, "ids", keys)
    lookup = StringLookup(tmp_path, "ids")
    assert all(lookup.get(key) == i for i, key in enumerate(keys))
    assert lookup.get("doc-20000.md#1") is None
