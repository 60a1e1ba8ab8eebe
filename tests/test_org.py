"""Org files read from real files of public projects (tests/data/formats/, whose README
says where each comes from): headlines as sections under their paths, cited by their lines,
their state, tags and properties as metadata."""

from __future__ import annotations

from ragcli.blocks.model import CodeBlock, ListItem, Table
from ragcli.ingest.loaders import load
from tests.support.common import ROOT

DATA = ROOT / "tests" / "data" / "formats"


def test_org_headlines_are_sections_with_paths_code_and_links_as_text():
    loaded = load(DATA / "org" / "main_readme.org")
    by_heading = {s.heading: s for s in loaded.sections}
    install = by_heading["Khoj > Install"]
    code = [b for b in install.blocks or () if isinstance(b, CodeBlock)]
    assert code and code[0].language == "shell"
    assert "conda env create -f environment.yml" in code[0].text
    assert install.locator == "lines 10–15"
    dependencies = by_heading["Khoj > Dependencies"]
    items = [b.text for b in dependencies.blocks or () if isinstance(b, ListItem)]
    assert items == ["Python3", "Miniconda"]  # a link reads as its description
    use = by_heading["Khoj > Use"].text
    assert "Run `M-x khoj <user-query>` or Call `C-c C-s`" in use  # ~code~ is code
    assert "[[" not in use and "*Khoj via API*" not in use


def test_org_todo_state_priority_properties_and_planning_are_metadata():
    sections = load(DATA / "org" / "01_attributes.org").sections
    done = sections[0]
    assert done.heading == "A node with a lot of attributes"
    assert done.metadata["todo"] == "DONE" and done.metadata["priority"] == "A"
    assert done.metadata["effort"] == "1:10"  # :Effort: from the property drawer
    assert done.metadata["deadline"].startswith("2010-08-10")
    # The text says it too, as the agenda would; drawers and CLOCK lines are not text.
    assert done.text.splitlines()[2] == (
        "DONE, priority A. Scheduled: 2010-08-06. Deadline: 2010-08-10. Closed: 2010-08-08 18:00."
    )
    assert ":PROPERTIES:" not in done.text and "CLOCK" not in done.text


def test_org_tags_and_tables():
    tagged = load(DATA / "org" / "05_tags.org").sections
    assert tagged[2].metadata["tags"] == ["tag1", "tag2"]
    assert tagged[-1].metadata["tags"] == ["háček", "tag", "ёж"]
    assert tagged[-2].heading == "Heading: :with:colon:"
    table_file = load(DATA / "org" / "table.org")
    assert table_file.metadata["title"] == "example file with tables"
    section = table_file.sections[1]
    assert section.heading == "example file with tables > simple formula"
    table = next(b for b in section.blocks or () if isinstance(b, Table))
    assert table.rows == (("10",),)  # rows above the rule are Org's header rows
    assert section.metadata["id"] == "563523f7-3f3e-49c9-9622-9216cc9a5d95"
