"""A document's metadata (a Word or PDF file's properties, front matter): read, stored with
every chunk, listed by `status`, and filtered on with `--meta` by search, ask, chat and the
MCP tools, inside both retrievers, as `--path` is."""

import json
import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ragcli import service
from ragcli.cli import app
from ragcli.errors import ConfigError
from ragcli.ingest.loaders import load
from ragcli.metadata import chroma_fields, clean, key_forms, match_forms, union
from ragcli.retrieval.filters import make_filters, resolve
from ragcli.retrieval.metadata_filter import MetaFilter, parse_condition
from ragcli.store.manifest import FileRecord, Manifest
from tests.support.common import SAMPLE, settings_for

runner = CliRunner()
ADMIN_PDF = SAMPLE / "docs" / "admin_guide.pdf"


def word_file(path: Path, title: str, text: str, **properties) -> Path:
    import docx

    document = docx.Document()
    document.add_paragraph(text)
    core = document.core_properties
    core.title = title
    for name, value in properties.items():
        setattr(core, name, value)
    document.save(str(path))
    return path


def pdf_file(path: Path, **info: str) -> Path:
    """The sample corpus's administrator guide (a real text layer) under other properties."""
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter(clone_from=PdfReader(ADMIN_PDF))
    writer.metadata = None
    writer.add_metadata({f"/{key.title()}": value for key, value in info.items()})
    with path.open("wb") as handle:
        writer.write(handle)
    return path


# -- what is read and how it is kept ----------------------------------------------------


def test_metadata_is_cleaned_and_stored_as_forms_a_filter_matches():
    read = clean(
        {"Tags": ["Security", "auth", "auth", ""], "Last-Modified": " 2024-05-01 ", "x": []}
    )
    assert read == {"tags": ["Security", "auth"], "last_modified": "2024-05-01"}
    assert match_forms("2024-05-01T10:00:00Z") == [
        "2024-05-01t10:00:00z",
        "2024",
        "2024-05",
        "2024-05-01",
    ]
    assert match_forms("  Jane   Doe ") == ["jane doe"]
    fields = chroma_fields(read)
    assert fields["doc.tags"] == ["security", "auth"]
    assert fields["doc_day.last_modified"] == 20240501
    assert json.loads(fields["doc_metadata"]) == read
    assert union([{"tags": "a"}, {"tags": ["b", "a"], "author": "x"}]) == {
        "tags": ["a", "b"],
        "author": "x",
    }


def test_word_properties_are_metadata_and_a_missing_title_becomes_text(tmp_path):
    path = word_file(
        tmp_path / "policy.docx",
        "Token Rotation Policy",
        "Rotate every signing key each quarter.",
        author="Jane Doe",
        keywords="security; auth, tokens",
        subject="Key management",
        category="Policy",
    )
    loaded = load(path)
    meta = loaded.sections[0].metadata
    assert meta["title"] == "Token Rotation Policy" and meta["author"] == "Jane Doe"
    assert meta["keywords"] == ["security", "auth", "tokens"]
    assert meta["subject"] == "Key management" and meta["category"] == "Policy"
    assert meta["created"].startswith("20")  # python-docx's template dates it
    assert loaded.sections[0].text.startswith("Token Rotation Policy\n\n")

    said = word_file(tmp_path / "said.docx", "Rotation", "Rotation is quarterly.")
    assert load(said).sections[0].text == "Rotation is quarterly."  # not said twice


def test_pdf_properties_are_metadata_and_a_placeholder_title_is_not_text(tmp_path):
    path = pdf_file(
        tmp_path / "guide.pdf",
        title="Microsoft Word - guide.docx",
        author="Bob Stone",
        keywords="network, storage",
        subject="Operations",
    )
    loaded = load(path)
    meta = loaded.metadata
    assert meta["author"] == "Bob Stone" and meta["keywords"] == ["network", "storage"]
    assert meta["title"] == "Microsoft Word - guide.docx" and meta["subject"] == "Operations"
    assert not loaded.sections[0].text.startswith("Microsoft Word")
    titled = load(pdf_file(tmp_path / "titled.pdf", title="Harbour Operations Handbook"))
    assert titled.sections[0].text.startswith("Harbour Operations Handbook\n\n")
    assert load(ADMIN_PDF).metadata["title"] == "Driftwood Administrator Guide"
    assert not load(ADMIN_PDF).sections[0].text.startswith("Driftwood Administrator Guide\n\n")


# -- the filter itself --------------------------------------------------------------------


def test_conditions_read_as_typed_and_a_bad_one_names_itself():
    assert str(parse_condition(" Tag = Security ")) == "tag=Security"
    assert str(parse_condition("author='Jane Doe'")) == "author=Jane Doe"
    assert str(parse_condition("date>=2024-05")) == "date>=2024-05"
    for bad in ("tag", "=x", "tag=", "date>=soon"):
        with pytest.raises(ConfigError, match="--meta"):
            parse_condition(bad)
    assert key_forms("tag") >= {"tag", "tags"} and "category" in key_forms("categories")


