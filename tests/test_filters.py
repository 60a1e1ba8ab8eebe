"""--path, --type and --since: resolved against the manifest, applied inside both
retrievers (not to the top-k afterwards), said plainly when nothing matches, recorded in
the trace."""

import json
import os
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ragcli import service
from ragcli.bm25.index import LexicalIndex
from ragcli.cli import app
from ragcli.errors import ConfigError, ExitCode, NoMatchError
from ragcli.models import SearchFilters
from ragcli.retrieval.filters import make_filters, parse_since, resolve
from ragcli.store.manifest import FileRecord
from tests.support.common import settings_for

runner = CliRunner()
# The sample corpus answers this from Markdown; its one PDF (admin_guide.pdf) also
# mentions backups, lower down.
BACKUP = "how do I back up and restore the server"


def record(path: str, file_type: str = "md", modified: datetime | None = None) -> FileRecord:
    mtime = modified or datetime(2024, 1, 1, tzinfo=UTC)
    return FileRecord(
        "docs", path, "0" * 64, 1, int(mtime.timestamp() * 1e9), file_type, 1, None, "x"
    )


# -- what a filter admits --------------------------------------------------------------


def test_path_patterns_read_like_ragignore_from_the_working_directory_or_the_store(
    tmp_path, monkeypatch
):
    project = tmp_path / "project"
    files = [
        record(str(project / "docs" / "guide.md")),
        record(str(project / "docs" / "drafts" / "next.md")),
        record(str(project / "notes" / "docs" / "old.md")),
        record(str(project / "manual.pdf"), "pdf"),
    ]

    def admitted(*patterns: str, base: Path = project) -> list[str]:
        scope = resolve(make_filters(patterns), "docs", files, bases=[base])
        return [os.path.relpath(p, project) for p in scope.files]

    monkeypatch.chdir(tmp_path)  # the working directory is not the project
    assert admitted("docs/*.md") == ["docs/guide.md"]  # anchored at the store's folder
    assert admitted("docs/") == ["docs/guide.md", "docs/drafts/next.md", "notes/docs/old.md"]
    assert admitted("**/docs/*.md") == ["docs/guide.md", "notes/docs/old.md"]
    assert admitted("*.pdf") == ["manual.pdf"]
    assert admitted("docs/", "!drafts/") == ["docs/guide.md", "notes/docs/old.md"]
    assert admitted("!docs/") == ["manual.pdf"]  # exclusions alone: everything else
    assert admitted(str(project / "manual.pdf")) == ["manual.pdf"]  # absolute
    # From the working directory too: the project is one folder down from it.
    assert admitted("project/docs/*.md", base=tmp_path / "elsewhere") == ["docs/guide.md"]


def test_type_and_since_filters():
    now = datetime(2024, 6, 10, 12, 0, tzinfo=UTC)
    files = [
        record("/d/old.md", "md", now - timedelta(days=30)),
        record("/d/new.md", "md", now - timedelta(hours=2)),
        record("/d/new.pdf", "pdf", now - timedelta(hours=1)),
    ]
    assert resolve(make_filters(types=[".PDF"]), "docs", files).files == ["/d/new.pdf"]
    recent = make_filters(since="1d", now=now)
    assert resolve(recent, "docs", files).files == ["/d/new.md", "/d/new.pdf"]
    both = make_filters(types=["md"], since="2024-06-10", now=now)
    assert resolve(both, "docs", files).files == ["/d/new.md"]
    assert resolve(SearchFilters(), "docs", files).everything


def test_since_accepts_dates_times_and_ages_and_names_a_bad_value():
    now = datetime(2024, 6, 10, 12, 0, tzinfo=UTC)
    assert parse_since("36h", now) == now - timedelta(hours=36)
    assert parse_since("2w", now) == now - timedelta(weeks=2)
    assert parse_since("2024-05-01T14:30+02:00", now).utcoffset() == timedelta(hours=2)
    assert parse_since("2024-05-01", now).tzinfo is not None  # local time, made explicit
    with pytest.raises(ConfigError, match="--since 'last tuesday'"):
        parse_since("last tuesday", now)
    with pytest.raises(ConfigError, match="--type 'p d f'"):
        make_filters(types=["p d f"])
    with pytest.raises(ConfigError, match="--path ''"):
        make_filters(paths=[""])


