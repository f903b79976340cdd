"""Training batches: seeded random windows of seq_len + 1 tokens from memory-mapped token shards.

Every epoch cuts a token range into non-overlapping windows at a seeded random offset and visits
them in a seeded random order. That order is global: step s takes the next `global batch` windows
of it, and rank r takes its own contiguous slice of those, so ranks never read the same window and
the windows of a step do not depend on how many ranks share it (one process with the same global
batch sees exactly the same tokens, which is what makes 1-rank and N-rank loss curves comparable).
The sampler's whole position is two integers (epoch, windows consumed), saved in checkpoints.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from corpus_pipeline.tokenize.reader import TokenShards


@dataclass(frozen=True)
class TokenRange:
    """Tokens [start, stop) of a shard stream."""

    start: int
    stop: int

    @property
    def tokens(self) -> int:
        return self.stop - self.start


def split_validation(num_tokens: int, fraction: float, window: int) -> tuple[TokenRange, TokenRange]:
    """(train, validation): the validation range is the stream's tail, at least one window long.
    The tail holds whole later documents, so no training window shares a document with it except the
    one document cut by the boundary."""
    held_out = max(window, int(num_tokens * fraction))
    split = max(0, num_tokens - held_out)
    return TokenRange(0, split), TokenRange(split, num_tokens)


class WindowSampler:
    def __init__(self, token_range: TokenRange, window: int, seed: int):
        if token_range.tokens < window:
            raise ValueError(f"{token_range.tokens:,} tokens cannot hold one window of {window:,}")
        self.range, self.window, self.seed = token_range, window, seed
        self.epoch, self.position = 0, 0
        self._order_epoch, self._starts = -1, np.empty(0, dtype=np.int64)

    @property
    def windows_per_epoch(self) -> int:
        """A lower bound: an epoch's random offset can cost at most one window."""
        return (self.range.tokens - (self.window - 1)) // self.window

    def _epoch_starts(self) -> np.ndarray:
        if self._order_epoch != self.epoch:
            rng = np.random.default_rng([self.seed, self.epoch])
            slack = self.range.tokens - self.window * (self.range.tokens // self.window)
            offset = int(rng.integers(0, slack + 1))
            count = (self.range.tokens - offset) // self.window
            self._starts = self.range.start + offset + rng.permutation(count) * self.window
            self._order_epoch = self.epoch
        return self._starts

    def take(self, count: int) -> np.ndarray:
        """The next `count` window starts of the global order, continuing into the next epoch."""
        taken = []
        while count:
            starts = self._epoch_starts()
            piece = starts[self.position : self.position + count]
            taken.append(piece)
            count -= len(piece)
            self.position += len(piece)
            if self.position == len(starts):
                self.epoch, self.position = self.epoch + 1, 0
        return np.concatenate(taken)

    def state_dict(self) -> dict:
        return {"epoch": self.epoch, "position": self.position, "seed": self.seed, "window": self.window}

    def load_state_dict(self, state: dict) -> None:
        if (state["seed"], state["window"]) != (self.seed, self.window):
            raise ValueError(
                f"checkpoint's sampler had seed {state['seed']} and window {state['window']}, "
                f"this run has seed {self.seed} and window {self.window}"
            )
        self.epoch, self.position = state["epoch"], state["position"]


def rank_slice(starts: np.ndarray, rank: int, world_size: int) -> np.ndarray:
    """Rank `rank`'s contiguous share of one global batch of window starts."""
    share = len(starts) // world_size
    return starts[rank * share : (rank + 1) * share]


class BatchLoader:
    """(inputs, targets) micro-batches for this rank, as int64 tensors on `device`."""

    def __init__(
        self,
        shards: TokenShards,
        sampler: WindowSampler,
        micro_batch_size: int,
        grad_accum_steps: int,
        rank: int,
        world_size: int,
        device: torch.device,
    ):
        self.shards, self.sampler = shards, sampler
        self.micro_batch_size, self.grad_accum_steps = micro_batch_size, grad_accum_steps
        self.rank, self.world_size, self.device = rank, world_size, device
        # Pinned host memory lets the copy to the GPU run asynchronously (non_blocking) with compute.
        self.pin = device.type == "cuda"

    @property
    def windows_per_step(self) -> int:
        return self.micro_batch_size * self.grad_accum_steps * self.world_size

    def next_step(self) -> list[tuple[torch.Tensor, torch.Tensor]]:
        """The grad_accum_steps micro-batches of this rank for the next optimizer step."""
        mine = rank_slice(self.sampler.take(self.windows_per_step), self.rank, self.world_size)
        return [self._batch(mine[i : i + self.micro_batch_size]) for i in range(0, len(mine), self.micro_batch_size)]

    def _batch(self, starts: np.ndarray) -> tuple[torch.Tensor, torch.Tensor]:
        windows = torch.from_numpy(self.shards.windows(starts, self.sampler.window, dtype=np.int64))
        if self.pin:
            windows = windows.pin_memory()
        windows = windows.to(self.device, non_blocking=True)
        return windows[:, :-1], windows[:, 1:]


def validation_starts(token_range: TokenRange, window: int, count: int, seed: int) -> np.ndarray:
    """`count` fixed window starts for evaluation, the same at every evaluation and on every run:
    distinct windows while the range has enough, then repeated."""
    sampler = WindowSampler(token_range, window, seed)
    return sampler.take(count)
