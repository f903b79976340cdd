"""`quality_score` of texts: the head's encoder embeds each text's first `text_chars` characters,
the head turns the vectors into P(reference). The encoder is loaded once per process
(encoder.shared_encoder), however many tasks' quality stages set up."""

from __future__ import annotations

import numpy as np

from corpus_pipeline.embeddings.encoder import shared_encoder
from corpus_pipeline.embeddings.quality_head import HeadFileError, QualityHead, load_head


class QualityScorer:
    def __init__(self, head: QualityHead, encoder, batch_size: int = 32):
        if encoder.name != head.encoder or encoder.dim != head.dim:
            raise HeadFileError(
                f"the head was trained on {head.encoder} ({head.dim} dimensions), not {encoder.name} ({encoder.dim})"
            )
        self.head, self.encoder, self.batch_size = head, encoder, batch_size

    @classmethod
    def load(cls, head_path, device: str = "auto", batch_size: int = 32) -> QualityScorer:
        head = load_head(head_path)
        return cls(head, shared_encoder(head.encoder, device), batch_size)

    def scores(self, texts: list[str]) -> np.ndarray:
        """(len(texts),) float32 in [0, 1]."""
        if not texts:
            return np.zeros(0, np.float32)
        vectors = self.encoder.encode([self.head.cut(text) for text in texts], batch_size=self.batch_size)
        return self.head.probabilities(vectors)
