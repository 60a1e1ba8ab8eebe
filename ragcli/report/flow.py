"""A mode's flow as a graph, and the path one run took through it.

Each mode has a fixed drawing of what it can do (its nodes on a grid, its edges); a run's
steps, in order, are mapped onto those nodes, so the report can draw every route and
highlight the one taken. Pure data: no HTML here (svg.py draws it)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from ragcli.pipeline.modes.registry import MODE_NAMES
from ragcli.trace.recorder import StepRecord, Trace

NodeKind = Literal["start", "step", "decision", "end"]


@dataclass
class Node:
    id: str
    label: str
    col: float
    row: float
    kind: NodeKind = "step"
    facts: list[str] = field(default_factory=list)  # score vs threshold, decision, per visit
    visits: int = 0


@dataclass
class Edge:
    src: str
    dst: str
    label: str = ""
    taken: bool = False


@dataclass
class Flow:
    title: str
    nodes: dict[str, Node]
    edges: list[Edge]
    path: list[str] = field(default_factory=list)  # node ids in the order the run visited them
    rule: str = ""  # auto's routing rule, said in words

    def taken_nodes(self) -> list[str]:
        return [n.id for n in self.nodes.values() if n.visits]


def _number(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.2f}"
    return "-" if value is None else str(value)


# Steps whose first score is measured against their first threshold (the others' scores
# are counts, and their threshold applies to each row of their table).
COMPARED = {"grade", "grade_rewrite", "reflect", "verify", "compare", "route", "not_covered"}


def step_facts(step: StepRecord) -> list[str]:
    """What a node says for one visit: its score against its threshold, then the
    decision. Only the first score and threshold: the node is small; the steps table
    below has them all."""
    facts = []
    score = next(((k, v) for k, v in step.scores.items() if isinstance(v, int | float)), None)
    limit = next(((k, v) for k, v in step.threshold.items() if isinstance(v, int | float)), None)
    compared = step.name in COMPARED or step.name.endswith("_band")
    if score and limit and compared:
        sign = "≥" if score[1] >= limit[1] else "<"
        facts.append(f"{score[0]} {_number(score[1])} {sign} {_number(limit[1])}")
    elif score:
        facts.append(f"{score[0]} {_number(score[1])}")
    if step.decision:
        facts.append(step.decision)
    return facts


# -- each mode's drawing: (id, label, col, row, kind), then edges (src, dst, label) ----------

NodeSpec = tuple[str, str, float, float, NodeKind]
EdgeSpec = tuple[str, str, str]

HEAD: list[NodeSpec] = [
    ("question", "question", 0, 1, "start"),
    ("standalone", "standalone rewrite", 0, 0, "step"),
]

CRAG_NODES: list[NodeSpec] = [
    ("retrieve", "retrieve", 1, 1, "step"),
    ("grade", "grade", 2, 1, "decision"),
    ("rewrite", "rewrite query", 2, 0, "step"),
    ("web_search", "web search", 3, 2, "step"),
    ("grade_web", "grade web", 4, 2, "decision"),
    ("draft", "grade + draft", 4, 3, "step"),
    ("not_covered", "not covered", 5, 3, "end"),
    ("generate", "generate", 5, 1, "step"),
]
CRAG_EDGES: list[EdgeSpec] = [
    ("question", "retrieve", ""),
    ("question", "standalone", ""),
    ("standalone", "retrieve", ""),
    ("retrieve", "grade", ""),
    ("grade", "rewrite", "weak: rewrite"),
    ("rewrite", "retrieve", "again"),
    ("grade", "generate", "relevant"),
    ("grade", "web_search", "ambiguous / irrelevant"),
    ("web_search", "grade_web", ""),
    ("web_search", "draft", ""),
    ("web_search", "generate", "nothing new"),
    ("web_search", "not_covered", ""),
    ("grade_web", "generate", ""),
    ("grade_web", "not_covered", ""),
    ("draft", "support", ""),
]


def _standard() -> tuple[list[NodeSpec], list[EdgeSpec]]:
    nodes = [
        *HEAD,
        ("retrieve", "retrieve", 1, 1, "step"),
        ("generate", "generate", 2, 1, "step"),
        ("support", "support check", 3, 1, "decision"),
        ("answer", "answer", 4, 1, "end"),
    ]
    edges = [
        ("question", "retrieve", ""),
        ("question", "standalone", ""),
        ("standalone", "retrieve", ""),
        ("retrieve", "generate", ""),
        ("generate", "support", ""),
        ("generate", "answer", ""),
        ("support", "answer", ""),
    ]
    return nodes, edges


def _crag() -> tuple[list[NodeSpec], list[EdgeSpec]]:
    nodes = [
        *HEAD,
        *CRAG_NODES,
        ("support", "support check", 6, 1, "decision"),
        ("answer", "answer", 7, 1, "end"),
    ]
    edges = [
        *CRAG_EDGES,
        ("generate", "support", ""),
        ("generate", "answer", ""),
        ("support", "answer", ""),
        ("not_covered", "answer", ""),
    ]
    return nodes, edges


def _reflect() -> tuple[list[NodeSpec], list[EdgeSpec]]:
    nodes = [
        *HEAD,
        ("retrieve", "retrieve", 1, 1, "step"),
        ("generate", "generate", 2, 1, "step"),
        ("reflect", "reflect", 3, 1, "decision"),
        ("refine", "refine query", 3, 0, "step"),
        ("support", "support check", 4, 1, "decision"),
        ("answer", "answer", 5, 1, "end"),
    ]
    edges = [
        ("question", "retrieve", ""),
        ("question", "standalone", ""),
        ("standalone", "retrieve", ""),
        ("retrieve", "generate", ""),
        ("generate", "reflect", ""),
        ("reflect", "refine", "below min_score"),
        ("refine", "retrieve", "next round"),
        ("reflect", "support", "done"),
        ("reflect", "answer", ""),
        ("support", "answer", ""),
    ]
    return nodes, edges


def _both() -> tuple[list[NodeSpec], list[EdgeSpec]]:
    nodes = [
        *HEAD,
        *CRAG_NODES,
        ("reflect", "reflect", 6, 1, "decision"),
        ("refine", "refine query", 6, 0, "step"),
        ("support", "support check", 7, 1, "decision"),
        ("answer", "answer", 8, 1, "end"),
    ]
    edges = [
        *[e for e in CRAG_EDGES if e[0] != "draft"],
        ("draft", "reflect", ""),
        ("generate", "reflect", ""),
        ("reflect", "refine", "below min_score"),
        ("refine", "retrieve", "next round"),
        ("reflect", "support", "done"),
        ("reflect", "answer", ""),
        ("support", "answer", ""),
        ("not_covered", "answer", ""),
    ]
    return nodes, edges


def _tos() -> tuple[list[NodeSpec], list[EdgeSpec]]:
    """A waterfall: the FAQ lane, below it the documents lane, below that the drafting
    lane; every lane ends in the one outcome."""
    nodes: list[NodeSpec] = [
        *HEAD,
        ("retrieve_qna", "search FAQ", 1, 1, "step"),
        ("qna_band", "FAQ band", 2, 1, "decision"),
        ("retrieve_docs", "search documents", 2, 2, "step"),
        ("documents_band", "documents band", 3, 2, "decision"),
        ("compare", "FAQ vs documents", 4, 1, "decision"),
        ("generate", "generate", 4, 3, "step"),
        ("verify", "verify", 5, 3, "decision"),
        ("outcome", "outcome", 6, 2, "decision"),
        ("support", "support check", 7, 2, "decision"),
        ("answer", "answer", 8, 2, "end"),
    ]
    edges = [
        ("question", "retrieve_qna", ""),
        ("question", "standalone", ""),
        ("standalone", "retrieve_qna", ""),
        ("retrieve_qna", "qna_band", ""),
        ("qna_band", "retrieve_docs", "below"),
        ("qna_band", "outcome", "FAQ answers"),
        ("retrieve_docs", "documents_band", ""),
        ("documents_band", "compare", "near FAQ"),
        ("documents_band", "generate", "answer"),
        ("documents_band", "outcome", "handoff"),
        ("compare", "generate", ""),
        ("compare", "outcome", ""),
        ("generate", "verify", ""),
        ("verify", "outcome", ""),
        ("outcome", "support", ""),
        ("outcome", "answer", ""),
        ("support", "answer", ""),
    ]
    return nodes, edges


def _agentic(trace: Trace) -> tuple[list[NodeSpec], list[EdgeSpec]]:
    parts = _sub_question_rows(trace)
    count = max(len(parts), 1)
    middle = (count - 1) / 2 + 1
    nodes: list[NodeSpec] = [
        ("question", "question", 0, middle, "start"),
        ("standalone", "standalone rewrite", 0, middle - 1, "step"),
        ("decompose", "decompose", 1, middle, "step"),
    ]
    edges: list[EdgeSpec] = [
        ("question", "decompose", ""),
        ("question", "standalone", ""),
        ("standalone", "decompose", ""),
    ]
    for n in range(1, count + 1):
        nodes.append((f"sub_{n}", f"sub-question {n}", 2, n, "step"))
        edges += [("decompose", f"sub_{n}", ""), (f"sub_{n}", "synthesize", "")]
    nodes += [
        ("synthesize", "synthesize", 3, middle, "step"),
        ("support", "support check", 4, middle, "decision"),
        ("answer", "answer", 5, middle, "end"),
    ]
    edges += [
        ("synthesize", "support", ""),
        ("synthesize", "answer", ""),
        ("support", "answer", ""),
    ]
    return nodes, edges


def _sub_question_rows(trace: Trace) -> list[dict[str, Any]]:
    step = next((s for s in trace.steps if s.name == "answer_sub_questions"), None)
    return list(step.details.get("sub_questions", [])) if step else []


def _node_id(trace: Trace, mode: str, step: StepRecord) -> str | None:
    """The node a step is drawn as in `mode`'s flow (None: not drawn, e.g. a budget stop)."""
    name = step.name
    if mode == "tos" and name == "retrieve":
        qna = (trace.thresholds.get("tos") or {}).get("qna_collection", "qna")
        return "retrieve_qna" if step.inputs.get("collection") == qna else "retrieve_docs"
    if name in ("grade_rewrite",):
        return "grade"
    return name


