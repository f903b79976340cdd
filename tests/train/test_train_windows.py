"""Training windows: seeded, non-overlapping per epoch, disjoint across ranks, resumable."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from corpus_pipeline.train.data import (
    BatchLoader,
    TokenRange,
    WindowSampler,
    rank_slice,
    split_validation,
    validation_starts,
)

WINDOW = 10


def test_an_epoch_visits_non_overlapping_windows_in_a_seeded_order():
    sampler = WindowSampler(TokenRange(100, 1_105), WINDOW, seed=3)
    starts = sampler.take(sampler.windows_per_epoch)
    ordered = np.sort(starts)
    assert (np.diff(ordered) >= WINDOW).all(), "windows of one epoch overlap"
    assert ordered[0] >= 100 and ordered[-1] + WINDOW <= 1_105
    assert not np.array_equal(starts, ordered), "the order is not shuffled"
    again = WindowSampler(TokenRange(100, 1_105), WINDOW, seed=3).take(len(starts))
    other_seed = WindowSampler(TokenRange(100, 1_105), WINDOW, seed=4).take(len(starts))
    assert np.array_equal(starts, again) and not np.array_equal(starts, other_seed)


def test_taking_past_an_epoch_continues_into_the_next_with_a_new_order():
    sampler = WindowSampler(TokenRange(0, 200), WINDOW, seed=0)
    first = sampler.take(sampler.windows_per_epoch)
    assert sampler.epoch in (0, 1)
    more = sampler.take(25)
    assert sampler.epoch >= 1 and len(more) == 25
    assert not np.array_equal(first[:25], more)


def test_a_restored_sampler_continues_exactly():
    continuous = WindowSampler(TokenRange(0, 5_000), WINDOW, seed=1)
    expected = continuous.take(700)
    interrupted = WindowSampler(TokenRange(0, 5_000), WINDOW, seed=1)
    head = interrupted.take(433)
    resumed = WindowSampler(TokenRange(0, 5_000), WINDOW, seed=1)
    resumed.load_state_dict(interrupted.state_dict())
    assert np.array_equal(np.concatenate([head, resumed.take(267)]), expected)


def test_a_state_of_another_seed_is_refused():
    state = WindowSampler(TokenRange(0, 500), WINDOW, seed=1).state_dict()
    with pytest.raises(ValueError, match="seed 1"):
        WindowSampler(TokenRange(0, 500), WINDOW, seed=2).load_state_dict(state)


@pytest.mark.parametrize("world_size", [2, 4])
def test_ranks_take_disjoint_shares_that_make_up_the_global_batch(world_size):
    batch = WindowSampler(TokenRange(0, 100_000), WINDOW, seed=0).take(8 * world_size)
    shares = [rank_slice(batch, rank, world_size) for rank in range(world_size)]
    assert sum(len(share) for share in shares) == len(batch)
    assert len(set(np.concatenate(shares).tolist())) == len(batch)


class _Stream:
    """Stands in for TokenShards: token i of the stream is i."""

    def windows(self, starts, length, dtype=np.int64):
        return np.stack([np.arange(start, start + length, dtype=dtype) for start in starts])


def _loader(rank: int, world_size: int, micro: int, accum: int) -> BatchLoader:
    sampler = WindowSampler(TokenRange(0, 50_000), WINDOW + 1, seed=7)
    return BatchLoader(_Stream(), sampler, micro, accum, rank, world_size, torch.device("cpu"))


def test_two_ranks_read_disjoint_windows_and_together_what_one_process_reads():
    ranks = [_loader(rank, 2, micro=4, accum=1) for rank in range(2)]
    single = _loader(0, 1, micro=8, accum=1)
    for _ in range(5):
        rank_inputs = [torch.cat([x for x, _ in loader.next_step()]) for loader in ranks]
        single_inputs = torch.cat([x for x, _ in single.next_step()])
        first_tokens = [set(inputs[:, 0].tolist()) for inputs in rank_inputs]
        assert not first_tokens[0] & first_tokens[1]
        assert first_tokens[0] | first_tokens[1] == set(single_inputs[:, 0].tolist())


def test_targets_are_the_inputs_shifted_by_one_token():
    (inputs, targets), *_ = _loader(0, 1, micro=3, accum=2).next_step()
    assert inputs.shape == (3, WINDOW) and inputs.dtype == torch.int64
    assert torch.equal(targets[:, :-1], inputs[:, 1:]) and torch.equal(targets[:, -1], inputs[:, -1] + 1)


def test_the_validation_tail_is_disjoint_from_training_and_fixed():
    train, validation = split_validation(10_000, 0.05, WINDOW)
    assert train.stop == validation.start == 9_500 and validation.stop == 10_000
    first = validation_starts(validation, WINDOW, 20, seed=0)
    assert np.array_equal(first, validation_starts(validation, WINDOW, 20, seed=0))
    assert first.min() >= 9_500 and first.max() + WINDOW <= 10_000
    assert split_validation(100, 0.01, WINDOW)[1].tokens == WINDOW  # never shorter than one window
