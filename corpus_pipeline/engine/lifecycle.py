"""The one lifecycle of every stage: claim the output (guard and lock), fingerprint, skip when
done, work directory, run the tasks (resuming the finished ones), merge and check the counters,
publish atomically (schemas/stage_dir.md).

`run_chain` runs a source or document stage and the document stages after it in one pass over each
task (a fused pass: each stage still writes its own directory); `run_global` runs a stage that sees
all documents at once (dedup, train-tokenizer, tokenize, crawl, mix) through its `run(...)` hook.
Both ask only the stage store's protocol (store_protocol.StageStore, answered by stage_dir.StageDir
and object_stage.ObjectStageDir), never which scheme an output has.
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from contextlib import ExitStack
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Protocol

from corpus_pipeline.engine.config import EngineConfig
from corpus_pipeline.engine.exec.task_plan import file_identity, plan_file_tasks, plan_part_tasks
from corpus_pipeline.engine.exec.tasks import Chain, run_chain_task
from corpus_pipeline.engine.store.stage_dir import (
    KEPT_HERE,
    Location,
    check_output_apart,
    fingerprint,
    input_parts,
    location,
    open_stage_dir,
    read_success,
)
from corpus_pipeline.engine.store.store_protocol import StageStore, StageWork
from corpus_pipeline.engine.store.task_output import settle_committed
from corpus_pipeline.stages.base import DocumentStage, SourceStage, StageRefusedError
from corpus_pipeline.stats import StageStats
from corpus_pipeline.storage import Storage
from corpus_pipeline.storage.parquet import parquet_schema


class Executor(Protocol):
    distributed: bool  # False: tasks run one after another in this process

    def map_tasks(self, function, tasks, label: str) -> list: ...

    def session(self):  # the SparkSession of the steps that are DataFrame jobs
        ...


@dataclass
class StageResult:
    output: Location
    stats: StageStats
    skipped: bool  # True: an identical earlier run's output was reused


class GlobalStage(ABC):
    """A stage over all documents at once. The lifecycle gives it its work (LocalWork, or ObjectWork
    for an `s3://` output: stage_dir.py, object_stage.py); it writes its files through it, its
    counters as `_tasks/*.json` (or through TaskAttempt commits to `work.task_target`), and returns."""

    name: str = ""
    # True: its tasks share a directory while it runs (work.local_dir): on a store, the scratch one.
    uses_local_dir: bool = False

    def config_fingerprint(self) -> str:
        return repr(getattr(self, "config", None))

    def input_identity(self, executor: Executor) -> list[str]:
        """What besides the input stage and the config decides the output (an index, a tokenizer)."""
        return []

    def inputs(self) -> list[Path]:
        """Paths besides `--input` that the output must not overlap."""
        return []

    @abstractmethod
    def run(self, input_dir: Location | list[Location] | None, work: StageWork, executor: Executor) -> dict:
        """Write the stage's output through `work`; returns facts for its `_SUCCESS` marker."""

    def finish(self, work: StageWork) -> None:  # noqa: B027 - an optional hook, not abstract
        """Runs once every committed task's files are in `work` (token shards get their numbers)."""


def _writes_kept(stages: int, engine: EngineConfig) -> list[bool]:
    """Which stages of a chain write their kept documents: the last, or all (write_intermediate)."""
    return [engine.write_intermediate or i == stages - 1 for i in range(stages)]


def _stage_config(stage, write_kept: bool) -> str:
    # Where the kept documents go is part of what the stage directory holds.
    return stage.config_fingerprint() + ("" if write_kept else " kept=passed-on")


def chain_dirs(
    stages, source: list[str] | Location, outputs: list[Location], engine: EngineConfig, storage: Storage
) -> list[StageStore]:
    """The stage store (output and fingerprint) of each stage of a chain, before anything runs."""
    if isinstance(source, list):
        identity = [file_identity(path, storage) for path in source]
    else:
        identity = [read_success(source, storage)["fingerprint"]]
    if len({type(location(output)) for output in outputs}) > 1:
        raise ValueError(f"a fused pass writes all its outputs locally or all to a store, not {outputs}")
    dirs = []
    for stage, output, keep in zip(stages, outputs, _writes_kept(len(stages), engine), strict=True):
        digest = fingerprint(stage.name, _stage_config(stage, keep), identity)
        dirs.append(open_stage_dir(location(output), digest, storage))
        identity = [dirs[-1].fingerprint]
    return dirs


def run_chain(
    stages: list[SourceStage | DocumentStage],
    source: list[str] | Location,
    outputs: list[Location],
    executor: Executor,
    engine: EngineConfig | None = None,
    *,
    storage: Storage,
) -> list[StageResult]:
    """Run `stages` (a source stage first, reading the files `source`, or document stages reading
    the stage directory `source`) into `outputs`, one per stage, in one pass over each task."""
    engine = engine or EngineConfig()
    inputs = list(source) if isinstance(source, list) else [source]
    for output in outputs:
        check_output_apart(output, inputs)
    dirs = chain_dirs(stages, source, outputs, engine, storage)
    with ExitStack() as claims:
        for stage_dir in dirs:
            claims.enter_context(stage_dir.claim())
        return _run_claimed(stages, source, dirs, executor, engine, storage)


