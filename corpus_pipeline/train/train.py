"""The training loop: one process, or every rank under torchrun (DDP or FSDP), CPU or GPU.

`train(shards, out_dir, config, dist)` checks the input (preflight.py), builds the model and the
batches, optionally resumes from out_dir/checkpoint.pt, and runs to `max_steps` or until SIGTERM,
checkpointing every `checkpoint_every` steps and on the way out. Rank 0 writes everything.
"""

from __future__ import annotations

import contextlib
import json
import signal
import time
from dataclasses import dataclass
from pathlib import Path

import torch
import torch.nn.functional as F
import yaml
from torch.distributed.checkpoint.state_dict import StateDictOptions, get_state_dict, set_state_dict
from torch.nn.parallel import DistributedDataParallel

from corpus_pipeline.train.checkpoint import (
    CHECKPOINT_FILE,
    check_model_shape,
    load_checkpoint,
    restore_rng_states,
    rng_states,
    save_checkpoint,
)
from corpus_pipeline.train.config import ModelConfig, TrainConfig
from corpus_pipeline.train.data import BatchLoader, TokenRange, WindowSampler, split_validation, validation_starts
from corpus_pipeline.train.distributed import Distributed
from corpus_pipeline.train.model import GPT, flops_per_token
from corpus_pipeline.train.monitor import Monitor, peak_flops, truncate_metrics
from corpus_pipeline.train.optim import learning_rate, make_optimizer
from corpus_pipeline.train.preflight import (
    PreflightError,
    check_enough_tokens,
    check_same_tokenizer,
    manifest_sha256,
    open_checked_shards,
)

RUN_FILE = "run.json"


@dataclass
class TrainResult:
    out_dir: Path
    step: int
    interrupted: bool  # stopped by SIGTERM after writing a checkpoint
    val_loss: float | None
    parameters: int
    tokens_seen: int


@dataclass
class _Data:
    shards: object
    val_shards: object
    train_range: TokenRange
    val_range: TokenRange


def resolve_precision(config: TrainConfig, device: torch.device) -> torch.dtype:
    if config.precision == "auto":
        if device.type != "cuda":
            return torch.float32
        return torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16
    return {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32}[config.precision]


def _open_data(shards_dir: Path, config: TrainConfig, dist: Distributed) -> _Data:
    """Every rank opens the shards (sizes checked); rank 0 alone reads every byte for checksums, and
    a refusal on rank 0 stops all ranks with its message instead of leaving them waiting."""
    failure = None
    try:
        verify = config.verify_shards if dist.is_main else "sizes"
        shards = open_checked_shards(shards_dir, verify)
        val_shards = None
        if config.val_shards:
            val_shards = open_checked_shards(config.val_shards, verify, role="validation")
            check_same_tokenizer(shards, val_shards, "validation")
    except PreflightError as error:
        failure = error
    if dist.any(failure is not None):
        raise failure or PreflightError("rank 0 refused the input (see its message)")
    window = config.model.seq_len + 1
    if val_shards is None:
        train_range, val_range = split_validation(shards.num_tokens, config.val_fraction, window)
    else:
        train_range, val_range = TokenRange(0, shards.num_tokens), TokenRange(0, val_shards.num_tokens)
    return _Data(shards, val_shards or shards, train_range, val_range)


