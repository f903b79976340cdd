"""The files of one task attempt, and how a finished attempt becomes part of its stages.

An attempt writes everything into a directory of its own, `_attempts/<task>-<uuid>/`, one
sub-directory per stage of its chain:

    <stage>/kept.parquet                 kept documents (the chain's last stage, or every stage
                                         with engine.write_intermediate)
    <stage>/rejected/<reason>.parquet    dropped documents with their reject_detail
    <stage>/stats.json                   the task's counters for that stage
    task.json                            the task's identity

and commits with one rename to `_committed/<task>/`. A rename onto an existing directory fails, so
the first attempt to finish wins and a second one (a Spark retry or a speculative copy) discards its
own files: two attempts never mix. When every task is done, `distribute` moves each committed task's
files to their stage directories (`<task>.parquet`, `_rejected/reason=<r>/<task>.parquet`,
`_tasks/<task>.json`): idempotently, so a driver killed half way finishes the job on resume.

When the stages are on an object store (`work` an `s3://` commit area), the attempt writes the same
files in a local scratch directory and commits by uploading them to their stage prefixes under
attempt-unique keys, then its commit record (engine/store/object_stage.py): the same names, no rename.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import uuid
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from corpus_pipeline.document import REJECT_DETAIL_FIELD
from corpus_pipeline.engine.store import object_stage
from corpus_pipeline.engine.store.layout import ATTEMPTS_DIR, COMMITTED_DIR, REJECTED_DIR, STATS_DIR
from corpus_pipeline.stats import StageStats
from corpus_pipeline.storage import Storage
from corpus_pipeline.storage.locations import renames

# Rows buffered before a write: bounds memory (HTML-heavy rows can be ~1 MB) and gives the row
# groups that later stages cut their tasks from (engine.task_rows is counted in whole row groups).
ROWS_PER_WRITE = 1_000
PARQUET_OPTIONS = {"compression": "zstd", "compression_level": 3, "write_statistics": True}

_KEPT, _REJECTED, _STATS, _TASK = "kept.parquet", "rejected", "stats.json", "task.json"


class ArrowFile:
    """A Parquet file written from Arrow tables in row groups of ROWS_PER_WRITE rows (the last one
    smaller), whatever the sizes of the tables it is given: the same rows give the same file."""

    def __init__(self, path: Path, schema: pa.Schema):
        path.parent.mkdir(parents=True, exist_ok=True)
        self.schema = schema
        self.writer = pq.ParquetWriter(path, schema, **PARQUET_OPTIONS)
        self.pending: list[pa.Table] = []
        self.rows = 0

    def write(self, table: pa.Table) -> None:
        if table.num_rows:
            self.pending.append(table)
            self.rows += table.num_rows
            if self.rows >= ROWS_PER_WRITE:
                self._flush(whole_groups_only=True)

    def _flush(self, whole_groups_only: bool) -> None:
        # One chunk a column: the writer falls back from a dictionary that outgrew its page at a
        # chunk's end, so the same rows in other pieces gave other bytes (a dedup bucket's rows come
        # batch by batch on Spark, in one table on the driver: at 86k, 23 of the 44 files differed,
        # kept and rejected). A column of one chunk already is not copied.
        table = pa.concat_tables(self.pending).combine_chunks()
        ready = table.num_rows - table.num_rows % ROWS_PER_WRITE if whole_groups_only else table.num_rows
        if ready:
            self.writer.write_table(table.slice(0, ready), row_group_size=ROWS_PER_WRITE)
        rest = table.slice(ready)
        self.pending, self.rows = ([rest] if rest.num_rows else []), rest.num_rows

    def close(self) -> None:
        if self.pending:
            self._flush(whole_groups_only=False)
        self.writer.close()


class StageAttempt:
    """What one stage of a chain writes in one attempt."""

    def __init__(self, directory: Path, schema: pa.Schema, write_kept: bool):
        directory.mkdir(parents=True, exist_ok=True)
        self.directory = directory
        self.schema = schema
        self.rejected_schema = schema.append(REJECT_DETAIL_FIELD)
        # The kept file always exists, even empty, so a stage holds exactly one part per task.
        self.kept = ArrowFile(directory / _KEPT, schema) if write_kept else None
        self.rejected: dict[str, ArrowFile] = {}

    def keep(self, table: pa.Table) -> None:
        if self.kept is not None:
            self.kept.write(table)

    def reject(self, reason: str, table: pa.Table) -> None:
        """`table`: the stage's schema plus reject_detail."""
        file = self.rejected.get(reason)
        if file is None:
            file = self.rejected[reason] = ArrowFile(self.directory / _REJECTED / f"{reason}.parquet", table.schema)
        file.write(table)

    def close(self, stats: StageStats) -> None:
        for file in (self.kept, *self.rejected.values()):
            if file is not None:
                file.close()
        stats.write(self.directory / _STATS)


