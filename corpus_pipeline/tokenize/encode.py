"""Documents to token arrays with `encode_batch_fast`, in bounded memory, whatever the input.

- Batches hold about `batch_chars` characters, so the encoder's threads always have work and its
  per-token bookkeeping (freed after each batch) stays bounded however the documents are sized.
- A document longer than `max_chunk_chars` is encoded in pieces cut at pre-tokenization boundaries
  (pretokenize.split_long_text), which gives the ids of the whole: a 10 MB page costs the memory of
  its uint16 ids (~5 MB), not of a 10 MB encoding (~1 GB of offsets and strings).
- Text bytes that are not UTF-8 are decoded with U+FFFD replacements, and lone surrogates (which
  `tokenizers` refuses) become U+FFFD; both are counted. Control characters are bytes like any other.
- One batch is encoded in a thread of its own while this one gathers the next batch, turns the
  previous batch's encodings into arrays and hands its documents on (`encode_batch_fast` releases
  the GIL): the reading, decoding, id conversion and shard writing around the calls, ~15 % of the
  stage's CPU seconds on 33 MB of text, no longer leave the encoder's threads waiting. Two batches
  are held at most: the one encoding and the one being converted.
`encode_batch_fast` is `encode_batch` without character offsets, which we never use (the peer
benchmark measured it 10% faster on 2 threads).
"""

from __future__ import annotations

import re
from collections import Counter, deque
from collections.abc import Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
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


_Batch = list[tuple["_Pending", int, str]]  # (document, piece number, piece text)


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

    def _encode(self, texts: list[str]) -> tuple[list, Counter]:
        """The encodings of `texts`, and the repairs made (counted by the caller: this runs in the
        encoding thread)."""
        repairs: Counter = Counter()
        try:
            encodings = self.tokenizer.encode_batch_fast(texts, add_special_tokens=False)
        except TypeError:  # tokenizers refuses str holding lone surrogates
            texts = [without_surrogates(text, repairs) for text in texts]
            encodings = self.tokenizer.encode_batch_fast(texts, add_special_tokens=False)
        return encodings, repairs

    def encode(self, documents: Iterable[tuple[Key, str]]) -> Iterator[tuple[Key, list[np.ndarray]]]:
        """Yield (key, token arrays) for every (key, text), in input order; the arrays concatenated
        are the document's ids (no end-of-document token)."""
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="encode") as encoding:
            previous: tuple[_Batch, Future] | None = None  # submitted, not yet collected
            waiting: deque[_Pending[Key]] = deque()  # documents not yet yielded, in order
            for batch in self._batches(documents, waiting):
                submitted = (batch, encoding.submit(self._encode, [piece for _, _, piece in batch]))
                if previous is not None:
                    self._collect(*previous)  # while `batch` encodes
                    yield from _finished(waiting)
                previous = submitted
            if previous is not None:
                self._collect(*previous)
            yield from _finished(waiting)

    def _collect(self, batch: _Batch, encoded: Future) -> None:
        encodings, repairs = encoded.result()
        self.repairs.update(repairs)
        for (pending, number, _), encoding in zip(batch, encodings, strict=True):
            pending.arrays[number] = np.array(encoding.ids, dtype=self.dtype)
            pending.pieces_left -= 1

    def _batches(self, documents: Iterable[tuple[Key, str]], waiting: deque) -> Iterator[_Batch]:
        """Batches of about batch_chars characters (long documents cut in pieces); every document
        is appended to `waiting` as it is read."""
        batch: _Batch = []
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
                    yield batch
                    batch, batch_chars = [], 0
        if batch:
            yield batch


def _finished(waiting: deque) -> Iterator[tuple]:
    """The documents at the head of `waiting` whose every piece is encoded, in order."""
    while waiting and waiting[0].pieces_left == 0:
        done = waiting.popleft()
        yield done.key, done.arrays
