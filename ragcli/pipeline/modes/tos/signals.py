"""The documents stage's extra signals (`tos.hybrid`): which policy chunks the waterfall
reads, beside vector search.

- bm25: keyword search fused with vector search (the retriever's hybrid mode).
- rules: a curated rules file (rules.py); a question that uses a rule's words lifts the
  sections the rule names, looked up in the whole collection, not only among the hits.
- triplets: the question read as a statement (ragcli/triplets.py) matched against the
  statements stored with each chunk; a chunk stating what is asked moves up.

The signals reorder the candidates and choose the top_k; they never change a chunk's
`score`, the cosine with the question that the bands compare with tos's thresholds, so the
bands keep their calibrated meaning. Each chunk's contributions are in the trace's
`signals` step and in its `component_scores` (`rules`, `triplets`)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from ragcli import triplets
from ragcli.models import RetrievedChunk
from ragcli.pipeline import steps
from ragcli.pipeline.context import RunContext
from ragcli.pipeline.modes.tos import rules as rules_file
from ragcli.retrieval.fusion import min_max_normalise

POOL = 30  # candidates the signals choose the top_k from
RULE_LIFT = 1.0  # added to a lifted chunk's [0, 1] base: it ranks above every other
TRIPLET_WEIGHT = 0.5  # times the best triplet match, in [0, 1]
TRIPLET_MIN = 0.5  # a weaker match is not counted (a shared word or two)
# Of the top_k, at most this share is taken by rule-lifted chunks, so a rule that fires on
# a question about something else cannot push every search hit out.
RULE_SHARE = 0.6


@dataclass
class Scored:
    chunk: RetrievedChunk
    base: float  # the search's own order, min-max normalised over the candidates
    rank: int | None  # 1-based place in the search's hits; None: lifted from outside them
    rules: list[str] = field(default_factory=list)
    triplet: triplets.TripletMatch | None = None

    @property
    def lift(self) -> float:
        return RULE_LIFT if self.rules else 0.0

    @property
    def triplet_score(self) -> float:
        return self.triplet.score if self.triplet else 0.0

    @property
    def total(self) -> float:
        return self.base + self.lift + TRIPLET_WEIGHT * self.triplet_score


def extra_signals(signals: Sequence[str]) -> list[str]:
    return [s for s in signals if s != "bm25"]


def load(ctx: RunContext) -> list[rules_file.Rule]:
    """The rules of `tos.rules_file` when the rules signal is on, read before the run's
    first search, so a bad file is the same error whichever stage answers."""
    tos = ctx.settings.tos
    if "rules" not in tos.hybrid or not tos.rules_file:
        return []
    return rules_file.load_rules(tos.rules_file)


def documents(ctx: RunContext, question: str, rules: list[rules_file.Rule]) -> list[RetrievedChunk]:
    """The documents stage's chunks, with the signals of `tos.hybrid`."""
    tos = ctx.settings.tos
    mode = "hybrid" if "bm25" in tos.hybrid else "dense"
    extra = extra_signals(tos.hybrid)
    top_k = ctx.settings.retrieval.top_k
    if not extra:
        return steps.retrieve(ctx, question, collection=tos.docs_collection, mode=mode)
    hits = steps.retrieve(
        ctx, question, top_k=max(POOL, top_k), collection=tos.docs_collection, mode=mode
    )
    with ctx.trace.step("signals", signals=extra, candidates=len(hits), top_k=top_k) as step:
        key = "fused" if mode == "hybrid" else "dense"
        base = min_max_normalise({c.chunk_id: c.component_scores.get(key, c.score) for c in hits})
        scored = [Scored(c, base.get(c.chunk_id, 0.0), i) for i, c in enumerate(hits, 1)]
        if "rules" in extra:
            scored += _apply_rules(ctx, question, rules, scored, step)
        if "triplets" in extra:
            _apply_triplets(ctx, question, scored, step)
        chosen = _choose(scored, top_k)
        for item in chosen:
            if item.rules:
                item.chunk.component_scores["rules"] = RULE_LIFT
            if item.triplet is not None:
                item.chunk.component_scores["triplets"] = item.triplet.score
        step.details["chunks"] = [_row(item, place) for place, item in enumerate(chosen, 1)]
        moved = sum(1 for place, item in enumerate(chosen, 1) if item.rank != place)
        step.decision = f"{len(chosen)} chunks, {moved} moved by {' and '.join(extra)}"
    return [item.chunk for item in chosen]


