"""`trace --html`, `trace diff --html` and `compare --html` pages opened in Debian's
headless Chromium with the network off: they load with no request and no console error,
and the route drawn as taken is the one the trace recorded."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from selenium.webdriver.common.action_chains import ActionChains
from typer.testing import CliRunner

from ragcli import service
from ragcli.cli import app
from ragcli.trace.recorder import Trace
from tests.support import browser
from tests.support.common import settings_for

pytestmark = [
    pytest.mark.server,  # a real headless Chromium
    pytest.mark.skipif(
        not browser.available(), reason="run scripts/install_chromium.sh (scripts/test.sh does)"
    ),
]

runner = CliRunner()
TWO_PARTS = "How do I get a refund for an annual plan and how do I cancel my subscription?"
UNCOVERED = "How many vacation days do employees get?"  # the sample corpus does not say
PATH_BLUE = "rgb(11, 107, 203)"


@pytest.fixture(scope="module")
def runs(sample_store_master, tmp_path_factory):
    """Every mode on one question, auto, and crag and reflect on one the store cannot
    answer (crag's web route to not_covered, reflect's rounds running out)."""
    store = tmp_path_factory.mktemp("report") / "store"
    shutil.copytree(sample_store_master, store)
    settings = settings_for(store)
    rows = service.compare(settings, TWO_PARTS)
    ids = {row["mode"]: row["trace_id"] for row in rows}
    ids["auto"] = service.ask(settings, TWO_PARTS, mode="auto").trace_id
    ids["crag-uncovered"] = service.ask(settings, UNCOVERED, mode="crag").trace_id
    ids["reflect-rounds"] = service.ask(settings, UNCOVERED, mode="reflect").trace_id
    traces = {name: service.saved_trace(settings, rid) for name, rid in ids.items()}
    return store, traces


@pytest.fixture(scope="module")
def chromium():
    driver = browser.chromium()
    yield driver
    driver.quit()


def open_page(driver, page: Path) -> None:
    driver.get(page.as_uri())
    errors = [e for e in driver.get_log("browser") if e["level"] in ("SEVERE", "WARNING")]
    assert errors == []
    fetched = driver.execute_script(
        "return performance.getEntriesByType('resource').map(e => e.name)"
    )
    assert fetched == []  # everything is inline: nothing asked of the (switched off) network


def html_for(store: Path, tmp_path: Path, *args: str) -> Path:
    page = tmp_path / "report.html"
    done = runner.invoke(app, ["trace", *args, "--html", str(page), "--store", str(store)])
    assert done.exit_code == 0, done.output
    assert str(page) in done.output
    return page


def taken(driver, run: int = 0, flow: int = -1) -> tuple[set[str], set[tuple[str, str]]]:
    """The node ids and edges drawn as taken in one diagram of one run's column."""
    svg = driver.find_elements("css selector", ".run")[run].find_elements(
        "css selector", "svg.flow"
    )[flow]
    nodes = {n.get_attribute("data-node") for n in svg.find_elements("css selector", ".node.taken")}
    edges = {
        (e.get_attribute("data-src"), e.get_attribute("data-dst"))
        for e in svg.find_elements("css selector", ".edge.taken")
    }
    return nodes, edges


def reaches(edges: set[tuple[str, str]], start: str, end: str) -> bool:
    seen, frontier = {start}, [start]
    while frontier:
        here = frontier.pop()
        for src, dst in edges:
            if src == here and dst not in seen:
                seen.add(dst)
                frontier.append(dst)
    return end in seen


def node_text(driver, node: str, run: int = 0) -> str:
    column = driver.find_elements("css selector", ".run")[run]
    return column.find_element("css selector", f'svg .node[data-node="{node}"]').text


def steps(trace: Trace) -> list[str]:
    return [s.name for s in trace.steps]


# What each mode's recorded steps are drawn as (tos draws its two searches apart).
def expected_nodes(trace: Trace, mode: str) -> set[str]:
    names = set(steps(trace)) - {"limit", "route", "answer_sub_questions", "grade_rewrite"}
    if mode == "tos":
        names.discard("retrieve")
        collections = {s.inputs["collection"] for s in trace.steps if s.name == "retrieve"}
        names |= {"retrieve_qna"} | ({"retrieve_docs"} if "docs" in collections else set())
    if mode == "agentic":
        parts = trace.result["agentic_details"]["sub_questions"]
        names |= {f"sub_{n}" for n in range(1, len(parts) + 1)}
    return names | {"question", "answer"}


@pytest.mark.parametrize("mode", ["standard", "crag", "reflect", "both", "tos", "agentic"])
def test_each_modes_page_highlights_the_route_its_trace_took(runs, chromium, tmp_path, mode):
    store, traces = runs
    trace = traces[mode]
    open_page(chromium, html_for(store, tmp_path, trace.id))
    nodes, edges = taken(chromium)
    assert nodes == expected_nodes(trace, mode)
    assert reaches(edges, "question", "answer")  # one unbroken highlighted route
    assert {n for e in edges for n in e} <= nodes
    # The other routes are drawn too, greyed: the page shows what was not taken.
    assert chromium.find_elements("css selector", "svg .node.idle")
    colour = chromium.execute_script(
        "return getComputedStyle(document.querySelector('svg .edge.taken path')).stroke"
    )
    assert colour == PATH_BLUE
    # The answer, its citations linked to the sources listed below.
    answer = chromium.find_element("css selector", ".answer-text").text
    assert answer.split()[:4] == trace.answer.replace("**", "").split()[:4]
    for link in chromium.find_elements("css selector", ".answer-text a.cite"):
        target = link.get_attribute("href").rsplit("#", 1)[1]
        assert chromium.find_element("id", target).is_displayed()


