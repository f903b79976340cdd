"""Mix's first pass: one task per slice of an input (whole row groups of one part, as document stages
cut them) encodes its documents once, into a flat token file and a table of what planning needs.

Files of task part-N, committed with one rename (engine/store/task_output.py), moved into the work directory:
    _encoded/part-N.tokens     every document's text tokens back to back (the shards' dtype, no EOD)
    _encoded/part-N.parquet    id, source, domain, language, weight, text_tokens, offset, text_bytes, key
    _encoded/part-N.json       the task's identity and counts (written last: the task is done)
    _rejected/reason=empty_text/part-N.parquet
The second pass copies token ranges out of these files in shard order, so no document is encoded twice.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import xxhash

from corpus_pipeline.engine.whole_corpus import PARQUET_OPTIONS, Task, TaskAttempt
from corpus_pipeline.tokenize.bpe import load_tokenizer
from corpus_pipeline.tokenize.encode import DocumentEncoder, decode_text
from corpus_pipeline.tokenize.shard_task import EMPTY_TEXT, empty_text_detail

ENCODED_DIR = "_encoded"
LABEL_COLUMNS = ("source", "domain", "language")
META_SCHEMA = pa.schema(
    [
        pa.field("id", pa.string(), nullable=False),
        *(pa.field(name, pa.string()) for name in LABEL_COLUMNS),
        pa.field("weight", pa.int64()),
        pa.field("text_tokens", pa.int64()),
        pa.field("offset", pa.int64()),  # in tokens, into part-N.tokens
        pa.field("text_bytes", pa.int64()),
        pa.field("key", pa.uint64()),  # xxh64 of the id, seeded with mix.seed
    ]
)
# What mix rejects (here: empty texts; the plan: documents left out), traceable to the input by id.
REJECTED_SCHEMA = pa.schema(
    [
        pa.field("id", pa.string(), nullable=False),
        *(pa.field(name, pa.string()) for name in LABEL_COLUMNS),
        pa.field("text_tokens", pa.int64()),
        pa.field("reject_detail", pa.string()),
    ]
)
_BATCH_ROWS = 1_000

Tiers = tuple[tuple[float | None, float | None, float], ...]  # (min, max, weight), first match wins
# The hash that rounds a fractional weight is seeded apart from the `key` hash (mix.seed), which
# orders a group's pass: with one hash, the documents first in a partial pass would be the ones
# given the extra copy.
_ROUNDING_SEED_OFFSET = 0x5851F42D4C957F2D


@dataclass(frozen=True)
class EncodeJob:
    """What every encode task needs; pickled to executors (the tokenizer is loaded there from disk)."""

    work: str
    tokenizer_path: str
    tokenizer_sha256: str
    dtype: str
    max_chunk_chars: int
    batch_chars: int
    seed: int
    weights: tuple[tuple[str, Tiers], ...]  # column -> tiers; the weights multiply
    threads: int | None  # encoder threads per task (RAYON_NUM_THREADS); None: the library's default


def encoded_summary(work: Path, task_name: str) -> dict | None:
    path = work / ENCODED_DIR / f"{task_name}.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else None


def tier_weights(values: pa.ChunkedArray | pa.Array, tiers: Tiers) -> np.ndarray:
    """Each value's weight: the first tier holding it (min inclusive, max exclusive); else, or null, 1."""
    numbers = np.asarray(pc.fill_null(values.cast(pa.float64()), np.nan).to_numpy(zero_copy_only=False))
    weights = np.ones(len(numbers), np.float64)
    unassigned = np.ones(len(numbers), bool)
    for low, high, weight in tiers:
        holds = (
            unassigned & (numbers >= (-np.inf if low is None else low)) & (numbers < (np.inf if high is None else high))
        )
        weights[holds] = weight
        unassigned &= ~holds
    return weights


def whole_copies(weights: np.ndarray, ids: pa.Array | pa.ChunkedArray, seed: int) -> np.ndarray:
    """Copies per pass of each document: the weight's whole part, plus one more when a seeded hash
    of the id, read as a number in [0, 1), falls below the fractional part (1.5: half the
    documents twice). The expected count is the weight; the same ids and seed give the same copies."""
    whole = np.floor(weights)
    fraction = weights - whole
    copies = whole.astype(np.int64)
    if fraction.any():
        rounding_seed = (seed + _ROUNDING_SEED_OFFSET) % 2**64
        names = ids.to_pylist()
        for row in np.flatnonzero(fraction):
            draw = xxhash.xxh64_intdigest(names[row].encode("utf-8", "surrogatepass"), seed=rounding_seed) / 2.0**64
            copies[row] += draw < fraction[row]
    return copies


