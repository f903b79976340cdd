"""Arrow-batch functions of paragraph boilerplate removal, for paragraph_job.py to map over its
frames; plain Python, tested alone."""

from __future__ import annotations

import pyarrow as pa

from corpus_pipeline.dedup.paragraphs import document_paragraph_hashes, remove_paragraphs, split_paragraphs
from corpus_pipeline.dedup.shingles import normalize_for_hashing

REASON = "empty_after_paragraph_dedup"
# Hidden columns the stage writer turns into `_stats.json` counts and drops before writing.
PARAGRAPHS_REMOVED, CHARACTERS_REMOVED = "_paragraphs_removed", "_paragraph_characters_removed"
HASH_SCHEMA = pa.schema([("id", pa.string()), ("paragraph_hash", pa.int64())])
CLEANED_SCHEMA = pa.schema(
    [
        ("id", pa.string()),
        ("cleaned_text", pa.string()),
        ("paragraphs_removed", pa.int64()),
        ("characters_removed", pa.int64()),
        ("reject_detail", pa.string()),
    ]
)


def paragraph_hash_batch(batch: pa.RecordBatch) -> pa.RecordBatch:
    """(id, text) -> one (id, paragraph_hash) row per distinct paragraph of each document."""
    ids, hashes = [], []
    for doc_id, text in zip(batch.column("id").to_pylist(), batch.column("text").to_pylist(), strict=True):
        found = sorted(document_paragraph_hashes(text))
        ids.extend([doc_id] * len(found))
        hashes.extend(found)
    return pa.RecordBatch.from_arrays([pa.array(ids, pa.string()), pa.array(hashes, pa.int64())], schema=HASH_SCHEMA)


def cleaned_batch(batch: pa.RecordBatch, min_documents: int, min_chars: int) -> pa.RecordBatch:
    """(id, text, repeated: the document's paragraph hashes found in >= min_documents documents) ->
    (id, cleaned_text, paragraphs_removed, characters_removed, reject_detail); reject_detail says
    why a document left with fewer than min_chars normalized characters is rejected, else null."""
    columns: dict[str, list] = {name: [] for name in CLEANED_SCHEMA.names}
    rows = zip(*(batch.column(name).to_pylist() for name in ("id", "text", "repeated")), strict=True)
    for doc_id, text, repeated in rows:
        cleaned = remove_paragraphs(text, set(repeated))
        left = len(normalize_for_hashing(cleaned.text))
        detail = None
        if left < min_chars:
            total = len(split_paragraphs(text)[0])
            detail = (
                f"{cleaned.paragraphs_removed} of {total} paragraphs found in >= {min_documents} documents; "
                f"{left} characters left (min_chars {min_chars})"
            )
        columns["id"].append(doc_id)
        columns["cleaned_text"].append(cleaned.text)
        columns["paragraphs_removed"].append(cleaned.paragraphs_removed)
        columns["characters_removed"].append(cleaned.characters_removed)
        columns["reject_detail"].append(detail)
    return pa.RecordBatch.from_pydict(columns, schema=CLEANED_SCHEMA)
