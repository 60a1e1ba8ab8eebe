"""Domain errors and the exit codes scripts can rely on (docs/configuration.md, "Exit codes")."""

from enum import IntEnum


class ExitCode(IntEnum):
    OK = 0  # answered / ingested
    FAILURE = 1  # an unexpected or external failure
    USAGE = 2  # bad arguments or configuration
    LIMITED = 3  # limited or unverified answer; ingest finished with failed files
    CLARIFY = 4  # the question needs clarification
    NOT_COVERED = 5  # handoff: the documents do not cover the question
    BUSY = 6  # another ingest holds the store's lock (store.lock_timeout ran out)
    REGRESSION = 7  # eval --baseline: a gated metric dropped by more than the tolerance
    INTERRUPTED = 130  # ingest stopped by Ctrl-C or SIGTERM (128 + SIGINT, as shells say)


# What `ask` exits with for each AskResult.answer_type (docs/configuration.md, "Exit codes").
ANSWER_EXIT_CODES: dict[str, ExitCode] = {
    "answer": ExitCode.OK,
    "limited": ExitCode.LIMITED,
    "unverified": ExitCode.LIMITED,
    "clarification": ExitCode.CLARIFY,
    "handoff": ExitCode.NOT_COVERED,
    "not_covered": ExitCode.NOT_COVERED,
}


def exit_code_for(answer_type: str) -> ExitCode:
    """An answer type outside the shared vocabulary is not a plain answer: treat it as limited,
    so a script never takes an unknown outcome for a full answer."""
    return ANSWER_EXIT_CODES.get(answer_type or "answer", ExitCode.LIMITED)


class RagcliError(Exception):
    """An error meant for the user: printed as one line, never as a traceback."""

    exit_code: ExitCode = ExitCode.FAILURE

    def __init__(self, message: str, exit_code: ExitCode | None = None):
        super().__init__(message)
        if exit_code is not None:
            self.exit_code = exit_code


class ConfigError(RagcliError):
    exit_code = ExitCode.USAGE


class EmptyStoreError(RagcliError):
    exit_code = ExitCode.USAGE


class NoMatchError(RagcliError):
    """A filter (--path, --type, --since) admits no ingested file: said plainly, never
    widened to the whole store."""

    exit_code = ExitCode.NOT_COVERED


class BackendError(RagcliError):
    """A model or web service failed after its retries."""
