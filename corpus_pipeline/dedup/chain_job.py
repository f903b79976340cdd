"""The dedup method chain on Spark: every document's signature once, each method on what the
previous ones kept, then the clusters. An input whose decision fits the driver's memory budget
(driver_budget.py, engine.memory_mb) never gets here: it is decided on the driver with no Spark
at all (driver_job.py, small_decisions.py, chain.py), under either runner.

Why two paths: adaptive execution runs every shuffle as a Spark job of its own, and a small input
pays for the jobs, not for the work. On the 1,418 real pages (default config, local[1], a warm
session on an idle 2-core machine) the Spark chain runs 31 jobs in 8-9 s for ~1.3 s of signature
work. Past that budget the Spark chain keeps the work on the executors and nothing large on
the driver, in a number of jobs that does not grow with the input: the clusters (components.py)
and the verdicts (cluster_verdict_frame) are each gathered into one task that holds duplicates'
ids only. On the issue's generated documents (engine.memory_mb=256 forcing this path, local[1],
benchmarks/bench_dedup_jobs.py --input) the stage ran 47 / 48 / 50 Spark jobs at 10k / 50k /
100k documents before, 17 / 17 / 17 after (repeats.py shuffles by id whatever the input's
partitions); since the decisions are a step of their own (decide_step.py), 15 for the decide step
and 3 for the write, at 40 documents as at 86k. The texts now cross one shuffle and one sort, the
write's: the decide step signs the documents in the tasks that read them (first_row_signatures with
read_parts' `then`: at 86k documents, 85.7 -> 77.0 CPU s, the texts no longer going to the JVM and
back), and the write sorts them into their output buckets and decides each there (write_task.py).
Jobs, without the broadcasts the planner chose on a wrong size
(spark_read.broadcasts_by_measured_size), which the counts above leaned on: 13 + 2 at 40 documents,
16 + 2 at 86k, 15 + 2 at 858k, the methods' drops computed within the verdicts' query, the
verdicts written in their buckets by the task that gathers them, the survivors shuffled by id once
for all of minhash's readers. Both paths make the same choices: the tests compare their output bytes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import partial, reduce

import numpy as np
import pyarrow as pa
from pyspark.sql import DataFrame
from pyspark.sql import functions as F
from pyspark.sql.types import StructType

from corpus_pipeline.dedup.batch_ops import SIGNATURE_SCHEMA, signature_batch
from corpus_pipeline.dedup.chain import VERDICT_SCHEMA, chain_codes, cluster_codes
from corpus_pipeline.dedup.config import DedupConfig
from corpus_pipeline.dedup.decisions import exact_duplicates, minhash_duplicates, url_duplicates
from corpus_pipeline.dedup.id_buckets import row_order
from corpus_pipeline.dedup.id_codes import NO_ID, SortedIds, dictionary_codes, taken
from corpus_pipeline.dedup.paragraph_job import remove_repeated_paragraphs
from corpus_pipeline.dedup.repeats import first_rows
from corpus_pipeline.dedup.simhash_decisions import simhash_duplicates
from corpus_pipeline.dedup.small_decisions import IN_INDEX, SEMANTIC_COLUMNS, decision_order, method_duplicates
from corpus_pipeline.engine.whole_corpus import PART_COLUMN, bucket_of, spark_schema

_METHOD = "_method"  # a drop's method, by its place in dedup.methods
_KEPT_PUBLISHED = "_kept_published"  # a drop's kept_id is one of the index's documents
_ID_BUCKET, _KEPT_BUCKET = "_id_bucket", "_kept_bucket"  # the decide part of a drop's id, kept_id
_BATCH_ROWS = 65_536  # verdict rows a batch, streamed back from the gathering task
BUCKETED_VERDICT_SCHEMA = VERDICT_SCHEMA.append(pa.field(PART_COLUMN, pa.int32()))
_FOUND_SCHEMA = pa.schema([("id", pa.string()), ("kept_id", pa.string()), ("reason", pa.string())])
# (function of a batch, the Spark schema of what it returns) -> the documents read, mapped by it.
ReadMapped = Callable[[Callable[[pa.RecordBatch], pa.RecordBatch], StructType], DataFrame]


def signatures(docs: DataFrame, dedup: DedupConfig, index: DataFrame | None, carried: list[str]) -> DataFrame:
    """(id, canonical_url, exact_hash, signature, simhash, *carried, _in_index) of the documents
    and of the index (whose carried columns are null)."""
    return _with_index(_signed(docs, dedup, carried), docs, index, carried)


def first_row_signatures(
    docs: DataFrame, dedup: DedupConfig, index: DataFrame | None, carried: list[str], read: ReadMapped | None = None
) -> DataFrame:
    """signatures() of the row of each id that stays (repeats.py), signed where the documents are
    read and set apart on the signature rows: the texts cross no shuffle (86k documents, 498 MB of
    text: the 394 MB that the split of the documents themselves shuffled). With `read`, signed in
    the tasks that read the documents: the texts never reach the JVM."""
    repeat_order = [column for column in row_order(docs.columns)[1:] if column not in carried]
    first = first_rows(_signed(docs, dedup, [*carried, *repeat_order], read))
    return _with_index(first.drop(*repeat_order), docs, index, carried)


def _signed(docs: DataFrame, dedup: DedupConfig, carried: list[str], read: ReadMapped | None = None) -> DataFrame:
    """docs' signature rows, signed by a mapInArrow of docs or, with `read`, as docs are read."""
    with_simhash = "simhash" in dedup.methods
    schema = StructType(spark_schema(SIGNATURE_SCHEMA).fields + [docs.schema[name] for name in carried])

    def sign(batch: pa.RecordBatch) -> pa.RecordBatch:
        return signature_batch(batch, dedup, with_simhash, carried)

    if read is None:
        columns = dict.fromkeys(["id", "url", "text", "language", *carried])
        signed = docs.select(*columns).mapInArrow(lambda batches: map(sign, batches), schema)
    else:
        signed = read(sign, schema)
    return signed.withColumn(IN_INDEX, F.lit(False))


