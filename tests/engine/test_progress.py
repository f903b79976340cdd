"""Progress of long work under the local runner: a live line on a terminal, a plain line every
N seconds in a log, with tasks done of total, documents per second and time left."""

from __future__ import annotations

import io

from stage_fixtures import real_documents, write_stage

from corpus_pipeline.config import PipelineConfig
from corpus_pipeline.engine.exec.local import LocalExecutor
from corpus_pipeline.engine.exec.progress import Progress
from corpus_pipeline.stage_runner import run_stage
from corpus_pipeline.stats import StageStats


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _run(stream, tasks=10, seconds_per_task=10.0, interval=30.0) -> None:
    clock = Clock()
    progress = Progress("quality", tasks, interval, stream, clock)
    for _ in range(tasks):
        clock.now += seconds_per_task
        progress.advance({"quality": StageStats("quality", docs_in=500, kept=400)})


def test_a_log_gets_a_plain_line_every_interval_and_one_at_the_end():
    log = io.StringIO()
    _run(log)
    lines = log.getvalue().splitlines()
    assert lines == [
        "quality: 3/10 tasks, 50 docs/s, 70 s left",
        "quality: 6/10 tasks, 50 docs/s, 40 s left",
        "quality: 9/10 tasks, 50 docs/s, 10 s left",
        "quality: 10/10 tasks, 50 docs/s, done in 2 min",
    ]
    assert "\r" not in log.getvalue()


def test_a_terminal_gets_one_line_rewritten_after_every_task():
    terminal = Terminal()
    _run(terminal, tasks=4, seconds_per_task=600.0)
    shown = terminal.getvalue()
    assert shown.count("\r") == 4 and shown.endswith("\n") and shown.count("\n") == 1
    assert "\rquality: 1/4 tasks, 1 docs/s, 30 min left" in shown
    assert shown.rstrip("\n").rsplit("\r", 1)[1].startswith("quality: 4/4 tasks, 1 docs/s, done in 40 min")


def test_tasks_that_count_no_documents_show_tasks_and_time_only():
    log = io.StringIO()
    clock = Clock()
    progress = Progress("mix: encode", 2, 0.0, log, clock)
    clock.now = 5400.0
    progress.advance(None)
    assert log.getvalue().splitlines() == ["mix: encode: 1/2 tasks, 1.5 h left"]


def test_the_local_executor_reports_progress_per_stage(tmp_path, capsys):
    documents = write_stage(tmp_path / "docs", real_documents(english=20, chinese=0), parts=3)
    executor = LocalExecutor(progress_seconds=1e9)  # only the final line: the test is not timed
    run_stage("normalize", documents, tmp_path / "out", PipelineConfig(), executor)
    lines = [line for line in capsys.readouterr().err.splitlines() if "tasks" in line]
    assert len(lines) == 1 and lines[0].startswith("normalize: 3/3 tasks, ") and "docs/s, done in" in lines[0]


def test_a_log_hears_from_a_long_task_every_interval_while_it_runs():
    """One task of many minutes: the heartbeat writes the line every interval meanwhile."""
    import time

    log = io.StringIO()
    with Progress("extract", 2, 0.05, log) as progress:
        time.sleep(0.4)  # the first task, still running: about 8 heartbeats
        progress.advance(None)
    lines = log.getvalue().splitlines()
    assert 4 <= sum(line == "extract: 0/2 tasks" for line in lines) <= 9
    assert all(line.startswith("extract: ") for line in lines)
