"""`--html FILE`: a run, or several side by side, as one self-contained HTML page.
flow.py maps a trace onto its mode's flow, svg.py draws it, page.py writes the page."""

from __future__ import annotations

import os
from pathlib import Path

from ragcli.errors import ConfigError


def check_target(path: Path) -> None:
    """Refuse a path the page cannot be written to before any work is done (a compare
    runs six modes first)."""
    if path.is_dir():
        raise ConfigError(f"--html {path}: is a folder; give a file name such as report.html")
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        raise ConfigError(f"--html {path}: {folder} is not an existing folder")
    if not os.access(folder, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise ConfigError(f"--html {path}: not writable")
