"""embed: a sentence vector of every document (embeddings/vectors.py says how it is stored), for
semantic dedup and the model-based quality score. Drops nothing.

Opt-in in a run (`embeddings.enabled`); it sits between normalize and dedup so that semantic dedup
reads the vectors, and the stages after dedup carry them. Batched: the engine's Arrow batch is
one `Encoder.encode` call, which sorts its texts by length and runs `batch_size` at a time; texts
are cut to the model's length (or `embeddings.max_tokens`) by its tokenizer. An empty text gets
no vector (null), so empty pages do not form one cluster in semantic dedup.
"""

from __future__ import annotations

from corpus_pipeline.embeddings.config import EmbeddingsConfig
from corpus_pipeline.embeddings.encoder import shared_encoder
from corpus_pipeline.embeddings.vectors import EMBEDDING_COLUMN, EMBEDDING_FIELDS, MODEL_COLUMN, to_stored
from corpus_pipeline.stages.base import DocumentStage, Verdict
from corpus_pipeline.stats import StageStats


class EmbeddingsStage(DocumentStage):
    name = "embed"
    output_fields = EMBEDDING_FIELDS
    input_columns = ("text",)

    def __init__(self, config: EmbeddingsConfig | None = None):
        self.config = config or EmbeddingsConfig()
        self._encoder = None

    def setup(self) -> None:
        if self._encoder is None:
            self._encoder = shared_encoder(self.config.model, self.config.device, self.config.max_tokens)

    def config_fingerprint(self) -> str:
        # Not `enabled` (whether a run includes it), nor batch size and device: they change how
        # fast the vectors come, not which.
        return repr((self.config.model, self.config.max_tokens))

    def process(self, doc: dict, stats: StageStats) -> Verdict:
        return self.process_batch([doc], stats)[0]

    def process_batch(self, docs: list[dict], stats: StageStats) -> list[Verdict]:
        texts = [doc["text"] for doc in docs]
        with_text = [position for position, text in enumerate(texts) if text and text.strip()]
        vectors = to_stored(self._encoder.encode([texts[p] for p in with_text], self.config.batch_size))
        for doc in docs:
            doc[EMBEDDING_COLUMN] = doc[MODEL_COLUMN] = None
        for position, vector in zip(with_text, vectors, strict=True):
            docs[position][EMBEDDING_COLUMN] = vector
            docs[position][MODEL_COLUMN] = self.config.model
        stats.count("embedded", self.config.model, len(with_text))
        if len(with_text) < len(docs):
            stats.count("embedded", "no_text", len(docs) - len(with_text))
        return [None] * len(docs)
