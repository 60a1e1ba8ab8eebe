"""The README stays a front page: short, the newcomer commands first, every command family's
page one click away, and no link into docs/ that leads nowhere (mkdocs build --strict
checks the site's own links; the README is not part of the site)."""

from __future__ import annotations

import re
from pathlib import Path

from markdown.extensions.toc import slugify

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()
LINK = re.compile(r"\]\(([^)\s]+)\)")
COMMAND_PAGES = [
    "ingest",
    "ask",
    "chat",
    "search",
    "serve",
    "trace",
    "eval",
    "configuration",
    "sharing",
]


def anchors(page: Path) -> set[str]:
    text = re.sub(r"```.*?```", "", page.read_text(), flags=re.S)  # no headings in code
    return {
        slugify(re.sub(r"[`*]", "", m.group(1)).strip(), "-")
        for m in re.finditer(r"^#+ (.+)$", text, re.M)
    }


def test_short_with_the_newcomer_commands_on_the_first_screen() -> None:
    lines = README.splitlines()
    assert len(lines) <= 150, f"README.md has {len(lines)} lines; the rest belongs in docs/"
    first_screen = "\n".join(lines[:12])
    assert "./scripts/demo.sh" in first_screen
    assert "./scripts/test.sh" in first_screen  # CI runs the test command the README gives


def test_every_command_family_page_is_linked() -> None:
    targets = {link.split("#")[0] for link in LINK.findall(README)}
    missing = [p for p in COMMAND_PAGES if f"docs/{p}.md" not in targets]
    assert not missing, f"README.md links no page for: {missing}"


def test_relative_links_and_anchors_resolve() -> None:
    broken = []
    for link in LINK.findall(README):
        if re.match(r"[a-z]+://", link):
            continue
        path, _, anchor = link.partition("#")
        target = ROOT / path
        if not target.exists():
            broken.append(link)
        elif anchor and anchor not in anchors(target):
            broken.append(link)
    assert not broken, f"README.md links lead nowhere: {broken}"
