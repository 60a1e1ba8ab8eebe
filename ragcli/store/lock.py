"""One writer per store: an advisory `flock` on `ingest.lock` in the store directory.

The kernel drops the lock when its holder dies, however it dies (SIGKILL included), so a
crashed ingest never leaves a stale lock behind. Readers (`ragcli ask`) never take it."""

from __future__ import annotations

import fcntl
import os
import time
from pathlib import Path
from types import TracebackType

from ragcli.errors import ExitCode, RagcliError

LOCK_FILE = "ingest.lock"


class StoreBusyError(RagcliError):
    exit_code = ExitCode.BUSY


class StoreLock:
    """Exclusive lock on a store directory; waits up to `timeout` seconds for it."""

    def __init__(self, store_dir: Path, timeout: float, poll: float = 0.1):
        self.path = store_dir / LOCK_FILE
        self.timeout = timeout
        self.poll = poll
        self._fd: int | None = None

    def acquire(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        deadline = time.monotonic() + self.timeout
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    holder = _read_holder(fd)
                    os.close(fd)
                    raise StoreBusyError(
                        f"{self.path.parent}: another ingest is running{holder}; "
                        f"waited {self.timeout:g}s (store.lock_timeout)"
                    ) from None
                time.sleep(self.poll)
        # Who holds it, for the message the next writer prints.
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        self._fd = fd

    def release(self) -> None:
        if self._fd is not None:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> StoreLock:
        self.acquire()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.release()


def _read_holder(fd: int) -> str:
    try:
        pid = os.pread(fd, 32, 0).decode().strip()
    except OSError:
        return ""
    return f" (pid {pid})" if pid.isdigit() else ""
