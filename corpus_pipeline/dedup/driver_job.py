"""The dedup stage with no Spark: an input whose signatures fit the driver (small_decisions.py's
bound), under either runner, is read, decided and written in this process.

Every step is the Spark path's (spark_job.py, chain_job.py, paragraph_job.py) on Arrow tables and
dicts: the earliest row of a repeated id stays (repeats.py), signatures by the same batch function,
each method's drops by small_decisions.py, paragraph removal by the same batch functions over the
same counts, the clusters by chain.cluster_verdicts, the buckets by Spark's own hash of the id
(id_buckets.py) and each bucket written by bucket_writer.write_bucket. A JVM start is ~7 s of an
idle machine (40 s on a busy one) for a stage whose work on 1,432 pages is ~1 s.
"""

from __future__ import annotations

from collections import Counter, defaultdict

import pyarrow as pa
import pyarrow.compute as pc

from corpus_pipeline.config import DedupConfig
from corpus_pipeline.config.filtering import ParagraphDedupConfig
from corpus_pipeline.dedup.batch_ops import signature_batch
from corpus_pipeline.dedup.bucket_writer import BUCKET_COLUMN, bucket_done, write_bucket
from corpus_pipeline.dedup.chain import (
    CLUSTER_FIELDS,
    ID_COLLISION,
    ID_COLLISION_DETAIL,
    VERDICT_SCHEMA,
    DecisionColumns,
    chained,
    cluster_verdicts,
)
from corpus_pipeline.dedup.id_buckets import bucket_identity, id_bucket, row_order
from corpus_pipeline.dedup.keep_rule import SOURCE_RANK
from corpus_pipeline.dedup.paragraph_batches import (
    CHARACTERS_REMOVED,
    PARAGRAPHS_REMOVED,
    REASON,
    cleaned_batch,
    paragraph_hash_batch,
)
from corpus_pipeline.dedup.small_decisions import IN_INDEX, decision_order, method_duplicates, small_input_rows
from corpus_pipeline.engine.stage_dir import Location
from corpus_pipeline.engine.tasks import conform
from corpus_pipeline.storage import Storage
from corpus_pipeline.storage.parquet import columns_present, open_parquet, parquet_metadata

COLUMNS = DecisionColumns()
_SIGNED = ("id", "url", "text", "language")


def _rows_in(parts: list[str], storage: Storage) -> int:
    return sum(parquet_metadata(storage, str(part)).num_rows for part in parts)


def read_table(parts: list, schema: pa.Schema, storage: Storage) -> pa.Table:
    """Every row of `parts` in `schema`, in file order; a column a part lacks is null there."""
    tables = []
    for part in parts:
        with open_parquet(storage, str(part)) as parquet:
            present = columns_present(parquet, schema.names)
            tables.append(conform(parquet.read(columns=present), schema))
    return pa.concat_tables(tables) if tables else schema.empty_table()


def with_source_rank(docs: pa.Table, priority: list[str]) -> pa.Table:
    """As spark_job.with_source_rank: the position of a document's source in `priority`."""
    if not priority or "source" not in docs.column_names:
        return docs
    positions = {name: position for position, name in enumerate(priority)}
    ranks = [positions.get(source, len(priority)) for source in docs.column("source").to_pylist()]
    return docs.append_column(SOURCE_RANK, pa.array(ranks, pa.int32()))


def split_repeats(docs: pa.Table) -> tuple[pa.Table, pa.Table, list[bool]]:
    """As repeats.split_repeats: (the earliest row of each id, the later rows of a repeated id, and
    for each later row whether its text is the earliest row's: a null on either side counts as the
    same, as Spark's coalesce(text = first(text), true) does)."""
    ids = docs.column("id").to_pylist()
    texts = docs.column("text").to_pylist() if "text" in docs.column_names else [None] * docs.num_rows
    first, same_text, previous, kept_text = [], {}, None, None
    for row in ascending(docs, row_order(docs.column_names), nulls_first=False):
        if ids[row] == previous:
            same_text[row] = texts[row] is None or kept_text is None or texts[row] == kept_text
        else:
            first.append(row)
            kept_text = texts[row]
        previous = ids[row]
    later = sorted(same_text)
    return (
        docs.take(pa.array(sorted(first), pa.int64())),
        docs.take(pa.array(later, pa.int64())),
        [same_text[row] for row in later],
    )


def ascending(table: pa.Table, columns: list[str], nulls_first: bool) -> list[int]:
    """The row numbers of `table` sorted by `columns`, as Spark sorts them: strings by their UTF-8
    bytes (which is code point order), a stable sort, nulls first or last in every column."""
    null, value = (0, 1) if nulls_first else (1, 0)
    keys = [[(null,) if v is None else (value, v) for v in table.column(name).to_pylist()] for name in columns]
    return sorted(range(table.num_rows), key=lambda row: tuple(key[row] for key in keys))


