"""Process-group setup for torchrun (one or many nodes) and plain `python` (one process).

torchrun sets RANK, LOCAL_RANK and WORLD_SIZE; without them this is rank 0 of 1 and no process
group is created. NCCL on GPUs, gloo on CPU (the tests run two CPU ranks under torchrun).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import timedelta

import torch
import torch.distributed as dist


@dataclass(frozen=True)
class Distributed:
    rank: int
    local_rank: int
    world_size: int
    device: torch.device

    @property
    def is_main(self) -> bool:
        return self.rank == 0

    @property
    def active(self) -> bool:
        return self.world_size > 1

    def mean(self, value: torch.Tensor) -> torch.Tensor:
        """The mean of `value` over ranks (itself in one process)."""
        if self.active:
            value = value.clone()
            dist.all_reduce(value, op=dist.ReduceOp.SUM)
            value /= self.world_size
        return value

    def any(self, flag: bool) -> bool:
        """True on every rank when it is true on one (a SIGTERM that reached some ranks only)."""
        if not self.active:
            return flag
        value = torch.tensor([1.0 if flag else 0.0], device=self.device)
        dist.all_reduce(value, op=dist.ReduceOp.MAX)
        return bool(value.item())

    def barrier(self) -> None:
        if self.active:
            dist.barrier()

    def close(self) -> None:
        if self.active and dist.is_initialized():
            dist.destroy_process_group()


def bf16_compress_hook(device: torch.device):
    """DDP's hook that all-reduces gradients in bf16 (half the bytes of fp32) and casts them back.
    torch's `bf16_compress_hook` is a check for CUDA and NCCL around `_compress_hook(bfloat16)`; gloo
    all-reduces bf16 too, so CPU ranks (the tests) get the same function without the check."""
    from torch.distributed.algorithms.ddp_comm_hooks import default_hooks

    if device.type == "cuda":
        return default_hooks.bf16_compress_hook

    def gloo_bf16_compress_hook(process_group, bucket):  # DDP logs the hook by its __name__
        return default_hooks._compress_hook(torch.bfloat16, process_group, bucket)

    return gloo_bf16_compress_hook


def resolve_device(choice: str) -> torch.device:
    if choice == "cuda" and not torch.cuda.is_available():
        raise RuntimeError("device: cuda was asked for, but torch sees no CUDA device")
    if choice == "cpu" or (choice == "auto" and not torch.cuda.is_available()):
        return torch.device("cpu")
    return torch.device("cuda")


def setup_distributed(device_choice: str, timeout_s: float | None = None) -> Distributed:
    """`timeout_s`: how long a collective may wait for a peer (a lost NCCL rank, a wedged all-reduce)
    before it fails and the job ends, instead of hanging until someone kills it."""
    rank, world_size = int(os.environ.get("RANK", 0)), int(os.environ.get("WORLD_SIZE", 1))
    local_rank = int(os.environ.get("LOCAL_RANK", 0))
    device = resolve_device(device_choice)
    if device.type == "cuda":
        device = torch.device("cuda", local_rank)
        torch.cuda.set_device(device)
    if world_size > 1:
        timeout = timedelta(seconds=timeout_s) if timeout_s is not None else None
        if device.type == "cuda":
            dist.init_process_group(backend="nccl", device_id=device, timeout=timeout)
        else:
            dist.init_process_group(backend="gloo", timeout=timeout)
    return Distributed(rank, local_rank, world_size, device)
