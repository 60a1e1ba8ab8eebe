"""scripts/scale.py runs end to end on a small store, locally, on the Chroma server it
starts, and with the local store's data served, and reports every figure (the real runs,
10k chunks and up, are on the docs site's sharing page)."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys

import pytest

from tests.support.common import ROOT

WORDS = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda".split()


@pytest.mark.slow
@pytest.mark.server  # scripts/scale.py starts `chroma run`
@pytest.mark.timeout(900)
def test_scale_reports_every_figure_for_both_stores(tmp_path):
    corpus = tmp_path / "corpus.jsonl.gz"
    with gzip.open(corpus, "wt", encoding="utf-8") as out:
        for n in range(40):
            text = " ".join(f"{WORDS[(n + i) % len(WORDS)]}{i % 7}" for i in range(300))
            out.write(json.dumps({"_id": str(n), "title": "", "text": text}) + "\n")
    done = subprocess.run(
        [
            sys.executable,
            str(ROOT / "scripts" / "scale.py"),
            "--sizes",
            "200",
            "--corpus",
            str(corpus),
            "--work",
            str(tmp_path / "work"),
            "--json",
            "--where",
            "local,server,shared",
        ],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    local, server, shared = json.loads(done.stdout)
    assert (local["where"], server["where"], shared["where"]) == ("local", "server", "shared")
    for row in (local, server):
        assert row["files"] == 20 and 200 <= row["chunks"] <= 600
        for key in (
            "build_s",
            "disk_mb",
            "lexical_build_s",
            "search_p95_ms",
            "ask_p95_ms",
            "serve_rss_mb",
            "cold_ask_s",
            "reingest_s",
            "changed_reingest_s",
            "status_s",
            "sources_s",
        ):
            assert row[key] > 0, key
    assert local["second_first_ask_s"] is None and server["second_later_ask_s"] > 0
    # The local store's data on a server, asked by a machine that never ingested.
    assert shared["chunks"] == local["chunks"] and shared["build_s"] is None
    for key in (
        "second_first_ask_s",
        "second_index_ready_s",
        "second_later_ask_s",
        "search_p95_ms",
        "cold_ask_s",
        "lexical_load_s",
    ):
        assert shared[key] > 0, key
