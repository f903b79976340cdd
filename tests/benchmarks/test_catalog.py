"""The list of benchmarks (benchmarks/catalog.py) names every benchmark script; every entry's module
declares itself to the harness (harness.py) and parses no argument of its own; the runner takes
each name. Read from the sources: importing every benchmark would load Spark, torch and trafilatura."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

BENCHMARKS_DIR = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCHMARKS_DIR))

import run_all  # noqa: E402
from catalog import BENCHMARKS, by_name, listing  # noqa: E402


def module_tree(module: str) -> ast.Module:
    return ast.parse((BENCHMARKS_DIR / f"{module}.py").read_text(encoding="utf-8"))


def declared(tree: ast.Module, name: str) -> ast.Call | None:
    """The call assigned to `name` at module level (SPEC = Spec(...)), if any."""
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == name for t in node.targets):
            return node.value if isinstance(node.value, ast.Call) else None
    return None


def test_every_bench_script_has_a_row():
    named = {f"{b.module}.py" for b in BENCHMARKS if b.module}
    missing = sorted(path.name for path in BENCHMARKS_DIR.glob("bench_*.py") if path.name not in named)
    assert not missing, f"add a row to benchmarks/catalog.py for {missing}"


def test_every_row_runs_something_that_exists():
    for benchmark in BENCHMARKS:
        if benchmark.script:
            if not benchmark.script[1].startswith("../"):  # the peer's harness in ../shared, absent where it is
                assert (BENCHMARKS_DIR.parent / benchmark.script[1]).is_file(), benchmark.name
            continue
        assert (BENCHMARKS_DIR / f"{benchmark.module}.py").is_file(), f"{benchmark.name}: {benchmark.module} is missing"


def test_every_catalogued_module_declares_itself_to_the_harness_and_parses_nothing():
    for benchmark in BENCHMARKS:
        if benchmark.script:
            continue
        tree = module_tree(benchmark.module)
        imported = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
        imported |= {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
        assert "argparse" not in imported, f"{benchmark.module} parses its own arguments: declare them in its SPEC"
        argv = [n for n in ast.walk(tree) if isinstance(n, ast.Attribute) and n.attr == "argv"]
        assert not argv, f"{benchmark.module} reads sys.argv: declare its arguments in its SPEC"
        if benchmark.stage:
            stage = declared(tree, "STAGE")
            assert stage is not None and stage.func.id == "StageBench", f"{benchmark.module}: no STAGE"
            assert ast.literal_eval(stage.args[0]) == benchmark.name
            assert "run" in {node.name for node in tree.body if isinstance(node, ast.FunctionDef)}
            continue
        spec = declared(tree, "SPEC")
        assert spec is not None and spec.func.id == "Spec", f"{benchmark.module}: no SPEC = Spec(...)"
        assert ast.literal_eval(spec.args[0]) == benchmark.name, f"{benchmark.module}: its SPEC has another name"
        main_block = next(n for n in tree.body if isinstance(n, ast.If) and "__main__" in ast.unparse(n.test))
        assert "harness.main(SPEC)" in ast.unparse(main_block), f"{benchmark.module}: run it through harness.main"


def test_the_listing_shows_each_command_and_the_runner_takes_each_name():
    text = listing()
    assert all(b.command in text for b in BENCHMARKS)
    assert by_name("dedup").command == ".venv/bin/python benchmarks/run_all.py dedup"
    assert by_name("mix").command.endswith("run_all.py mix --work /tmp/mix-bench --sizes 100000,300000")
    assert by_name("e2e-peer").command == "bash ../shared/peer_bench/e2e_compare.sh"
    assert run_all.split_names(["dedup", "--quick", "--docs", "500"]) == (["dedup"], ["--quick", "--docs", "500"])
    assert run_all.split_names(["extract", "langid", "--reps", "3"]) == (["extract", "langid"], ["--reps", "3"])
    assert run_all.split_names(["wiki-residue", "vi=dump.xml"]) == (["wiki-residue"], ["vi=dump.xml"])
    assert run_all.STANDARD == ["extract", "langid"]
    assert set(run_all.STAGES) == {"extract", "langid", "pii", "quality", "tokenize"}


def test_the_runner_refuses_an_unknown_name_and_a_mix_of_a_stage_with_another(capsys):
    assert run_all.main(["no-such-bench"]) == 2
    assert "no benchmark 'no-such-bench'" in capsys.readouterr().err
    assert run_all.main(["extract", "dedup"]) == 2
    assert "only stage benchmarks" in capsys.readouterr().err
