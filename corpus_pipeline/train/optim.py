"""AdamW with weight decay on matrices only, and the warmup-then-cosine learning-rate schedule."""

from __future__ import annotations

import math

import torch
from torch import nn

from corpus_pipeline.train.config import TrainConfig


def make_optimizer(model: nn.Module, config: TrainConfig, device: torch.device) -> torch.optim.AdamW:
    """Decay only parameters with two or more dimensions (weight matrices and the embedding); norm
    gains are left alone, as in GPT-3 and nanoGPT."""
    matrices = [p for p in model.parameters() if p.requires_grad and p.dim() >= 2]
    vectors = [p for p in model.parameters() if p.requires_grad and p.dim() < 2]
    groups = [
        {"params": matrices, "weight_decay": config.weight_decay},
        {"params": vectors, "weight_decay": 0.0},
    ]
    # The fused kernel updates all parameters in one launch (nanoGPT measured ~10% faster gpt-124m
    # steps on CUDA; torch has a CPU one too) and takes `found_inf`, which lets the health monitor skip
    # an update without a host sync. FSDP's sharded parameters keep the default (foreach) path.
    fused = device.type in ("cuda", "cpu") and config.parallel != "fsdp"
    return torch.optim.AdamW(groups, lr=config.lr, betas=(config.beta1, config.beta2), eps=1e-8, fused=fused)


def learning_rate(step: int, config: TrainConfig) -> float:
    """Linear warmup over warmup_steps to lr, then cosine decay to lr x min_lr_ratio at max_steps."""
    if step < config.warmup_steps:
        return config.lr * (step + 1) / config.warmup_steps
    decay_steps = max(1, config.max_steps - config.warmup_steps)
    progress = min(1.0, (step - config.warmup_steps) / decay_steps)
    floor = config.lr * config.min_lr_ratio
    return floor + 0.5 * (1.0 + math.cos(math.pi * progress)) * (config.lr - floor)
