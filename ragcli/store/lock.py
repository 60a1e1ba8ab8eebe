"""Locks between processes: an advisory `flock` on a file (through the filelock package).

The kernel drops the lock when its holder dies, however it dies (SIGKILL included), so a
crashed ingest or build never leaves a stale lock behind. Readers (`ragcli ask`) never
take the store's lock."""

from __future__ import annotations

import os
from pathlib import Path
from types import TracebackType

import filelock

from ragcli.errors import ExitCode, RagcliError

LOCK_FILE = "ingest.lock"


class StoreBusyError(RagcliError):
    exit_code = ExitCode.BUSY


class FileLock:
    """Held by one process at a time; `acquire` waits up to `timeout` seconds (forever when
    negative). The file records its holder's pid, for the message a waiter prints. Any
    thread may release it (a timer does in the tests), so the lock is not thread-local."""

    def __init__(self, path: Path, timeout: float = -1, poll: float = 0.1):
        self.path = Path(path)
        self.timeout = timeout
        self._lock = filelock.FileLock(
            self.path,
            thread_local=False,
            poll_interval=poll,
            fallback_to_soft=False,  # a pid file would outlive a killed holder
            preserve_lock_file=True,
            on_acquired=_record_holder,
        )

    def try_acquire(self) -> bool:
        return self._acquire(0)

    def acquire(self) -> None:
        if not self._acquire(self.timeout):
            raise self.busy()

    def busy(self) -> RagcliError:
        """The error `acquire` raises when the wait ran out."""
        return RagcliError(f"{self.path}: held by another process{self.holder()}")

    def holder(self) -> str:
        try:
            pid = self.path.read_text(encoding="ascii", errors="replace").strip()
        except OSError:
            return ""
        return f" (pid {pid})" if pid.isdigit() else ""

    def release(self) -> None:
        self._lock.release(force=True)

    close = release

    def _acquire(self, timeout: float) -> bool:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self._lock.acquire(timeout=timeout)
        except filelock.Timeout:
            return False
        return True

    def __enter__(self) -> FileLock:
        self.acquire()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.release()


class StoreLock(FileLock):
    """One writer per store: `ingest.lock` in the store directory."""

    def __init__(self, store_dir: Path, timeout: float, poll: float = 0.1):
        super().__init__(Path(store_dir) / LOCK_FILE, timeout, poll)

    def busy(self) -> RagcliError:
        return StoreBusyError(
            f"{self.path.parent}: another ingest is running{self.holder()}; "
            f"waited {self.timeout:g}s (store.lock_timeout)"
        )


def _record_holder(fd: int) -> None:
    os.ftruncate(fd, 0)
    os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
