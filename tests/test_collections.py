"""Collection names: the `ragcli.` prefix is the store's own, refused for a user's
collection with one line naming it; the store's own collections keep working."""

import pytest
from typer.testing import CliRunner

from ragcli.bm25 import change_log as lexical_log
from ragcli.cli import app
from ragcli.errors import ConfigError
from ragcli.store import ownership
from ragcli.store.collections import check_collection_name


@pytest.mark.parametrize(
    "name", ["ragcli.lexical-log", "ragcli.anything", "ragcli.2024", "ragcli-ingest-owners"]
)
def test_the_stores_prefix_is_refused_for_a_user_collection(name):
    with pytest.raises(ConfigError) as refused:
        check_collection_name(name)
    message = str(refused.value)
    assert message.startswith(f"collection {name!r}: ") and "reserved" in message
    assert "\n" not in message


@pytest.mark.parametrize("name", ["docs", "ragcli", "ragcli-docs", "my.ragcli.notes", "2024"])
def test_other_names_pass(name):
    assert check_collection_name(name) == name


def test_ingest_into_the_change_log_is_one_line_not_a_traceback(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# A\nSome text.\n")
    result = CliRunner().invoke(
        app,
        ["ingest", str(docs), "--collection", lexical_log.LOG_COLLECTION],
        env={"RAGCLI_STORE": str(tmp_path / "store")},
    )
    assert result.exit_code == 2
    assert result.output.startswith("error: collection 'ragcli.lexical-log': ")
    assert result.output.count("\n") == 1 and "Traceback" not in result.output
    assert not (tmp_path / "store" / "chroma").exists()  # refused before the store opened


def test_the_store_keeps_writing_its_own_collection_and_lists_only_the_users(tmp_path):
    from ragcli.store.vectors import VectorStore

    store = VectorStore(tmp_path / "store")
    store.collection("docs", create=True)
    written = lexical_log.append(store, "docs", {"chunk-1"}, set())
    assert lexical_log.record_ids(store, "docs") == written
    assert [c.added for c in lexical_log.read(store, written)] == [["chunk-1"]]
    store.client.get_or_create_collection(ownership.OWNERS_COLLECTION, embedding_function=None)
    assert store.collection_names() == ["docs"]  # not the log, not the owners
