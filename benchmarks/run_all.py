"""The one benchmark runner (`make bench`): the list of every benchmark (catalog.py), then one
benchmark by name with its options, or the standard set. Every benchmark's options and results come
from harness.py: `run_all.py NAME --help` shows that benchmark's; its records go to
benchmarks/results/NAME.json (--output).

    python benchmarks/run_all.py                           # the list, then the standard set: extract + langid, 2 reps
    python benchmarks/run_all.py langid --quick            # smoke run, under 2 minutes
    python benchmarks/run_all.py pii quality --no-peer     # stage benchmarks run together in one process
    python benchmarks/run_all.py dedup --quick             # any benchmark of the list, with its options
    python benchmarks/run_all.py --list                    # the list alone
"""

from __future__ import annotations

import importlib
import subprocess
import sys

import harness
import stage_runs
from catalog import BENCHMARKS, by_name, listing
from common import REPO

STAGES = {b.name: b.module for b in BENCHMARKS if b.stage}
STANDARD = [b.name for b in BENCHMARKS if b.standard]


def split_names(argv: list[str]) -> tuple[list[str], list[str]]:
    """(the benchmark names that lead `argv`, the arguments after them: a benchmark's options and
    positional arguments). An unknown first word counts as a name, so that it is refused by name."""
    names = {b.name for b in BENCHMARKS}
    count = next((i for i, arg in enumerate(argv) if arg not in names), len(argv))
    if count == 0 and argv and not argv[0].startswith("-"):
        count = 1
    return argv[:count], argv[count:]


def spec_of(names: list[str]) -> harness.Spec:
    """The Spec that runs `names`: one benchmark's own, or stage benchmarks together."""
    benchmarks = [by_name(name) for name in names]
    if all(b.stage for b in benchmarks):
        return stage_runs.spec(names, STAGES)
    if len(benchmarks) > 1:
        raise KeyError(f"{names}: only stage benchmarks ({', '.join(STAGES)}) run together")
    return importlib.import_module(benchmarks[0].module).SPEC


def run_script(argv: tuple[str, ...], extra: list[str]) -> int:
    """A shell script of the list, from the project root, with `extra` arguments."""
    print(f"$ {' '.join((*argv, *extra))}", flush=True)
    return subprocess.run([*argv, *extra], cwd=REPO, check=False).returncode


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    names, options = split_names(argv)
    if not names and options in (["--help"], ["-h"]):
        print(__doc__)
        return 0
    if not names:
        print(listing() + "\n", flush=True)
        if options == ["--list"]:
            return 0
        names = STANDARD
    try:
        if by_name(names[0]).script:  # a shell script takes whatever follows its name
            return run_script(by_name(names[0]).script, argv[1:])
        spec = spec_of(names)
    except KeyError as error:
        print(error.args[0], file=sys.stderr)
        return 2
    return harness.main(spec, options)


if __name__ == "__main__":
    sys.exit(main())
