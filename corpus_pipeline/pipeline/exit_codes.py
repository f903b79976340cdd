"""Exit codes of `corpus-pipeline run` and `nightly`, distinct so cron and alerting can tell them apart."""

from __future__ import annotations

SUCCESS = 0  # run: every step finished; nightly: a new snapshot is CURRENT
ERROR = 1  # a step failed (the traceback is in the log, the reason in the run record)
USAGE = 2  # a bad config, option or override: nothing ran
NOTHING_NEW = 3  # nightly: no input file that the published snapshot does not already hold
GATE_FAILED = 4  # a corpus quality gate failed: nothing published, the record says which gate
# sysexits.h's EX_TEMPFAIL ("try again later"): another command holds the lock of an output, or
# another nightly run that of its data_root. The cron line's `flock -E 75` gives the same code
# when the overlap is caught before Python starts.
LOCKED = 75

EXPLAINED = {
    SUCCESS: "success (nightly: a new snapshot was published)",
    ERROR: "error: a step failed; see the log and the run record",
    USAGE: "usage: the config or an option is invalid; nothing ran",
    NOTHING_NEW: "nightly: no new input files; nothing to do",
    GATE_FAILED: "a quality gate failed; nothing was published, the run record says which",
    LOCKED: "locked: another command writes that output (nightly: another nightly run); this one did nothing",
}


RUN_CODES = (SUCCESS, ERROR, USAGE, GATE_FAILED)


def describe(codes: tuple[int, ...] = tuple(EXPLAINED)) -> str:
    """For `--help` (with argparse.RawDescriptionHelpFormatter) and the README."""
    return "exit codes:\n" + "\n".join(f"  {code:>2}  {EXPLAINED[code]}" for code in codes)
