"""What mix reads from its inputs and writes besides the shards, on the driver, from the encoded
tables only (id, labels, weight, token counts: never the text).

- `encode_tasks`: the first pass's tasks, cut from every input as document stages cut theirs;
- `read_documents`: the encoded tables in id order, with each document's group, as `plan.Documents`;
- `write_documents`: documents.parquet, one row per entry of the shards, in shard order;
- `write_left_out`: the documents no shard holds, as `_rejected/reason=<r>/` rows, and the counters.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from corpus_pipeline.engine.whole_corpus import (
    PARQUET_OPTIONS,
    REJECTED_DIR,
    Task,
    input_parts,
    part_name,
    plan_part_tasks,
    read_success,
)
from corpus_pipeline.mix.encode_part import ENCODED_DIR, REJECTED_SCHEMA
from corpus_pipeline.mix.plan import Documents, MixPlan
from corpus_pipeline.stats import StageStats
from corpus_pipeline.storage import Storage
from corpus_pipeline.tokenize.sample import UNKNOWN_LANGUAGE

DOCUMENTS_FILE = "documents.parquet"
DOCUMENTS_SCHEMA = pa.schema(
    [
        pa.field("id", pa.string(), nullable=False),
        pa.field("source", pa.string()),
        pa.field("domain", pa.string()),
        pa.field("language", pa.string()),
        pa.field("phase", pa.string()),
        pa.field("repeat", pa.int32()),  # 0: the document's first appearance in the shards
        pa.field("token_count", pa.int64()),  # text tokens; its .idx sequence is one longer (EOD)
    ]
)
NOT_TARGETED, NOT_SELECTED = "not_targeted", "not_selected"
_ROWS_PER_GROUP = 100_000


def encode_tasks(inputs: list[Path], task_rows: int, weight_columns: dict[str, str], storage: Storage) -> list[Task]:
    """Tasks over every input's parts, numbered across inputs and identified by the input's
    fingerprint too (two inputs both have a part-00000.parquet). `weight_columns`: column -> the
    option that reads it; an input lacking one is refused here, before any task runs."""
    tasks: list[Task] = []
    for directory in inputs:
        parts = input_parts(directory, storage)
        for part in parts:
            missing = sorted(set(weight_columns) - set(pq.read_schema(part).names))
            if missing:
                needs = ", ".join(f"{c!r} ({weight_columns[c]})" for c in missing)
                raise ValueError(f"{directory}: {part.name} has no column {needs}; give an input that has it")
        fingerprint = read_success(directory, storage)["fingerprint"][:16]
        for task in plan_part_tasks(parts, task_rows, storage):
            tasks.append(replace(task, name=part_name(len(tasks)), identity=f"{fingerprint}:{task.identity}"))
    return tasks


def group_names(table: pa.Table, by: list[str]) -> pa.ChunkedArray:
    """`web`, `web/en`...: the `by` columns joined by "/", a null read as "unknown"."""
    columns = [pc.fill_null(table.column(name), UNKNOWN_LANGUAGE) for name in by]
    return columns[0] if len(columns) == 1 else pc.binary_join_element_wise(*columns, "/")


def read_documents(work: Path, tasks: list[Task], by: list[str]) -> tuple[pa.Table, Documents]:
    """The encoded tables of every task in id order, with `part` (task index) and `group` columns;
    an id found twice is refused (documents.parquet could not say which copy a shard holds)."""
    tables = []
    for number, task in enumerate(tasks):
        table = pq.read_table(work / ENCODED_DIR / f"{task.name}.parquet")
        tables.append(table.append_column("part", pa.array(np.full(table.num_rows, number, np.int32))))
    table = pa.concat_tables(tables) if tables else pa.table({"id": pa.array([], pa.string())})
    if not tables:
        empty = np.zeros(0, np.int64)
        return table, Documents(empty.astype(np.int32), [], empty, empty, empty.astype(np.uint64))
    table = table.sort_by("id")
    ids = table.column("id")
    if table.num_rows > 1:
        repeated = pc.equal(ids.slice(1), ids.slice(0, table.num_rows - 1))
        if pc.any(repeated).as_py():
            first = ids[int(np.argmax(repeated.to_numpy(zero_copy_only=False))) + 1].as_py()
            raise ValueError(
                f"{pc.sum(repeated).as_py()} rows repeat an id already in the inputs (the first: {first!r}): "
                "mix needs one row per id (dedup the sources together first)"
            )
    groups = group_names(table, by).combine_chunks().dictionary_encode()
    table = table.append_column("group", groups.dictionary.take(groups.indices))
    docs = Documents(
        group=groups.indices.to_numpy(zero_copy_only=False).astype(np.int32),
        groups=groups.dictionary.to_pylist(),
        weight=table.column("weight").to_numpy(),
        length=table.column("text_tokens").to_numpy() + 1,
        key=table.column("key").to_numpy(),
    )
    return table, docs


def write_documents(path: Path, table: pa.Table, plan: MixPlan) -> None:
    with pq.ParquetWriter(path, DOCUMENTS_SCHEMA, **PARQUET_OPTIONS) as writer:
        for phase in plan.phases:
            for start in range(0, len(phase.entries), _ROWS_PER_GROUP):
                entries = phase.entries[start : start + _ROWS_PER_GROUP]
                rows = table.take(pa.array(entries))
                columns = {name: rows.column(name) for name in ("id", "source", "domain", "language")}
                columns["phase"] = pa.array([phase.name] * len(entries), pa.string())
                columns["repeat"] = pa.array(phase.repeats[start : start + _ROWS_PER_GROUP], pa.int32())
                columns["token_count"] = rows.column("text_tokens")
                writer.write_table(pa.table(columns, schema=DOCUMENTS_SCHEMA))


def write_left_out(work: Path, table: pa.Table, plan: MixPlan, stats: StageStats) -> None:
    """Count what the shards hold, and write the documents they do not hold with their reason."""
    used = np.zeros(table.num_rows, bool)
    for phase in plan.phases:
        used[phase.entries] = True
    asked = plan.asked
    group = table.column("group").to_pylist() if table.num_rows else []
    targeted = np.array([asked.get(g, 0.0) > 0 for g in group], bool)
    text_bytes = table.column("text_bytes").to_numpy() if table.num_rows else np.zeros(0, np.int64)
    stats.add_kept(int(used.sum()), int(text_bytes[used].sum()))
    passes = {g: plan.taken(g) / tokens for g, tokens in plan.pass_tokens.items() if tokens}
    for reason, mask in ((NOT_TARGETED, ~targeted), (NOT_SELECTED, targeted & ~used)):
        if not mask.any():
            continue
        rows = table.filter(pa.array(mask))
        if reason == NOT_TARGETED:
            detail = [
                f"group {g} has no target (targets: {', '.join(sorted(asked))})"
                for g in rows.column("group").to_pylist()
            ]
        else:
            detail = [
                f"group {g}: {passes[g]:.3f} passes taken; the last one ended before this document"
                for g in rows.column("group").to_pylist()
            ]
        stats.count_dropped(reason, rows.num_rows)
        columns = [rows.column(field.name) for field in REJECTED_SCHEMA if field.name != "reject_detail"]
        rejected = pa.table([*columns, pa.array(detail, pa.string())], schema=REJECTED_SCHEMA)
        target = work / REJECTED_DIR / f"reason={reason}" / "plan.parquet"
        target.parent.mkdir(parents=True, exist_ok=True)
        pq.write_table(rejected, target, **PARQUET_OPTIONS)
