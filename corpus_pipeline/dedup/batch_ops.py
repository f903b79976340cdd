"""Arrow-batch functions that the Spark job maps over its frames; plain Python, tested alone."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyarrow as pa

from corpus_pipeline.dedup.config import DedupConfig
from corpus_pipeline.dedup.exact import normalized_hash
from corpus_pipeline.dedup.lsh import band_keys, signature_matrix
from corpus_pipeline.dedup.minhash import estimated_jaccard, minhash_values, signature
from corpus_pipeline.dedup.shingle_hashes import shingle_hashes
from corpus_pipeline.dedup.shingles import normalize_for_hashing, uses_characters
from corpus_pipeline.dedup.simhash import simhashes, to_signed
from corpus_pipeline.urls import canonical_url

SIGNATURE_SCHEMA = pa.schema(
    [
        ("id", pa.string()),
        ("canonical_url", pa.string()),
        ("exact_hash", pa.string()),
        ("signature", pa.binary()),
        ("simhash", pa.int64()),
    ]
)
BAND_SCHEMA = pa.schema([("band", pa.int32()), ("key", pa.int64()), ("id", pa.string())])
SIMILARITY_SCHEMA = pa.schema([("src", pa.string()), ("dst", pa.string()), ("similarity", pa.float64())])


def signature_batch(
    batch: pa.RecordBatch, config: DedupConfig, with_simhash: bool = True, carried: Sequence[str] = ()
) -> pa.RecordBatch:
    """(id, url, text, language, *carried) -> (id, canonical_url, exact_hash, signature, simhash,
    *carried); signature and simhash are null for a text with no shingles (only punctuation, say),
    which only the exact method can match, and simhash is null without `with_simhash` (a run that
    does not use it). The `carried` columns (the keep rule's) come through as they are."""
    ids, urls, texts, languages = (batch.column(name).to_pylist() for name in ("id", "url", "text", "language"))
    exact_hashes, signatures, shingle_sets = [], [], []
    for text, language in zip(texts, languages, strict=True):
        normalized = normalize_for_hashing(text)
        exact_hashes.append(normalized_hash(normalized))
        by_characters = uses_characters(language, normalized)
        hashes = shingle_hashes(normalized, by_characters, config.word_ngram, config.char_ngram)
        values = minhash_values(hashes)
        signatures.append(signature(values, config.num_perm, config.seed).tobytes() if len(hashes) else None)
        shingle_sets.append(hashes)
    fingerprints = pa.nulls(len(ids), pa.int64())
    if with_simhash:
        values = to_signed(simhashes(shingle_sets))
        fingerprints = pa.array(values, pa.int64(), mask=np.array([not len(s) for s in shingle_sets], dtype=bool))
    columns = [
        pa.array(ids, pa.string()),
        pa.array([canonical_url(url) if url else None for url in urls], pa.string()),
        pa.array(exact_hashes, pa.string()),
        pa.array(signatures, pa.binary()),
        fingerprints,
    ]
    if not carried:
        return pa.RecordBatch.from_arrays(columns, schema=SIGNATURE_SCHEMA)
    names = [*SIGNATURE_SCHEMA.names, *carried]
    return pa.RecordBatch.from_arrays([*columns, *(batch.column(name) for name in carried)], names=names)


def band_batch(batch: pa.RecordBatch, bands: int, rows: int) -> pa.RecordBatch:
    """(id, signature) -> one (band, key, id) row per band, document by document."""
    keys = band_keys(signature_matrix(batch.column("signature")), bands, rows)
    documents = np.repeat(np.arange(batch.num_rows), bands)
    return pa.RecordBatch.from_arrays(
        [
            pa.array(np.tile(np.arange(bands, dtype=np.int32), batch.num_rows)),
            pa.array(keys.ravel()),
            batch.column("id").take(pa.array(documents)).cast(pa.string()),
        ],
        schema=BAND_SCHEMA,
    )


def similarity_batch(batch: pa.RecordBatch) -> pa.RecordBatch:
    """(src, dst, src_signature, dst_signature) -> (src, dst, estimated Jaccard)."""
    left, right = batch.column("src_signature").to_pylist(), batch.column("dst_signature").to_pylist()
    similarity = [
        estimated_jaccard(np.frombuffer(a, dtype="<u4"), np.frombuffer(b, dtype="<u4"))
        for a, b in zip(left, right, strict=True)
    ]
    return pa.RecordBatch.from_arrays(
        [batch.column("src").cast(pa.string()), batch.column("dst").cast(pa.string()), pa.array(similarity)],
        schema=SIMILARITY_SCHEMA,
    )
