"""`run_crawl`: seeds file -> crawl output directory, locally or as a Spark job.

Output (a StageDir, so it appears complete or not at all and a finished identical run is skipped):
    warc/<prefix>-<task>-<n>.warc.gz   WARC/1.1 files of each task
    _tasks/part-<task>.json            each task's counters; _tasks/seeds.json the bad seed lines
    _logs/task-<task>.log              each scrapy process's log
    _seed_errors.txt                   malformed seeds with their line numbers
    _stats.json, _SUCCESS
Each task is one `python -m corpus_pipeline.crawl.worker` process (scrapy's reactor cannot restart).
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

from corpus_pipeline.config import PipelineConfig
from corpus_pipeline.crawl.previous import load_validators
from corpus_pipeline.crawl.seeds import partition_by_domain, read_seeds, url_domain
from corpus_pipeline.crawl.stats import STAGE
from corpus_pipeline.engine.runner import StageResult
from corpus_pipeline.engine.stage_dir import StageDir, file_identity, fingerprint
from corpus_pipeline.engine.task_output import STATS_DIR, task_stats_path
from corpus_pipeline.stats import StageStats

WARC_DIR = "warc"
LOG_DIR = "_logs"


class CrawlTaskError(RuntimeError):
    """A crawl task's process failed; its log is named in the message."""


def run_task_process(spec: dict) -> int:
    """Run one task's crawl in a child process; return its task id. Skips a task already done."""
    stats_path = Path(spec["stats_path"])
    if stats_path.exists():
        return spec["task_id"]
    # Files of an earlier failed attempt of this task would otherwise survive a shorter retry.
    prefix = f"{spec['config']['warc_prefix']}-{spec['task_id']:05d}-"
    for stale in Path(spec["warc_dir"]).glob(f"*{prefix}*"):
        stale.unlink()
    log_path = Path(spec["log_path"])
    log_path.parent.mkdir(parents=True, exist_ok=True)
    spec_path = log_path.with_suffix(".spec.json")
    spec_path.write_text(json.dumps(spec), encoding="utf-8")
    with log_path.open("wb") as log:
        command = [sys.executable, "-m", "corpus_pipeline.crawl.worker", str(spec_path)]
        code = subprocess.run(command, stdout=log, stderr=subprocess.STDOUT, check=False).returncode
    if code != 0 or not stats_path.exists():
        raise CrawlTaskError(f"crawl task {spec['task_id']} failed (exit {code}); see {log_path}")
    return spec["task_id"]


def _seed_stats(errors, work: Path) -> None:
    """Malformed seeds count as attempted and dropped, so they show in the funnel."""
    stats = StageStats(STAGE)
    for _ in errors:
        stats.count_in(0)
        stats.count_dropped("malformed_seed")
    (work / STATS_DIR).mkdir(parents=True, exist_ok=True)
    stats.write(work / STATS_DIR / "seeds.json")
    (work / "_seed_errors.txt").write_text("".join(f"{e}\n" for e in errors), encoding="utf-8")


def task_specs(groups: list[list[str]], config: PipelineConfig, work: Path, validators: dict) -> list[dict]:
    specs = []
    for task_id, seeds in enumerate(groups):
        domains = {url_domain(u) for u in seeds}
        specs.append(
            {
                "task_id": task_id,
                "seeds": seeds,
                "config": config.crawl.model_dump(mode="json"),
                "validators": {u: v for u, v in validators.items() if url_domain(u) in domains},
                "warc_dir": str(work / WARC_DIR),
                "stats_path": str(task_stats_path(work, task_id)),
                "log_path": str(work / LOG_DIR / f"task-{task_id:05d}.log"),
            }
        )
    return specs


def run_crawl(
    seeds_file: str | Path, output: Path, config: PipelineConfig, runner: str = "local", previous: Path | None = None
) -> StageResult:
    """Crawl the seeds into `output`. runner "local": one process crawls everything; "spark": the
    seeds are split by registered domain into tasks that run on the cluster."""
    seeds = read_seeds(seeds_file)
    for error in seeds.errors:
        print(f"{seeds_file}: {error}", file=sys.stderr)
    identity = file_identity([str(seeds_file)]) + [runner]
    if previous is not None:
        identity += file_identity(sorted(str(p) for p in Path(previous).rglob("*.warc.gz")))
    stage_dir = StageDir(Path(output), fingerprint(STAGE, config.crawl.model_dump_json(), identity))
    if stage_dir.is_done():
        return StageResult(Path(output), stage_dir.done_stats(), skipped=True)
    started = time.perf_counter()
    work = stage_dir.begin()
    _seed_stats(seeds.errors, work)
    validators = load_validators(previous) if previous is not None else {}
    if seeds.urls:
        if runner == "spark":
            from corpus_pipeline.crawl.spark_tasks import run_tasks_on_spark

            specs = task_specs(partition_by_domain(seeds.urls, config.crawl.tasks), config, work, validators)
            run_tasks_on_spark(specs, config)
        elif runner == "local":
            run_task_process(task_specs([seeds.urls], config, work, validators)[0])
        else:
            raise ValueError(f"unknown runner {runner!r}: expected 'spark' or 'local'")
    return StageResult(Path(output), stage_dir.finish(STAGE, time.perf_counter() - started), skipped=False)
