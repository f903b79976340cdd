"""The crawl's tasks: one scrapy process per domain group (crawl/stage.py plans them).

Output (a stage directory, so it appears complete or not at all and a finished identical run is
skipped):
    warc/<prefix>-<task>-<n>.warc.gz   WARC/1.1 files of each task
    _tasks/part-<task>.json            each task's counters; _tasks/seeds.json the bad seed lines
    _logs/task-<task>.log              each scrapy process's log
    _seed_errors.txt                   malformed seeds with their line numbers
    _stats.json, _SUCCESS
Each task is one `python -m corpus_pipeline.crawl.worker` process (scrapy's reactor cannot restart)
writing into an attempt directory of its own, committed with one rename like every task
(engine/store/task_output.py): a retry or a `spark.speculation` copy never mixes its WARC files with
another attempt's, and the first attempt to finish wins.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

from corpus_pipeline.crawl.config import CrawlConfig
from corpus_pipeline.crawl.seeds import url_domain
from corpus_pipeline.crawl.stats import STAGE
from corpus_pipeline.engine.exec.task_plan import part_name
from corpus_pipeline.engine.store.task_output import STATS_DIR, TaskAttempt, task_done
from corpus_pipeline.stats import StageStats

WARC_DIR = "warc"
LOG_DIR = "_logs"


class CrawlTaskError(RuntimeError):
    """A crawl task's process failed; its log is named in the message."""


_WORKER_STATS, _WORKER_SPEC = "worker_stats.json", "worker_spec.json"


def run_task_process(spec: dict) -> int:
    """Run one task's crawl in a child process; return its task id. Skips a task already done."""
    work, name = Path(spec["work"]), part_name(spec["task_id"])
    if task_done(work, name, spec["identity"]):
        return spec["task_id"]
    attempt = TaskAttempt(work, name, spec["identity"])
    log_path = attempt.path(f"{LOG_DIR}/task-{spec['task_id']:05d}.log")
    attempt.path(f"{WARC_DIR}/").mkdir(exist_ok=True)
    worker = {**spec, "warc_dir": str(attempt.directory / WARC_DIR), "stats_path": str(attempt.path(_WORKER_STATS))}
    attempt.path(_WORKER_SPEC).write_text(json.dumps(worker), encoding="utf-8")
    with log_path.open("wb") as log:
        command = [sys.executable, "-m", "corpus_pipeline.crawl.worker", str(attempt.path(_WORKER_SPEC))]
        code = subprocess.run(command, stdout=log, stderr=subprocess.STDOUT, check=False).returncode
    stats_path = Path(worker["stats_path"])
    if code != 0 or not stats_path.exists():
        failed = work / LOG_DIR / f"failed-{log_path.name}"  # kept for the reader of the message
        failed.parent.mkdir(parents=True, exist_ok=True)
        log_path.replace(failed)
        attempt.abort()
        raise CrawlTaskError(f"crawl task {spec['task_id']} failed (exit {code}); see {failed}")
    stats = StageStats.read(stats_path)
    stats_path.unlink()
    attempt.path(_WORKER_SPEC).unlink()
    attempt.commit({STAGE: stats})
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
                "work": str(work),
                # What the task covers: a resumed crawl reuses a finished task only for the same seeds.
                "identity": hashlib.sha256(json.dumps(sorted(seeds)).encode()).hexdigest(),
            }
        )
    return specs