def _with_index(signed: DataFrame, docs: DataFrame, index: DataFrame | None, carried: list[str]) -> DataFrame:
    if index is None:
        return signed
    published = index.select(
        "id",
        F.lit(None).cast("string").alias("canonical_url"),
        "exact_hash",
        "signature",
        "simhash",
        *(F.lit(None).cast(docs.schema[name].dataType).alias(name) for name in carried),
        F.lit(True).alias(IN_INDEX),
    )
    return signed.unionByName(published)


def dedup_decisions(
    docs: DataFrame,
    dedup: DedupConfig,
    tasks: tuple[int, int],
    index: DataFrame | None = None,
    read: ReadMapped | None = None,
) -> tuple[DataFrame, DataFrame | None]:
    """docs (every row, repeated ids too: repeats.py keeps one of each) -> (verdicts, changes).
    `tasks`: (the output's id buckets, minhash's band tasks: decisions.band_task_count).
    Verdicts (cluster_verdict_frame: by id bucket of the output's) has one row per document dropped or
    standing for dropped ones: kept_id the document finally kept (null for a document no other
    stands for), note the reject detail when it is not the kept id, and the cluster, named by its
    smallest id; a document without a row is kept, alone in its cluster. Changes: the paragraph
    method's cleaning of each document it rewrote (paragraph_job.CHANGE_SCHEMA; None without that
    method). `read(function, schema)`: docs' rows read again, each batch through `function` in the
    task that read it (spark_read.read_parts' `then`), so that signing costs no trip of the texts
    through the JVM. With an index (id, exact_hash, signature, simhash), published documents join
    every method as members that always win the keep rule and are never written."""
    order, carried = decision_order(dedup, docs.columns, with_index=index is not None)
    if "paragraph" in dedup.methods:  # it reads the texts of the rows that stay
        docs = first_rows(docs)
        signed = signatures(docs, dedup, index, carried)
    else:
        signed = first_row_signatures(docs, dedup, index, carried, read)
    signed = signed.localCheckpoint()
    published = signed.where(F.col(IN_INDEX)).select("id") if index is not None else None
    sign = partial(signatures, dedup=dedup, index=index, carried=carried)
    return _spark_decisions(docs, signed, dedup, order, published, sign, tasks)