REPEATED: set[str] = set()  # nodes always shown one line a visit (none yet)

Drawing = Callable[[Trace], tuple[list[NodeSpec], list[EdgeSpec]]]
# One drawing per mode of the registry (tests/test_mode_names.py holds them equal); only
# agentic's depends on the run (a node per sub-question).
DRAWINGS: dict[str, Drawing] = {
    "standard": lambda _: _standard(),
    "crag": lambda _: _crag(),
    "reflect": lambda _: _reflect(),
    "both": lambda _: _both(),
    "tos": lambda _: _tos(),
    "agentic": _agentic,
}


def mode_flow(trace: Trace, mode: str, steps: list[StepRecord]) -> Flow:
    """`mode`'s drawing with `steps` (the run's, in order) laid on it."""
    nodes_spec, edges_spec = DRAWINGS[mode](trace)
    nodes = {i: Node(i, label, col, row, kind) for i, label, col, row, kind in nodes_spec}
    edges = [Edge(src, dst, label) for src, dst, label in edges_spec]
    path = ["question"]
    for step in steps:
        if step.name == "answer_sub_questions":
            path.append("answer_sub_questions")
            for row in _sub_question_rows(trace):
                node = nodes.get(f"sub_{row.get('#')}")
                if node is not None:
                    node.visits += 1
                    node.facts += [
                        str(row.get("sub_question", ""))[:60],
                        f"best {_number(row.get('best_score'))}",
                    ]
            continue
        node_id = _node_id(trace, mode, step)
        node = nodes.get(node_id or "")
        if node is None:
            continue
        node.visits += 1
        facts = step_facts(step)
        if step.name == "reflect":  # one line a round, so three rounds fit the node
            score = facts[0].removeprefix("reflection ") if facts else "-"
            facts = [f"round {step.inputs.get('round', node.visits)}: {score}"]
        elif node.visits > 1 or node_id in REPEATED:  # a loop: one line a visit
            facts = [f"{node.visits}: " + " · ".join(facts)] if facts else []
            if node.visits == 2 and node.facts and not node.facts[0].startswith("1: "):
                node.facts = ["1: " + " · ".join(node.facts)]
        node.facts += facts
        path.append(node.id)
    path.append("answer")
    nodes["question"].visits = 1
    nodes["answer"].visits = 1
    if trace.answer_type not in ("answer", ""):  # the node says "answer" already
        nodes["answer"].facts = [trace.answer_type]
    _mark_edges(nodes, edges, path)
    return Flow(title=mode, nodes=nodes, edges=edges, path=path)


