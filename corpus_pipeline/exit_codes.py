"""Exit codes of every verb, distinct so cron and alerting can tell them apart; the README's table
is `describe()`. `exit_code` maps a failure to its code: it stands beside the CLI, above every room
whose refusals it knows (failures.py, which the executors import, knows none of them)."""

from __future__ import annotations

from corpus_pipeline import failures

SUCCESS = 0  # done; nightly: a new snapshot is CURRENT
ERROR = 1  # a stage or a gate failed, or anything failed after work was done
# A failed gate is a failure like a failed stage: cron alerts on it the same way, and the run
# record and history say which gate and by how much.
GATE_FAILED = ERROR
USAGE = 2  # refused before anything ran: a bad config, option or override, an input that is not there
NOTHING_NEW = 3  # nightly: no input file that the published snapshot does not already hold
# sysexits.h's EX_TEMPFAIL ("try again later"): another command holds the lock of an output, or
# another nightly run that of its data_root. The cron line's `flock -E 75` gives the same code
# when the overlap is caught before Python starts.
LOCKED = 75

EXPLAINED = {
    SUCCESS: "done (nightly: a new snapshot is CURRENT)",
    ERROR: "a stage or a gate failed, or anything failed once work had started; the message names the "
    "file, key or object, the run record and history say which step or gate",
    USAGE: "refused before anything ran: a bad config file, --set value or option, an input, tokenizer or "
    "eval set that is not there, mix targets the config cannot meet",
    NOTHING_NEW: "nightly: no new input files; nothing to do",
    LOCKED: "locked: another command writes that output, or another nightly run its data_root (EX_TEMPFAIL); "
    "this one did nothing",
}


RUN_CODES = (SUCCESS, ERROR, USAGE)


def describe(codes: tuple[int, ...] = tuple(EXPLAINED)) -> str:
    """For `--help` (with argparse.RawDescriptionHelpFormatter) and the README."""
    return "exit codes:\n" + "\n".join(f"  {code:>2}  {EXPLAINED[code]}" for code in codes)


def _refusal_types() -> tuple[type[BaseException], ...]:
    # Imported when a verb failed: `corpus-pipeline --help` loads none of these rooms.
    from corpus_pipeline.config import ConfigError
    from corpus_pipeline.decontam.eval_sets import EvalSetError
    from corpus_pipeline.engine.store.stage_dir import MissingInputError
    from corpus_pipeline.mix.plan import MixTargetsError
    from corpus_pipeline.storage import StorageAccessError
    from corpus_pipeline.storage.errors import OutputRefusedError
    from corpus_pipeline.tokenize.bpe import TokenizerError

    return (
        failures.RunRefused,
        ConfigError,
        failures.UsageError,
        OutputRefusedError,
        MissingInputError,
        StorageAccessError,
        EvalSetError,
        TokenizerError,
        MixTargetsError,
        FileNotFoundError,
    )


def exit_code(error: BaseException, work_started: bool) -> int:
    """A refusal is USAGE (a held lock LOCKED) only while no task of the verb has started
    (`failures.Work`); anything else, a step that failed included, is ERROR."""
    from corpus_pipeline.storage.locks import LockHeld

    if isinstance(error, failures.StepFailed):
        return ERROR
    if isinstance(error, LockHeld) and not work_started:
        return LOCKED
    if isinstance(error, _refusal_types()) and not work_started:
        return USAGE
    return ERROR
