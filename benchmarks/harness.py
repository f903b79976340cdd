"""The one harness every benchmark runs under: the options they share, the options each one
declares, one record per measurement and one results file.

A benchmark script declares itself and parses nothing:

    SPEC = Spec("dedup", __doc__, run, shared=("quick", "work", "no_peer"), options=(option("--docs", type=int),))

`run(opts, results)` gets the parsed options and a `Results` it adds its measurements to
(`results.record(...)`, `results.add_report(report)`); anything else worth keeping goes to
`results.details`. The runner (`run_all.py NAME`) and a script's own `__main__` (how benchmarks start
their own child processes) both go through `main(SPEC)`.
"""

from __future__ import annotations

import argparse
import datetime
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path

from common import RESULTS, Ratio, StageReport, machine, write_results


@dataclass(frozen=True)
class Option:
    flag: str
    kwargs: Mapping  # argparse's add_argument keywords


def option(flag: str, hidden: bool = False, **kwargs) -> Option:
    """An option as argparse's add_argument takes it; `hidden`: left out of --help (the flags a
    benchmark starts its own child processes with)."""
    return Option(flag, {**kwargs, "help": argparse.SUPPRESS} if hidden else kwargs)


# What several benchmarks take, spelt and meaning the same everywhere; a benchmark names the ones it
# uses (a shared option it does not name is refused, not ignored) and may set its own default.
SHARED: dict[str, Option] = {
    "quick": option("--quick", action="store_true", help="a small input: a smoke run, not a measurement"),
    "reps": option("--reps", type=int, help="timings per measurement; the best one is reported"),
    "work": option("--work", type=Path, help="keep the run's files here (default: a temporary folder)"),
    "no_peer": option("--no-peer", action="store_true", help="skip the datatrove columns"),
    "config": option("--config", help="pipeline YAML whose stage settings are measured (default: built-in)"),
}
# Every benchmark writes its records here; RESULTS (git-ignored) unless given.
OUTPUT = option("--output", type=Path, help="the results JSON (default: benchmarks/results/NAME.json)")


class UsageError(Exception):
    """Options that do not go together: the harness prints the usage and exits 2."""


@dataclass(frozen=True)
class Record:
    """One measurement. `ratio` is this case's figure against `against`'s (the raw library, the
    peer, one process), where the benchmark compares them."""

    case: str
    metric: str
    value: float
    unit: str
    ratio: float | None = None
    against: str | None = None


@dataclass
class Results:
    benchmark: str
    options: dict
    records: list[Record] = field(default_factory=list)
    details: dict = field(default_factory=dict)  # the benchmark's own figures beyond its records
    date: str = field(default_factory=lambda: datetime.datetime.now().isoformat(timespec="seconds"))

    def record(
        self, case: str, metric: str, value: float, unit: str, ratio: float | None = None, against: str | None = None
    ) -> None:
        self.records.append(Record(case, metric, float(value), unit, ratio, against))

    def add_report(self, report: StageReport) -> None:
        """A stage table's columns (best rates and seconds), ratios and targets as records; the
        whole table under details[stage]."""
        for c in report.columns:
            case = f"{report.stage} ({c.key}) {c.label}"
            self.record(case, "docs_per_s", c.docs_per_s, "docs/s")
            if c.mb_per_s is not None:
                self.record(case, "mb_per_s", c.mb_per_s, "MB/s")
            self.record(case, "best_s", c.best, "s")
            if c.best_cpu is not None:
                self.record(case, "best_cpu_s", c.best_cpu, "s")
        for r in map(lambda r: Ratio(*r), report.ratios):
            self.record(f"{report.stage} {r.name}", "speed_ratio", r.value, "x", ratio=r.value, against=r.how)
        for t in report.targets:
            self.record(f"{report.stage} target: {t.name}", "target_value", t.value, t.unit)
        self.details[report.stage] = report.to_dict()

    def to_dict(self) -> dict:
        stamp = {"benchmark": self.benchmark, "date": self.date, "machine": machine()}
        return {
            **stamp,
            "options": self.options,
            "records": [{**stamp, **asdict(r)} for r in self.records],
            "details": self.details,
        }


@dataclass(frozen=True)
class Spec:
    """What a benchmark declares: its catalogue name, its description, its run and its options."""

    name: str
    doc: str
    run: Callable[[argparse.Namespace, Results], int | None]
    shared: tuple[str, ...] = ()
    options: tuple[Option, ...] = ()
    defaults: Mapping = field(default_factory=dict)  # its own defaults, of shared options too

    def parser(self) -> argparse.ArgumentParser:
        parser = argparse.ArgumentParser(
            prog=f"run_all.py {self.name}", description=self.doc, formatter_class=argparse.RawDescriptionHelpFormatter
        )
        unknown = set(self.shared) - set(SHARED)
        if unknown:
            raise ValueError(f"{self.name}: no shared option {sorted(unknown)}; they are {sorted(SHARED)}")
        for declared in (*(SHARED[name] for name in self.shared), *self.options, OUTPUT):
            parser.add_argument(declared.flag, **declared.kwargs)
        parser.set_defaults(output=RESULTS / f"{self.name}.json", **self.defaults)
        return parser


def main(spec: Spec, argv: list[str] | None = None) -> int:
    """Parse `argv` by the spec, run the benchmark, write its results file when it recorded anything
    (a benchmark's child process, which prints its figures for its parent, records nothing)."""
    parser = spec.parser()
    opts = parser.parse_args(argv)
    results = Results(spec.name, {k: str(v) if isinstance(v, Path) else v for k, v in vars(opts).items()})
    try:
        code = spec.run(opts, results) or 0
    except UsageError as error:
        parser.error(str(error))
    if results.records or results.details:
        print(f"figures in {write_results(opts.output, results.to_dict())}")
    return code
