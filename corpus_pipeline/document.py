"""The document record: one Arrow schema, defined here once.

Column names follow FineWeb/datatrove so `datasets.load_dataset("parquet", ...)` users find what they
expect (`id, text, url, date, dump, file_path, language, language_score, token_count`). Provenance
columns let a document be traced back to the exact WARC record it came from. Stages append typed
signal columns (`STAGE.output_fields`); the Spark schema is derived from the Arrow one
(`engine/exec/spark.py: spark_schema`), never written by hand.
"""

from __future__ import annotations

import hashlib

import pyarrow as pa

from corpus_pipeline.urls import canonical_url

LANGUAGE_TOPK_TYPE = pa.list_(pa.struct([("language", pa.string()), ("score", pa.float32())]))

DOCUMENT_SCHEMA = pa.schema(
    [
        pa.field("id", pa.string(), nullable=False),
        pa.field("text", pa.string(), nullable=False),
        pa.field("url", pa.string()),
        pa.field("date", pa.string()),  # fetch time, ISO 8601 UTC, as WARC-Date writes it
        pa.field("dump", pa.string()),  # snapshot / crawl name
        pa.field("source", pa.string()),  # the corpus source it came from (pipeline.sources name)
        pa.field("domain", pa.string()),  # web, encyclopedia, news, code...: what mix targets group by
        pa.field("file_path", pa.string()),  # source WARC/WET file
        pa.field("warc_record_id", pa.string()),
        pa.field("warc_offset", pa.int64()),  # byte offset of the record in file_path
        pa.field("content_type", pa.string()),  # HTTP media type of the fetched payload
        pa.field("charset", pa.string()),  # how the payload was decoded
        pa.field("language", pa.string()),
        pa.field("language_score", pa.float32()),
        pa.field("language_topk", LANGUAGE_TOPK_TYPE),
        pa.field("token_count", pa.int64()),
        # An ingested record's other fields, one JSON object (ingest.keep_metadata); carried as is.
        pa.field("metadata", pa.string()),
    ]
)

# A dropped document keeps every column and says why; `reason` itself is the directory name
# (`_rejected/reason=<r>/`), so Spark and pyarrow read it back as a partition column.
REJECT_DETAIL_FIELD = pa.field("reject_detail", pa.string())
REJECTED_SCHEMA = DOCUMENT_SCHEMA.append(REJECT_DETAIL_FIELD)


def document_id(url: str | None, text: str) -> str:
    """Stable id: a hash of the canonical URL and the content digest.

    The same page fetched again with the same text keeps its id across runs and snapshots; a changed
    text is a new document. 128 bits: collisions are negligible at 10^12 documents.
    """
    return _keyed_text_id(canonical_url(url) if url else "", text.encode("utf-8", "surrogatepass"))


def source_text_id(source: str, text: bytes) -> str:
    """Stable id of a document that comes without one (an ingested dataset's record): the same hash
    of its source's name and its text's UTF-8 bytes, so a record keeps its id across runs."""
    return _keyed_text_id(f"source:{source}", text)


def _keyed_text_id(key: str, text: bytes) -> str:
    content_digest = hashlib.blake2b(text, digest_size=16).digest()
    return hashlib.blake2b(key.encode("utf-8", "surrogatepass") + b"\x00" + content_digest, digest_size=16).hexdigest()


def empty_document(**values) -> dict:
    """A row with every schema column present (None where unknown), updated with `values`."""
    row = dict.fromkeys(DOCUMENT_SCHEMA.names)
    unknown = set(values) - set(row)
    if unknown:
        raise KeyError(f"not document columns: {sorted(unknown)}")
    row.update(values)
    return row