def _mark_edges(nodes: dict[str, Node], edges: list[Edge], path: list[str]) -> None:
    """An edge is taken when the run went from its source to its target directly; the
    sub-questions fan out from decompose and back into synthesize."""
    pairs = set(zip(path, path[1:], strict=False))
    subs = [n for n in nodes if n.startswith("sub_") and nodes[n].visits]
    if "answer_sub_questions" in path:
        pairs |= {("decompose", s) for s in subs} | {(s, "synthesize") for s in subs}
    for edge in edges:
        edge.taken = (edge.src, edge.dst) in pairs


def auto_flow(trace: Trace) -> Flow:
    """auto's own decision: the rule that picked a mode from the measured signals."""
    details = trace.result.get("auto_details") or {}
    chosen = details.get("mode", "")
    route = next((s for s in trace.steps if s.name == "route"), None)
    modes = list(MODE_NAMES)
    nodes = {
        "question": Node("question", "question", 0, 1.05, "start", visits=1),
        "route": Node("route", "auto: route", 1, 1.05, "decision", visits=1),
    }
    nodes["route"].facts = [f"→ {chosen}", str(details.get("reason", ""))]
    edges = [Edge("question", "route", taken=True)]
    for row, mode in enumerate(modes):
        nodes[mode] = Node(mode, mode, 2, row * 0.42, "end", visits=int(mode == chosen))
        edges.append(Edge("route", mode, taken=mode == chosen))
    rule = details.get("rule", "")
    signals = _signals(route) if route is not None else ""
    return Flow(
        title="auto",
        nodes=nodes,
        edges=edges,
        path=["question", "route", chosen],
        rule=f"{rule}: {details.get('reason', '')}" + (f" ({signals})" if signals else ""),
    )


