"""Whether dedup decides in the driver's own process (driver_job.py) or by Spark jobs: the bytes
the driver would hold, against the memory budget `engine.memory_mb`.

What it holds grows with the documents, not with their text: per document its signature row (the
MinHash values, ids, hashes and keep-rule columns, in one Arrow table: small_decisions.py) and its
order key and text digest; of the text, only one output bucket at a time (read back from the
spill) and one input batch. The constants are measured on `dedup --runner local` of the issue's generated documents
(real pages grown by seeded rewrites, 30 % planted copies; 10k: 64 MB of text in 2 parts, 50k: 326
MB in 10): peak RSS 409 MB and 538 MB (2026-12-07; before this path 721 MB and 2,280 MB). On 5,000
documents of ~62 kB in 2 parts the estimate is 930 MB, the peak 993 MB (2,726 MB before).
"""

from __future__ import annotations

import math

from corpus_pipeline.dedup.bucket_spill import FLUSH_BYTES
from corpus_pipeline.dedup.config import DedupConfig
from corpus_pipeline.storage import Storage
from corpus_pipeline.storage.parquet import parquet_metadata

# Per document besides its signature's 4 bytes a permutation: the rest of its signature row in
# Arrow, its order key and text digest while the scan runs, minhash's band keys (144 bytes at 18
# bands) and what the allocators keep. Measured on `dedup --runner local` of the scale bench's
# documents: 86,147 -> 858,219 documents raised the peak from 444 to 1,229 MB (2026-12-08), 1.02
# kB a document, signature included (as Python dicts the rows took 2.1 kB: 1,798 MB at 858k). Their
# signature rows are 647 bytes and their scan keys 125 (no date, short file paths). Web pages with
# a date and a Common Crawl file path (the 1,432 real pages, ids made by document_id): 710 and 225,
# so at most ~1.18 kB a document, under 800 + 512.
ROW_BYTES = 800
# The process with no document held: the imports (138 MB) and the pages the allocators keep after
# the scan's batches (317 MB after scanning 10k documents, 2.1 kB of them the documents').
BASE_BYTES = 300 << 20
# Writing a bucket holds its rows, their sorted copy and the writer's buffers: a bucket of 32 MB of
# uncompressed text raised the peak by ~130 MB.
BUCKET_FACTOR = 4
# Paragraph removal on the driver (driver_paragraphs.py) holds every candidate's paragraph hashes
# as Python ints, and a count of each: as many as the paragraphs, so with the text. Measured with
# and without "paragraph" in dedup.methods (2026-12-08): +190 MB at 86,147 documents of 498 MB of
# text, +400 MB at 17,197 of 996 MB (0.38 and 0.40 bytes a byte of text).
PARAGRAPH_BYTES_PER_TEXT_BYTE = 0.45
# Uncompressed text an output part holds at most when dedup.output_parts is not set: one input part
# of 496 MB (86k generated documents in one JSONL, bench_cluster.py) written as one bucket put 4x
# that in the driver's budget and sent dedup to Spark jobs; as 4 parts the pass holds ~1 GB.
PART_TEXT_BYTES = 128 << 20


def input_size(parts: list, storage: Storage) -> tuple[int, int]:
    """(rows, uncompressed bytes) of Parquet parts, from their footers."""
    rows = size = 0
    for part in parts:
        metadata = parquet_metadata(storage, str(part))
        rows += metadata.num_rows
        size += sum(metadata.row_group(group).total_byte_size for group in range(metadata.num_row_groups))
    return rows, size


def driver_bytes(rows: int, text_bytes: int, buckets: int, dedup: DedupConfig) -> int:
    """What the driver's pass holds at its peak for `rows` documents (the index's included) of
    `text_bytes` uncompressed bytes written to `buckets` parts."""
    text_held = max(BUCKET_FACTOR * text_bytes // max(buckets, 1), 2 * FLUSH_BYTES)  # the write's or the spill's
    paragraphs = int(PARAGRAPH_BYTES_PER_TEXT_BYTE * text_bytes) if "paragraph" in dedup.methods else 0
    return BASE_BYTES + rows * (ROW_BYTES + 4 * dedup.num_perm) + text_held + paragraphs


def output_part_count(input_parts: int, text_bytes: int, dedup: DedupConfig) -> int:
    """dedup.output_parts, else one per input part and more where a part would hold over
    PART_TEXT_BYTES of text: decided by the input alone, so a resume under any cluster finds the
    same tasks."""
    return dedup.output_parts or max(input_parts, math.ceil(text_bytes / PART_TEXT_BYTES))


# Under a runner of several cores the driver's pass is one core's work that the Spark jobs would
# spread over them, so it stays on the driver only while it takes less wall time. Measured on the
# scale bench's documents: the driver's pass 462-465 CPU us a document at 86k and 858k documents,
# the Spark jobs 549 at 858k (local[2], JVM included), and ~12 s of jobs whatever the input (14.6 s
# of wall time on 1,423 documents: stage.py). Modelled, not timed on a cluster: the jobs' CPU taken
# as spread evenly. On 2 cores the driver decides up to ~63k documents, on 16 up to ~28k.
DRIVER_SECONDS_PER_ROW = 465e-6
SPARK_SECONDS_PER_ROW = 549e-6
SPARK_JOBS_SECONDS = 12.0


def quicker_on_driver(rows: int, cores: int) -> bool:
    """Whether the driver's pass over `rows` documents takes less wall time than the Spark jobs on
    `cores` cores (on one core, always)."""
    return rows * DRIVER_SECONDS_PER_ROW <= SPARK_JOBS_SECONDS + rows * SPARK_SECONDS_PER_ROW / cores


def fits_driver(
    size: tuple[int, int],
    index_parts: list,
    dedup: DedupConfig,
    budget: tuple[int, int],
    buckets: int,
    storage: Storage,
) -> bool:
    """Whether the pass over an input of `size` (rows, text bytes: input_size) fits the `budget`
    (engine.memory_mb, the runner's cores) and is quicker than the Spark jobs on those cores."""
    (rows, text_bytes), (memory_mb, cores) = size, budget
    published, _ = input_size(index_parts, storage)
    rows += published
    return driver_bytes(rows, text_bytes, buckets, dedup) <= memory_mb << 20 and quicker_on_driver(rows, cores)