def _batches(task: Task, job: EncodeJob):
    file = pq.ParquetFile(task.path)
    present = set(file.schema_arrow.names)
    columns = ["id", "text", *(c for c in LABEL_COLUMNS if c in present), *(c for c, _ in job.weights)]
    for batch in file.iter_batches(batch_size=_BATCH_ROWS, row_groups=list(task.row_groups), columns=columns):
        labels = {c: batch.column(c) if c in present else pa.nulls(batch.num_rows, pa.string()) for c in LABEL_COLUMNS}
        weight = np.ones(batch.num_rows, np.float64)
        for column, tiers in job.weights:
            weight *= tier_weights(batch.column(column), tiers)
        ids = batch.column("id")
        yield ids, batch.column("text").cast(pa.large_binary()), labels, whole_copies(weight, ids, job.seed)


def encode_part(job: EncodeJob, task: Task) -> str:
    """Encode one task's documents; returns the task's name (its files say the rest)."""
    started = time.perf_counter()
    if job.threads is not None:
        os.environ["RAYON_NUM_THREADS"] = str(job.threads)  # read when the encoder's pool starts
    attempt = TaskAttempt(Path(job.work), task.name, task.identity)
    encoder = DocumentEncoder(
        load_tokenizer(job.tokenizer_path, job.tokenizer_sha256),
        np.dtype(job.dtype),
        job.max_chunk_chars,
        job.batch_chars,
    )
    meta, rejected = [], []
    counts = {"docs_in": 0, "bytes_in": 0}  # (a part without rows still reports its zeros)

    def documents():
        for ids, texts, labels, weights in _batches(task, job):
            rows = zip(
                ids.to_pylist(),
                texts.to_pylist(),
                *(labels[c].to_pylist() for c in LABEL_COLUMNS),
                weights.tolist(),
                strict=True,
            )
            for doc_id, raw, source, domain, language, weight in rows:
                counts["docs_in"] += 1
                counts["bytes_in"] += len(raw)
                text = decode_text(raw, encoder.repairs)
                detail = empty_text_detail(text)
                if detail is not None:
                    rejected.append([doc_id, source, domain, language, 0, detail])
                    continue
                yield (doc_id, source, domain, language, weight, len(raw)), text

    try:
        with open(attempt.path(f"{ENCODED_DIR}/{task.name}.tokens"), "wb", buffering=4 * 2**20) as tokens:
            offset = 0
            for (doc_id, source, domain, language, weight, nbytes), pieces in encoder.encode(documents()):
                length = sum(len(piece) for piece in pieces)
                for piece in pieces:
                    tokens.write(np.ascontiguousarray(piece, dtype=job.dtype))
                key = xxhash.xxh64_intdigest(doc_id.encode("utf-8", "surrogatepass"), seed=job.seed)
                meta.append([doc_id, source, domain, language, weight, length, offset, nbytes, key])
                offset += length
        _write_rows(attempt.path(f"{ENCODED_DIR}/{task.name}.parquet"), meta, META_SCHEMA)
        if rejected:
            _write_rows(attempt.path(f"_rejected/reason={EMPTY_TEXT}/{task.name}.parquet"), rejected, REJECTED_SCHEMA)
        summary = {
            "identity": task.identity,
            **counts,
            EMPTY_TEXT: len(rejected),
            "repairs": dict(sorted(encoder.repairs.items())),
            "seconds": time.perf_counter() - started,
        }
        text = json.dumps(summary, indent=2) + "\n"
        attempt.path(f"{ENCODED_DIR}/{task.name}.json").write_text(text, encoding="utf-8")
        attempt.commit({})
    except BaseException:
        attempt.abort()
        raise
    return task.name


def _write_rows(path: Path, rows: list[list], schema: pa.Schema) -> None:
    columns = list(zip(*rows, strict=True)) if rows else [[] for _ in schema]
    pq.write_table(
        pa.table([pa.array(c, f.type) for c, f in zip(columns, schema, strict=True)], schema=schema),
        path,
        **PARQUET_OPTIONS,
    )
