"""One task of a chain of stages, the same code under every executor: one pass over the task's
input, Arrow tables from stage to stage, each stage's rejects and counters kept apart.

A source stage (extract) heads a chain with the rows it reads from one file (or one byte span of
it); a chain of document stages starts from whole row groups of one input part. Each document
stage gets only its `input_columns` as dict rows; the engine writes back the columns it fills and
filters the table on its verdicts, so the columns it never reads stay Arrow arrays from the input
to the kept file.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

import pyarrow as pa
import pyarrow.compute as pc

from corpus_pipeline.document import REJECT_DETAIL_FIELD
from corpus_pipeline.engine.exec.task_plan import Task
from corpus_pipeline.engine.store.task_output import ROWS_PER_WRITE, StageAttempt, TaskAttempt, task_done
from corpus_pipeline.stages.base import DocumentStage, SourceStage, VerdictTable
from corpus_pipeline.stats import StageStats
from corpus_pipeline.storage import Storage
from corpus_pipeline.storage.parquet import open_parquet


@dataclass(frozen=True)
class Chain:
    """What every task of a chain needs; pickled to executors with the stages' configs only."""

    work: str  # the last stage's work directory (or object commit area), where tasks commit
    source: SourceStage | None
    stages: tuple[DocumentStage, ...]
    # The schema each stage writes (index 0: the source's or the input parts'; then one per stage).
    schemas: tuple[pa.Schema, ...]
    write_kept: tuple[bool, ...]  # per stage of the chain, the source included
    outputs: tuple[tuple[str, str], ...] = ()  # (stage, its commit area), where tasks upload on a store
    storage: Storage = dataclasses.field(default_factory=Storage)  # reads the input parts, writes on a store


def conform(batch: pa.RecordBatch | pa.Table, schema: pa.Schema) -> pa.Table:
    """Give a batch exactly `schema`: Parquet from elsewhere (a FineWeb dump, say) may lack our
    optional columns, which become nulls, or store strings as large_string."""
    columns = []
    for field in schema:
        index = batch.schema.get_field_index(field.name)
        if index >= 0:
            columns.append(batch.column(index).cast(field.type))
        elif field.nullable:
            columns.append(pa.nulls(batch.num_rows, field.type))
        else:
            raise ValueError(f"input has no column {field.name!r}, which every document needs")
    return pa.Table.from_arrays(columns, schema=schema)


def table_text_bytes(table: pa.Table) -> int:
    if table.num_rows == 0:
        return 0
    # sum skips null texts; all null -> None -> 0
    return pc.sum(pc.binary_length(table.column("text"))).as_py() or 0


def split_verdicts(
    table: pa.Table, schema: pa.Schema, reasons: pa.Array, details: pa.Array, stats: StageStats, out: StageAttempt
) -> pa.Table:
    """Rows with their verdicts as columns (reason null: kept; else dropped with `details`): write
    each reason's rows to its rejected file, count, and return the kept rows in `schema`."""
    table = conform(table, schema)
    reasons = pa.chunked_array([reasons]) if isinstance(reasons, pa.Array) else reasons
    for reason in sorted(r for r in pc.unique(reasons).to_pylist() if r is not None):
        mask = pc.fill_null(pc.equal(reasons, reason), False)
        rows = table.filter(mask)
        stats.count_dropped(reason, rows.num_rows)
        detail = pc.filter(details, mask).cast(pa.string())
        out.reject(reason, rows.append_column(REJECT_DETAIL_FIELD, detail))
    kept = table.filter(pc.is_null(reasons)) if reasons.null_count < len(reasons) else table
    stats.add_kept(kept.num_rows, table_text_bytes(kept))
    out.keep(kept)
    return kept


