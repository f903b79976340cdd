"""The same three jobs as spark_jobs.py, in this process with pyarrow: for tests and tiny runs.

Same hash, same sample test, same bucket order, same task code, hence the same bytes. Tokenization
sorts the input by (bucket, id) through run files on local disk (sorted_runs.py), so its memory does
not grow with the input: it held every document's id, text and language before, a peak RSS of
513 MB at 10k generated documents (64 MB of text) and 1,273 MB at 50k, now 467 MB and 498 MB
(`tokenize --runner local`, /usr/bin/time, 2026-12-07). The training sample streams part by part.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc

from corpus_pipeline.storage import Storage
from corpus_pipeline.storage.parquet import open_parquet
from corpus_pipeline.tokenize.sample import UNKNOWN_LANGUAGE, SamplePlan, in_sample
from corpus_pipeline.tokenize.shard_task import TokenizeJob, write_buckets
from corpus_pipeline.tokenize.sharding import bucket_of
from corpus_pipeline.tokenize.sorted_runs import sorted_rows

_BATCH_ROWS = 1_000


def _batches(parts: list[Path | str], input_schema: pa.Schema, storage: Storage | None) -> Iterator[pa.RecordBatch]:
    """id, text (binary), language (never null) of every document, local or `s3://` parts."""
    has_language = "language" in input_schema.names
    columns = ["id", "text", "language"] if has_language else ["id", "text"]
    for part in parts:
        with open_parquet(storage, str(part)) as parquet:
            for batch in parquet.iter_batches(batch_size=_BATCH_ROWS, columns=columns):
                language = batch.column("language") if has_language else pa.nulls(batch.num_rows, pa.string())
                yield pa.RecordBatch.from_arrays(
                    [
                        batch.column("id"),
                        batch.column("text").cast(pa.large_binary()),
                        pc.fill_null(language, UNKNOWN_LANGUAGE),
                    ],
                    names=["id", "text", "language"],
                )


def language_totals(parts: list[Path | str], input_schema: pa.Schema, storage: Storage) -> dict[str, tuple[int, int]]:
    totals: dict[str, tuple[int, int]] = {}
    for batch in _batches(parts, input_schema, storage):
        sizes = pc.binary_length(batch.column("text")).to_pylist()
        for language, size in zip(batch.column("language").to_pylist(), sizes, strict=True):
            docs, nbytes = totals.get(language, (0, 0))
            totals[language] = (docs + 1, nbytes + size)
    return totals


def training_texts(
    parts: list[Path | str], input_schema: pa.Schema, plan: SamplePlan, storage: Storage
) -> Iterator[tuple[str, str]]:
    for batch in _batches(parts, input_schema, storage):
        columns = (batch.column(name).to_pylist() for name in ("id", "language", "text"))
        for doc_id, language, raw in zip(*columns, strict=True):
            if in_sample(plan, doc_id, language):
                yield language, raw.decode("utf-8", errors="replace")


def tokenize_buckets(parts: list[Path | str], input_schema: pa.Schema, job: TokenizeJob, buckets: int) -> None:
    done = {number for number in range(buckets) if job.bucket_done(number)}
    rows = sorted_rows(_batches(parts, input_schema, job.storage), partial(bucket_of, buckets=buckets), done)
    write_buckets(job, rows)
