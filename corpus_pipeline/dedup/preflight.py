"""Before a run's first step (registry `preflight`): semantic dedup has vectors to read."""

from __future__ import annotations

from corpus_pipeline.config.sources import source_config
from corpus_pipeline.engine.registry import Preflight


def semantic_needs_embeddings(given: Preflight) -> list[str]:
    """Semantic dedup reads the embed stage's vectors: the run, or each of its sources, must embed."""
    config = given.config
    if "semantic" not in config.dedup.methods:
        return []
    sources = config.pipeline.sources
    if not sources:
        missing = [] if config.embeddings.enabled else ["the run"]
    else:
        missing = [s.name for s in sources if "embed" in s.skip or not source_config(config, s).embeddings.enabled]
    if not missing:
        return []
    return [
        "dedup.methods has semantic, which reads the embed stage's vectors: set embeddings.enabled "
        f"(not set, or embed skipped, for {', '.join(missing)})"
    ]
