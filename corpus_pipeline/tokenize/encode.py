"""Documents to token arrays with `encode_batch_fast`, in bounded memory, whatever the input.

- Batches hold about `batch_chars` characters, so the encoder's threads always have work and its
  per-token bookkeeping (freed after each batch) stays bounded however the documents are sized.
- A document longer than `max_chunk_chars` is encoded in pieces cut at pre-tokenization boundaries
  (pretokenize.split_long_text), which gives the ids of the whole: a 10 MB page costs the memory of
  its uint16 ids (~5 MB), not of a 10 MB encoding (~1 GB of offsets and strings).
- Text bytes that are not UTF-8 are decoded with U+FFFD replacements, and lone surrogates (which
  `tokenizers` refuses) become U+FFFD; both are counted. Control characters are bytes like any other.
`encode_batch_fast` is `encode_batch` without character offsets, which we never use (the peer
benchmark measured it 10% faster on 2 threads).
"""

from __future__ import annotations

import re
from collections import Counter, deque
from collections.abc import Iterable, Iterator
from typing import Generic, TypeVar

import numpy as np

from corpus_pipeline.tokenize.pretokenize import split_long_text

Key = TypeVar("Key")
_SURROGATE = re.compile("[\ud800-\udfff]")


def decode_text(raw: bytes, repairs: Counter) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        repairs["invalid_utf8"] += 1
        return raw.decode("utf-8", errors="replace")


def without_surrogates(text: str, repairs: Counter) -> str:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        repairs["lone_surrogates"] += 1
        return _SURROGATE.sub("\ufffd", text)
    return text


class _Pending(Generic[Key]):
    __slots__ = ("key", "pieces_left", "arrays")

    def __init__(self, key: Key, pieces: int):
        self.key = key
        self.pieces_left = pieces
        self.arrays: list[np.ndarray | None] = [None] * pieces


class DocumentEncoder:
    def __init__(self, tokenizer, dtype: np.dtype, max_chunk_chars: int, batch_chars: int):
        self.tokenizer = tokenizer
        self.dtype = np.dtype(dtype)
        self.max_chunk_chars = max_chunk_chars
        self.batch_chars = batch_chars
        self.repairs: Counter = Counter()  # invalid_utf8, lone_surrogates, hard_cuts, long_documents

    def _encode(self, texts: list[str]) -> list[np.ndarray]:
        try:
            encodings = self.tokenizer.encode_batch_fast(texts, add_special_tokens=False)
        except TypeError:  # tokenizers refuses str holding lone surrogates
            texts = [without_surrogates(text, self.repairs) for text in texts]
            encodings = self.tokenizer.encode_batch_fast(texts, add_special_tokens=False)
        return [np.array(encoding.ids, dtype=self.dtype) for encoding in encodings]

    def encode(self, documents: Iterable[tuple[Key, str]]) -> Iterator[tuple[Key, list[np.ndarray]]]:
        """Yield (key, token arrays) for every (key, text), in input order; the arrays concatenated
        are the document's ids (no end-of-document token)."""
        waiting: deque[_Pending[Key]] = deque()  # documents not yet yielded, in order
        batch: list[tuple[_Pending[Key], int, str]] = []
        batch_chars = 0
        for key, text in documents:
            pieces = [text]
            if len(text) > self.max_chunk_chars:
                self.repairs["long_documents"] += 1
                cut = list(split_long_text(text, self.max_chunk_chars))
                hard_cuts = sum(hard for _, hard in cut)
                if hard_cuts:
                    self.repairs["hard_cuts"] += hard_cuts
                pieces = [piece for piece, _ in cut]
            pending = _Pending(key, len(pieces))
            waiting.append(pending)
            for number, piece in enumerate(pieces):
                batch.append((pending, number, piece))
                batch_chars += len(piece)
                if batch_chars >= self.batch_chars:
                    yield from self._flush(batch, waiting)
                    batch, batch_chars = [], 0
        yield from self._flush(batch, waiting)

    def _flush(self, batch, waiting: deque) -> Iterator[tuple[Key, list[np.ndarray]]]:
        if batch:
            for (pending, number, _), ids in zip(batch, self._encode([piece for _, _, piece in batch]), strict=True):
                pending.arrays[number] = ids
                pending.pieces_left -= 1
        while waiting and waiting[0].pieces_left == 0:
            done = waiting.popleft()
            yield done.key, done.arrays
