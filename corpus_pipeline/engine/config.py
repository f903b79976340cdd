"""How stages are cut into tasks and what a fused chain of document stages writes."""

from __future__ import annotations

from pydantic import Field

from corpus_pipeline.config_base import Strict

# What runs a stage's tasks (`--runner`): spark, as Spark tasks (local[*] unless spark-submit set a
# master); local, one after another in this process.
RUNNERS = ("spark", "local")


class EngineConfig(Strict):
    # Rows per document task: a task covers whole row groups of one input part, up to this many
    # rows. The plan depends on the input alone, never on the cluster, so a run resumed with other
    # cores or another runner finds the same tasks. 5,000 web pages are ~25 MB of text and 3-10 s of
    # work for the slowest stage (quality), long enough to amortise a Spark task's ~50 ms start.
    task_rows: int = Field(default=5_000, ge=1)
    # Bytes of a WARC per extract task (readers/warc_spans.py): a large file is read by several
    # tasks, so one file keeps every core busy; decided by the input alone. 8 MiB is ~240 of the
    # real pages (shared/data/web: 49.6 MB, 1,432 pages: 6 tasks, 3 a core on 2) and ~6 CPU s of
    # extraction; a task costs ~0.3 CPU s more (1 task: 33.7 CPU s, 6: 35.2, 24: 37.0; 2026-12-02, load 3).
    task_bytes: int = Field(default=8 << 20, ge=1 << 12)
    # Consecutive document stages run in one pass and only the last writes kept documents; true
    # writes every stage's kept documents as well (to rerun from the middle of a chain, or inspect).
    write_intermediate: bool = False
    # Under the local runner, when stderr is not a terminal (a log): seconds at least between two
    # progress lines of a stage (on a terminal the line is rewritten after every task).
    progress_seconds: float = Field(default=30.0, gt=0)
    # Memory one process of a stage may use, in MiB: what decides whether dedup decides in its own
    # process or by Spark jobs (dedup/driver_budget.py estimates its peak from the input's rows and
    # bytes). 1,536 is a 2 GB worker less 512 MB for the OS, the page cache of the files it reads
    # and a Python worker beside it. With 5,000 documents an output part, dedup decides in its own
    # process up to ~890,000 documents of 6 kB, ~225,000 of 50 kB (1.3 kB of hashes and ids a
    # document, 4x a part's text while it is written, 300 MB of process: dedup/driver_budget.py).
    # It sizes an embedded Spark session's JVM too: its heap is this less 768 MB for the rest of the
    # JVM (engine/exec/session.py; spark.conf's spark.driver.memory, when set, wins).
    memory_mb: int = Field(default=1_536, ge=256)
