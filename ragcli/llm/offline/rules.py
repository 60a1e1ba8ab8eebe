"""The offline answerer's hand rules that remain beside its fitted model, by name.

Each is a filter or a step the fitted scorer cannot express (which units exist to be
scored, what is quoted with a unit). scripts/ablate_rules.py switches each off in turn and
measures the answers on the train folds; docs/dev-log/offline-backend.md keeps each
rule's figure. Every one measures inside the folds' noise; each that remains, switched off,
moves more train answers the wrong way than the right way on one measure (names, flaws or
Rhine's gold answers). Rules that moved no train answer's outcome were removed. Nothing
but that script switches a rule off.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

RULES: dict[str, str] = {
    "transcripts": "how-to: a terminal transcript is no candidate unless its command does "
    "what the question asks",
    "naming_followers": "how-to: the sentences after the most covering ones are scored too "
    "when they name something",
    "titled": "how-to: a section's first sentence is quoted after its heading when the "
    "heading names the solution and the sentence does not",
    "section_example": "how-to: the best unit's section's code example is quoted with it",
    "antecedent": "how-to: a sentence opening with This/That is quoted after the sentence "
    "it refers to",
    "cut_off_code": "a unit is quoted with the code its chunk cut into the next chunk",
    "named_rows": "when the question names table rows, the other rows are left out",
    "clauses": "before declining, the best sentences are read clause by clause",
}

_switched_off: set[str] = set()


def on(name: str) -> bool:
    """Whether rule `name` applies (it does, unless scripts/ablate_rules.py measures it)."""
    if name not in RULES:
        raise KeyError(f"no offline answer rule named {name!r}")
    return name not in _switched_off


@contextmanager
def switched_off(*names: str) -> Iterator[None]:
    """Within the block, the rules `names` do not apply (an ablation)."""
    unknown = set(names) - set(RULES)
    if unknown:
        raise KeyError(f"no offline answer rules named {sorted(unknown)}")
    before = set(_switched_off)
    _switched_off.update(names)
    try:
        yield
    finally:
        _switched_off.clear()
        _switched_off.update(before)
