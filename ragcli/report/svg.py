"""A Flow drawn as inline SVG: every route the mode can take in grey, the run's path in
colour, decision nodes with the score they compared and the threshold."""

from __future__ import annotations

from html import escape

from ragcli.report.flow import Edge, Flow, Node

COL_W = 178
ROW_H = 92
NODE_W = 140
LINE_H = 13
PAD = 24
MAX_FACTS = 3


def _clip(text: str, width: int = 23) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def _height(node: Node) -> int:
    return 24 + LINE_H * min(len(node.facts), MAX_FACTS)


def _center(node: Node) -> tuple[float, float]:
    return PAD + NODE_W / 2 + node.col * COL_W, PAD + 30 + node.row * ROW_H


def _shape(node: Node, x: float, y: float, h: int) -> str:
    left, top = x - NODE_W / 2, y - h / 2
    if node.kind == "decision":  # a hexagon: a decision that still holds three lines
        d = 10
        points = [
            (left, y),
            (left + d, top),
            (left + NODE_W - d, top),
            (left + NODE_W, y),
            (left + NODE_W - d, top + h),
            (left + d, top + h),
        ]
        return '<polygon points="' + " ".join(f"{px:.0f},{py:.0f}" for px, py in points) + '"/>'
    radius = min(h / 2, 13) if node.kind in ("start", "end") else 6
    return f'<rect x="{left:.0f}" y="{top:.0f}" width="{NODE_W}" height="{h}" rx="{radius:.0f}"/>'


def _node(node: Node) -> str:
    x, y = _center(node)
    h = _height(node)
    state = "taken" if node.visits else "idle"
    lines = node.facts[:MAX_FACTS]
    if len(node.facts) > MAX_FACTS:
        lines = node.facts[: MAX_FACTS - 1] + [f"+{len(node.facts) - MAX_FACTS + 1} more"]
    label = node.label + (f" ×{node.visits}" if node.visits > 1 and node.kind != "end" else "")
    top = y - h / 2 + 16
    texts = [f'<text class="label" x="{x:.0f}" y="{top:.0f}">{escape(_clip(label, 22))}</text>']
    for n, fact in enumerate(lines, start=1):
        fy = top + n * LINE_H
        fit = _clip(fact, 23 if node.kind == "step" else 21)  # hexagon and pill corners
        texts.append(f'<text class="fact" x="{x:.0f}" y="{fy:.0f}">{escape(fit)}</text>')
    tooltip = escape("\n".join([node.label, *node.facts]))
    return (
        f'<g class="node {state} kind-{node.kind}" data-node="{escape(node.id)}" '
        f'data-visits="{node.visits}"><title>{tooltip}</title>'
        + _shape(node, x, y, h)
        + "".join(texts)
        + "</g>"
    )


def _edge(edge: Edge, nodes: dict[str, Node]) -> str:
    src, dst = nodes[edge.src], nodes[edge.dst]
    (sx, sy), (dx, dy) = _center(src), _center(dst)
    sh, dh = _height(src) / 2, _height(dst) / 2
    if dst.col > src.col:  # forwards: right side to left side
        x1, y1, x2, y2 = sx + NODE_W / 2, sy, dx - NODE_W / 2, dy
        bend = (x2 - x1) / 2
        path = (
            f"M{x1:.0f},{y1:.0f} C{x1 + bend:.0f},{y1:.0f} "
            f"{x2 - bend:.0f},{y2:.0f} {x2:.0f},{y2:.0f}"
        )
        mx, my = (x1 + x2) / 2, (y1 + y2) / 2
    elif dst.col == src.col:  # straight up or down (a rewrite, a refinement)
        down = dst.row > src.row
        y1 = sy + (sh if down else -sh)
        y2 = dy - (dh if down else -dh)
        path = f"M{sx:.0f},{y1:.0f} L{dx:.0f},{y2:.0f}"
        mx, my = sx + 4, (y1 + y2) / 2
    else:  # backwards: a loop over the top to an earlier node
        x1, y1, x2, y2 = sx - NODE_W / 4, sy - sh, dx + NODE_W / 4, dy - dh
        lift = min(y1, y2) - 26
        path = f"M{x1:.0f},{y1:.0f} C{x1:.0f},{lift:.0f} {x2:.0f},{lift:.0f} {x2:.0f},{y2:.0f}"
        mx, my = (x1 + x2) / 2, lift + 6
    state = "taken" if edge.taken else "idle"
    label = ""
    if edge.label:
        anchor = "start" if dst.col == src.col else "middle"
        label = (
            f'<text class="edge-label" x="{mx:.0f}" y="{my - 4:.0f}" '
            f'text-anchor="{anchor}">{escape(edge.label)}</text>'
        )
    return (
        f'<g class="edge {state}" data-src="{escape(edge.src)}" data-dst="{escape(edge.dst)}">'
        f'<path d="{path}" marker-end="url(#arrow-{state})"/>{label}</g>'
    )


def flow_svg(flow: Flow) -> str:
    nodes = flow.nodes
    width = PAD * 2 + NODE_W + max(n.col for n in nodes.values()) * COL_W
    bottom = max(_center(n)[1] + _height(n) / 2 for n in nodes.values())
    height = bottom + PAD
    # Idle edges first, so the taken path is drawn over them.
    edges = sorted(flow.edges, key=lambda e: e.taken)
    return (
        f'<svg class="flow" data-flow="{escape(flow.title)}" viewBox="0 0 {width:.0f} '
        f'{height:.0f}" width="{width:.0f}" style="min-width:{width * 0.6:.0f}px" role="img" '
        f'aria-label="{escape(flow.title)} flow, the path taken highlighted">'
        "<defs>"
        + "".join(
            f'<marker id="arrow-{state}" viewBox="0 0 10 10" refX="9" refY="5" '
            f'markerWidth="7" markerHeight="7" orient="auto-start-reverse">'
            f'<path d="M0,0 L10,5 L0,10 z" class="arrow-{state}"/></marker>'
            for state in ("taken", "idle")
        )
        + "</defs>"
        + "".join(_edge(e, nodes) for e in edges)
        + "".join(_node(n) for n in nodes.values())
        + "</svg>"
    )
