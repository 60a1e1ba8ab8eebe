"""The one train/test split of the question sets (ragcli/evaluation/split.py,
scripts/data/split.yaml): fixed by a seeded rule, so no result can move a question."""

from __future__ import annotations

from collections import Counter

import pytest

from ragcli.evaluation.doc_sets import SETS, fetch_command
from ragcli.evaluation.howto import load_howtos
from ragcli.evaluation.split import load_split


def test_every_registered_site_is_split_and_the_fork_is_left_out():
    split = load_split()
    assert set(SETS) == set(split.documentation)
    assert "niquests" in split.excluded
    with pytest.raises(ValueError, match="excluded"):
        split.part("niquests", "How do I send JSON in the body of a POST request?")
    with pytest.raises(ValueError, match="not in"):
        split.part("an-unknown-site", "How?")


def test_a_debian_documentation_package_is_fetched_by_apt_and_read_as_its_html_pages(tmp_path):
    werkzeug = SETS["werkzeug"]
    registry, _, requirement = werkzeug.package.partition(":")
    assert fetch_command(registry, requirement, tmp_path) == ["apt-get", "download", requirement]
    # Sphinx's index and search pages, its copied sources and static files are left out,
    # and so is any page that is not HTML
    pages = ["index.html", "deployment/nginx.html", "genindex.html", "search.html"]
    pages += ["_sources/index.rst.txt", "_static/basic.css", "_static/a.html", "notes.rst"]
    for page in pages:
        (tmp_path / page).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / page).write_text("<p>x</p>")
    read = [p.relative_to(tmp_path).as_posix() for p in werkzeug.files(tmp_path)]
    assert read == ["deployment/nginx.html", "index.html"]


def test_a_set_with_only_patterns_reads_those_pages_alone(tmp_path):
    # the standard library's reference holds ~300 pages: its set names the ones it reads
    pylib = SETS["pylib"]
    for page in ["datetime.html", "struct.html", "curses.html", "_static/datetime.html"]:
        (tmp_path / page).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / page).write_text("<p>x</p>")
    read = [p.relative_to(tmp_path).as_posix() for p in pylib.files(tmp_path)]
    assert read == ["datetime.html", "struct.html"]


def test_a_third_of_the_questions_are_test_and_a_question_keeps_its_part():
    split = load_split()
    questions = [(name, q.question) for name, s in SETS.items() for q in load_howtos(s.questions)]
    parts = Counter(split.part(name, q) for name, q in questions)
    assert 0.25 < parts["test"] / len(questions) < 0.42
    # the rule reads the set and the question, nothing else: whitespace aside, stable
    name, question = questions[0]
    assert split.part(name, question) == split.part(name, f"  {question} ")


def test_a_sites_train_questions_share_one_fold_and_every_fold_holds_sites():
    split = load_split()
    folds = {
        name: {split.fold(name, q.question) for q in load_howtos(s.questions)}
        for name, s in SETS.items()
    }
    assert all(len(f) == 1 for f in folds.values())
    assert {f for found in folds.values() for f in found} == set(range(split.folds))
    rhine = {split.fold("squad-rhine", f"question {n}") for n in range(50)}
    assert rhine == set(range(split.folds))