def signed_rows(docs: pa.Table, dedup: DedupConfig, carried: list[str]) -> list[dict]:
    """As chain_job.signatures, without the index: one dict per document."""
    with_simhash = "simhash" in dedup.methods
    selected = docs.select(list(dict.fromkeys([*_SIGNED, *carried])))
    rows = []
    for batch in selected.to_batches():
        rows += signature_batch(batch, dedup, with_simhash, carried).to_pylist()
    for row in rows:
        row[IN_INDEX] = False
    return rows


def published_rows(parts: list[str], carried: list[str], storage: Storage) -> list[dict]:
    """The index's documents as signature rows: members that always win, never written."""
    from corpus_pipeline.dedup.index import INDEX_SCHEMA

    rows = read_table(parts, INDEX_SCHEMA, storage).to_pylist()
    for row in rows:
        row.update(dict.fromkeys(carried))
        row.update({"canonical_url": None, IN_INDEX: True})
    return rows


def remove_repeated_paragraphs(
    docs: pa.Table, candidates: set[str], config: ParagraphDedupConfig
) -> tuple[pa.Table, list[tuple]]:
    """As paragraph_job.remove_repeated_paragraphs: (docs with the cleaned text and the count
    columns, the (id, kept_id, reason, note) of the documents it empties)."""
    current = docs.select(["id", "text"]).filter(_ids_in(docs, candidates))
    hashes: dict[str, list[int]] = defaultdict(list)
    for batch in current.to_batches():
        found = paragraph_hash_batch(batch)
        for doc_id, value in zip(
            found.column("id").to_pylist(), found.column("paragraph_hash").to_pylist(), strict=True
        ):
            hashes[doc_id].append(value)
    counts = Counter(value for values in hashes.values() for value in values)
    frequent = {value for value, count in counts.items() if count >= config.min_documents}
    repeated = {doc_id: sorted(v for v in values if v in frequent) for doc_id, values in hashes.items()}
    repeated = {doc_id: values for doc_id, values in repeated.items() if values}
    flagged = current.filter(_ids_in(current, set(repeated)))
    repeated_column = pa.array([repeated[doc_id] for doc_id in flagged.column("id").to_pylist()], pa.list_(pa.int64()))
    flagged = flagged.append_column("repeated", repeated_column)
    cleaned = {row["id"]: row for row in cleaned_batch(flagged, config.min_documents, config.min_chars).to_pylist()}
    found = [(doc_id, None, REASON, row["reject_detail"]) for doc_id, row in cleaned.items() if row["reject_detail"]]
    texts, removed, characters = [], [], []
    for doc_id, text in zip(docs.column("id").to_pylist(), docs.column("text").to_pylist(), strict=True):
        row = cleaned.get(doc_id)
        keep_cleaned = row is not None and row["cleaned_text"] is not None and row["reject_detail"] is None
        texts.append(row["cleaned_text"] if keep_cleaned else text)
        removed.append(None if row is None else row["paragraphs_removed"])
        characters.append(None if row is None else row["characters_removed"])
    docs = docs.set_column(docs.schema.get_field_index("text"), "text", pa.array(texts, docs.schema.field("text").type))
    docs = _replace_column(docs, PARAGRAPHS_REMOVED, pa.array(removed, pa.int64()))
    return _replace_column(docs, CHARACTERS_REMOVED, pa.array(characters, pa.int64())), found


def _ids_in(table: pa.Table, ids: set[str]) -> pa.ChunkedArray:
    return pc.is_in(table.column("id"), value_set=pa.array(sorted(ids), pa.string()))


def _replace_column(table: pa.Table, name: str, values: pa.Array) -> pa.Table:
    index = table.schema.get_field_index(name)
    return table.append_column(name, values) if index < 0 else table.set_column(index, name, values)


def _decisions(docs: pa.Table, published: list[dict], dedup: DedupConfig, order, carried) -> tuple[pa.Table, dict]:
    """The method chain on the driver: (docs as the chain leaves them, verdict per id)."""
    survivors = signed_rows(docs, dedup, carried) + published
    doc_ids = {row["id"] for row in survivors if not row[IN_INDEX]}
    dropped = {}
    for method in dedup.methods:
        if method == "paragraph":
            candidates = {row["id"] for row in survivors if not row[IN_INDEX]}
            docs, found = remove_repeated_paragraphs(docs, candidates, dedup.paragraph)
            rejected = {doc_id for doc_id, *_ in found}
            remaining = docs.filter(_ids_in(docs, candidates - rejected))
            survivors = signed_rows(remaining, dedup, carried) + [row for row in survivors if row[IN_INDEX]]
        else:
            found = [(*drop, None) for drop in method_duplicates(method, survivors, dedup, order)]
        dropped = chained(dropped, found)
        survivors = [row for row in survivors if row["id"] not in dropped]
    return docs, {row["id"]: row for row in cluster_verdicts(dropped, doc_ids)}


