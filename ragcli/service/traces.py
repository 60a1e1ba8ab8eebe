"""Stored runs and their price: a run's trace saved and read back without ever costing
the user their answer, one found by id, and the estimated cost of a run."""

from __future__ import annotations

import logging
from typing import Any

from ragcli.config import Settings
from ragcli.errors import ConfigError
from ragcli.trace.recorder import Trace
from ragcli.wiring import trace_store

log = logging.getLogger("ragcli")


def saved_trace(settings: Settings, trace_id: str) -> Trace | None:
    """The run's trace for display; None (the answer is shown without it) when the trace
    database cannot be read."""
    try:
        return trace_store(settings).get(trace_id)
    except Exception as exc:  # locked, corrupted ...
        log.warning("trace not shown (%s): %s", trace_store(settings).path, exc)
        return None


def save_trace(settings: Settings, trace: Trace) -> None:
    """A broken trace database must never cost the user their answer."""
    try:
        trace_store(settings).save(trace)
    except Exception as exc:  # locked, corrupted, read-only ...
        log.warning("trace not saved (%s): %s", trace_store(settings).path, exc)


def find_trace(settings: Settings, trace_id: str | None) -> Trace:
    """One stored run by id (a prefix is enough), or the latest."""
    traces = trace_store(settings)
    record = traces.get(trace_id)
    if record is not None:
        return record
    if trace_id and traces.recent(1):
        raise ConfigError(
            f"no run matches {trace_id!r} in {traces.path} (unknown, or a prefix of several; "
            "`ragcli trace --list` shows the runs)"
        )
    raise ConfigError(f"no runs yet in {traces.path}: ask a question first")


def cost_of(settings: Settings, backend: dict[str, str], usage: dict[str, Any]) -> float | None:
    """The run's estimated price in USD from the price table; None when not priced."""
    from ragcli import cost

    return cost.estimate_usage(settings.prices, backend, usage)
