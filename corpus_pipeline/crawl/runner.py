"""The crawl's tasks: one scrapy process per domain group (crawl/stage.py plans them).

Output (a stage directory, so it appears complete or not at all and a finished identical run is
skipped):
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
from pathlib import Path

from corpus_pipeline.config import CrawlConfig
from corpus_pipeline.crawl.seeds import url_domain
from corpus_pipeline.crawl.stats import STAGE
from corpus_pipeline.engine.task_output import STATS_DIR
from corpus_pipeline.engine.task_plan import part_name
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


def seed_stats(errors, work: Path) -> None:
    """Malformed seeds count as attempted and dropped, so they show in the funnel."""
    stats = StageStats(STAGE)
    for _ in errors:
        stats.count_in(0)
        stats.count_dropped("malformed_seed")
    (work / STATS_DIR).mkdir(parents=True, exist_ok=True)
    stats.write(work / STATS_DIR / "seeds.json")
    (work / "_seed_errors.txt").write_text("".join(f"{e}\n" for e in errors), encoding="utf-8")


def task_specs(groups: list[list[str]], config: CrawlConfig, work: Path, validators: dict) -> list[dict]:
    specs = []
    for task_id, seeds in enumerate(groups):
        domains = {url_domain(u) for u in seeds}
        specs.append(
            {
                "task_id": task_id,
                "seeds": seeds,
                "config": config.model_dump(mode="json"),
                "validators": {u: v for u, v in validators.items() if url_domain(u) in domains},
                "warc_dir": str(work / WARC_DIR),
                "stats_path": str(work / STATS_DIR / f"{part_name(task_id)}.json"),
                "log_path": str(work / LOG_DIR / f"task-{task_id:05d}.log"),
            }
        )
    return specs
