"""Training configuration: a model preset, every dimension overridable, and the optimisation settings.

A YAML file (configs/train_<preset>.yaml) names a `preset`; its `model:` section overrides single
dimensions of that preset; `--set model.n_layer=4` overrides either. Unknown keys are refused, as in
the pipeline's config.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, model_validator

from corpus_pipeline.config import ConfigError, Strict, read_raw_config, validate_config

# GPT-2 sizes. A gated MLP of hidden width 8/3 x n_embd (three matrices instead of two) keeps GPT-2's
# parameter count at the same width: with a 50,304 vocabulary gpt-124m has 123.6 M (GPT-2's 124.4 M
# less its 0.8 M learned position table, which rotary embeddings replace), gpt-1.3b 1,317 M.
PRESETS: dict[str, dict] = {
    "tiny": {"n_layer": 2, "n_head": 4, "n_embd": 128, "seq_len": 128},
    "gpt-124m": {"n_layer": 12, "n_head": 12, "n_embd": 768, "seq_len": 1024},
    "gpt-350m": {"n_layer": 24, "n_head": 16, "n_embd": 1024, "seq_len": 1024},
    "gpt-1.3b": {"n_layer": 24, "n_head": 32, "n_embd": 2048, "seq_len": 2048},
}


class ModelConfig(Strict):
    n_layer: int = Field(ge=1)
    n_head: int = Field(ge=1)
    n_embd: int = Field(ge=8)
    seq_len: int = Field(ge=8)
    # None: the shards' vocabulary, padded up to `pad_vocab_to` (64: tensor-core friendly, the
    # 50,257 -> 50,304 trick that made nanoGPT ~25% faster).
    vocab_size: int | None = Field(None, ge=2)
    pad_vocab_to: int = Field(64, ge=1)
    mlp: Literal["swiglu", "geglu"] = "swiglu"
    # None: 8/3 x n_embd rounded up to a multiple of 64 (2,048 for n_embd 768).
    mlp_hidden: int | None = Field(None, ge=1)
    # 0: dense MLP. Otherwise a mixture of this many experts, each a gated MLP of mlp_hidden.
    moe_experts: int = Field(0, ge=0)
    moe_top_k: int = Field(2, ge=1)
    # Switch-Transformer load-balancing loss weight; 0.01 is the value of Fedus et al. 2021.
    moe_aux_coef: float = Field(0.01, ge=0.0)
    rope_theta: float = Field(10_000.0, gt=0.0)
    norm_eps: float = Field(1e-5, gt=0.0)
    init_std: float = Field(0.02, gt=0.0)

    @model_validator(mode="after")
    def _shapes_agree(self) -> ModelConfig:
        if self.n_embd % self.n_head:
            raise ValueError(f"n_embd {self.n_embd} is not a multiple of n_head {self.n_head}")
        if (self.n_embd // self.n_head) % 2:
            raise ValueError(f"head size {self.n_embd // self.n_head} must be even for rotary embeddings")
        if self.moe_experts and self.moe_top_k > self.moe_experts:
            raise ValueError(f"moe_top_k {self.moe_top_k} exceeds moe_experts {self.moe_experts}")
        return self

    @property
    def hidden(self) -> int:
        if self.mlp_hidden is not None:
            return self.mlp_hidden
        return -(-8 * self.n_embd // 3 // 64) * 64

    def with_vocab(self, shards_vocab: int) -> ModelConfig:
        """This config with `vocab_size` resolved against the shards' vocabulary."""
        if self.vocab_size is not None:
            if self.vocab_size < shards_vocab:
                raise ValueError(
                    f"model.vocab_size {self.vocab_size:,} is smaller than the shards' vocabulary {shards_vocab:,}"
                )
            return self
        padded = -(-shards_vocab // self.pad_vocab_to) * self.pad_vocab_to
        return self.model_copy(update={"vocab_size": padded})


class HealthConfig(Strict):
    """`health:` what the trainer watches every step and what it does about it (train/health.py).

    Defaults for every preset, measured on the tiny one only (no GPU here; lr 1e-2, step 40, median 4.30 nats
    and 0.77 grad norm): a batch of random targets gives loss 9.4 (x 2.2) and grad norm 2.2 (x 2.9),
    caught at its own step by the loss rule; a learning rate x 1,000 for one step gives loss 14.9
    (x 3.5) and grad norm 4.1 (x 5.4) at the next step, caught by both. A clean 300-step run of
    configs/train_tiny.yaml raised no spike event (measured on this project's shards).
    """

    enabled: bool = True
    window: int = Field(100, ge=3)  # steps in the running median, mean and spread
    min_history: int = Field(20, ge=1)  # steps seen before a spike can be judged (warmup is noisy)
    grad_norm_factor: float = Field(4.0, gt=1.0)  # spike: grad norm > factor x running median
    loss_factor: float = Field(1.5, gt=1.0)  # spike: loss > factor x running median
    on_spike: Literal["warn", "skip", "rollback", "stop"] = "skip"
    on_nonfinite: Literal["skip", "rollback", "stop"] = "skip"
    # The update-to-weight ratio |dW|/|W| per layer, sampled every `every` steps; ~1e-3 is healthy.
    every: int = Field(50, ge=1)
    ratio_band: tuple[float, float] = (1e-4, 1e-2)
    ratio_patience: int = Field(3, ge=1)  # samples in a row outside the band before a warning
    # rollback: reload the last checkpoint, skip this many batches of data (PaLM skipped 200-500),
    # multiply the learning rate by this factor (OPT lowered it); `stop` after max_rollbacks.
    rollback_skip_batches: int = Field(200, ge=0)
    rollback_lr_factor: float = Field(1.0, gt=0.0, le=1.0)
    max_rollbacks: int = Field(3, ge=0)
    # CUDA: warn when an interval's peak reserved memory exceeds the first interval's by this much.
    memory_growth_percent: float = Field(10.0, gt=0.0)

    @model_validator(mode="after")
    def _band_is_ordered(self) -> HealthConfig:
        low, high = self.ratio_band
        if not 0 < low < high:
            raise ValueError(f"health.ratio_band {list(self.ratio_band)} must be two numbers 0 < low < high")
        return self


class TrainConfig(Strict):
    preset: Literal["tiny", "gpt-124m", "gpt-350m", "gpt-1.3b"] = "tiny"
    model: ModelConfig
    seed: int = 1337
    # Windows per rank per micro-step; global batch = micro_batch_size x grad_accum_steps x ranks.
    micro_batch_size: int = Field(8, ge=1)
    grad_accum_steps: int = Field(1, ge=1)
    # Windows per optimizer step over all ranks. Set, it decides grad_accum_steps for the world size
    # the job has (global / (micro_batch_size x ranks), refused unless whole), so one config keeps its
    # batch on 8 GPUs or 32; None: grad_accum_steps as given, the batch growing with the ranks.
    global_batch_size: int | None = Field(None, ge=1)
    max_steps: int = Field(200, ge=1)
    lr: float = Field(1e-3, gt=0.0)
    # Cosine decay from lr to lr x min_lr_ratio at max_steps (Chinchilla used 0.1).
    min_lr_ratio: float = Field(0.1, ge=0.0, le=1.0)
    warmup_steps: int = Field(20, ge=0)
    weight_decay: float = Field(0.1, ge=0.0)
    beta1: float = 0.9
    beta2: float = 0.95
    grad_clip: float = Field(1.0, gt=0.0)
    # auto: bf16 autocast on GPUs that have it, fp16 with loss scaling on older ones, fp32 on CPU.
    precision: Literal["auto", "bf16", "fp16", "fp32"] = "auto"
    device: Literal["auto", "cpu", "cuda"] = "auto"
    compile: bool = False
    activation_checkpointing: bool = False
    # ddp: every rank holds the model; fsdp: parameters, gradients and optimizer state sharded.
    parallel: Literal["ddp", "fsdp"] = "ddp"
    # Held-out windows: a separate shard directory, else this fraction of the stream's tail.
    val_shards: str | None = None
    val_fraction: float = Field(0.01, gt=0.0, lt=0.5)
    eval_every: int = Field(50, ge=1)
    eval_batches: int = Field(4, ge=1)
    log_every: int = Field(10, ge=1)
    checkpoint_every: int = Field(100, ge=1)
    tensorboard: bool = True
    # checksums: sha256 of every shard before training (about 1 s per GB); sizes: structure only.
    verify_shards: Literal["checksums", "sizes"] = "checksums"
    # Seconds a data-loader wait or a collective may take before the job ends (the watchdog,
    # init_process_group's timeout); the last checkpoint stays on disk for --resume.
    timeout_s: float = Field(600.0, gt=0.0)
    # Checkpoint and exit with code 75 after this many hours (None: never): under
    # `torchrun --max-restarts N ... --resume auto` the job restarts in a fresh process, against leaks.
    restart_every_hours: float | None = Field(None, gt=0.0)
    # DDP: gradients cast to bf16 for the all-reduce (half the bytes on the wire), then back.
    ddp_comm_hook: Literal["none", "bf16"] = "none"
    health: HealthConfig = HealthConfig()
    # Peak FLOP/s of one device for MFU; None: looked up from the GPU's name (not reported on CPU).
    peak_flops: float | None = Field(None, gt=0.0)

    @model_validator(mode="after")
    def _one_batch_rule(self) -> TrainConfig:
        if self.global_batch_size is not None and "grad_accum_steps" in self.model_fields_set:
            raise ValueError("give global_batch_size or grad_accum_steps, not both (the first decides the second)")
        return self

    def for_world(self, world_size: int) -> TrainConfig:
        """This config with grad_accum_steps worked out from global_batch_size for `world_size` ranks."""
        if self.global_batch_size is None:
            return self
        per_step = self.micro_batch_size * world_size
        if self.global_batch_size % per_step:
            raise ConfigError(
                f"global_batch_size {self.global_batch_size:,} is not a multiple of micro_batch_size "
                f"{self.micro_batch_size} x {world_size} ranks = {per_step:,}: change micro_batch_size or the ranks"
            )
        return self.model_copy(update={"grad_accum_steps": self.global_batch_size // per_step})

    @property
    def tokens_per_step(self) -> int:
        """Per rank: multiply by the world size for the global figure."""
        return self.micro_batch_size * self.grad_accum_steps * self.model.seq_len


def load_train_config(path: str | Path | None = None, overrides: list[str] | tuple[str, ...] = ()) -> TrainConfig:
    """The YAML at `path` (or the defaults) with `overrides`, the preset's dimensions filled in."""
    raw = read_raw_config(path, overrides)
    preset = raw.get("preset", "tiny")
    if preset not in PRESETS:
        raise ConfigError(f"unknown preset {preset!r}; presets: {', '.join(PRESETS)}")
    model = raw.get("model") or {}
    if not isinstance(model, dict):
        raise ConfigError("model: expected a mapping of dimensions")
    raw["model"] = {**PRESETS[preset], **model}
    return validate_config(raw, TrainConfig, path)