def _spark_decisions(
    docs: DataFrame,
    signed: DataFrame,
    dedup: DedupConfig,
    order,
    published: DataFrame | None,
    sign: Callable[[DataFrame], DataFrame],
    tasks: tuple[int, int],
) -> tuple[DataFrame, DataFrame | None]:
    """The chain as Spark jobs: each method on the documents the methods before it kept. `tasks`:
    (the verdicts' id buckets, minhash's band tasks)."""
    buckets, band_tasks = tasks
    keep_columns = list(dict.fromkeys(column for column, _ in order if column != "id"))
    survivors, founds, changes = signed, [], None
    for method in dedup.methods:
        if method == "paragraph":
            docs, found, changes = remove_repeated_paragraphs(docs, survivors.select("id"), dedup.paragraph)
            remaining = docs.join(survivors.select("id"), "id", "left_semi").join(found.select("id"), "id", "left_anti")
            survivors = sign(remaining).localCheckpoint()
        else:
            if method == "url":
                found = url_duplicates(survivors)
            elif method == "exact":
                found = exact_duplicates(survivors, order)
            elif method == "simhash":
                found = simhash_duplicates(survivors.select("id", "simhash", *keep_columns), dedup.simhash, order)
            elif method == "semantic":
                found = _semantic_on_driver(survivors, dedup, order)
            else:
                signed = survivors.select("id", "signature", *keep_columns)
                found = minhash_duplicates(signed, dedup, order, band_tasks)
            found = found.withColumn("note", F.lit(None).cast("string"))
        if method == "paragraph":
            # Read by its changes too: materialized once. A document method's drops are read by the
            # next methods and the verdicts, all within the verdicts' query, where Spark runs their
            # shuffles once (ReusedExchange): materialized apart, they were a Spark job each.
            found = found.localCheckpoint()
        founds.append(found)
        survivors = survivors.join(found.select("id"), "id", "left_anti")
    return cluster_verdict_frame(founds, published, buckets), changes


def _semantic_on_driver(survivors: DataFrame, dedup: DedupConfig, order) -> DataFrame:
    """The semantic method on the survivors' vectors gathered on the driver (768 bytes a document
    at 384 dimensions; at most dedup.semantic.max_documents, one more to refuse past it): k-means
    and the pairs are numpy work on one matrix, not a shuffle. -> (id, kept_id, reason)."""
    columns = dict.fromkeys(["id", *SEMANTIC_COLUMNS, *(column for column, _ in order)])
    embedded = survivors.where(F.col(SEMANTIC_COLUMNS[0]).isNotNull()).select(*columns)
    rows = embedded.limit(dedup.semantic.max_documents + 1).toArrow()
    found = method_duplicates("semantic", rows, dedup, order)
    table = pa.Table.from_pylist(
        [dict(zip(_FOUND_SCHEMA.names, drop, strict=True)) for drop in found], schema=_FOUND_SCHEMA
    )
    return survivors.sparkSession.createDataFrame(table)


