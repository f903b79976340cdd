"""The benchmark harness (benchmarks/harness.py): options declared, not parsed, by a benchmark; one
record per measurement in one results file; and a real benchmark, run tiny through the runner,
writing records of that one format."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from conftest import SHARED_DATA, shared_data

# The benchmarks read their data where CORPUS_BENCH_DATA says, fixed when common.py is imported.
os.environ.setdefault("CORPUS_BENCH_DATA", str(SHARED_DATA))
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import harness  # noqa: E402
import run_all  # noqa: E402
from harness import Spec, UsageError, option  # noqa: E402

RECORD_KEYS = {"benchmark", "date", "machine", "case", "metric", "value", "unit", "ratio", "against"}


def toy_spec(seen: list) -> Spec:
    def run(opts, results):
        seen.append(opts)
        if opts.size < 0:
            raise UsageError("--size must be >= 0")
        if opts.size:
            results.record("toy", "items_per_s", opts.size * 2, "items/s", ratio=2.0, against="raw")
        return 0

    return Spec("toy", "a toy benchmark", run, shared=("quick", "reps"), options=(option("--size", type=int),),
                defaults={"reps": 3, "size": 5})  # fmt: skip


def test_shared_and_declared_options_parse_with_the_benchmarks_defaults_and_records_are_written(tmp_path, capsys):
    seen = []
    output = tmp_path / "toy.json"
    assert harness.main(toy_spec(seen), ["--quick", "--output", str(output)]) == 0
    assert (seen[0].quick, seen[0].reps, seen[0].size) == (True, 3, 5)
    written = json.loads(output.read_text())
    assert written["benchmark"] == "toy" and written["options"]["reps"] == 3
    [record] = written["records"]
    assert set(record) == RECORD_KEYS
    assert (record["case"], record["value"], record["unit"], record["ratio"], record["against"]) == (
        "toy", 10.0, "items/s", 2.0, "raw"
    )  # fmt: skip
    assert f"figures in {output}" in capsys.readouterr().out


def test_a_shared_option_the_benchmark_does_not_take_is_refused_not_ignored(tmp_path):
    with pytest.raises(SystemExit) as refused:
        harness.main(toy_spec([]), ["--no-peer", "--output", str(tmp_path / "toy.json")])
    assert refused.value.code == 2
    assert not (tmp_path / "toy.json").exists()


def test_a_usage_error_exits_2_and_a_run_with_nothing_recorded_writes_no_file(tmp_path, capsys):
    with pytest.raises(SystemExit) as refused:
        harness.main(toy_spec([]), ["--size", "-1", "--output", str(tmp_path / "toy.json")])
    assert refused.value.code == 2
    assert "--size must be >= 0" in capsys.readouterr().err
    assert harness.main(toy_spec([]), ["--size", "0", "--output", str(tmp_path / "toy.json")]) == 0
    assert not (tmp_path / "toy.json").exists()  # a child process's run: its figures go to its parent


def test_a_shared_option_name_that_does_not_exist_is_a_declaration_error():
    with pytest.raises(ValueError, match="no shared option"):
        Spec("toy", "", lambda opts, results: 0, shared=("repetitions",)).parser()


@pytest.mark.realdata
def test_the_spam_benchmark_run_tiny_through_the_runner_writes_records_of_the_one_format(tmp_path):
    shared_data("text/zh_peoples_daily_199801.txt")
    output = tmp_path / "spam.json"
    assert run_all.main(["spam", "--ordinary", "2", "--spam", "1", "--output", str(output)]) == 0
    written = json.loads(output.read_text())
    assert written["benchmark"] == "spam" and written["records"]
    for record in written["records"]:
        assert set(record) == RECORD_KEYS
        assert record["benchmark"] == "spam" and 0.0 <= record["value"] <= 1.0 and record["unit"] == "fraction"
    assert {r["metric"] for r in written["records"]} == {"spam_kept_share", "ordinary_dropped_share"}
    assert written["details"]["all"]["spam"] > 0
