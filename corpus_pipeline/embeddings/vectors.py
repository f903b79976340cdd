"""How a vector is stored in a document row: the `embedding` column, `dim` little-endian float16
values as one binary value (768 bytes at 384 dimensions), and `embedding_model` naming the model.

Binary rather than a list<float16> column: Spark has no float16 type (its Parquet reader refuses
FLOAT16), and every stage after this one reads and writes the rows through Spark. float16 keeps
cosines of unit vectors to about 1e-3, half the bytes of float32.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from corpus_pipeline.document import DOCUMENT_SCHEMA

EMBEDDING_COLUMN = "embedding"
MODEL_COLUMN = "embedding_model"
EMBEDDING_FIELDS = (pa.field(EMBEDDING_COLUMN, pa.binary()), pa.field(MODEL_COLUMN, pa.string()))
# The document record with the embed stage's columns, as the stages after it read it.
EMBEDDED_SCHEMA = pa.schema([*DOCUMENT_SCHEMA, *EMBEDDING_FIELDS])
STORED_DTYPE = np.dtype("<f2")


def to_stored(vectors: np.ndarray) -> list[bytes]:
    """(n, dim) float rows -> n binary values."""
    half = np.ascontiguousarray(vectors, dtype=STORED_DTYPE)
    return [row.tobytes() for row in half]


def from_stored(values: list[bytes]) -> np.ndarray:
    """n binary values of one dimension -> (n, dim) float32 rows (a ValueError names a mismatch)."""
    if not values:
        return np.zeros((0, 0), dtype=np.float32)
    sizes = {len(value) for value in values}
    if len(sizes) != 1:
        raise ValueError(f"embeddings of different sizes ({', '.join(map(str, sorted(sizes)))} bytes): one model only")
    return np.frombuffer(b"".join(values), dtype=STORED_DTYPE).reshape(len(values), -1).astype(np.float32)
