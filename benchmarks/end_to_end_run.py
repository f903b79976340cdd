"""One whole pipeline run (`run_pipeline`) in this fresh process, measured: prints one JSON line.

    python benchmarks/end_to_end_run.py CONFIG RUNNER RUN_DIR

bench_end_to_end.py starts one per runner. A process of its own per run, because a SparkSession
outlives the run inside a process (the second run would get the first one's JVM, warm), and
because CPU seconds are only countable per process tree: `tree_cpu()` read at the end, while the
JVM and its Python workers are still alive, holds everything the run cost since this interpreter
started. Its imports are kept light (common.py) so start-up is the pipeline's own. Under the Spark
runner the session is started before the first step and reported apart (JVM and SparkContext),
since every step gets that one session (getOrCreate) and the first Spark step would otherwise carry
it; the local runner starts none (dedup decides 1,432 pages on the driver), so its run has none.
"""

from __future__ import annotations

import json
import sys
from itertools import pairwise
from pathlib import Path

from common import tree_clocks

FRESH = {"ran", "not needed"}  # "reused" would mean a stage was skipped as done: no measurement


def fused_with(output: Path | None) -> list[str]:
    """The stages that ran in one pass with this step's stage, as its `_SUCCESS` records them (the
    whole pass's time lands in the first one's step); [] for a stage that ran alone, or no stage."""
    marker = Path(output) / "_SUCCESS" if output is not None else None
    if marker is None or not marker.is_file():
        return []
    return json.loads(marker.read_text(encoding="utf-8")).get("fused_with", [])


def one_run(config_path: str, runner: str, run_dir: Path) -> dict:
    from corpus_pipeline.config import load_config
    from corpus_pipeline.engine.exec.session import get_spark
    from corpus_pipeline.pipeline.context import RunPlan
    from corpus_pipeline.pipeline.runner import SUCCEEDED, run_pipeline

    if run_dir.exists():
        raise SystemExit(f"{run_dir} exists: a measured run needs a fresh run directory")
    config = load_config(config_path)
    # The session every Spark step gets (getOrCreate), started apart so that extract does not
    # carry the JVM's start.
    before_session = tree_clocks()
    if runner == "spark":
        get_spark(config.spark)
    marks = [tree_clocks()]  # before the first step; one more after each

    def log(line: str) -> None:
        marks.append(tree_clocks())
        print(f"  [{runner}] {line}", file=sys.stderr, flush=True)

    result = run_pipeline(RunPlan.from_config(config, runner, run_dir), log=log)
    end_wall, end_cpu = tree_clocks()
    if result.status != SUCCEEDED:
        raise SystemExit(f"the {runner} run ended {result.status}: {result.record.data.get('reason')}")
    steps = {}
    for (name, outcome), (before, after) in zip(result.outcomes.items(), pairwise(marks), strict=True):
        if outcome.status not in FRESH:
            raise SystemExit(f"step {name} was {outcome.status}: not a fresh run")
        stats = outcome.stats
        steps[name] = {
            "status": outcome.status,
            "wall_s": after[0] - before[0],
            "cpu_s": after[1] - before[1],
            "docs_in": stats.docs_in if stats else None,
            "kept": stats.kept if stats else None,
            "fused_with": fused_with(outcome.output),
        }
    tokens = result.outcomes["tokenize"].stats.extra.get("tokens", {})
    return {
        "runner": runner,
        "master": config.spark.master,
        "start_cpu_s": before_session[1],  # interpreter start, imports, config
        "session_start_wall_s": marks[0][0] - before_session[0],
        "session_start_cpu_s": marks[0][1] - before_session[1],  # pyspark import, JVM, SparkContext
        "pipeline_wall_s": end_wall - marks[0][0],
        "pipeline_cpu_s": end_cpu - marks[0][1],
        "cpu_s": end_cpu,  # the whole process tree since this interpreter started
        "steps": steps,
        "tokens": tokens,
    }


if __name__ == "__main__":
    config_path, runner, run_dir = sys.argv[1:]
    print(json.dumps(one_run(config_path, runner, Path(run_dir))), flush=True)