def _apply_rules(
    ctx: RunContext, question: str, rules: list[rules_file.Rule], scored: list[Scored], step
) -> list[Scored]:
    """Marks the candidates in the sections of the rules the question matches, and returns
    the chunks of those sections the search did not find (scored by cosine, base 0)."""
    tos = ctx.settings.tos
    hits = rules_file.matching_rules(rules, question)
    step.details["rules"] = [
        {"rule": h.rule.name, "matched": h.matched, "boost": ", ".join(h.rule.boost)} for h in hits
    ]
    if not hits:
        step.note("rules: no rule matches the question")
        return []
    for item in scored:
        meta = item.chunk.metadata
        item.rules = _rules_for(hits, meta.source_file, meta.heading)
    located = ctx.retriever.locations(tos.docs_collection)
    if located is None:
        step.note(
            f"rules: collection {tos.docs_collection!r} is too large to look sections up "
            "in; only the search's candidates were lifted"
        )
        return []
    known = {item.chunk.chunk_id for item in scored}
    named: dict[str, list[str]] = {}
    for place in located:
        names = _rules_for(hits, place.source_file, place.heading)
        if names and place.chunk_id not in known:
            named[place.chunk_id] = names
    for hit in hits:
        found = any(_rules_for([hit], p.source_file, p.heading) for p in located)
        if not found:
            step.note(
                f"rules: rule {hit.rule.name!r} boosts {', '.join(hit.rule.boost)}, which no "
                f"chunk of collection {tos.docs_collection!r} is under"
            )
    lifted = ctx.retriever.fetch(question, list(named), tos.docs_collection)
    return [Scored(chunk, 0.0, None, named[chunk.chunk_id]) for chunk in lifted]


def _rules_for(hits: list[rules_file.RuleHit], source_file: str, heading: str | None) -> list[str]:
    return [
        hit.rule.name
        for hit in hits
        if any(rules_file.boosts(target, source_file, heading) for target in hit.rule.boost)
    ]


def _apply_triplets(ctx: RunContext, question: str, scored: list[Scored], step) -> None:
    asked = triplets.question_triplet(question)
    step.details["question_triplet"] = asked.text()
    weights = ctx.retriever.term_weights(question, ctx.settings.tos.docs_collection)
    unstored = 0
    for item in scored:
        statements = triplets.decode(item.chunk.metadata.triplets)
        if statements is None:  # stored before ingest extracted them
            unstored += 1
            statements = triplets.extract(item.chunk.content)
        found = triplets.match(asked, statements, weights)
        if found is not None and found.score >= TRIPLET_MIN:
            item.triplet = found
    if unstored:
        step.note(
            f"triplets: {unstored} of the {len(scored)} chunks were stored before ingest "
            "kept their statements; read from their text now (a re-ingest of a changed file "
            "stores them)"
        )


def _choose(scored: list[Scored], top_k: int) -> list[Scored]:
    """The top_k by total, at most RULE_SHARE of them lifted by a rule; ties keep the
    search's order, then the higher cosine."""
    ranked = sorted(
        scored,
        key=lambda s: (-s.total, s.rank if s.rank is not None else math.inf, -s.chunk.score),
    )
    room = max(1, math.floor(top_k * RULE_SHARE))
    chosen: list[Scored] = []
    for item in ranked:
        if len(chosen) == top_k:
            break
        if item.rules and room == 0:
            continue
        room -= bool(item.rules)
        chosen.append(item)
    return chosen


def _row(item: Scored, place: int) -> dict[str, object]:
    meta = item.chunk.metadata
    return {
        "rank": place,
        "search_rank": item.rank,
        "chunk_id": meta.chunk_id,
        "source_file": meta.source_file,
        "heading": meta.heading,
        "score": item.chunk.score,
        "base": round(item.base, 4),
        "rules": ", ".join(item.rules),
        "triplet": item.triplet.triplet.text() if item.triplet else "",
        "triplet_score": item.triplet_score,
        "total": round(item.total, 4),
    }
