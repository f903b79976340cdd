"""A decoder-only transformer: pre-norm RMSNorm, rotary positions, gated MLP (or a mixture of
experts), attention through scaled_dot_product_attention (FlashAttention kernels on GPU), tied
input and output embeddings.

`GPT(config)(idx, targets)` returns (logits, loss); the loss includes the experts' load-balancing
term when the MLP is a mixture. Nothing here knows about data, devices or distribution.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.checkpoint import checkpoint

from corpus_pipeline.train.config import ModelConfig


class RMSNorm(nn.Module):
    def __init__(self, dim: int, eps: float):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # Normalise in fp32: under bf16 autocast the mean of squares loses ~3 significant digits.
        normed = x.float() * torch.rsqrt(x.float().pow(2).mean(-1, keepdim=True) + self.eps)
        return normed.type_as(x) * self.weight


def rotary_tables(head_dim: int, seq_len: int, theta: float) -> tuple[torch.Tensor, torch.Tensor]:
    """cos and sin of position x frequency, (seq_len, head_dim / 2), for rotating query/key pairs."""
    frequencies = 1.0 / theta ** (torch.arange(0, head_dim, 2, dtype=torch.float32) / head_dim)
    angles = torch.outer(torch.arange(seq_len, dtype=torch.float32), frequencies)
    return angles.cos(), angles.sin()


def apply_rotary(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    """Rotate (B, heads, T, head_dim) by position: the two halves of head_dim form the pairs."""
    first, second = x.float().chunk(2, dim=-1)
    cos, sin = cos[: x.size(-2)], sin[: x.size(-2)]
    rotated = torch.cat((first * cos - second * sin, first * sin + second * cos), dim=-1)
    return rotated.type_as(x)


class CausalSelfAttention(nn.Module):
    def __init__(self, config: ModelConfig):
        super().__init__()
        self.n_head = config.n_head
        self.qkv = nn.Linear(config.n_embd, 3 * config.n_embd, bias=False)
        self.proj = nn.Linear(config.n_embd, config.n_embd, bias=False)

    def forward(self, x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
        batch, steps, width = x.shape
        q, k, v = self.qkv(x).view(batch, steps, 3, self.n_head, width // self.n_head).permute(2, 0, 3, 1, 4)
        q, k = apply_rotary(q, cos, sin), apply_rotary(k, cos, sin)
        out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.proj(out.transpose(1, 2).reshape(batch, steps, width))


class GatedMLP(nn.Module):
    """SwiGLU (silu gate) or GeGLU (gelu gate): down(act(gate(x)) * up(x)), Shazeer 2020."""

    def __init__(self, width: int, hidden: int, kind: str):
        super().__init__()
        self.gate_up = nn.Linear(width, 2 * hidden, bias=False)
        self.down = nn.Linear(hidden, width, bias=False)
        self.activation = F.silu if kind == "swiglu" else F.gelu

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        gate, up = self.gate_up(x).chunk(2, dim=-1)
        return self.down(self.activation(gate) * up)


class MixtureOfExperts(nn.Module):
    """Top-k routing over gated-MLP experts with the Switch Transformer load-balancing loss.

    Each token goes to its k most probable experts, weighted by their renormalised probabilities.
    The auxiliary loss is n_experts x sum_e(fraction of routed slots to e x mean probability of e):
    1.0 when routing is uniform, n_experts when every token picks one expert.
    """

    def __init__(self, config: ModelConfig):
        super().__init__()
        self.top_k = config.moe_top_k
        self.router = nn.Linear(config.n_embd, config.moe_experts, bias=False)
        self.experts = nn.ModuleList(
            GatedMLP(config.n_embd, config.hidden, config.mlp) for _ in range(config.moe_experts)
        )

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        tokens = x.reshape(-1, x.size(-1))
        probabilities = F.softmax(self.router(tokens).float(), dim=-1)
        weights, chosen = probabilities.topk(self.top_k, dim=-1)
        weights = (weights / weights.sum(-1, keepdim=True)).type_as(tokens)
        out = torch.zeros_like(tokens)
        for number, expert in enumerate(self.experts):
            rows, slot = (chosen == number).nonzero(as_tuple=True)
            if rows.numel():
                out.index_add_(0, rows, expert(tokens[rows]) * weights[rows, slot, None])
        routed = F.one_hot(chosen, len(self.experts)).float().mean(dim=(0, 1))
        balance = len(self.experts) * (routed * probabilities.mean(0)).sum()
        return out.view_as(x), balance


class Block(nn.Module):
    def __init__(self, config: ModelConfig):
        super().__init__()
        self.attention_norm = RMSNorm(config.n_embd, config.norm_eps)
        self.attention = CausalSelfAttention(config)
        self.mlp_norm = RMSNorm(config.n_embd, config.norm_eps)
        self.moe = config.moe_experts > 0
        self.mlp = MixtureOfExperts(config) if self.moe else GatedMLP(config.n_embd, config.hidden, config.mlp)

    def forward(self, x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        x = x + self.attention(self.attention_norm(x), cos, sin)
        if self.moe:
            update, balance = self.mlp(self.mlp_norm(x))
        else:
            update, balance = self.mlp(self.mlp_norm(x)), x.new_zeros((), dtype=torch.float32)
        return x + update, balance


class GPT(nn.Module):
    def __init__(self, config: ModelConfig):
        super().__init__()
        if config.vocab_size is None:
            raise ValueError("model.vocab_size is unresolved: call ModelConfig.with_vocab(shards' vocabulary) first")
        self.config = config
        self.activation_checkpointing = False
        self.embedding = nn.Embedding(config.vocab_size, config.n_embd)
        self.blocks = nn.ModuleList(Block(config) for _ in range(config.n_layer))
        self.final_norm = RMSNorm(config.n_embd, config.norm_eps)
        cos, sin = rotary_tables(config.n_embd // config.n_head, config.seq_len, config.rope_theta)
        self.register_buffer("rope_cos", cos, persistent=False)
        self.register_buffer("rope_sin", sin, persistent=False)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """GPT-2 initialisation: N(0, 0.02), residual projections scaled by 1/sqrt(2 x n_layer)."""
        residual_std = self.config.init_std / math.sqrt(2 * self.config.n_layer)
        for name, parameter in self.named_parameters():
            if parameter.dim() < 2:
                nn.init.ones_(parameter)  # RMSNorm gains
            elif name.endswith(("proj.weight", "down.weight")):
                nn.init.normal_(parameter, std=residual_std)
            else:
                nn.init.normal_(parameter, std=self.config.init_std)

    def forward(self, idx: torch.Tensor, targets: torch.Tensor | None = None):
        if idx.size(1) > self.config.seq_len:
            raise ValueError(f"sequence of {idx.size(1)} tokens, the model's rotary table has {self.config.seq_len}")
        x = self.embedding(idx)
        balance = x.new_zeros((), dtype=torch.float32)
        for block in self.blocks:
            if self.activation_checkpointing and self.training:
                x, block_balance = checkpoint(block, x, self.rope_cos, self.rope_sin, use_reentrant=False)
            else:
                x, block_balance = block(x, self.rope_cos, self.rope_sin)
            balance = balance + block_balance
        logits = F.linear(self.final_norm(x), self.embedding.weight)  # tied: one matrix in, one out
        if targets is None:
            return logits, None
        loss = F.cross_entropy(logits.float().view(-1, logits.size(-1)), targets.reshape(-1))
        if self.config.moe_experts:
            loss = loss + self.config.moe_aux_coef * balance / self.config.n_layer
        return logits, loss


def count_parameters(config: ModelConfig) -> int:
    """Parameters of the model `config` describes, without allocating it (meta device)."""
    with torch.device("meta"):
        return sum(p.numel() for p in GPT(config).parameters())


def flops_per_token(config: ModelConfig, parameters: int) -> float:
    """Training FLOPs per token: 6 per parameter (forward and backward) plus attention's
    12 x layers x width x sequence (PaLM, Chowdhery et al. 2022, appendix B). For a mixture of experts
    only top_k of the experts' weights work on a token."""
    active = parameters
    if config.moe_experts:
        expert = 3 * config.n_embd * config.hidden
        active -= config.n_layer * (config.moe_experts - config.moe_top_k) * expert
    return 6 * active + 12 * config.n_layer * config.n_embd * config.seq_len
