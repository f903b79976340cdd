"""One bucket of documents (in id order) to its shards, token counts, rejects and stats: the same code
under Spark and the local executor, so both write the same bytes.

Files of bucket B, written in a task attempt directory of their own (engine/store/task_output.py) and
committed with one rename, then moved into the stage's work directory by the lifecycle:
    _shards/bucket-B-R.bin/.idx     shard R of the bucket (renamed <prefix>_<NNNNN> by the driver)
    _shards/part-B.json             what those shards hold (documents, tokens, bytes, sha256)
    token_counts/part-B.parquet     id, token_count (text tokens, end-of-document token excluded)
    _rejected/reason=empty_text/part-B.parquet
    _tasks/part-B.json              StageStats, with the bucket's identity ("bucket B of N")
"""

from __future__ import annotations

import itertools
import json
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from corpus_pipeline.engine.whole_corpus import PARQUET_OPTIONS, TaskAttempt, part_name, task_done
from corpus_pipeline.stats import StageStats
from corpus_pipeline.storage import Storage
from corpus_pipeline.tokenize.bpe import tokenizer_from_json
from corpus_pipeline.tokenize.encode import DocumentEncoder, decode_text
from corpus_pipeline.tokenize.indexed_dataset import ShardWriter
from corpus_pipeline.tokenize.sharding import bucket_file_name

STAGE = "tokenize"
SHARDS_DIR = "_shards"
TOKEN_COUNTS_DIR = "token_counts"
EMPTY_TEXT = "empty_text"
TOKEN_COUNTS_SCHEMA = pa.schema([pa.field("id", pa.string(), nullable=False), pa.field("token_count", pa.int64())])
REJECTED_SCHEMA = pa.schema([("id", pa.string()), ("language", pa.string()), ("reject_detail", pa.string())])
_ROWS_PER_WRITE = 100_000

Row = tuple[int, str, bytes, str | None]  # bucket, id, text as UTF-8 bytes, language


@dataclass(frozen=True)
class TokenizeJob:
    """What every task needs; pickled to Spark executors with the tokenizer's JSON (1-3 MB), so an
    executor needs no file of the driver's."""

    work: str  # where tasks commit: a work directory or an object commit area
    storage: Storage
    tokenizer_json: str
    tokenizer_sha256: str
    dtype: str
    eod_id: int
    shard_bytes: int
    max_chunk_chars: int
    batch_chars: int
    buckets: int

    def bucket_identity(self, bucket: int) -> str:
        return f"bucket {bucket} of {self.buckets}"

    def bucket_done(self, bucket: int) -> bool:
        return task_done(self.work, part_name(bucket), self.bucket_identity(bucket), self.storage)


def bucket_summary_name(bucket: int) -> str:
    return f"{SHARDS_DIR}/{part_name(bucket)}.json"


class _Rows:
    """A Parquet file of the attempt written in chunks, created only if a row comes."""

    def __init__(self, path: Path, schema: pa.Schema):
        self.path, self.schema, self.rows, self.writer = path, schema, [], None

    def add(self, row: dict) -> None:
        self.rows.append(row)
        if len(self.rows) >= _ROWS_PER_WRITE:
            self.flush()

    def flush(self) -> None:
        if self.rows:
            if self.writer is None:
                self.writer = pq.ParquetWriter(self.path, self.schema, **PARQUET_OPTIONS)
            self.writer.write_table(pa.Table.from_pylist(self.rows, schema=self.schema))
            self.rows = []

    def close(self) -> None:
        self.flush()
        if self.writer is not None:
            self.writer.close()