def test_the_same_key_widens_another_key_narrows_a_range_narrows():
    held = {"tags", "author", "date"}
    docs = {
        "a": {"tags": ["security", "auth"], "author": "Jane", "date": "2024-03-02"},
        "b": {"tags": "network", "author": "Bob", "date": "2025-01-10"},
        "c": {"author": "Jane"},
    }

    def admitted(*typed: str) -> list[str]:
        meta = MetaFilter([parse_condition(t) for t in typed], held)
        return [name for name, data in docs.items() if meta.admits(data)]

    assert admitted("tag=SECURITY") == ["a"]  # singular, any case
    assert admitted("tag=security", "tag=network") == ["a", "b"]
    assert admitted("tag=security", "author=bob") == []
    assert admitted("author=jane") == ["a", "c"]
    assert admitted("date=2024") == admitted("date=2024-03") == ["a"]
    assert admitted("date>=2024", "date<2025") == ["a"]
    assert admitted("date>2024") == admitted("date>=2025-01-10") == ["b"]
    assert admitted("date<=2024-03") == ["a"] and admitted("date<2024-03") == []
    meta = MetaFilter([parse_condition("tag=a"), parse_condition("tag=b")], held)
    assert meta.where() == {
        "$or": [{"doc.tags": {"$contains": "a"}}, {"doc.tags": {"$contains": "b"}}]
    }


def test_a_scope_asks_chroma_for_the_metadata_and_the_files_for_the_rest():
    files = [
        FileRecord("docs", "/d/a.md", "0" * 64, 1, 1, "md", 1, None, "x", metadata={"tags": "x"}),
        FileRecord("docs", "/d/b.pdf", "0" * 64, 1, 1, "pdf", 1, None, "x", metadata={"tags": "y"}),
        FileRecord("docs", "/d/c.md", "0" * 64, 1, 1, "md", 1, None, "x"),
    ]
    scope = resolve(make_filters(meta=["tag=x"]), "docs", files)
    assert scope.files == ["/d/a.md"]
    assert scope.where() == {"doc.tags": {"$contains": "x"}}
    both = resolve(make_filters(types=["md"], meta=["tag=x"]), "docs", files)
    assert both.where() == {
        "$and": [{"source_file": {"$in": ["/d/a.md", "/d/c.md"]}}, {"doc.tags": {"$contains": "x"}}]
    }
    assert make_filters(meta=["tag=x"]).describe() == "--meta 'tag=x'"
    nothing = resolve(make_filters(meta=["author=jane"]), "docs", files)
    assert nothing.empty
    assert "no file in collection 'docs' has metadata 'author'" in nothing.nothing_matched()
    assert "(keys there, with the files holding each: tags (2);" in nothing.nothing_matched()


# -- through an ingest, the CLI and the MCP server ------------------------------------------


