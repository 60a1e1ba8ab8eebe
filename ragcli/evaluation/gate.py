"""The quality gate of `ragcli eval --baseline`: compare this run's retrieval scores with
an earlier `eval --json` and fail when a gated metric drops by more than the tolerance."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ragcli.errors import ConfigError

# The metrics a drop in fails the gate; the others are shown, not gated.
GATED = ("nDCG@10", "Recall@10")


@dataclass
class MetricChange:
    retriever: str
    metric: str
    baseline: float
    current: float
    regressed: bool

    @property
    def delta(self) -> float:
        return self.current - self.baseline


@dataclass
class GateResult:
    baseline: str  # the file compared with
    tolerance: float
    changes: list[MetricChange] = field(default_factory=list)
    # Retrievers the baseline scored and this run did not: not compared, and said.
    not_run: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return not any(c.regressed for c in self.changes)

    def to_dict(self) -> dict[str, Any]:
        return {
            "baseline": self.baseline,
            "tolerance": self.tolerance,
            "passed": self.passed,
            "changes": [{**asdict(c), "delta": round(c.delta, 6)} for c in self.changes],
            "not_run": self.not_run,
            "warnings": self.warnings,
        }


def load_baseline(path: Path) -> dict[str, Any]:
    """An earlier `ragcli eval --json`; a file that is not one is a one-line error."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"--baseline {path}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"--baseline {path}: cannot read: {exc}") from None
    except json.JSONDecodeError as exc:
        raise ConfigError(f"--baseline {path}: not JSON (line {exc.lineno})") from None
    results = data.get("results") if isinstance(data, dict) else None
    if not isinstance(results, dict) or not all(isinstance(v, dict) for v in results.values()):
        raise ConfigError(f"--baseline {path}: not the output of `ragcli eval --json`")
    return data


def compare(
    current: dict[str, Any], baseline: dict[str, Any], tolerance: float, source: str
) -> GateResult:
    """Each gated metric of each retriever both runs scored: a drop larger than
    `tolerance` (absolute, on the 0..1 scale) fails the gate."""
    gate = GateResult(source, tolerance)
    for key in ("dataset", "split"):
        if baseline.get(key) != current.get(key):
            gate.warnings.append(
                f"the baseline's {key} is {baseline.get(key)!r}, this run's {current.get(key)!r}"
            )
    # A baseline from before BEIR's rule kept self-hits, as does --keep-identical-ids.
    dropped = [bool(run.get("identical_ids", {}).get("dropped")) for run in (baseline, current)]
    if dropped[0] != dropped[1]:
        said = ["kept", "dropped"]
        gate.warnings.append(
            f"the baseline {said[dropped[0]]} documents whose id is the query's, this run "
            f"{said[dropped[1]]} them"
        )
    for retriever, before in baseline["results"].items():
        now = current["results"].get(retriever)
        if now is None:
            gate.not_run.append(retriever)
            continue
        for metric in GATED:
            if metric in before and metric in now:
                old, new = float(before[metric]), float(now[metric])
                # A rounding-level difference is no drop: compare at the report's precision.
                regressed = round(old - new, 6) > tolerance
                gate.changes.append(MetricChange(retriever, metric, old, new, regressed))
    return gate
