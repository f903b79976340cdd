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


def with_changes(table: pa.Table, changes: dict[str, dict], first: list[bool]) -> pa.Table:
    """`table` with the paragraph method's changes (CLEANED_SCHEMA rows by id) applied to its `first`
    rows (a repeated id's later rows keep their text): the cleaned text of a document it cleaned and
    kept, and the count columns the stage's counters read (null where a row was not cleaned)."""
    texts, removed, characters = [], [], []
    ids, originals = table.column("id").to_pylist(), table.column("text").to_pylist()
    for doc_id, text, is_first in zip(ids, originals, first, strict=True):
        row = changes.get(doc_id) if is_first else None
        keep_cleaned = row is not None and row["cleaned_text"] is not None and row["reject_detail"] is None
        texts.append(row["cleaned_text"] if keep_cleaned else text)
        removed.append(None if row is None else row["paragraphs_removed"])
        characters.append(None if row is None else row["characters_removed"])
    text_field = table.schema.get_field_index("text")
    table = table.set_column(text_field, "text", pa.array(texts, table.schema.field("text").type))
    table = _replace_column(table, PARAGRAPHS_REMOVED, pa.array(removed, pa.int64()))
    return _replace_column(table, CHARACTERS_REMOVED, pa.array(characters, pa.int64()))


def _replace_column(table: pa.Table, name: str, values: pa.Array) -> pa.Table:
    index = table.schema.get_field_index(name)
    return table.append_column(name, values) if index < 0 else table.set_column(index, name, values)
