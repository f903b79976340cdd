"""Config of tokenizer training and tokenization into shards."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from corpus_pipeline.config_base import Strict


class TrainTokenizerConfig(Strict):
    # Byte-level BPE (HF tokenizers). The vocabulary counts the 256 byte symbols, the special tokens
    # (<|endoftext|> id 0, <|pad|> id 1, then reserved_tokens, then reserved_slots) and the merges.
    vocab_size: int = Field(32_000, ge=300, le=2**31 - 1)
    min_frequency: int = Field(2, ge=1)
    # Domain or chat tokens that must stay whole (e.g. "<|im_start|>"), ids 2, 3, ... in this order.
    reserved_tokens: list[str] = Field(default_factory=list)
    # Unnamed placeholders <|reserved_0|>... kept free for later use without retraining.
    reserved_slots: int = Field(0, ge=0)
    # Text bytes in the training sample, drawn with a seeded hash of the document id.
    sample_bytes: int = Field(500_000_000, ge=1)
    # Language mix of the sample, e.g. {"en": 0.6, "zh": 0.4}; empty: the corpus's own mix. With
    # weights, languages not listed are left out.
    language_weights: dict[str, float] = Field(default_factory=dict)
    seed: int = 0
    # A longer document contributes only its first characters (one 10 MB page must not dominate).
    max_document_chars: int = Field(100_000, ge=1_000)
    # Pre-tokenization: CJK runs are pieces of their own, never merged with Latin letters or a
    # leading punctuation mark (see corpus_pipeline/tokenize/pretokenize.py for the measured effect).
    split_cjk: bool = True


class TokenizeConfig(Strict):
    # Appended after every document; must be in the tokenizer's vocabulary.
    eod_token: str = "<|endoftext|>"
    # auto: uint16 when the vocabulary fits in 65,536 ids, int32 otherwise.
    dtype: Literal["auto", "uint16", "int32"] = "auto"
    # A shard's .bin is closed before a document would take it past this size (256 MiB).
    shard_bytes: int = Field(256 * 2**20, ge=1)
    prefix: str = Field("tokens", pattern=r"^[A-Za-z0-9][A-Za-z0-9.-]*$")
    # Estimate used only to choose the number of shard buckets from the input's text bytes. Measured
    # with a 32k BPE: 3.9 bytes/token on English news, 4.7 on Chinese; 3.0 over-counts tokens, so
    # buckets fill ~65-80% of shard_bytes and rarely roll into a second, small shard.
    text_bytes_per_token: float = Field(3.0, gt=0.0)
    # Longer documents are encoded in pieces cut where pre-tokenization cuts anyway (same ids, and
    # memory bounded by the piece, not the document).
    max_chunk_chars: int = Field(100_000, ge=1_000)
    # Characters per encode_batch call: bounds the encoder's memory (measured on a 10 MB page: peak
    # +157 MB at 1M characters, +211 MB at 2M) while keeping its threads busy.
    batch_chars: int = Field(1_000_000, ge=1)
    # Encoder threads per Spark task; None: the cores divided among the tasks that run at once.
    threads_per_task: int | None = Field(None, ge=1)
