"""The ingest progress's ETA extrapolates over the files that still need embedding only."""

from __future__ import annotations

from ragcli.ingest.activity import Activity


class Counting:
    embedded = 0


def test_files_found_unchanged_leave_the_eta_total(tmp_path):
    files = []
    for n in range(1000):
        path = tmp_path / f"doc{n}.md"
        path.write_text("x" * 1000)
        files.append(path)
    embedder = Counting()
    activity = Activity(embedder)
    activity.begin(files)
    for position in range(999):  # unchanged: settled without reading
        activity.settled(position)
        activity.finished()
    activity.read(1000, 10, str(files[-1]))  # the one changed file: 10 chunks to embed
    embedder.embedded = 5
    activity.started -= 5.0  # five seconds in: 1 chunk/s
    eta = activity.eta()
    assert eta is not None and eta < 10  # the 5 chunks left, not 999 files' worth (~2.8 h)
