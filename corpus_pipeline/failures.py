"""Every failure of a verb as one exit code (exit_codes.py, beside the CLI, picks it) and one line
that names the file, key or object; the traceback only with `--debug`. This module imports nothing
of the project, so the executors below every stage can report to it.

A refusal (a bad config, an input that is not there, an output that would destroy its input) is
exit 2 only while nothing has run: once the first task started, any failure is a stage that failed
(exit 1), because work was done (an S3 server lost after 58 uploaded tasks is not "bad config").
`main` makes one `Work` per verb and hands it to the executors it makes, which mark it before their
first task; no state outlives the verb (a second verb in the same process starts from nothing).
"""

from __future__ import annotations

import errno
from dataclasses import dataclass

_NO_SPACE = "No space left on device"  # strerror(ENOSPC), also in pyarrow's messages


@dataclass
class Work:
    """What one verb has done: `started` once an executor began its first task."""

    started: bool = False


class UsageError(ValueError):
    """Arguments that do not name what a verb needs (exit 2)."""


class RunRefused(ValueError):
    """`run` or `nightly` checked the whole config before the first step and found what would fail."""


class StepFailed(RuntimeError):
    """A step of `run` raised after work was done: exit 1 whatever the cause (kept as __cause__)."""

    def __init__(self, step: str, error: BaseException):
        super().__init__(f"step {step} failed: {one_line(error)}")
        self.step = step


def one_line(error: BaseException) -> str:
    """The error as one line a person can act on: the file for an OS error, the first line else."""
    if isinstance(error, OSError) and (error.errno == errno.ENOSPC or _NO_SPACE in str(error)):
        # pyarrow's writers raise a bare OSError whose message holds the path, not .filename
        where = error.filename or str(error).splitlines()[0]
        return f"no space left on the device: {where} (free space there, or point data_root elsewhere)"
    if isinstance(error, OSError) and error.strerror and error.filename and not isinstance(error, FileNotFoundError):
        return f"{error.filename}: {error.strerror}"
    text = str(error).strip()
    first = text.splitlines()[0] if text else ""
    if isinstance(error, KeyError | AttributeError | TypeError | IndexError) or not first:
        return f"{type(error).__name__}: {first or 'no message'} (run again with --debug for the traceback)"
    return first