def _run_claimed(stages, source, dirs, executor, engine: EngineConfig, storage: Storage) -> list[StageResult]:
    write_kept = _writes_kept(len(stages), engine)
    done = [stage_dir.is_done() for stage_dir in dirs]
    if all(done):
        return [StageResult(d.output, d.done_stats(), skipped=True) for d in dirs]
    # Resume after the last finished stage that holds its kept documents; stages before it whose
    # documents were passed on run again (same bytes) when a later one must.
    first = next(i for i, finished in enumerate(done) if not finished)
    start = next((i + 1 for i in range(first - 1, -1, -1) if done[i] and dirs[i].kept_here()), 0)
    reused = [StageResult(d.output, d.done_stats(), skipped=True) for d in dirs[:start]]
    chain_input = source if start == 0 else dirs[start - 1].output
    try:
        ran = _run_tasks(stages[start:], chain_input, dirs[start:], write_kept[start:], executor, engine, storage)
    except Exception:
        _abandon_unless_resumable(dirs[start:])
        raise
    return reused + ran


def _abandon_unless_resumable(dirs) -> None:
    """A stage that failed before any task committed leaves nothing behind; one with committed
    tasks keeps them, for the rerun to reuse."""
    if not dirs[-1].has_committed_tasks():
        for stage_dir in dirs:
            stage_dir.abandon()


def _run_tasks(stages, source, dirs: list[StageStore], write_kept, executor, engine, storage) -> list[StageResult]:
    started = time.perf_counter()
    for stage_dir in dirs:
        stage_dir.begin()
    head = stages[0] if isinstance(stages[0], SourceStage) else None
    if head is not None:
        tasks = plan_file_tasks(list(source), storage, partial(head.spans, task_bytes=engine.task_bytes))
        schemas, documents = [head.output_schema()], stages[1:]
    else:
        parts = input_parts(source, storage)
        tasks = plan_part_tasks(parts, engine.task_rows, storage)
        schemas, documents = [_input_schema(parts, storage)], stages
    for stage in documents:
        schemas.append(stage.output_schema(schemas[-1]))
    last = dirs[-1]
    last.forget_stale_tasks(dirs, {task.name: task.identity for task in tasks})
    chain = Chain(
        work=str(last.work),
        source=head,
        stages=tuple(documents),
        schemas=tuple(schemas),
        write_kept=tuple(write_kept),
        outputs=last.task_areas([stage.name for stage in stages], dirs),
        storage=storage,
    )
    label = " + ".join(stage.name for stage in stages)
    executor.map_tasks(partial(run_chain_task, chain), tasks, label)
    last.settle_tasks({stage.name: d.work for stage, d in zip(stages, dirs, strict=True)}, [t.name for t in tasks])
    return _publish(stages, dirs, write_kept, time.perf_counter() - started)


def _input_schema(parts: list[Location], storage: Storage):
    if not parts:
        from corpus_pipeline.document import DOCUMENT_SCHEMA

        return DOCUMENT_SCHEMA
    return parquet_schema(storage, parts[0])


def _publish(stages, dirs: list[StageStore], write_kept, wall: float) -> list[StageResult]:
    """Complete every stage's directory, then rename them into place (or write their manifests) in order."""
    fused = {"fused_with": [stage.name for stage in stages], **dirs[-1].fused_marker()} if len(stages) > 1 else {}
    # A fused pass has one wall clock; each stage is given its share of the measured task time.
    own = [stage_dir.task_seconds(stage.name, dirs[-1]) for stage, stage_dir in zip(stages, dirs, strict=True)]
    results = []
    for stage, stage_dir, keep, seconds in zip(stages, dirs, write_kept, own, strict=True):
        kept = KEPT_HERE if keep else str(dirs[-1].output).rpartition("/")[2]
        stats = stage_dir.complete(stage.name, wall * seconds / (sum(own) or 1.0), kept=kept, **fused)
        results.append(StageResult(stage_dir.output, stats, skipped=False))
    for stage_dir in dirs:
        stage_dir.publish()
    return results


def _input_dirs(input_dir: Location | list[Location] | None) -> list[Location]:
    return [] if input_dir is None else list(input_dir) if isinstance(input_dir, list) else [input_dir]


def global_dir(
    stage: GlobalStage,
    input_dir: Location | list[Location] | None,
    output: Location,
    executor: Executor,
    storage: Storage,
) -> StageStore:
    identity = [read_success(path, storage)["fingerprint"] for path in _input_dirs(input_dir)]
    identity += stage.input_identity(executor)
    return open_stage_dir(location(output), fingerprint(stage.name, stage.config_fingerprint(), identity), storage)


def run_global(
    stage: GlobalStage,
    input_dir: Location | list[Location] | None,
    output: Location,
    executor: Executor,
    storage: Storage,
) -> StageResult:
    """Run a stage that sees every document at once (or none: crawl) through the one lifecycle;
    `input_dir` is a list for a stage that reads several stage directories (mix)."""
    output = location(output)
    check_output_apart(output, _input_dirs(input_dir) + stage.inputs())
    stage_dir = global_dir(stage, input_dir, output, executor, storage)
    with stage_dir.claim():
        if stage_dir.is_done():
            return StageResult(output, stage_dir.done_stats(), skipped=True)
        started = time.perf_counter()
        work = stage_dir.global_work()
        try:
            marker = stage.run(input_dir, work, executor) or {}
        except StageRefusedError:  # the same config is refused again: nothing of it is reusable
            stage_dir.abandon(work)
            raise
        except Exception:
            if not stage_dir.has_committed_tasks():
                stage_dir.abandon(work)
            raise
        work.drop_steps()  # its steps' outputs (engine/sub_steps.py) were read; they are not part of it
        local = work.local_dir(stage.name) if stage_dir.tasks_share_work or stage.uses_local_dir else None
        if local is not None:
            settle_committed(stage.name, local)
        stage.finish(work)
        stats = stage_dir.finish(stage.name, time.perf_counter() - started, work=work, **marker)
        return StageResult(output, stats, skipped=False)