class Trainer:
    def __init__(self, shards_dir: Path, out_dir: Path, config: TrainConfig, dist: Distributed, resume: bool):
        self.config, self.dist, self.out_dir = config, dist, Path(out_dir)
        self.data = _open_data(Path(shards_dir), config, dist)
        self.model_config: ModelConfig = config.model.with_vocab(self.data.shards.vocab_size)
        window = self.model_config.seq_len + 1
        self.sampler = WindowSampler(self.data.train_range, window, config.seed)
        self.loader = BatchLoader(
            self.data.shards,
            self.sampler,
            config.micro_batch_size,
            config.grad_accum_steps,
            dist.rank,
            dist.world_size,
            dist.device,
        )
        check_enough_tokens(self.sampler.windows_per_epoch, self.loader.windows_per_step, window)
        self.precision = resolve_precision(config, dist.device)
        if self.precision == torch.float16 and config.parallel == "fsdp":
            raise ValueError("precision fp16 with parallel fsdp is not supported: use bf16 (or ddp)")
        torch.manual_seed(config.seed)
        self.raw_model = GPT(self.model_config).to(dist.device)
        self.raw_model.activation_checkpointing = config.activation_checkpointing
        self.parameters = sum(p.numel() for p in self.raw_model.parameters())  # before FSDP shards them
        self.model = self._parallelize(self.raw_model)
        self.optimizer = make_optimizer(self.raw_model, config, dist.device)
        self.scaler = torch.amp.GradScaler("cuda") if self.precision == torch.float16 else None
        self.flops_per_token = flops_per_token(self.model_config, self.parameters)
        self.peak_flops = peak_flops(dist.device, config.peak_flops)
        self.manifest_sha256 = manifest_sha256(shards_dir)
        self.step = 0
        if resume:
            self._resume()
        self.stop_requested = False

    def _parallelize(self, model: GPT) -> torch.nn.Module:
        if self.dist.active and self.config.parallel == "fsdp":
            from torch.distributed.fsdp import fully_shard

            for block in model.blocks:
                fully_shard(block)
            fully_shard(model)
        elif self.dist.active:
            device_ids = [self.dist.device.index] if self.dist.device.type == "cuda" else None
            model = DistributedDataParallel(model, device_ids=device_ids)
        return torch.compile(model) if self.config.compile else model

    def _autocast(self):
        if self.precision == torch.float32:
            return contextlib.nullcontext()
        return torch.autocast(self.dist.device.type, dtype=self.precision)

    # --- checkpoints -------------------------------------------------------------------------------

    def _state_options(self) -> StateDictOptions:
        return StateDictOptions(full_state_dict=True, cpu_offload=True)

    def save(self) -> None:
        model_state, optimizer_state = get_state_dict(self.raw_model, self.optimizer, options=self._state_options())
        if self.dist.is_main:
            save_checkpoint(
                self.out_dir,
                {
                    "step": self.step,
                    "model": model_state,
                    "optimizer": optimizer_state,
                    "scaler": self.scaler.state_dict() if self.scaler else None,
                    "schedule": {
                        "step": self.step,
                        "warmup_steps": self.config.warmup_steps,
                        "max_steps": self.config.max_steps,
                    },
                    "sampler": self.sampler.state_dict(),
                    "rng": rng_states(),
                    "config": self.config.model_dump(),
                    "model_shape": self.model_config.model_dump(),
                    "manifest_sha256": self.manifest_sha256,
                },
            )
        self.dist.barrier()

    def _resume(self) -> None:
        state = load_checkpoint(self.out_dir)
        check_model_shape(state["model_shape"], self.model_config.model_dump())
        if state["manifest_sha256"] != self.manifest_sha256:
            raise PreflightError(
                f"--resume: the checkpoint was trained on other shards (manifest sha256 "
                f"{state['manifest_sha256'][:12]}, these are {self.manifest_sha256[:12]})"
            )
        set_state_dict(
            self.raw_model,
            self.optimizer,
            model_state_dict=state["model"],
            optim_state_dict=state["optimizer"],
            options=StateDictOptions(full_state_dict=True),
        )
        if self.scaler and state["scaler"]:
            self.scaler.load_state_dict(state["scaler"])
        self.sampler.load_state_dict(state["sampler"])
        restore_rng_states(state["rng"])
        self.step = state["step"]

    # --- the loop ----------------------------------------------------------------------------------

    def train_step(self) -> tuple[torch.Tensor, float, torch.Tensor]:
        """One optimizer step over grad_accum_steps micro-batches: (mean loss, lr, gradient norm)."""
        lr = learning_rate(self.step, self.config)
        for group in self.optimizer.param_groups:
            group["lr"] = lr
        micro_batches = self.loader.next_step()
        loss_sum = torch.zeros((), device=self.dist.device)
        for number, (inputs, targets) in enumerate(micro_batches):
            last = number == len(micro_batches) - 1
            skip_sync = isinstance(self.model, DistributedDataParallel) and not last
            with self.model.no_sync() if skip_sync else contextlib.nullcontext(), self._autocast():
                _, loss = self.model(inputs, targets)
            scaled = loss / len(micro_batches)
            (self.scaler.scale(scaled) if self.scaler else scaled).backward()
            loss_sum += loss.detach()
        if self.scaler:
            self.scaler.unscale_(self.optimizer)
        norm = torch.nn.utils.clip_grad_norm_(self.raw_model.parameters(), self.config.grad_clip)
        if self.scaler:
            self.scaler.step(self.optimizer)
            self.scaler.update()
        else:
            self.optimizer.step()
        self.optimizer.zero_grad(set_to_none=True)
        self.step += 1
        return loss_sum / len(micro_batches), lr, norm

    @torch.no_grad()
    def evaluate(self) -> float:
        self.model.eval()
        micro, world = self.config.micro_batch_size, self.dist.world_size
        starts = validation_starts(
            self.data.val_range,
            self.model_config.seq_len + 1,
            self.config.eval_batches * micro * world,
            self.config.seed,
        )
        mine = starts[self.dist.rank * len(starts) // world : (self.dist.rank + 1) * len(starts) // world]
        total = torch.zeros((), device=self.dist.device)
        for first in range(0, len(mine), micro):
            windows = self.data.val_shards.windows(mine[first : first + micro], self.model_config.seq_len + 1)
            windows = torch.from_numpy(windows).to(self.dist.device)
            with self._autocast():
                logits, _ = self.model(windows[:, :-1])
            total += F.cross_entropy(logits.float().flatten(0, 1), windows[:, 1:].flatten())
        self.model.train()
        return self.dist.mean(total / -(-len(mine) // micro)).item()

    def run(self) -> TrainResult:
        monitor = Monitor(self.out_dir, self.dist.is_main, self.config.tensorboard, self.config.max_steps)
        if self.dist.is_main:
            truncate_metrics(self.out_dir, self.step)  # a resumed run redoes the steps after its checkpoint
            (self.out_dir / "config.yaml").write_text(yaml.safe_dump(self.config.model_dump(), sort_keys=False))
        previous = signal.signal(signal.SIGTERM, self._request_stop)
        tokens_per_step = self.config.tokens_per_step * self.dist.world_size
        val_loss, last_log, steps_since_log = None, time.monotonic(), 0
        try:
            while self.step < self.config.max_steps:
                loss, lr, norm = self.train_step()
                steps_since_log += 1
                if self.step % self.config.log_every == 0 or self.step == self.config.max_steps:
                    loss_value = self.dist.mean(loss).item()  # .item() waits for the GPU: timing is honest
                    elapsed = time.monotonic() - last_log
                    values = self._step_metrics(loss_value, lr, norm, tokens_per_step * steps_since_log / elapsed)
                    monitor.log(self.step, values)
                    monitor.progress(self.step, values)
                    last_log, steps_since_log = time.monotonic(), 0
                if self.step % self.config.eval_every == 0 or self.step == self.config.max_steps:
                    val_loss = self.evaluate()
                    monitor.log(self.step, {"val_loss": val_loss})
                stop = self.dist.any(self.stop_requested)
                if stop or self.step % self.config.checkpoint_every == 0 or self.step == self.config.max_steps:
                    self.save()
                if stop:
                    break
        finally:
            signal.signal(signal.SIGTERM, previous)
            monitor.close()
        result = TrainResult(
            self.out_dir,
            self.step,
            self.step < self.config.max_steps,
            val_loss,
            self.parameters,
            self.step * tokens_per_step,
        )
        if self.dist.is_main:
            summary = {**result.__dict__, "out_dir": str(result.out_dir)}
            (self.out_dir / RUN_FILE).write_text(json.dumps(summary, indent=2) + "\n")
        return result

    def _step_metrics(self, loss: float, lr: float, norm: torch.Tensor, tokens_per_s: float) -> dict:
        norm = norm.full_tensor() if hasattr(norm, "full_tensor") else norm  # FSDP: a sharded DTensor
        mfu = None
        if self.peak_flops:
            mfu = self.flops_per_token * tokens_per_s / (self.peak_flops * self.dist.world_size)
        return {"loss": loss, "lr": lr, "grad_norm": float(norm), "tokens_per_s": tokens_per_s, "mfu": mfu}

    def _request_stop(self, signum, frame) -> None:
        self.stop_requested = True


def finished_run(out_dir: Path, shards_dir: Path, config: TrainConfig) -> dict | None:
    """The summary of a run in `out_dir` that already finished `config` on these shards, else None."""
    summary_path, checkpoint = Path(out_dir) / RUN_FILE, Path(out_dir) / CHECKPOINT_FILE
    if not (summary_path.exists() and checkpoint.exists()):
        return None
    summary = json.loads(summary_path.read_text())
    state = load_checkpoint(Path(out_dir))
    same = state["config"] == config.model_dump() and state["manifest_sha256"] == manifest_sha256(shards_dir)
    return summary if same and not summary["interrupted"] and summary["step"] >= config.max_steps else None


def train(
    shards_dir: str | Path, out_dir: str | Path, config: TrainConfig, dist: Distributed, resume: bool = False
) -> TrainResult:
    out_dir = Path(out_dir)
    if dist.is_main:
        out_dir.mkdir(parents=True, exist_ok=True)
    dist.barrier()
    return Trainer(Path(shards_dir), out_dir, config, dist, resume).run()