@pytest.fixture(scope="module")
def meta_store(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("meta")
    docs = root / "docs"
    docs.mkdir()
    word_file(
        docs / "rotation.docx",
        "Token Rotation Policy",
        "Signing keys are rotated every quarter and revoked keys are published at once.",
        author="Jane Doe",
        keywords="security; auth",
    )
    pdf_file(
        docs / "guide.pdf",
        title="Driftwood Administrator Guide",
        author="Bob Stone",
        keywords="storage; backups",
    )
    (docs / "keys.md").write_text(
        "# Keys\n\nSigning keys are rotated by the operations team every month.\n"
    )
    store = root / "store"
    result = runner.invoke(app, ["ingest", str(docs), "--store", str(store), "--json"])
    assert result.exit_code == 0, result.output
    return store


def _names(hits: list[dict]) -> set[str]:
    return {Path(h["file"]).name for h in hits}


@pytest.mark.parametrize("retriever", ["dense", "bm25", "hybrid"])
def test_search_returns_only_matching_documents_in_every_retriever(meta_store, retriever):
    base = ["search", "how often are signing keys rotated", "--store", str(meta_store)]
    base += ["--retriever", retriever, "--json", "-k", "10"]
    everything = json.loads(runner.invoke(app, base).output)
    assert {"rotation.docx", "keys.md"} <= _names(everything["results"])
    result = runner.invoke(app, [*base, "--meta", "keyword=SECURITY"])
    assert result.exit_code == 0, result.output
    found = json.loads(result.output)
    assert _names(found["results"]) == {"rotation.docx"}
    assert found["filters"]["meta"] == ["keyword=SECURITY"]
    hit = found["results"][0]
    assert hit["doc_metadata"]["author"] == "Jane Doe"
    either = runner.invoke(
        app, [*base, "--meta", "keywords=security", "--meta", "keywords=backups"]
    )
    assert _names(json.loads(either.output)["results"]) == {"rotation.docx", "guide.pdf"}


def test_bm25_sees_exactly_the_chunk_ids_the_metadata_admits(meta_store):
    settings = settings_for(meta_store)
    store = service.vector_store(settings)
    wanted = set(store.ids_where("docs", {"doc.author": {"$contains": "bob stone"}}))
    assert wanted
    search = service.retriever(
        settings, store, service.embedder(settings), "docs", make_filters(meta=["author=Bob Stone"])
    )
    scope = search.scope()
    assert scope is not None and search._allowed_ids("docs", scope.where()) == wanted


def test_a_metadata_filter_matching_nothing_exits_5_saying_what_there_is(meta_store):
    for command in ("search", "ask"):
        for wanted in (["keyword=security", "author=bob stone"], ["tag=security"]):
            args = [command, "signing keys", "--store", str(meta_store)]
            args += [part for w in wanted for part in ("--meta", w)]
            result = runner.invoke(app, args)
            assert result.exit_code == 5, (command, wanted, result.output)
            assert "Traceback" not in result.output
    said = runner.invoke(app, ["search", "keys", "--meta", "tag=x", "--store", str(meta_store)])
    assert "has metadata 'tag'" in said.output and "keywords (2)" in said.output
    bad = runner.invoke(app, ["search", "keys", "--meta", "tag", "--store", str(meta_store)])
    assert bad.exit_code == 2 and "--meta 'tag': give KEY=VALUE" in bad.output


def test_ask_answers_from_the_matching_documents_and_says_its_filter(meta_store):
    result = runner.invoke(
        app,
        ["ask", "How often are signing keys rotated?", "--meta", "author=jane doe", "--json"]
        + ["--store", str(meta_store)],
    )
    assert result.exit_code in (0, 3), result.output
    data = json.loads(result.output)
    assert {Path(s["metadata"]["source_file"]).name for s in data["sources"]} == {"rotation.docx"}
    assert data["filters"]["meta"] == ["author=jane doe"]
    assert "quarter" in data["answer"]


def test_status_and_sources_list_the_metadata(meta_store):
    status = json.loads(runner.invoke(app, ["status", "--json", "--store", str(meta_store)]).output)
    [docs] = status["collections"]
    keys = {item["key"]: item for item in docs["metadata"]}
    assert keys["author"]["files"] == 2 and keys["keywords"]["files"] == 2
    assert set(keys["author"]["examples"]) == {"Jane Doe", "Bob Stone"}
    shown = runner.invoke(app, ["status", "--store", str(meta_store)], env={"COLUMNS": "80"})
    assert "keywords" in shown.output and "Jane Doe" in shown.output
    listed = json.loads(
        runner.invoke(app, ["sources", "--json", "--store", str(meta_store)]).output
    )
    by_name = {Path(f["path"]).name: f["metadata"] for f in listed}
    assert by_name["keys.md"] == {} and by_name["guide.pdf"]["author"] == "Bob Stone"


def test_the_mcp_search_and_ask_tools_filter_on_metadata(meta_store):
    import asyncio

    from mcp import Client

    from ragcli.serve.tools import build_server

    async def scenario():
        async with Client(build_server(settings_for(meta_store))) as client:
            tools = {tool.name: tool for tool in (await client.list_tools()).tools}
            assert "meta" in tools["search"].input_schema["properties"]
            assert "meta" in tools["ask"].input_schema["properties"]
            found = await client.call_tool(
                "search", {"query": "signing keys rotated", "meta": ["keywords=security"]}
            )
            answered = await client.call_tool(
                "ask",
                {"question": "How often are signing keys rotated?", "meta": ["author=jane doe"]},
            )
            nothing = await client.call_tool("search", {"query": "keys", "meta": ["author=nobody"]})
            listed = await client.call_tool("sources", {})
            return found, answered, nothing, listed

    found, answered, nothing, listed = asyncio.run(scenario())
    assert not found.is_error
    assert _names(found.structured_content["results"]) == {"rotation.docx"}
    sources = answered.structured_content["sources"]
    assert {Path(s["metadata"]["source_file"]).name for s in sources} == {"rotation.docx"}
    assert nothing.is_error and "--meta 'author=nobody'" in nothing.content[0].text
    files = {Path(f["path"]).name: f["metadata"] for f in listed.structured_content["files"]}
    assert files["rotation.docx"]["keywords"] == ["security", "auth"]


def test_a_manifest_from_before_metadata_gains_the_column_and_old_files_match_nothing(tmp_path):
    path = tmp_path / "manifest.sqlite"
    db = sqlite3.connect(path)
    db.execute(
        "CREATE TABLE files (collection TEXT NOT NULL, path TEXT NOT NULL, sha256 TEXT NOT "
        "NULL, size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL, file_type TEXT NOT NULL, "
        "chunk_count INTEGER NOT NULL, pages INTEGER, ingested_at TEXT NOT NULL, reading "
        "INTEGER NOT NULL DEFAULT 1, PRIMARY KEY (collection, path))"
    )
    db.execute("INSERT INTO files VALUES ('docs', '/d/a.md', 'x', 1, 1, 'md', 2, NULL, 'now', 3)")
    db.commit()
    db.close()
    manifest = Manifest(path)
    [old] = manifest.files("docs")
    assert old.metadata == {} and old.reading == 3 and old.chunk_count == 2
    old.metadata = {"tags": ["a", "b"]}
    manifest.put(old)
    assert manifest.get("docs", "/d/a.md").metadata == {"tags": ["a", "b"]}
    assert resolve(make_filters(meta=["tag=b"]), "docs", manifest.files("docs")).files == [
        "/d/a.md"
    ]
