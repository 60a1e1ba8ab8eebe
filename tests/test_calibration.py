"""Calibrated relevance: the fit recovers known parameters, the precision/recall table is
right, and `ragcli calibrate` fits, reports and saves a calibration the backend then uses."""

import json
import math

import numpy as np
import pytest
from rich.console import Console
from typer.testing import CliRunner

from ragcli import service
from ragcli.cli import app
from ragcli.errors import ConfigError
from ragcli.evaluation.labelled import load_labelled
from ragcli.llm.calibration import (
    FEATURES,
    Calibration,
    LabelledQuestion,
    band_accuracy,
    fit,
    precision_recall,
)
from tests.support.common import settings_for

runner = CliRunner()


def logit(p: float) -> float:
    return math.log(p / (1 - p))


def test_fit_recovers_known_parameters():
    rng = np.random.default_rng(7)
    true_w, true_b = np.array([2.0, -1.0, 0.5]), 0.0  # symmetric: the classes are balanced
    x = rng.normal(size=(20_000, 3))
    y = rng.random(20_000) < 1 / (1 + np.exp(-(x @ true_w + true_b)))
    questions = [
        LabelledQuestion(f"q{i}", True, [tuple(row)], [bool(label)])
        for i, (row, label) in enumerate(zip(x, y, strict=True))
    ]
    fitted = fit(questions)
    assert fitted.weights == pytest.approx(tuple(true_w), abs=0.1)
    assert fitted.bias == pytest.approx(true_b, abs=0.1)


def one_feature(*grades: float) -> list[tuple[float, float, float]]:
    """Chunks whose grade under Calibration((1, 0, 0), 0) is exactly `grades`."""
    return [(logit(g), 0.0, 0.0) for g in grades]


HAND = [
    # answerable, best chunk 0.9 is from the source
    LabelledQuestion("a", True, one_feature(0.9, 0.3), [True, False]),
    # answerable, but its best chunk (0.65) is from elsewhere
    LabelledQuestion("b", True, one_feature(0.65, 0.5), [False, True]),
    LabelledQuestion("c", False, one_feature(0.75), [False]),
    LabelledQuestion("d", False, one_feature(0.2), [False]),
]
SIGMOID = Calibration((1.0, 0.0, 0.0), 0.0)


def test_precision_recall_table_by_hand():
    table = precision_recall(HAND, SIGMOID, thresholds=(0.5, 0.7, 0.8, 0.95))
    assert [(r["accepted"], r["correct"], r["unanswerable_accepted"]) for r in table] == [
        (3, 1, 1),  # a, b, c accepted; only a is right
        (2, 1, 1),  # a, c
        (1, 1, 0),  # a
        (0, 0, 0),
    ]
    assert [r["precision"] for r in table] == pytest.approx([1 / 3, 1 / 2, 1.0, 1.0])
    assert [r["recall"] for r in table] == pytest.approx([0.5, 0.5, 0.5, 0.0])
    assert band_accuracy(HAND, SIGMOID, high=0.7, low=0.4) == {
        "answerable": 2,
        "answerable_high": 1,
        "unanswerable": 2,
        "unanswerable_low": 1,
    }


def test_bundled_calibration_is_valid_and_reloads(tmp_path):
    bundled = Calibration.bundled()
    assert len(bundled.weights) == len(FEATURES) and bundled.about
    bundled.save(tmp_path / "c.json")
    assert Calibration.load(tmp_path / "c.json").weights == pytest.approx(bundled.weights)
    (tmp_path / "bad.json").write_text('{"features": ["similarity"], "weights": [1], "bias": 0}')
    with pytest.raises(ConfigError, match="bad.json: invalid calibration"):
        Calibration.load(tmp_path / "bad.json")


def test_labelled_file_formats(tmp_path):
    listed = tmp_path / "q.yaml"
    listed.write_text("- {question: 'How?', source: docs/a.md}\n- {question: 'Why?'}\n")
    assert load_labelled(listed) == [("How?", "docs/a.md", None), ("Why?", None, None)]
    lines = tmp_path / "q.jsonl"
    lines.write_text('{"question": "How?", "source": "a.md", "expect": "42"}\n\n')
    assert load_labelled(lines) == [("How?", "a.md", "42")]
    sections = tmp_path / "s.yaml"
    sections.write_text(
        "answerable:\n  - {question: 'How?', source: a.md}\nunanswerable:\n  - question: 'Who?'\n"
    )
    assert load_labelled(sections) == [("How?", "a.md", None), ("Who?", None, None)]
    (tmp_path / "bad.yaml").write_text("- {source: a.md}\n")
    with pytest.raises(ConfigError, match="item 1 has no question"):
        load_labelled(tmp_path / "bad.yaml")


LABELLED = """
answerable:
  - question: "Which cipher is used when I password-protect a backup archive?"
    source: docs/backups_and_restore.md
    expect: "AES-256-GCM"
  - question: "Which port exposes the Prometheus metrics endpoint?"
    source: docs/admin_guide.pdf
  - question: "How much warning do existing customers get before a price increase?"
    source: policies/terms_of_service.md
unanswerable:
  - question: "Who wrote Pride and Prejudice?"
  - question: "Does Driftwood integrate with Salesforce?"
  - question: "How tall is Mount Kilimanjaro?"
"""


@pytest.mark.slow
def test_calibrate_command_fits_reports_and_saves(sample_store, tmp_path):
    labelled = tmp_path / "mine.yaml"
    labelled.write_text(LABELLED)
    store = str(sample_store)
    result = runner.invoke(app, ["calibrate", str(labelled), "--store", store, "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["questions"] == 6
    assert report["saved_to"] == str(sample_store / "calibration.json")
    table = report["precision_recall"]
    assert [row["threshold"] for row in table][0] == 0.1
    assert all(0 <= row["precision"] <= 1 and 0 <= row["recall"] <= 1 for row in table)
    assert table[0]["recall"] >= table[-1]["recall"]  # a higher bar accepts fewer
    assert report["after"]["answerable"] == 3 and report["after"]["unanswerable"] == 3

    saved = Calibration.for_store(sample_store)
    assert saved.weights == pytest.approx(tuple(report["calibration"]["weights"]), abs=1e-4)
    assert saved != Calibration.bundled()
    # The store's own fit takes precedence over the bundled one.
    assert service.calibration(settings_for(sample_store)) == saved

    console = Console(width=120, record=True)
    from ragcli.views.eval import calibration_view

    console.print(calibration_view(report))
    shown = console.export_text()
    assert "Precision and recall per threshold" in shown and "calibration.json" in shown
    assert f"answerable aggregating >= 0.7: {report['after']['answerable_high']}/3" in shown


def test_calibrate_needs_both_kinds_of_question(sample_store, tmp_path):
    labelled = tmp_path / "only.yaml"
    labelled.write_text("- {question: 'Which port?', source: docs/configuration.md}\n")
    result = runner.invoke(app, ["calibrate", str(labelled), "--store", str(sample_store)])
    assert result.exit_code == 2
    assert "needs both answerable" in result.output and "Traceback" not in result.output


def _embedder(store):
    from ragcli import service

    return service.embedder(settings_for(store))
