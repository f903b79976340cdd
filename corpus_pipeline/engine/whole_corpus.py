"""What a whole-corpus stage (a GlobalStage: dedup, train-tokenizer, tokenize, mix) uses of the
engine, in one place: its contract with the lifecycle, the stage directories it reads, how it plans
tasks, runs them on the executor and commits them, the names of its directory's files, and the
DataFrame steps of a Spark executor.

    class MyStage(GlobalStage):
        def run(self, input_dir, work, executor):
            tasks = plan_part_tasks(input_parts(input_dir, work.storage), rows, work.storage)
            executor.map_tasks(partial(my_task, work.task_target), tasks, "my-stage")
            ...  # a task: `if not task_done(...): commit_task(...)`, its files through TaskAttempt

The lifecycle (lifecycle.run_global) claims the output, opens the work area (`work.file(...)`,
`work.local_dir(...)`), settles the committed tasks and publishes; the stage only writes. All
of it is defined in engine/store/ (the stage directory) and engine/exec/ (the executors); a stage
imports it from here, so those rooms can change inside without a stage noticing
(tests/engine/test_whole_corpus.py holds dedup/, tokenize/ and mix/ to this module).
"""

from __future__ import annotations

from corpus_pipeline.engine.exec.spark import spark_schema
from corpus_pipeline.engine.exec.spark_read import broadcasts_by_measured_size, read_parts
from corpus_pipeline.engine.exec.spark_write import (
    PART_COLUMN,
    bucket_of,
    bucketed,
    commit_buckets,
    keep_all,
    write_bucketed_parts,
    write_parts,
)
from corpus_pipeline.engine.exec.task_plan import Task, part_name, plan_part_tasks
from corpus_pipeline.engine.exec.tasks import conform, split_verdicts, table_text_bytes
from corpus_pipeline.engine.lifecycle import Executor, GlobalStage, run_global
from corpus_pipeline.engine.publish import publish_rows
from corpus_pipeline.engine.store.layout import REJECTED_DIR, STATS_DIR, STATS_FILE, SUCCESS, WORK
from corpus_pipeline.engine.store.stage_dir import (
    MissingInputError,
    input_parts,
    read_stage_bytes,
    read_success,
    stage_files,
)
from corpus_pipeline.engine.store.task_output import (
    PARQUET_OPTIONS,
    TaskAttempt,
    commit_task,
    settle_committed,
    task_done,
)
from corpus_pipeline.engine.sub_steps import StepReport, SubStep, run_steps, spark_step

__all__ = [
    # the contract: a stage the lifecycle runs, the executor it is given, a stage it runs itself
    "Executor",
    "GlobalStage",
    "run_global",
    # a stage of many Spark jobs in materialized steps, each labelled, timed and resumable
    "SubStep",
    "StepReport",
    "run_steps",
    "spark_step",
    # the stage directories it reads: their parts, manifest and files
    "MissingInputError",
    "input_parts",
    "read_stage_bytes",
    "read_success",
    "stage_files",
    # its tasks: planned from the input alone, each committed once (task_done: already committed)
    "Task",
    "part_name",
    "plan_part_tasks",
    "TaskAttempt",
    "commit_task",
    "task_done",
    "settle_committed",
    "PARQUET_OPTIONS",
    "conform",
    "split_verdicts",
    "table_text_bytes",
    # the names of a stage directory's files (schemas/stage_dir.md)
    "REJECTED_DIR",
    "STATS_DIR",
    "STATS_FILE",
    "SUCCESS",
    "WORK",
    # rows from elsewhere published as a finished stage directory
    "publish_rows",
    # the DataFrame steps of a Spark executor (executor.session()), reading and committing parts
    # through the store, not Spark's own Parquet I/O
    "broadcasts_by_measured_size",
    "PART_COLUMN",
    "bucket_of",
    "bucketed",
    "commit_buckets",
    "keep_all",
    "read_parts",
    "spark_schema",
    "write_bucketed_parts",
    "write_parts",
]