def cluster_verdict_frame(founds: list[DataFrame], published: DataFrame | None, buckets: int) -> DataFrame:
    """chain.chained over each method's drops (id, kept_id, reason, note), in method order, then
    chain.cluster_verdicts, in one task: one shuffle whatever the input, where the same as joins
    and aggregations were 12 of the stage's 26 Spark jobs (10k documents). That task holds the
    dropped documents' ids (duplicates only, as components.py's), as int codes (chain.chain_codes):
    ~230 bytes a dropped document and 4.7-4.9 CPU s at 2M of them, where dicts of Python strings
    took 1.7 kB and 25-29 s. `published`: the ids of the index's documents (None without an index),
    which stand for their drops but are no documents of this run.

    The rows come as the decide step's parts take them (write_bucketed_parts): each with its id's
    bucket of `buckets` (PART_COLUMN), sorted by bucket then id, the buckets computed by Spark
    before the gather, so no shuffle follows the task (one Spark job fewer)."""
    drops = [
        found.select("id", "kept_id", "reason", "note", F.lit(position).alias(_METHOD))
        for position, found in enumerate(founds)
    ]
    gathered = reduce(DataFrame.unionByName, drops)
    if published is None:
        gathered = gathered.withColumn(_KEPT_PUBLISHED, F.lit(False))
    else:
        flags = published.select(F.col("id").alias("kept_id"), F.lit(True).alias(_KEPT_PUBLISHED))
        gathered = gathered.join(flags, "kept_id", "left").fillna(False, [_KEPT_PUBLISHED])
    gathered = gathered.withColumns({_ID_BUCKET: bucket_of("id", buckets), _KEPT_BUCKET: bucket_of("kept_id", buckets)})
    return gathered.repartition(1).mapInArrow(_verdict_batches, spark_schema(BUCKETED_VERDICT_SCHEMA))


def _verdict_batches(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """The one partition's drops -> BUCKETED_VERDICT_SCHEMA rows by bucket then id, as the driver
    path decides them (chain.chained, chain.cluster_verdicts), on int codes of the ids
    (chain.chain_codes)."""
    ids = SortedIds(columns=2)
    reasons, notes, methods, published, id_buckets, kept_buckets = [], [], [], [], [], []
    for batch in batches:
        ids.add(batch.column("id"), batch.column("kept_id"))
        reasons.append(batch.column("reason"))
        notes.append(batch.column("note"))
        methods.append(batch.column(_METHOD).to_numpy())
        published.append(batch.column(_KEPT_PUBLISHED).to_numpy(zero_copy_only=False))
        id_buckets.append(batch.column(_ID_BUCKET).to_numpy())
        kept_buckets.append(batch.column(_KEPT_BUCKET).to_numpy())
    names, (doc, kept) = ids.sorted()
    reason_values, reason_codes = _row_codes(reasons)
    note_values, note_codes = _row_codes(notes)
    final, deciding = chain_codes(doc, kept, _joined(methods, np.int64), len(names))
    standing = np.zeros(len(names), dtype=bool)  # kept ids that are documents of this run
    standing[kept[(kept != NO_ID) & ~_joined(published, bool)]] = True
    members, clusters, sizes = cluster_codes(final, standing)
    bucket = np.zeros(len(names), dtype=np.int32)  # each name's, from a row that holds it
    has_kept = kept != NO_ID
    bucket[kept[has_kept]] = _joined(kept_buckets, np.int32)[has_kept]
    bucket[doc] = _joined(id_buckets, np.int32)
    by_bucket = np.argsort(bucket[members], kind="stable")  # members come by id
    members, clusters, sizes = members[by_bucket], clusters[by_bucket], sizes[by_bucket]
    for start in range(0, len(members), _BATCH_ROWS):
        part = slice(start, start + _BATCH_ROWS)
        rows = deciding[members[part]]
        kept_codes = final[members[part]]
        columns = [
            names.taken(members[part]),
            names.taken(np.where(kept_codes >= 0, kept_codes, NO_ID)),
            taken(reason_values, np.where(rows >= 0, reason_codes[rows], NO_ID)),
            taken(note_values, np.where(rows >= 0, note_codes[rows], NO_ID)),
            names.taken(clusters[part]),
            pa.array(sizes[part], pa.int64()),
            pa.array(bucket[members[part]], pa.int32()),
        ]
        yield pa.RecordBatch.from_arrays(columns, schema=BUCKETED_VERDICT_SCHEMA)


def _row_codes(arrays: list[pa.Array]) -> tuple[pa.Array, np.ndarray]:
    """String arrays, one after the other -> (their distinct values, each row's code)."""
    values, codes = dictionary_codes(arrays)
    return values, _joined(codes, np.int32)


def _joined(parts: list[np.ndarray], dtype) -> np.ndarray:
    return np.concatenate(parts) if parts else np.empty(0, dtype)
