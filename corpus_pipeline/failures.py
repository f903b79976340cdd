"""Every failure of a verb as one exit code (pipeline/exit_codes.py) and one line that names the file,
key or object; the traceback only with `--debug`.

A refusal (a bad config, an input that is not there, an output that would destroy its input) is
exit 2 only while nothing has run: once the first task started, any failure is a stage that failed
(exit 1), because work was done (an S3 server lost after 58 uploaded tasks is not "bad config").
The executors call `work_started()` before their first task; `main` calls `reset(debug)` per verb.
"""

from __future__ import annotations

import errno

_NO_SPACE = "No space left on device"  # strerror(ENOSPC), also in pyarrow's messages
_state = {"started": False, "debug": False}


def reset(debug: bool = False) -> None:
    """At the start of a verb: no work yet; `debug`: print tracebacks (`--debug`)."""
    _state.update(started=False, debug=debug)


def debugging() -> bool:
    return _state["debug"]


def work_started() -> None:
    _state["started"] = True


def has_work_started() -> bool:
    return _state["started"]


class UsageError(ValueError):
    """Arguments that do not name what a verb needs (exit 2)."""


class RunRefused(ValueError):
    """`run` or `nightly` checked the whole config before the first step and found what would fail."""


class StepFailed(RuntimeError):
    """A step of `run` raised after work was done: exit 1 whatever the cause (kept as __cause__)."""

    def __init__(self, step: str, error: BaseException):
        super().__init__(f"step {step} failed: {one_line(error)}")
        self.step = step


def _refusal_types() -> tuple[type[BaseException], ...]:
    # Imported here: this module is imported by the executors, below every one of these.
    from corpus_pipeline.config import ConfigError
    from corpus_pipeline.decontam.eval_sets import EvalSetError
    from corpus_pipeline.engine.output_guard import OutputRefusedError
    from corpus_pipeline.engine.stage_dir import MissingInputError
    from corpus_pipeline.mix.plan import MixTargetsError
    from corpus_pipeline.storage import StorageAccessError
    from corpus_pipeline.tokenize.bpe import TokenizerError

    return (
        RunRefused,
        ConfigError,
        UsageError,
        OutputRefusedError,
        MissingInputError,
        StorageAccessError,
        EvalSetError,
        TokenizerError,
        MixTargetsError,
        FileNotFoundError,
    )


def exit_code(error: BaseException) -> int:
    from corpus_pipeline.pipeline import exit_codes
    from corpus_pipeline.storage.locks import LockHeld

    if isinstance(error, StepFailed):
        return exit_codes.ERROR
    if isinstance(error, LockHeld) and not has_work_started():
        return exit_codes.LOCKED
    if isinstance(error, _refusal_types()) and not has_work_started():
        return exit_codes.USAGE
    return exit_codes.ERROR


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
