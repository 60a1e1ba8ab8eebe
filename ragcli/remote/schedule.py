"""`ingest --every INTERVAL`: when the next sync of the remote roots is due."""

from __future__ import annotations

import re
import time

from ragcli.errors import ConfigError

UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
INTERVAL = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([smhd]?)\s*$", re.I)
MIN_SECONDS = 10.0  # shorter would hammer a site for nothing


def parse_interval(text: str) -> float:
    """Seconds in `30m`, `1h`, `90s`, `2d` (a bare number is minutes)."""
    match = INTERVAL.match(text)
    if not match:
        raise ConfigError(f"--every {text}: not an interval (write it as 30m, 1h, 90s or 2d)")
    seconds = float(match.group(1)) * UNITS[(match.group(2) or "m").lower()]
    if seconds < MIN_SECONDS:
        raise ConfigError(f"--every {text}: at least {MIN_SECONDS:.0f}s between syncs")
    return seconds


class Schedule:
    def __init__(self, seconds: float):
        self.seconds = seconds
        self.next = time.monotonic() + seconds

    def due(self) -> bool:
        return time.monotonic() >= self.next

    def done(self) -> None:
        """A sync ended: the next is an interval after its end, so syncs never pile up."""
        self.next = time.monotonic() + self.seconds

    def left(self) -> float:
        return max(0.0, self.next - time.monotonic())
