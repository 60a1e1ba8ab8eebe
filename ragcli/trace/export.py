"""Whether and where a finished run is sent as OpenTelemetry spans.

This module imports no OpenTelemetry code: with no endpoint configured (the default) a run
pays for one settings lookup and two environment reads. The spans themselves are built in
`spans.py`, imported only when there is somewhere to send them."""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping

from ragcli.config import Settings
from ragcli.trace.recorder import Trace

log = logging.getLogger("ragcli")

TRACES_PATH = "/v1/traces"


def otlp_traces_url(settings: Settings, environ: Mapping[str, str] | None = None) -> str | None:
    """The OTLP/HTTP traces URL runs go to, or None: `trace.otlp_endpoint` first, then the
    standard variables (the signal-specific one is a full URL, the general one a base)."""
    env = os.environ if environ is None else environ
    configured = settings.trace.otlp_endpoint
    if configured:
        return _with_traces_path(configured)
    specific = env.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "").strip()
    if specific:
        return specific
    general = env.get("OTEL_EXPORTER_OTLP_ENDPOINT", "").strip()
    if general:
        return general.rstrip("/") + TRACES_PATH
    return None


def _with_traces_path(url: str) -> str:
    """Phoenix's http://host:6006 and Langfuse's .../api/public/otel are both bases;
    a URL already ending in /v1/traces is taken as it is."""
    url = url.strip().rstrip("/")
    return url if url.endswith(TRACES_PATH) else url + TRACES_PATH


def export_run(settings: Settings, trace: Trace) -> None:
    """Send a finished run's spans, if an endpoint is set. Never raises: a run that
    answered is not failed by its telemetry."""
    url = otlp_traces_url(settings)
    if url is None:
        return
    try:
        from ragcli.trace.spans import sender_for

        sender_for(url, settings.trace.export_timeout, settings.trace.project).send(trace)
    except Exception as exc:  # a broken exporter must not cost the answer
        log.warning("run %s not exported to %s: %s", trace.id, url, exc)