class TaskAttempt:
    def __init__(
        self,
        work: Path | str,
        task_name: str,
        identity: str,
        storage: Storage | None = None,
        outputs: dict[str, str] | None = None,
    ):
        """`work`: the commit target, a local work directory or an object commit area; `outputs`:
        on a store, each stage's commit area when the attempt writes for several (a fused pass)."""
        self.task_name, self.identity = task_name, identity
        self.storage = _storage_for(work, storage)
        if commits_by_record(work):
            self.area = str(work)
            self.outputs = outputs or {}
            self.directory = Path(tempfile.mkdtemp(prefix=f"{task_name}-"))
        else:
            self.area = None
            self.work = Path(work)
            self.directory = self.work / ATTEMPTS_DIR / f"{task_name}-{uuid.uuid4().hex}"
            self.directory.mkdir(parents=True)
        self.stages: dict[str, StageAttempt] = {}

    def stage(self, name: str, schema: pa.Schema, write_kept: bool) -> StageAttempt:
        self.stages[name] = StageAttempt(self.directory / name, schema, write_kept)
        return self.stages[name]

    def path(self, relative: str) -> Path:
        """A file of the attempt that no StageAttempt writes (a global stage's own outputs)."""
        path = self.directory / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        return path

    def commit(self, stats: dict[str, StageStats]) -> dict[str, StageStats]:
        """Close every file and move the attempt into place; returns the stats of the attempt that
        won (this one, or an earlier one that committed the same task first)."""
        for name, attempt in self.stages.items():
            attempt.close(stats[name])
        for name in stats.keys() - self.stages.keys():
            self.path(f"{name}/{_STATS}")
            stats[name].write(self.directory / name / _STATS)
        if self.area is not None:
            return self._upload(stats)
        (self.directory / _TASK).write_text(json.dumps({"identity": self.identity}) + "\n", encoding="utf-8")
        target = self.work / COMMITTED_DIR / self.task_name
        target.parent.mkdir(exist_ok=True)
        try:
            os.rename(self.directory, target)
        except OSError:
            if not (target / _TASK).exists():
                raise
            shutil.rmtree(self.directory)  # another attempt of this task finished first
            return committed_stats(self.work, self.task_name, list(stats))
        return stats

    def _upload(self, stats: dict[str, StageStats]) -> dict[str, StageStats]:
        try:
            earlier = object_stage.task_record(self.storage, self.area, self.task_name, self.identity)
            if earlier is not None:  # another attempt of this task finished first
                return {name: StageStats.from_dict(earlier["stats"][name]) for name in stats}
            areas = {name: self.outputs.get(name, self.area) for name in [*stats, ""]}
            files = {name: dict(_stage_files(self.directory / name, self.task_name)) for name in stats}
            files[""] = _own_files(self.directory, stats)
            object_stage.upload_task(self.storage, self.area, areas, self.task_name, self.identity, files, stats)
            return stats
        finally:
            self.abort()

    def abort(self) -> None:
        shutil.rmtree(self.directory, ignore_errors=True)


def _stage_files(source: Path, task_name: str):
    """(name in the stage directory, local file) of one stage's documents of a finished attempt:
    its kept part and its rejects."""
    if (source / _KEPT).exists():
        yield f"{task_name}.parquet", source / _KEPT
    if (source / _REJECTED).exists():
        for rejected in sorted((source / _REJECTED).glob("*.parquet")):
            yield f"{REJECTED_DIR}/reason={rejected.stem}/{task_name}.parquet", rejected


def _own_files(attempt: Path, stage_names) -> dict[str, Path]:
    """A global stage's own files of an attempt (token shards, token counts), outside the stage
    sub-directories, by their names in the stage directory."""
    return {
        path.relative_to(attempt).as_posix(): path
        for path in sorted(attempt.rglob("*"))
        if path.is_file() and path.name != _TASK and path.relative_to(attempt).parts[0] not in stage_names
    }


