"""The network: preset sizes, causality, rotary positions, gated MLPs, mixture of experts, checkpointing."""

from __future__ import annotations

import pytest
import torch

from corpus_pipeline.train.config import load_train_config
from corpus_pipeline.train.model import GPT, MixtureOfExperts, apply_rotary, count_parameters, rotary_tables


def model_config(*overrides: str):
    return load_train_config(None, ["model.vocab_size=256", "model.seq_len=32", *overrides]).model


@pytest.mark.parametrize(("preset", "millions"), [("gpt-124m", 123.6), ("gpt-350m", 355.1), ("gpt-1.3b", 1317.4)])
def test_presets_have_their_gpt2_sizes(preset, millions):
    config = load_train_config(None, [f"preset={preset}", "model.vocab_size=50304"]).model
    assert count_parameters(config) / 1e6 == pytest.approx(millions, abs=0.1)


def test_every_dimension_of_a_preset_can_be_overridden():
    config = load_train_config(None, ["preset=gpt-124m", "model.n_layer=3", "model.mlp=geglu"]).model
    assert (config.n_layer, config.n_embd, config.mlp) == (3, 768, "geglu")


def test_output_embedding_is_the_input_embedding():
    model = GPT(model_config())
    names = [name for name, _ in model.named_parameters()]
    assert not any("head" in name for name in names)
    logits, _ = model(torch.zeros(1, 4, dtype=torch.long))
    assert logits.shape == (1, 4, 256)


@pytest.mark.parametrize("mlp", ["swiglu", "geglu"])
def test_a_later_token_never_changes_an_earlier_logit(mlp):
    torch.manual_seed(0)
    model = GPT(model_config(f"model.mlp={mlp}")).eval()
    tokens = torch.randint(0, 256, (2, 16))
    changed = tokens.clone()
    changed[:, 10:] = (changed[:, 10:] + 1) % 256
    before, _ = model(tokens)
    after, _ = model(changed)
    torch.testing.assert_close(before[:, :10], after[:, :10])
    assert not torch.allclose(before[:, 10:], after[:, 10:])


def test_rotary_scores_depend_only_on_the_distance_between_positions():
    torch.manual_seed(0)
    cos, sin = rotary_tables(16, 64, 10_000.0)
    query, key = torch.randn(16), torch.randn(16)

    def score(query_position: int, key_position: int) -> torch.Tensor:
        q = apply_rotary(query.expand(1, 1, 64, 16), cos, sin)[0, 0, query_position]
        k = apply_rotary(key.expand(1, 1, 64, 16), cos, sin)[0, 0, key_position]
        return q @ k

    torch.testing.assert_close(score(5, 2), score(40, 37))
    assert not torch.allclose(score(5, 2), score(5, 4))


def test_experts_mix_the_top_two_by_their_renormalised_router_probabilities():
    torch.manual_seed(0)
    moe = MixtureOfExperts(model_config("model.moe_experts=4", "model.n_embd=32", "model.n_head=2"))
    tokens = torch.randn(1, 3, 32)
    out, _ = moe(tokens)
    probabilities = torch.softmax(moe.router(tokens[0]), dim=-1)
    weights, chosen = probabilities.topk(2, dim=-1)
    weights = weights / weights.sum(-1, keepdim=True)
    for row in range(3):
        expected = sum(weights[row, k] * moe.experts[int(chosen[row, k])](tokens[0, row]) for k in range(2))
        torch.testing.assert_close(out[0, row], expected, rtol=1e-5, atol=1e-6)


def test_balance_loss_is_one_when_routing_is_uniform_and_grows_when_it_collapses():
    moe = MixtureOfExperts(model_config("model.moe_experts=4", "model.n_embd=32", "model.n_head=2"))
    tokens = torch.randn(1, 64, 32)
    with torch.no_grad():
        moe.router.weight.zero_()  # every probability 1/4: the loss is 4 x sum(fraction x 1/4) = 1
        _, tied = moe(tokens)
        moe.router.weight[0].fill_(10.0)
        moe.router.weight[1].fill_(-10.0)
        collapsed_tokens = tokens.abs()  # positive inputs: expert 0 wins every token
        _, collapsed = moe(collapsed_tokens)
    assert tied.item() == pytest.approx(1.0)
    assert collapsed.item() > 1.5


def test_the_mixture_adds_its_weighted_balance_loss_to_the_training_loss():
    torch.manual_seed(0)
    config = model_config("model.moe_experts=4", "model.moe_aux_coef=0.5")
    model = GPT(config)
    tokens = torch.randint(0, 256, (2, 17))
    _, loss = model(tokens[:, :-1], tokens[:, 1:])
    logits, _ = model(tokens[:, :-1])
    cross_entropy = torch.nn.functional.cross_entropy(logits.flatten(0, 1), tokens[:, 1:].flatten())
    assert loss.item() > cross_entropy.item() + 0.5 * 0.9  # the balance term is >= 1 per layer on average


def test_activation_checkpointing_gives_the_same_gradients():
    torch.manual_seed(0)
    model = GPT(model_config())
    tokens = torch.randint(0, 256, (2, 17))
    gradients = []
    for checkpointing in (False, True):
        model.zero_grad()
        model.activation_checkpointing = checkpointing
        _, loss = model(tokens[:, :-1], tokens[:, 1:])
        loss.backward()
        gradients.append([p.grad.clone() for p in model.parameters()])
    for plain, recomputed in zip(*gradients, strict=True):
        torch.testing.assert_close(plain, recomputed)


def test_a_sequence_longer_than_the_rotary_table_is_refused():
    with pytest.raises(ValueError, match="rotary table has 32"):
        GPT(model_config())(torch.zeros(1, 33, dtype=torch.long))