def apply_stage(
    stage: DocumentStage, table: pa.Table, schema: pa.Schema, stats: StageStats, out: StageAttempt
) -> pa.Table:
    """Run `stage` over `table`; write its rejects; return its kept rows in `schema`."""
    stats.add_in(table.num_rows, table_text_bytes(table))
    columns = table.column_names if stage.input_columns is None else list(stage.input_columns)
    rows = table.select([name for name in columns if name in table.column_names]).to_pylist()
    verdicts = stage.process_batch(rows, stats)
    written = set(columns) if stage.input_columns is None else set(stage.rewrites)
    written |= {field.name for field in stage.output_fields}
    arrays = []
    for field in schema:
        if field.name in written:
            arrays.append(pa.array([row.get(field.name) for row in rows], field.type))
        elif field.name in table.column_names:
            arrays.append(table.column(field.name))
        else:
            arrays.append(pa.nulls(table.num_rows, field.type))
    table = pa.Table.from_arrays(arrays, schema=schema)
    judged = VerdictTable.of(table, verdicts)
    return split_verdicts(table, schema, judged.reasons, judged.details, stats, out)


def _source_tables(
    source: SourceStage, task: Task, schema: pa.Schema, stats: StageStats, out: StageAttempt
) -> Iterator[pa.Table]:
    """The source's kept rows as tables of up to ROWS_PER_WRITE rows; its drops written as they come."""
    span = {} if task.span is None else {"span": task.span}  # only to a stage whose `spans` planned it
    for read in source.read_tables(task.path, stats, ROWS_PER_WRITE, **span):
        yield split_verdicts(read.table, schema, read.reasons, read.details, stats, out)


class PartReadError(RuntimeError):
    """A part file of the input stage that cannot be read (cut, corrupt, an I/O error): named."""


def _part_tables(task: Task, schema: pa.Schema, storage: Storage) -> Iterator[pa.Table]:
    if not task.row_groups:
        return
    with open_parquet(storage, task.path) as part:
        try:
            for batch in part.iter_batches(batch_size=ROWS_PER_WRITE, row_groups=list(task.row_groups)):
                yield conform(batch, schema)
        except (OSError, pa.ArrowException) as error:
            reason = (str(error).strip() or type(error).__name__).splitlines()[0]
            where = str(task.path)
            raise PartReadError(
                f"{where!r}: cannot read this part of the input stage ({reason}); run the stage that wrote it again"
            ) from error


def run_chain_task(chain: Chain, task: Task) -> dict[str, StageStats]:
    """Run one task through every stage of the chain and commit it; a task an earlier attempt
    finished is not run again."""
    if task_done(chain.work, task.name, task.identity, chain.storage):
        return {}
    started = time.perf_counter()
    stages: list = ([chain.source] if chain.source else []) + list(chain.stages)
    stats = {stage.name: StageStats(stage.name, tasks=1) for stage in stages}
    for stage in stages:
        # Each stage's setup (a model load: seconds) is its own time, not the first stage's.
        setup_started = time.perf_counter()
        stage.setup()
        stats[stage.name].seconds += time.perf_counter() - setup_started
    attempt = TaskAttempt(chain.work, task.name, task.identity, chain.storage, dict(chain.outputs))
    try:
        # With a source, schemas[i] is what stage i writes; without, schemas[0] is the input's.
        written = chain.schemas if chain.source is not None else chain.schemas[1:]
        outs = [
            attempt.stage(stage.name, schema, keep)
            for stage, schema, keep in zip(stages, written, chain.write_kept, strict=True)
        ]
        if chain.source is not None:
            source_stats = stats[chain.source.name]
            tables: Iterable[pa.Table] = _source_tables(chain.source, task, written[0], source_stats, outs[0])
            outs, written = outs[1:], written[1:]
        else:
            tables = _part_tables(task, chain.schemas[0], chain.storage)
        for table in tables:
            for stage, schema, out in zip(chain.stages, written, outs, strict=True):
                if table.num_rows == 0:
                    break
                stage_started = time.perf_counter()
                table = apply_stage(stage, table, schema, stats[stage.name], out)
                stats[stage.name].seconds += time.perf_counter() - stage_started
        if chain.source is not None:
            # The source's reading is interleaved with the stages' work: the rest of the task's time.
            others = sum(stats[stage.name].seconds for stage in chain.stages)
            stats[chain.source.name].seconds = time.perf_counter() - started - others
        for counters in stats.values():
            counters.check_balanced()
            counters.task_seconds = counters.seconds
        return attempt.commit(stats)
    except BaseException:
        attempt.abort()
        raise
