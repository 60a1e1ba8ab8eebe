"""Arize Phoenix (from .venv-phoenix, made by scripts/install_phoenix.sh) as a real OTLP
receiver on 127.0.0.1, and its REST API to read spans back."""

from __future__ import annotations

import json
import os
import subprocess
import time
import urllib.request
from pathlib import Path
from typing import Any

from tests.support.embedding_servers import free_port, wait_until_healthy

ROOT = Path(__file__).resolve().parents[2]
PHOENIX = ROOT / ".venv-phoenix" / "bin" / "phoenix"


def start_phoenix(work: Path) -> tuple[subprocess.Popen, str]:
    """`phoenix serve` bound to 127.0.0.1 only, its database in `work`; (process, url)."""
    port, grpc_port = free_port(), free_port()
    log = (work / "phoenix.log").open("wb")
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(work),
        "PHOENIX_HOST": "127.0.0.1",  # Phoenix binds every address by default
        "PHOENIX_PORT": str(port),
        "PHOENIX_GRPC_PORT": str(grpc_port),
        "PHOENIX_WORKING_DIR": str(work),
        "PHOENIX_TELEMETRY_ENABLED": "false",
    }
    process = subprocess.Popen(
        [str(PHOENIX), "serve"], stdout=log, stderr=subprocess.STDOUT, env=env, cwd=work
    )
    url = f"http://127.0.0.1:{port}"
    # 240 s: the first start migrates its SQLite database.
    wait_until_healthy(process, f"{url}/healthz", "phoenix", 240, work / "phoenix.log")
    return process, url


def spans(url: str, project: str, expect: int = 1, wait: float = 15.0) -> list[dict[str, Any]]:
    """Every span of `project`, waiting until at least `expect` arrived (Phoenix writes
    what it receives in batches)."""
    deadline = time.monotonic() + wait
    found: list[dict[str, Any]] = []
    while True:
        found = []
        cursor = None
        while True:
            query = f"{url}/v1/projects/{project}/spans?limit=1000"
            if cursor:
                query += f"&cursor={cursor}"
            try:
                with urllib.request.urlopen(query, timeout=5) as reply:
                    page = json.load(reply)
            except urllib.error.HTTPError as exc:  # the project appears with its first span
                if exc.code != 404:
                    raise
                page = {"data": [], "next_cursor": None}
            found.extend(page["data"])
            cursor = page.get("next_cursor")
            if not cursor:
                break
        if len(found) >= expect or time.monotonic() > deadline:
            return found
        time.sleep(0.3)
