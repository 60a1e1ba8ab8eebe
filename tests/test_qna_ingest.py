"""QnA files: every format loads, each pair is embedded by its question, malformed entries
are reported by file and entry number while the good ones load, and re-ingest is
incremental."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from ragcli import service
from ragcli.ingest.loaders import LoadError
from ragcli.ingest.qna import load_qna, qna_format
from tests.support.common import SAMPLE, settings_for

PAIRS = [
    ("How do I get a refund?", "Write to billing within 30 days."),
    ("Which port does sync use?", "TCP port 7421."),
]


def ingest(tmp_path: Path, *paths: Path, collection: str = "qna"):
    settings = settings_for(tmp_path / "store")
    ingestor = service.ingestor(settings)
    return ingestor, ingestor.run(list(paths), collection)


def stored(ingestor, collection: str = "qna") -> dict:
    coll = ingestor.store.collection(collection)
    return coll.get(include=["documents", "metadatas", "embeddings"])


def write_formats(folder: Path) -> list[Path]:
    folder.mkdir(exist_ok=True)
    records = [{"question": q, "answer": a} for q, a in PAIRS]
    yaml_file = folder / "faq.yaml"
    yaml_file.write_text(
        "".join(f'- question: "{q}"\n  answer: "{a}"\n' for q, a in PAIRS), encoding="utf-8"
    )
    json_file = folder / "faq.json"
    json_file.write_text(json.dumps({"questions": records}), encoding="utf-8")
    csv_file = folder / "faq.csv"
    csv_file.write_text(
        "question,answer\n" + "".join(f'"{q}","{a}"\n' for q, a in PAIRS), encoding="utf-8"
    )
    md_file = folder / "faq.md"
    md_file.write_text(
        "# Billing\n\n" + "".join(f"Q: {q}\nA: {a}\n\n" for q, a in PAIRS), encoding="utf-8"
    )
    return [yaml_file, json_file, csv_file, md_file]


@pytest.mark.parametrize("index", range(4), ids=["yaml", "json", "csv", "md"])
def test_each_format_loads_pairs_embedded_by_their_question(tmp_path, index):
    path = write_formats(tmp_path / "faq")[index]
    ingestor, report = ingest(tmp_path, path)
    assert [(f.status, f.chunks, f.reason) for f in report.files] == [("new", 2, "")]
    data = stored(ingestor)
    by_question = {
        m["question"]: (d, m, e)
        for d, m, e in zip(data["documents"], data["metadatas"], data["embeddings"], strict=True)
    }
    assert set(by_question) == {q for q, _ in PAIRS}
    for question, answer in PAIRS:
        document, meta, embedding = by_question[question]
        assert meta["answer"] == answer and meta["file_type"] == "qna"
        assert document == f"Q: {question}\nA: {answer}"
        # Embedded by the question alone, not by the stored Q/A text.
        expected = ingestor.embedder.embed([question])[0]
        assert float(np.dot(expected, np.asarray(embedding))) > 0.999


def test_the_sample_faq_loads_all_29_pairs(tmp_path):
    ingestor, report = ingest(tmp_path, SAMPLE / "faq" / "faq.yaml")
    assert report.count("failed") == 0 and report.chunks_added == 29


@pytest.mark.slow
def test_sample_ragignore_keeps_the_faq_out_of_the_documents(tmp_path):
    ingestor, report = ingest(tmp_path, SAMPLE, collection="docs")
    assert not [f for f in report.files if f.path.endswith("faq.yaml")]


def test_reingest_is_incremental_and_a_changed_file_replaces_its_pairs(tmp_path):
    path = write_formats(tmp_path / "faq")[0]
    ingestor, _ = ingest(tmp_path, path)
    again = ingestor.run([path], "qna")
    assert [f.status for f in again.files] == ["unchanged"] and again.chunks_added == 0
    path.write_text('- question: "Only one now?"\n  answer: "Yes."\n', encoding="utf-8")
    changed = ingestor.run([path], "qna")
    assert [f.status for f in changed.files] == ["changed"]
    assert changed.chunks_removed == 2
    assert [m["question"] for m in stored(ingestor)["metadatas"]] == ["Only one now?"]


MALFORMED = {
    "bad.yaml": (
        '- question: "Good one?"\n  answer: "Yes."\n'
        '- question: "No answer here?"\n'
        "- just a string\n"
        '- question: "Good two?"\n  answer: "Also yes."\n'
        '- question: ["a", "list"]\n  answer: "x"\n',
        ["entry 2: missing answer", "entry 3: not a mapping", "entry 5: question is not text"],
    ),
    "bad.json": (
        json.dumps(
            [
                {"question": "Good one?", "answer": "Yes."},
                {"answer": "orphan"},
                {"question": "Good two?", "answer": "Also yes."},
                {"question": "Good one?", "answer": "A repeat."},
            ]
        ),
        ["entry 2: missing question", "entry 4: repeats the question of entry 1"],
    ),
    "bad.csv": (
        'question,answer\n"Good one?","Yes."\n"Too many",fields,here\n"Empty answer",\n'
        '"Good two?","Also yes."\n',
        ["entry 2: 3 fields, the header has 2", "entry 3: missing answer"],
    ),
    "bad.md": (
        "# FAQ\n\nQ: Good one?\nA: Yes.\n\nQ: Unanswered?\n\nQ: Good two?\nA: Also\nyes.\n\n"
        "A: Orphan answer.\n",
        ["entry 2: missing answer", "entry 4: an answer without a Q: line before it"],
    ),
}


@pytest.mark.parametrize("name", list(MALFORMED))
def test_malformed_entries_are_reported_by_file_and_number_and_the_good_ones_load(tmp_path, name):
    text, problems = MALFORMED[name]
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    ingestor, report = ingest(tmp_path, path)
    (outcome,) = report.files
    assert outcome.status == "new" and outcome.chunks == 2
    assert outcome.path.endswith(name)
    for problem in problems:
        assert problem in outcome.reason, outcome.reason
    assert outcome.reason.startswith(f"{len(problems)} malformed entries skipped: ")
    assert sorted(m["question"] for m in stored(ingestor)["metadatas"]) == [
        "Good one?",
        "Good two?",
    ]


@pytest.mark.parametrize(
    ("name", "text", "reason"),
    [
        ("broken.yaml", "- question: [unclosed\n", "not valid YAML at line"),
        ("broken.json", '[{"question": "x",}', "not valid JSON at line 1"),
        ("noheader.csv", "q,a\nx,y\n", "CSV header lacks column(s): question, answer"),
        ("scalar.yaml", "just text\n", "expected a list of question/answer entries"),
        ("none.json", '[{"answer": "a"}]', "no valid question/answer pairs (entry 1: missing"),
    ],
)
def test_an_unusable_qna_file_fails_with_its_reason_and_others_still_load(
    tmp_path, name, text, reason
):
    folder = tmp_path / "faq"
    good = write_formats(folder)[0]
    (folder / name).write_text(text, encoding="utf-8")
    _, report = ingest(tmp_path, good, folder / name)
    outcomes = {Path(f.path).name: f for f in report.files}
    assert outcomes["faq.yaml"].status == "new"
    assert outcomes[name].status == "failed" and reason in outcomes[name].reason


def test_which_markdown_files_are_qna_files(tmp_path):
    doc = tmp_path / "guide.md"
    doc.write_text("# Guide\nIntro.\nQ: is only mentioned here.\n", encoding="utf-8")
    pairs = tmp_path / "pairs.md"
    pairs.write_text("# FAQ\n\nQ: Why?\nA: Because.\n", encoding="utf-8")
    assert qna_format(doc, "docs", "qna") is None
    assert qna_format(doc, "qna", "qna") == "md"  # into the QnA collection: read as pairs
    assert qna_format(pairs, "docs", "qna") == "md"  # starts with Q:
    assert qna_format(tmp_path / "x.yml", "docs", "qna") == "yaml"
    assert qna_format(tmp_path / "x.txt", "qna", "qna") is None
    plain = tmp_path / "plain.md"
    plain.write_text("# Plain\nJust text.\n", encoding="utf-8")
    with pytest.raises(LoadError, match="no Q:/A: pairs found"):
        load_qna(plain, "md")


def test_markdown_pairs_keep_multiline_answers_and_their_topic(tmp_path):
    path = tmp_path / "faq.md"
    path.write_text(
        "# Accounts\n\n**Q:** Can I rename my workspace?\n**A:** Yes.\nOwners can rename it\n"
        "under Settings.\n",
        encoding="utf-8",
    )
    (pair,) = load_qna(path, "md").pairs
    assert pair.question == "Can I rename my workspace?"
    assert pair.answer == "Yes.\nOwners can rename it\nunder Settings."
    assert pair.topic == "Accounts"


def test_structured_files_without_pairs_are_skipped_outside_the_qna_collection(tmp_path):
    folder = tmp_path / "site"
    good = write_formats(folder)[0]
    (folder / "package.json").write_text('{"name": "site", "version": "1.0.0"}')
    (folder / "mkdocs.yml").write_text("site_name: Docs\nnav:\n  - index.md\n")
    (folder / "prices.csv").write_text("plan,price\nTeam,6\n")
    (folder / "faq.md").unlink()  # keep only documents and structured files
    _, report = ingest(tmp_path, folder, collection="docs")
    outcomes = {Path(f.path).name: (f.status, f.reason) for f in report.files}
    assert outcomes[good.name] == ("new", "")  # real pairs still load
    assert outcomes["package.json"] == (
        "skipped",
        "not a QnA file: expected a list of question/answer entries "
        "(or a mapping with one of: questions, faq, qna, items)",
    )
    assert outcomes["mkdocs.yml"][0] == "skipped"
    # A CSV without question and answer columns is a table, read as a document.
    assert outcomes["prices.csv"] == ("new", "")
    assert report.count("failed") == 0


def test_a_qna_shaped_workbook_goes_to_the_qna_path_and_a_plain_one_stays_a_table(tmp_path):
    import openpyxl

    folder = tmp_path / "faq"
    folder.mkdir()
    book = openpyxl.Workbook()
    support = book.active
    support.title = "Support"
    support.append(["Frequently asked questions"])  # a title row above the header
    support.append(["Question", "Answer", "Owner"])
    for question, answer in PAIRS:
        support.append([question, answer, "support"])
    support.append(["What is the SLA?", None, "support"])  # malformed: no answer
    billing = book.create_sheet("Billing")
    billing.append(["question", "answer"])
    billing.append(["Do you bill yearly?", 2024])  # a number is text to a QnA pair
    book.create_sheet("Notes").append(["anything", "else"])  # no QnA header: ignored
    faq = folder / "faq.xlsx"
    book.save(faq)
    table = openpyxl.Workbook()
    table.active.append(["plan", "price"])
    table.active.append(["Team", 6])
    prices = folder / "prices.xlsx"
    table.save(prices)
    assert qna_format(faq, "docs", "qna") == "xlsx"
    assert qna_format(prices, "docs", "qna") is None

    ingestor, report = ingest(tmp_path, folder, collection="docs")
    outcomes = {Path(f.path).name: (f.status, f.chunks, f.reason) for f in report.files}
    assert outcomes["faq.xlsx"] == ("new", 3, "1 malformed entry skipped: entry 3: missing answer")
    assert outcomes["prices.xlsx"][:2] == ("new", 1)
    metadata = stored(ingestor, "docs")["metadatas"]
    pairs = {m["question"]: (m["answer"], m.get("topic")) for m in metadata if "question" in m}
    assert pairs == {
        PAIRS[0][0]: (PAIRS[0][1], "Support"),
        PAIRS[1][0]: (PAIRS[1][1], "Support"),
        "Do you bill yearly?": ("2024", "Billing"),
    }
    assert any(m["file_type"] == "xlsx" for m in metadata)  # the price table, as a document