def _with_decisions(docs: pa.Table, verdicts: dict) -> pa.Table:
    """As spark_job._clustered: every document with its decision and cluster columns."""
    empty = dict.fromkeys(VERDICT_SCHEMA.names)
    found = [verdicts.get(doc_id, empty) for doc_id in docs.column("id").to_pylist()]
    ids = docs.column("id").to_pylist()
    columns = {
        COLUMNS.kept_id: [v["note"] if v["note"] is not None else v["kept_id"] for v in found],
        COLUMNS.reason: [v["reason"] for v in found],
        CLUSTER_FIELDS[0].name: [
            doc_id if v["dup_cluster_id"] is None else v["dup_cluster_id"] for v, doc_id in zip(found, ids, strict=True)
        ],
        CLUSTER_FIELDS[1].name: [1 if v["dup_cluster_size"] is None else v["dup_cluster_size"] for v in found],
    }
    return _with_columns(docs, columns)


def _with_columns(table: pa.Table, columns: dict[str, list]) -> pa.Table:
    types = {COLUMNS.kept_id: pa.string(), COLUMNS.reason: pa.string()} | {f.name: f.type for f in CLUSTER_FIELDS}
    for name, values in columns.items():
        table = table.append_column(name, pa.array(values, types[name]))
    return table


def decided_on_driver(
    parts: list, input_schema: pa.Schema, dedup: DedupConfig, index_dir: Location | None, storage: Storage
) -> pa.Table | None:
    """Every document of `parts` with its decision (COLUMNS) and cluster columns, as
    spark_job.decided_documents gives them; None when the input (and the index) do not fit the
    driver: then Spark decides."""
    index_parts = []
    if index_dir is not None:
        from corpus_pipeline.dedup.index import index_parts as published_parts

        index_parts = published_parts(index_dir, dedup, storage)
    if _rows_in(parts, storage) + _rows_in(index_parts, storage) > small_input_rows(dedup):
        return None
    clusters = {field.name for field in CLUSTER_FIELDS}  # decided again here
    selected = pa.schema([field for field in input_schema if field.name not in clusters])
    docs = with_source_rank(read_table(parts, selected, storage), dedup.source_priority)
    docs, repeats, same_text = split_repeats(docs)
    order, carried = decision_order(dedup, docs.column_names, with_index=bool(index_parts))
    published = published_rows(index_parts, carried, storage) if index_parts else []
    docs, verdicts = _decisions(docs, published, dedup, order, carried)
    repeated = repeats.column("id").to_pylist()
    # As spark_job.decided_documents: the same page twice is an exact duplicate of itself, another
    # text under a kept id an id collision whose detail names the id.
    repeats = _with_columns(
        repeats,
        {
            COLUMNS.kept_id: [
                i if same else ID_COLLISION_DETAIL.format(id=i) for i, same in zip(repeated, same_text, strict=True)
            ],
            COLUMNS.reason: ["exact_duplicate" if same else ID_COLLISION for same in same_text],
            CLUSTER_FIELDS[0].name: repeated,
            CLUSTER_FIELDS[1].name: [None] * len(repeated),
        },
    )
    return pa.concat_tables([_with_decisions(docs, verdicts), repeats], promote_options="default")


def write_buckets(decided: pa.Table, schema: pa.Schema, work: str, buckets: int, storage: Storage) -> None:
    """As spark_job.write_spark_buckets: each bucket that holds documents, sorted as Spark sorts
    them (ascending, nulls first), committed as its task unless a resumed run already did."""
    numbers = pa.array([id_bucket(doc_id, buckets) for doc_id in decided.column("id").to_pylist()], pa.int32())
    decided = decided.append_column(BUCKET_COLUMN, numbers)
    order = ascending(decided, [BUCKET_COLUMN, *row_order(decided.column_names)], nulls_first=True)
    ordered = decided.take(pa.array(order, pa.int64()))
    for bucket in sorted(set(numbers.to_pylist())):
        identity = bucket_identity(bucket, buckets)
        if not bucket_done(work, bucket, identity, storage):
            rows = ordered.filter(pc.equal(ordered.column(BUCKET_COLUMN), bucket))
            write_bucket([rows], COLUMNS, schema, work, bucket, identity, storage)
