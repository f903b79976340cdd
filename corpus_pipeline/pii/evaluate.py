"""`corpus-pipeline eval pii`: the stage's own detector, with the run's config, scored on gold spans."""

from __future__ import annotations

from pathlib import Path

from corpus_pipeline.config import PipelineConfig
from corpus_pipeline.evaluation.pii import PiiReport, load_gold, score_pii
from corpus_pipeline.pii.detector import PiiDetector


def evaluate_pii(gold_path: str | Path, config: PipelineConfig) -> PiiReport:
    detector = PiiDetector(config.pii)
    return score_pii(load_gold(gold_path), detector.find)
