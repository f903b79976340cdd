"""The training loop: one process, or every rank under torchrun (DDP or FSDP), CPU or GPU.

`train(shards, out_dir, config, dist)` checks the input (preflight.py), builds the model and the
batches, resumes from out_dir's checkpoint or refuses an out_dir holding another run's, and runs to
`max_steps` or until SIGTERM, checkpointing at step 0, every `checkpoint_every` steps and on the way
out. A HealthMonitor (health.py) judges every step; its skips happen inside the optimizer step, its
rollbacks and stops here. Rank 0 writes everything.
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
from torch.nn.parallel import DistributedDataParallel

from corpus_pipeline.train.config import ModelConfig, TrainConfig
from corpus_pipeline.train.data import BatchLoader, TokenRange, WindowSampler, split_validation, validation_starts
from corpus_pipeline.train.distributed import Distributed, bf16_compress_hook
from corpus_pipeline.train.events import EventLog
from corpus_pipeline.train.health import HealthMonitor, MemoryWatch, UpdateRatio
from corpus_pipeline.train.health_actions import HealthActions
from corpus_pipeline.train.logs import truncate_metrics
from corpus_pipeline.train.model import GPT, flops_per_token
from corpus_pipeline.train.monitor import Monitor, peak_flops
from corpus_pipeline.train.optim import learning_rate, make_optimizer
from corpus_pipeline.train.out_dir import RUN_FILE, OutputInUseError, finished_run, refuse_another_runs_output
from corpus_pipeline.train.preflight import (
    PreflightError,
    check_enough_tokens,
    check_same_tokenizer,
    manifest_sha256,
    open_checked_shards,
)
from corpus_pipeline.train.trainer_state import CheckpointState
from corpus_pipeline.train.watchdog import DataWatchdog

# finished_run and OutputInUseError live in out_dir.py; `run`'s train step imports them from here.
__all__ = ["OutputInUseError", "TrainResult", "Trainer", "finished_run", "resolve_precision", "train"]


@dataclass
class TrainResult:
    out_dir: Path
    step: int
    interrupted: bool  # stopped before max_steps, a resumable checkpoint on disk
    val_loss: float | None
    parameters: int
    tokens_seen: int
    stopped_by: str | None = None  # "sigterm", "restart" (restart_every_hours) or "health" (max_rollbacks)


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


class Trainer(CheckpointState, HealthActions):
    def __init__(self, shards_dir: Path, out_dir: Path, config: TrainConfig, dist: Distributed, resume: bool):
        # As given (saved, compared on resume) and as run on this many ranks (global_batch_size).
        self.given, self.config = config, config.for_world(dist.world_size)
        config, self.dist, self.out_dir = self.config, dist, Path(out_dir)
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
        self.events = EventLog(self.out_dir, dist.is_main)
        self.health = HealthMonitor(config.health, dist.device, self.events) if config.health.enabled else None
        self.update_ratio = UpdateRatio(self.raw_model) if self.health else None
        self.memory = MemoryWatch(dist.device, config.health.memory_growth_percent, self.events)
        # found_inf makes fused AdamW skip an update on the device's word; other paths ask the host.
        self.skip_on_device = bool(self.optimizer.defaults.get("fused")) and self.scaler is None
        self.step = 0
        if resume:
            self._load(restore_health=True)
        self.stop_requested = self.sigterm = False
        self.watchdog: DataWatchdog | None = None
        self._batch_position: dict | None = None

    def _parallelize(self, model: GPT) -> torch.nn.Module:
        if self.dist.active and self.config.parallel == "fsdp":
            from torch.distributed.fsdp import fully_shard

            for block in model.blocks:
                fully_shard(block)
            fully_shard(model)
        elif self.dist.active:
            device_ids = [self.dist.device.index] if self.dist.device.type == "cuda" else None
            model = DistributedDataParallel(model, device_ids=device_ids)
            if self.config.ddp_comm_hook == "bf16":
                model.register_comm_hook(None, bf16_compress_hook(self.dist.device))
        return torch.compile(model) if self.config.compile else model

    def _autocast(self):
        if self.precision == torch.float32:
            return contextlib.nullcontext()
        return torch.autocast(self.dist.device.type, dtype=self.precision)

    # --- the loop ----------------------------------------------------------------------------------

    def train_step(self) -> tuple[torch.Tensor, float, torch.Tensor]:
        """One optimizer step over grad_accum_steps micro-batches: (mean loss, lr, gradient norm)."""
        lr = learning_rate(self.step, self.config) * (self.health.lr_scale if self.health else 1.0)
        for group in self.optimizer.param_groups:
            group["lr"] = lr
        batch = self._batch_position = self.sampler.state_dict()
        with self.watchdog.waiting(self.step) if self.watchdog else contextlib.nullcontext():
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
        loss = loss_sum / len(micro_batches)
        sample_ratio = self.health is not None and (self.step + 1) % self.config.health.every == 0
        if sample_ratio:
            self.update_ratio.start()
        self._optimizer_step(loss, norm, lr, batch)
        if sample_ratio:
            self.health.judge_ratios(self.step + 1, self.update_ratio.finish())
        self.optimizer.zero_grad(set_to_none=True)
        self.step += 1
        return loss, lr, norm

    def _optimizer_step(self, loss: torch.Tensor, norm: torch.Tensor, lr: float, batch: dict) -> None:
        if self.health is None:
            reject = None
        else:
            full_norm = norm.full_tensor() if hasattr(norm, "full_tensor") else norm  # FSDP: a sharded DTensor
            reject, signals = self.health.verdict(self.dist.mean(loss), full_norm)
            self.health.record(self.step + 1, lr, batch, signals)
        if reject is not None and self.skip_on_device:
            self.optimizer.found_inf = reject  # fused AdamW: no update where 1, step counts kept
            try:
                self.optimizer.step()
            finally:
                del self.optimizer.found_inf
        elif reject is not None and reject.item():  # FSDP, fp16: the host decides (one sync)
            if self.scaler:
                self.scaler.update()
        elif self.scaler:
            self.scaler.step(self.optimizer)
            self.scaler.update()
        else:
            self.optimizer.step()

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
            config_yaml = yaml.safe_dump(self.given.model_dump(mode="json"), sort_keys=False)
            (self.out_dir / "config.yaml").write_text(config_yaml)
        if self.step == 0:
            self.save()  # every run is resumable, and has a checkpoint to roll back to, from its start
        previous = signal.signal(signal.SIGTERM, self._request_stop)
        self.watchdog = DataWatchdog(self.config.timeout_s, self._on_stall)
        tokens_per_step = self.config.tokens_per_step * self.dist.world_size
        val_loss, last_log, steps_since_log, started = None, time.monotonic(), 0, time.monotonic()
        stopped_by = None
        try:
            while self.step < self.config.max_steps:
                loss, lr, norm = self.train_step()
                steps_since_log += 1
                hours = self.config.restart_every_hours
                self.stop_requested |= hours is not None and time.monotonic() - started > hours * 3600
                stop = self.dist.any(self.stop_requested)
                due_log = self.step % self.config.log_every == 0 or self.step == self.config.max_steps
                due_save = stop or self.step % self.config.checkpoint_every == 0 or self.step == self.config.max_steps
                # Judged a step late, except before a log or a checkpoint (both sync anyway): a checkpoint
                # is written only after every step it holds was judged good.
                action = self.health.check(None if due_log or due_save else self.step) if self.health else None
                if action == "rollback" and self.health.rollbacks < self.config.health.max_rollbacks:
                    self._rollback()
                    continue
                if action is not None:  # stop, or a rollback past max_rollbacks: the last good checkpoint stays
                    self._stop_for_health(action)
                    stopped_by = "health"
                    break
                if self.health and self.health.ratios_to_log:
                    monitor.log(self.step, self.health.ratios_to_log)
                    self.health.ratios_to_log = {}
                if due_log:
                    loss_value = self.dist.mean(loss).item()  # .item() waits for the GPU: timing is honest
                    elapsed = time.monotonic() - last_log
                    values = self._step_metrics(loss_value, lr, norm, tokens_per_step * steps_since_log / elapsed)
                    monitor.log(self.step, values)
                    monitor.progress(self.step, values)
                    last_log, steps_since_log = time.monotonic(), 0
                if self.step % self.config.eval_every == 0 or self.step == self.config.max_steps:
                    val_loss = self.evaluate()
                    monitor.log(self.step, {"val_loss": val_loss})
                if due_save:
                    self.save()
                if stop:
                    stopped_by = "sigterm" if self.sigterm else "restart"
                    break
        finally:
            self.watchdog.close()
            signal.signal(signal.SIGTERM, previous)
            monitor.close()
        result = TrainResult(
            self.out_dir,
            self.step,
            self.step < self.config.max_steps,
            val_loss,
            self.parameters,
            self.step * tokens_per_step,
            stopped_by,
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
        values = {"loss": loss, "lr": lr, "grad_norm": float(norm), "tokens_per_s": tokens_per_s, "mfu": mfu}
        if self.health:
            values.update(self.health.step_metrics())
        return {**values, **self.memory.interval(self.step)}

    def _request_stop(self, signum, frame) -> None:
        self.stop_requested = self.sigterm = True


def train(
    shards_dir: str | Path, out_dir: str | Path, config: TrainConfig, dist: Distributed, resume: bool = False
) -> TrainResult:
    out_dir = Path(out_dir)
    if not resume:
        refuse_another_runs_output(out_dir)
    if dist.is_main:
        out_dir.mkdir(parents=True, exist_ok=True)
    dist.barrier()
    return Trainer(Path(shards_dir), out_dir, config, dist, resume).run()