class _RollingShards:
    """Shards of one bucket, a new one started before a document would take .bin past shard_bytes."""

    def __init__(self, job: TokenizeJob, bucket: int, attempt: TaskAttempt):
        self.job, self.bucket, self.done, self.writer, self.attempt = job, bucket, [], None, attempt

    def add(self, pieces: list[np.ndarray]) -> None:
        incoming = (sum(len(piece) for piece in pieces) + 1) * np.dtype(self.job.dtype).itemsize
        if self.writer is not None and self.writer.tokens and self.writer.bin_bytes + incoming > self.job.shard_bytes:
            self.done.append(self.writer.close())
            self.writer = None
        if self.writer is None:
            path = self.attempt.path(f"{SHARDS_DIR}/{bucket_file_name(self.bucket, len(self.done))}")
            self.writer = ShardWriter(path, np.dtype(self.job.dtype), self.job.eod_id)
        self.writer.add_document(pieces)

    def close(self) -> list[dict]:
        if self.writer is not None:
            self.done.append(self.writer.close())
        return [shard.to_dict() for shard in self.done]

    def abort(self) -> None:
        if self.writer is not None:
            self.writer.abort()


def empty_text_detail(text: str) -> str | None:
    """Why a document has nothing to tokenize, or None when it has text."""
    if not text:
        return "no text"
    return f"only whitespace ({len(text)} characters)" if text.isspace() else None


def write_bucket(job: TokenizeJob, bucket: int, rows: Iterable[Row]) -> StageStats:
    started = time.perf_counter()
    part = part_name(bucket)
    attempt = TaskAttempt(job.work, part, job.bucket_identity(bucket), storage=job.storage)
    tokenizer = tokenizer_from_json(job.tokenizer_json, job.tokenizer_sha256)
    encoder = DocumentEncoder(tokenizer, np.dtype(job.dtype), job.max_chunk_chars, job.batch_chars)
    stats = StageStats(STAGE, tasks=1)
    counts = _Rows(attempt.path(f"{TOKEN_COUNTS_DIR}/{part}.parquet"), TOKEN_COUNTS_SCHEMA)
    rejected = _Rows(attempt.path(f"{STAGE}/rejected/{EMPTY_TEXT}.parquet"), REJECTED_SCHEMA)
    shards = _RollingShards(job, bucket, attempt)

    def documents() -> Iterator[tuple[tuple[str, str | None, int], str]]:
        for _, doc_id, raw, language in rows:
            stats.count_in(len(raw))
            text = decode_text(raw, encoder.repairs)
            detail = empty_text_detail(text)
            if detail is not None:
                stats.count_dropped(EMPTY_TEXT)
                rejected.add({"id": doc_id, "language": language, "reject_detail": detail})
                continue
            yield (doc_id, language, len(raw)), text

    try:
        for (doc_id, language, nbytes), pieces in encoder.encode(documents()):
            shards.add(pieces)
            text_tokens = sum(len(piece) for piece in pieces)
            counts.add({"id": doc_id, "token_count": text_tokens})
            stats.count_kept(nbytes)
            stats.count("tokens", "text", text_tokens)
            stats.count("tokens", "end_of_document")
            stats.count("tokens_by_language", language or "unknown", text_tokens)
        summary = {"bucket": bucket, "shards": shards.close()}
        counts.close()
        rejected.close()
        for key, value in sorted(encoder.repairs.items()):
            stats.count("repairs", key, value)
        stats.check_balanced()
        stats.seconds = stats.task_seconds = time.perf_counter() - started
        attempt.path(bucket_summary_name(bucket)).write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
        return attempt.commit({STAGE: stats})[STAGE]
    except BaseException:
        shards.abort()
        attempt.abort()
        raise


def write_buckets(job: TokenizeJob, rows: Iterable[Row]) -> list[tuple[int, StageStats]]:
    """Rows sorted by (bucket, id), possibly several buckets (Spark's hash partitioning can put two
    buckets in one partition): each bucket is written on its own."""
    return [(bucket, write_bucket(job, bucket, group)) for bucket, group in itertools.groupby(rows, key=lambda r: r[0])]


def arrow_rows(batches: Iterable[pa.RecordBatch]) -> Iterator[Row]:
    """(bucket, id, text bytes, language) from batches with those columns (text as binary)."""
    for batch in batches:
        columns = [batch.column(name).to_pylist() for name in ("bucket", "id", "text", "language")]
        yield from zip(*columns, strict=True)
