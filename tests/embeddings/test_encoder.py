import numpy as np
import pytest

from corpus_pipeline.embeddings.encoder import EncoderUnavailable, load_encoder, model_directory


def test_an_unknown_model_is_refused_with_the_known_names():
    with pytest.raises(EncoderUnavailable, match="all-MiniLM-L6-v2"):
        model_directory("no-such-model")


@pytest.mark.slow
def test_vectors_are_unit_length_and_a_paraphrase_is_nearer_than_another_topic():
    encoder = load_encoder(device="cpu")
    texts = ["A cat sat on the mat.", "A kitten was sitting on the rug.", "Stock markets fell sharply."]
    vectors = encoder.encode(texts)
    assert vectors.shape == (3, encoder.dim) and vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, rtol=1e-5)
    similarity = vectors @ vectors.T
    assert similarity[0, 1] > similarity[0, 2] + 0.3
    assert encoder.encode([]).shape == (0, encoder.dim)


def test_every_stage_that_embeds_shares_one_encoder_per_process_and_setting(monkeypatch):
    """A worker builds its stages anew for each task: the model (7.5 CPU s to load) must not be."""
    from corpus_pipeline.embeddings import encoder as encoder_module

    loads = []
    monkeypatch.setattr(encoder_module, "load_encoder", lambda name, device: loads.append(name) or object())
    encoder_module.shared_encoder.cache_clear()
    try:
        first = encoder_module.shared_encoder("all-MiniLM-L6-v2", "cpu")
        assert encoder_module.shared_encoder("all-MiniLM-L6-v2", "cpu") is first
        assert loads == ["all-MiniLM-L6-v2"]
    finally:
        encoder_module.shared_encoder.cache_clear()