def _signals(route: StepRecord) -> str:
    """What auto measured, each beside the thresholds its rules compare it with."""
    shown = []
    for key, value in route.scores.items():
        if isinstance(value, int | float):
            shown.append(f"{key} {_number(value)}")
    limits = ", ".join(
        f"{k.removeprefix('auto.')} {_number(v)}" for k, v in route.threshold.items()
    )
    return "; ".join(shown) + (f" — thresholds: {limits}" if limits else "")


def step_nodes(trace: Trace) -> list[str]:
    """The node each step is drawn as, in step order (the steps table marks its rows with
    them, so hovering a node lights its steps)."""
    mode = trace.mode
    if mode == "auto":
        mode = (trace.result.get("auto_details") or {}).get("mode", "")
    return [_node_id(trace, mode, step) or step.name for step in trace.steps]


def flows(trace: Trace) -> list[Flow]:
    """The diagrams of a run: its mode's flow; auto's routing first, then the flow of the
    mode it chose, drawn with the steps after the route."""
    if trace.mode == "auto":
        chosen = (trace.result.get("auto_details") or {}).get("mode", "")
        after = trace.steps[1:] if trace.steps and trace.steps[0].name == "route" else trace.steps
        drawn = [auto_flow(trace)]
        if chosen in DRAWINGS:
            drawn.append(mode_flow(trace, chosen, [s for s in after if s.name != "route"]))
        return drawn
    if trace.mode in DRAWINGS:
        return [mode_flow(trace, trace.mode, trace.steps)]
    return []
