"""The JSON of `ask --json` and of stored traces: one schema, generated from the typed
results, published in docs/, and held by real runs of every mode and by traces that
earlier versions of ragcli stored."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from typer.testing import CliRunner

from ragcli import service
from ragcli.cli import app
from ragcli.pipeline.modes.registry import AUTO, MODE_NAMES
from ragcli.pipeline.results import AskResult, json_schema
from ragcli.trace.recorder import Trace
from tests.support.common import settings_for
from tests.support.crag import HITS, QUESTION, grades, settings_with
from tests.support.stubs import OpenAIStub, TavilyStub

ROOT = Path(__file__).resolve().parent.parent
PUBLISHED = ROOT / "docs" / "ask-result.schema.json"
OLD_TRACES = sorted((Path(__file__).parent / "data" / "old_traces").glob("*.json"))


@pytest.fixture(scope="module")
def validator() -> jsonschema.Draft202012Validator:
    schema = json.loads(PUBLISHED.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def test_the_published_schema_is_the_one_the_models_generate():
    shown = CliRunner().invoke(app, ["schema"])
    assert shown.exit_code == 0, shown.output
    assert json.loads(shown.output) == json_schema()
    assert json.loads(PUBLISHED.read_text(encoding="utf-8")) == json_schema(), (
        "docs/ask-result.schema.json is stale: ragcli schema > docs/ask-result.schema.json"
    )


@pytest.mark.parametrize("mode", [*MODE_NAMES, AUTO])
def test_ask_json_of_every_mode_matches_the_schema(sample_store, validator, mode):
    run = CliRunner().invoke(
        app,
        ["ask", "How do I get a refund?", "--mode", mode, "--json", "--store", str(sample_store)],
    )
    assert run.exit_code in (0, 3, 4, 5), run.output
    data = json.loads(run.output)
    validator.validate(data)
    assert data["mode"] == mode
    # The model reads back what it wrote, field for field.
    data.pop("estimated_cost_usd", None)
    assert AskResult.model_validate(data).to_json_dict() == data


@pytest.mark.slow
def test_web_results_rewrites_and_re_retrievals_match_the_schema(sample_store, validator):
    with OpenAIStub() as llm, TavilyStub(HITS) as web:
        llm.enqueue(grades(0.5, 0.3, 0.1, 0.1, 0.1))
        llm.default = lambda body: (
            grades(0.9, 0.1, 0.9) if '"grades"' in body["messages"][-1]["content"] else "A [1]."
        )
        settings = settings_with(sample_store, llm, web)
        crag = service.ask(settings, QUESTION, mode="crag")
        both = service.ask(settings, QUESTION, mode="both")
    assert crag.crag_details is not None and crag.crag_details.web_results
    validator.validate(crag.to_json_dict())
    validator.validate(both.to_json_dict())


def test_a_misspelt_or_unknown_field_fails_the_schema(validator):
    data = json.loads((OLD_TRACES[0]).read_text(encoding="utf-8"))["result"]
    validator.validate(data)
    data["answer_typ"] = "answer"
    with pytest.raises(jsonschema.ValidationError, match="answer_typ"):
        validator.validate(data)


@pytest.mark.parametrize("path", OLD_TRACES, ids=lambda p: p.stem)
def test_traces_stored_by_earlier_versions_still_open(tmp_path, validator, path):
    stored = json.loads(path.read_text(encoding="utf-8"))
    validator.validate(stored["result"])
    assert AskResult.model_validate(stored["result"]).to_json_dict() == stored["result"]

    settings = settings_for(tmp_path / "store")
    service.trace_store(settings).save(Trace.from_dict(stored))
    for args in ([], ["--json"]):
        shown = CliRunner().invoke(
            app, ["trace", stored["id"][:8], *args, "--store", str(tmp_path / "store")]
        )
        assert shown.exit_code == 0, shown.output
    assert json.loads(shown.output)["result"] == stored["result"]