def committed_stats(work: Path, task_name: str, stage_names: list[str]) -> dict[str, StageStats]:
    directory = work / COMMITTED_DIR / task_name
    return {name: StageStats.read(directory / name / _STATS) for name in stage_names}


def commits_by_record(work: Path | str) -> bool:
    """How a task commits into `work`: by one rename of its attempt directory (a local work
    directory), or by a record naming its uploaded objects (an object store's commit area, where
    nothing renames). Decided here only, for the attempt and for the "done?" question alike."""
    return not renames(work)


def commit_task(
    work: Path | str, task_name: str, identity: str, storage: Storage | None, fill
) -> dict[str, StageStats]:
    """One task attempt from start to commit: `fill(attempt)` writes its files and returns its
    counters per stage; a failure aborts the attempt, whose files never reach the stage."""
    attempt = TaskAttempt(work, task_name, identity, storage)
    try:
        return attempt.commit(fill(attempt))
    except BaseException:
        attempt.abort()
        raise


def _storage_for(work: Path | str, storage: Storage | None) -> Storage | None:
    """A local work directory needs none; a commit area on a store needs the run's own (its
    endpoint and credentials), never a default."""
    if storage is None and commits_by_record(work):
        raise ValueError(f"{work}: a task commits to an object store through the run's storage; none was given")
    return storage


def task_done(work: Path | str, task_name: str, identity: str, storage: Storage | None = None) -> bool:
    """Whether an attempt of this task, for this input slice, committed already."""
    storage = _storage_for(work, storage)
    if commits_by_record(work):
        return object_stage.task_record(storage, str(work), task_name, identity) is not None
    return task_identity_done(Path(work), task_name) == identity


def task_identity_done(work: Path, task_name: str) -> str | None:
    """The identity of a finished task of `work` (committed, or already distributed), else None."""
    committed = work / COMMITTED_DIR / task_name / _TASK
    if committed.exists():
        return json.loads(committed.read_text(encoding="utf-8"))["identity"]
    distributed = work / STATS_DIR / f"{task_name}.json"
    if distributed.exists():
        return json.loads(distributed.read_text(encoding="utf-8")).get("task_identity")
    return None


def forget_task(stage_works: list[Path], task_name: str) -> None:
    """Remove every file of a task from the chain's stage directories (a stale or foreign task)."""
    committed = stage_works[-1] / COMMITTED_DIR / task_name
    if committed.is_dir():
        shutil.rmtree(committed)
    committed.unlink(missing_ok=True)
    for work in stage_works:
        for path in (work / f"{task_name}.parquet", work / STATS_DIR / f"{task_name}.json"):
            path.unlink(missing_ok=True)
        for path in work.glob(f"{REJECTED_DIR}/reason=*/{task_name}.parquet"):
            path.unlink()


def distribute(stage_works: dict[str, Path], chain_work: Path, task_name: str) -> None:
    """Move a committed task's files into its stages' directories; a no-op once done."""
    committed = chain_work / COMMITTED_DIR / task_name
    if not committed.exists():
        return
    identity = json.loads((committed / _TASK).read_text(encoding="utf-8"))["identity"]
    for name, work in stage_works.items():
        source = committed / name
        for relative, path in list(_stage_files(source, task_name)):
            _move(path, work / relative)
        if (source / _STATS).exists():
            stats = json.loads((source / _STATS).read_text(encoding="utf-8"))
            target = work / STATS_DIR / f"{task_name}.json"
            target.parent.mkdir(exist_ok=True)
            tmp = target.with_name(f".{target.name}.tmp")
            tmp.write_text(json.dumps({**stats, "task_identity": identity}, indent=2) + "\n", encoding="utf-8")
            os.replace(tmp, target)
            (source / _STATS).unlink()
    for relative, path in _own_files(committed, stage_works).items():
        _move(path, stage_works[next(iter(stage_works))] / relative)
    shutil.rmtree(committed)


def settle_committed(stage: str, work: Path) -> None:
    """Distribute every task committed into `work`, the directory a stage's tasks share (a global
    stage's local work), in name order: what the lifecycle does once the stage's run returns, and
    what a stage whose later tasks read the earlier ones' files (mix) does between its steps."""
    for committed in sorted((work / COMMITTED_DIR).glob("*")):
        distribute({stage: work}, work, committed.name)


def _move(source: Path, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    os.replace(source, target)
