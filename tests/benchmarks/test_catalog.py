"""The list of benchmarks (benchmarks/catalog.py) names every benchmark script, and its commands run."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

BENCHMARKS_DIR = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCHMARKS_DIR))

import run_all  # noqa: E402
from catalog import BENCHMARKS, by_name, listing  # noqa: E402


def scripts_named() -> set[str]:
    named = {b.argv[0] for b in BENCHMARKS} | {f"benchmarks/{b.stage_module}.py" for b in BENCHMARKS if b.stage_module}
    return {Path(path).name for path in named}


def test_every_bench_script_has_a_row():
    missing = sorted(path.name for path in BENCHMARKS_DIR.glob("bench_*.py") if path.name not in scripts_named())
    assert not missing, f"add a row to benchmarks/catalog.py for {missing}"


def test_every_row_runs_something_that_exists():
    for benchmark in BENCHMARKS:
        script = benchmark.argv[0] if benchmark.argv[0].endswith(".py") else benchmark.argv[1]
        if script.startswith("../"):  # the peer's harness in ../shared, absent where the shared data is
            continue
        assert (BENCHMARKS_DIR.parent / script).is_file(), f"{benchmark.name}: {script} is missing"
        if benchmark.stage_module:
            tree = ast.parse((BENCHMARKS_DIR / f"{benchmark.stage_module}.py").read_text(encoding="utf-8"))
            assert "run" in {node.name for node in tree.body if isinstance(node, ast.FunctionDef)}


def test_the_listing_shows_each_command_and_the_runner_takes_each_name():
    text = listing()
    assert all(b.command in text for b in BENCHMARKS)
    assert by_name("dedup").command == ".venv/bin/python benchmarks/bench_dedup.py"
    assert by_name("e2e-peer").command == "bash ../shared/peer_bench/e2e_compare.sh"
    args = run_all.parse_args(["--bench", "dedup", "--", "--quick", "--docs", "500"])
    assert (args.bench, args.bench_args) == ("dedup", ["--quick", "--docs", "500"])
    assert run_all.parse_args([]).stages == [b.name for b in BENCHMARKS if b.standard] == ["extract", "langid"]
    assert set(run_all.STAGES) == {"extract", "langid", "pii", "quality", "tokenize"}