def test_a_long_file_list_gives_chroma_the_shorter_side():
    files = [record(f"/d/{i}.md") for i in range(1200)] + [record("/d/x.pdf", "pdf")]
    scope = resolve(make_filters(["*.md"]), "docs", files)
    assert scope.where() == {"source_file": {"$nin": ["/d/x.pdf"]}}
    scope = resolve(make_filters(["*.pdf"]), "docs", files)
    assert scope.where() == {"source_file": {"$in": ["/d/x.pdf"]}}
    assert resolve(make_filters(["/d/*"]), "docs", files).where() is None  # everything


# -- inside both retrievers ---------------------------------------------------------------


def _search(store, mode, filters=None, top_k=5):
    settings = settings_for(store, **{"retrieval.mode": mode})
    return service.search(settings, BACKUP, top_k, filters=filters)


@pytest.mark.parametrize("mode", ["dense", "bm25", "hybrid"])
def test_a_filter_returns_the_best_admitted_chunks_not_a_filtered_top_k(sample_store, mode):
    unfiltered = _search(sample_store, mode)
    assert unfiltered.results and all(h.file_type != "pdf" for h in unfiltered.results)
    pdf = _search(sample_store, mode, make_filters(types=["pdf"]), top_k=3)
    assert [h.file_type for h in pdf.results] == ["pdf"] * 3
    assert all(h.file.endswith(".pdf") for h in pdf.results)
    assert pdf.filters is not None and pdf.filters.types == ["pdf"]


def test_bm25_ranks_exactly_the_admitted_chunks(sample_store):
    """The filtered BM25 top-k are the k best BM25 scores among the PDF's chunks."""
    settings = settings_for(sample_store)
    store = service.vector_store(settings)
    pdf_ids = store.ids_where("docs", {"file_type": "pdf"})
    index = LexicalIndex(sample_store / "lexical" / "docs")
    scores = index.scores_for(BACKUP, pdf_ids)
    best = sorted((s for s in scores.values() if s > 0), reverse=True)[:3]
    got = _search(sample_store, "bm25", make_filters(types=["pdf"]), top_k=3).results
    assert [round(h.bm25 or 0, 4) for h in got] == [round(s, 4) for s in best]


def test_a_filter_that_admits_nothing_is_an_error_never_everything(sample_store):
    settings = settings_for(sample_store)
    filters = make_filters(paths=["no/such/folder/"])
    with pytest.raises(NoMatchError, match="matches --path 'no/such/folder/'") as caught:
        service.search(settings, BACKUP, filters=filters)
    assert caught.value.exit_code == ExitCode.NOT_COVERED
    files = service.ingested_files(settings, "docs")
    types = ", ".join(sorted({f.file_type for f in files}))
    assert f"({len(files)} files there, of types {types};" in str(caught.value)
    with pytest.raises(NoMatchError):
        service.ask(settings, BACKUP, filters=filters)


def test_ask_restricted_by_a_filter_says_so_in_its_json_and_its_trace(sample_store):
    store = str(sample_store)
    result = runner.invoke(
        app, ["ask", BACKUP, "--type", "pdf", "--since", "2000-01-01", "--json", "--store", store]
    )
    assert result.exit_code in (0, 3), result.output
    data = json.loads(result.output)
    assert data["filters"]["types"] == ["pdf"] and data["filters"]["since"].startswith("2000")
    assert {Path(s["metadata"]["source_file"]).name for s in data["sources"]} == {"admin_guide.pdf"}
    trace = runner.invoke(app, ["trace", data["trace_id"], "--json", "--store", store])
    assert json.loads(trace.output)["filters"]["types"] == ["pdf"]
    shown = runner.invoke(app, ["trace", data["trace_id"], "--store", store])
    assert "--type pdf --since 2000-01-01" in shown.output
    # Unfiltered runs keep their JSON as it was: no filters key.
    plain = runner.invoke(app, ["ask", BACKUP, "--json", "--store", store])
    assert "filters" not in json.loads(plain.output)


def test_cli_filter_matching_nothing_exits_5_with_one_line(sample_store):
    for command in ("ask", "search", "compare"):
        result = runner.invoke(
            app, [command, BACKUP, "--type", "epub", "--store", str(sample_store)]
        )
        assert result.exit_code == 5, (command, result.output)
        assert "no ingested file in collection 'docs' matches --type epub" in result.output
        assert "Traceback" not in result.output


@pytest.mark.slow
def test_compare_applies_the_filter_to_every_mode(sample_store):
    result = runner.invoke(
        app, ["compare", BACKUP, "--type", "pdf", "--json", "--store", str(sample_store)]
    )
    rows = json.loads(result.output)
    traces = service.trace_store(settings_for(sample_store))
    for row in rows:
        assert traces.get(row["trace_id"]).filters["types"] == ["pdf"], row["mode"]