def test_crags_decision_node_shows_its_score_against_the_threshold(runs, chromium, tmp_path):
    store, traces = runs
    trace = traces["crag-uncovered"]
    assert trace.answer_type == "not_covered"
    open_page(chromium, html_for(store, tmp_path, trace.id))
    nodes, edges = taken(chromium)
    assert {"grade", "web_search", "not_covered"} <= nodes
    assert "generate" not in nodes  # no answer was drafted: the diagram must not say so
    assert ("grade", "web_search") in edges
    grade = next(s for s in trace.steps if s.name == "grade")
    text = node_text(chromium, "grade")
    # Hovering the node lights its row in the steps table.
    node = chromium.find_element("css selector", 'svg .node[data-node="grade"]')
    ActionChains(chromium).move_to_element(node).perform()
    lit = chromium.find_elements("css selector", "table.steps tr.hot")
    assert [r.text.split()[0] for r in lit] == ["grade"]
    assert f"relevance {grade.scores['relevance']:.2f} < {grade.threshold['relevant']:.2f}" in text
    # Every retrieved chunk listed with its file and score.
    retrieved = grade.inputs["chunks"]
    chromium.execute_script("document.querySelectorAll('details').forEach(d => d.open = true)")
    rows = chromium.find_elements("css selector", "details table tr")
    assert len(rows) - 1 >= retrieved
    assert ".md" in rows[1].text


def test_reflects_rounds_are_each_scored_against_min_score(runs, chromium, tmp_path):
    store, traces = runs
    trace = traces["reflect-rounds"]
    rounds = [s for s in trace.steps if s.name == "reflect"]
    assert len(rounds) >= 2
    open_page(chromium, html_for(store, tmp_path, trace.id))
    nodes, edges = taken(chromium)
    assert {("reflect", "refine"), ("refine", "retrieve")} <= edges  # the loop was taken
    text = node_text(chromium, "reflect")
    assert f"reflect ×{len(rounds)}" in text
    for n, step in enumerate(rounds, start=1):
        score, limit = step.scores["reflection"], step.threshold["min_score"]
        assert f"round {n}: {score:.2f} {'≥' if score >= limit else '<'} {limit:.2f}" in text


def test_autos_page_names_the_rule_and_draws_the_mode_it_chose(runs, chromium, tmp_path):
    store, traces = runs
    trace = traces["auto"]
    chosen = trace.result["auto_details"]["mode"]
    open_page(chromium, html_for(store, tmp_path, trace.id))
    route_nodes, route_edges = taken(chromium, flow=0)
    assert route_nodes == {"question", "route", chosen}
    assert ("route", chosen) in route_edges
    assert (
        trace.result["auto_details"]["rule"] in chromium.find_element("css selector", ".rule").text
    )
    inner_nodes, inner_edges = taken(chromium, flow=1)
    assert reaches(inner_edges, "question", "answer")
    assert (
        chromium.find_elements("css selector", "svg.flow")[1].get_attribute("data-flow") == chosen
    )


def test_compare_and_diff_put_runs_side_by_side(runs, chromium, tmp_path):
    store, traces = runs
    page = tmp_path / "compare.html"
    done = runner.invoke(
        app, ["compare", UNCOVERED, "--html", str(page), "--store", str(store), "--json"]
    )
    assert done.exit_code == 0, done.output
    open_page(chromium, page)
    columns = chromium.find_elements("css selector", ".run[data-mode]")
    assert [c.get_attribute("data-mode") for c in columns] == [
        "standard",
        "crag",
        "reflect",
        "both",
        "tos",
        "agentic",
    ]
    # Side by side: the columns share a row.
    tops = {round(c.location["y"]) for c in columns}
    assert len(tops) == 1

    a, b = traces["crag"], traces["crag-uncovered"]
    open_page(chromium, html_for(store, tmp_path, "diff", a.id, b.id))
    assert [
        c.get_attribute("data-trace")
        for c in chromium.find_elements("css selector", ".run[data-trace]")
    ] == [a.id, b.id]
    assert "generate" in taken(chromium, run=0)[0] and "generate" not in taken(chromium, run=1)[0]


def test_a_1280_pixel_screenshot_shows_the_diagram(runs, chromium, tmp_path):
    store, traces = runs
    open_page(chromium, html_for(store, tmp_path, traces["crag"].id))
    shot = tmp_path / "report.png"
    browser.screenshot(chromium, shot, width=1280)
    width = chromium.execute_script("return document.documentElement.clientWidth")
    assert width <= 1280
    # The diagram fits the page: no sideways scrolling at 1280 px.
    scroll = chromium.execute_script("return document.documentElement.scrollWidth")
    assert scroll <= width
    assert shot.stat().st_size > 20_000


def test_bad_targets_are_one_line_errors(runs, tmp_path):
    store, traces = runs
    missing = runner.invoke(
        app, ["trace", "nosuchrun", "--html", str(tmp_path / "r.html"), "--store", str(store)]
    )
    assert missing.exit_code == 2 and "no run matches 'nosuchrun'" in missing.output
    folder = runner.invoke(
        app, ["trace", "--html", str(tmp_path / "no" / "r.html"), "--store", str(store)]
    )
    assert folder.exit_code == 2
    assert "is not an existing folder" in folder.output and "Traceback" not in folder.output
    assert not (tmp_path / "r.html").exists()
