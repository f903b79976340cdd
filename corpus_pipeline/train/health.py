"""A training run that watches itself: health signals every step, rules that decide, actions asked for.

Cheap by construction. The verdict on a step (its loss or grad norm non-finite, or above k x the
running median of the last `window` accepted steps) is computed on the device from device-side
rings, with no host sync: it reaches the optimizer as fused AdamW's `found_inf`, which turns the
update into a no-op (step counts restored), so `skip` costs no GPU stall. The host reads each step's
signals one step later (a non-blocking copy into pinned memory, long finished by then), so events,
rollbacks and stops are decided within 2 steps of the bad one, and the GPU is synced only where the
loss logging already syncs (the log step, a checkpoint) and at the update-ratio sample every
`health.every` steps. All ranks see the same rank-averaged loss and the same global grad norm, so
they reach the same verdicts without talking.
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass

import torch

from corpus_pipeline.train.config import HealthConfig
from corpus_pipeline.train.events import EventLog

# Order of the values in a step's signal vector.
SIGNALS = ("loss", "grad_norm", "loss_median", "grad_norm_median", "non_finite", "loss_spike", "grad_spike", "skipped")


@dataclass
class _Pending:
    step: int
    lr: float
    batch: dict  # the sampler's position before the step's batch: where the batch is in the data order
    values: torch.Tensor
    ready: object  # a CUDA event, or None on CPU


class HealthMonitor:
    def __init__(self, config: HealthConfig, device: torch.device, events: EventLog):
        self.config, self.device, self.events = config, device, events
        window = config.window
        self.loss_ring = torch.full((window,), math.nan, device=device)
        self.norm_ring = torch.full((window,), math.nan, device=device)
        self.count = 0  # steps recorded (the ring slot of the next one is count % window)
        self.pending: deque[_Pending] = deque()
        self.recent_losses: deque[float] = deque(maxlen=window)  # host mirror for mean and spread
        self.latest: dict = {}
        self.skipped_steps = 0
        self.rollbacks = 0
        self.lr_scale = 1.0
        self.data_skips: list[dict] = []  # every window of batches a rollback skipped, in order
        self.ratio_streaks: dict[str, int] = {}
        self.ratios_to_log: dict[str, float] = {}  # the last sample, until the loop logs it

    # --- on the device, every step ------------------------------------------------------------------

    def verdict(self, loss: torch.Tensor, norm: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """(reject, signals): reject is a 0-dim float tensor, 1.0 when this step's update must not be
        applied; both stay on the device."""
        loss, norm = loss.detach().float(), norm.detach().float()
        non_finite = ~(torch.isfinite(loss) & torch.isfinite(norm))
        loss_median, norm_median = torch.nanmedian(self.loss_ring), torch.nanmedian(self.norm_ring)
        enough = (~torch.isnan(self.loss_ring)).sum() >= self.config.min_history
        loss_spike = enough & (loss > self.config.loss_factor * loss_median)
        grad_spike = enough & (norm > self.config.grad_norm_factor * norm_median)
        reject = non_finite if self.config.on_spike == "warn" else non_finite | loss_spike | grad_spike
        slot = self.count % self.config.window
        nan = torch.full_like(loss, math.nan)
        self.loss_ring[slot] = torch.where(reject, nan, loss)  # a rejected step never becomes the norm
        self.norm_ring[slot] = torch.where(reject, nan, norm)
        self.count += 1
        flags = [non_finite, loss_spike, grad_spike, reject]
        signals = torch.stack([loss, norm, loss_median, norm_median, *[flag.float() for flag in flags]])
        return reject.float(), signals

    def record(self, step: int, lr: float, batch: dict, signals: torch.Tensor) -> None:
        """Queue a step's signals for the host, without waiting for them."""
        ready = None
        if signals.device.type == "cuda":
            host = torch.empty(signals.shape, dtype=signals.dtype, pin_memory=True)
            host.copy_(signals, non_blocking=True)
            ready = torch.cuda.Event()
            ready.record()
            signals = host
        self.pending.append(_Pending(step, lr, batch, signals, ready))

    # --- on the host, a step later -------------------------------------------------------------------

    def check(self, before_step: int | None = None) -> str | None:
        """Judge the queued steps older than `before_step` (all of them when None): emit their events
        and return the strongest action they ask for (`rollback` or `stop`), else None."""
        asked = None
        while self.pending and (before_step is None or self.pending[0].step < before_step):
            entry = self.pending.popleft()
            if entry.ready is not None:
                entry.ready.synchronize()  # recorded a step ago: already done, this does not stall
            values = dict(zip(SIGNALS, entry.values.tolist(), strict=True))
            action = self._judge(entry, values)
            if action == "stop" or (action == "rollback" and asked is None):
                asked = action
        return asked

    def _judge(self, entry: _Pending, values: dict) -> str | None:
        self.latest = values
        if not values["skipped"] and math.isfinite(values["loss"]):
            self.recent_losses.append(values["loss"])
        findings = []
        if values["non_finite"]:
            findings.append(("non_finite", f"loss {values['loss']} grad norm {values['grad_norm']}"))
        if values["loss_spike"]:
            findings.append(
                (
                    "loss_spike",
                    f"loss {values['loss']:.4f} > {self.config.loss_factor} x median {values['loss_median']:.4f}",
                )
            )
        if values["grad_spike"]:
            findings.append(
                (
                    "grad_norm_spike",
                    f"grad norm {values['grad_norm']:.4g} > {self.config.grad_norm_factor} x median "
                    f"{values['grad_norm_median']:.4g}",
                )
            )
        if not findings:
            return None
        self.skipped_steps += int(values["skipped"])
        configured = self.config.on_nonfinite if values["non_finite"] else self.config.on_spike
        for kind, message in findings:
            severity = "warning" if configured == "warn" else "error"
            self.events.emit(
                entry.step,
                kind,
                severity,
                message,
                action=configured,
                batch=entry.batch,
                lr=entry.lr,
                update_applied=not values["skipped"],
                **{key: values[key] for key in ("loss", "grad_norm", "loss_median", "grad_norm_median")},
            )
        return configured if configured in ("rollback", "stop") else None

    def step_metrics(self) -> dict:
        """What metrics.jsonl and TensorBoard get at a log step (after `check()`)."""
        losses = list(self.recent_losses)
        mean = sum(losses) / len(losses) if losses else None
        spread = math.sqrt(sum((x - mean) ** 2 for x in losses) / len(losses)) if losses else None
        median = self.latest.get("grad_norm_median")
        return {
            "grad_norm_median": median if median is not None and math.isfinite(median) else None,
            "loss_mean": mean,
            "loss_std": spread,
            "skipped_steps": self.skipped_steps,
            "rollbacks": self.rollbacks,
            "lr_scale": self.lr_scale,
        }

    # --- update-to-weight ratio ----------------------------------------------------------------------

    def judge_ratios(self, step: int, ratios: dict[str, float]) -> None:
        """Warn when a layer's |dW|/|W| has been outside the band for `ratio_patience` samples in a row."""
        if not any(ratios.values()):
            return  # a skipped update: no sample
        low, high = self.config.ratio_band
        self.ratios_to_log = {f"update_ratio/{layer}": ratio for layer, ratio in ratios.items()}
        for layer, ratio in ratios.items():
            outside = not low <= ratio <= high
            self.ratio_streaks[layer] = self.ratio_streaks.get(layer, 0) + 1 if outside else 0
            if self.ratio_streaks[layer] == self.config.ratio_patience:
                self.events.emit(
                    step,
                    "update_ratio",
                    "warning",
                    f"{layer}: |dW|/|W| {ratio:.2e} outside [{low:g}, {high:g}] for "
                    f"{self.config.ratio_patience} samples in a row",
                    layer=layer,
                    ratio=ratio,
                )

    # --- rollback bookkeeping, and what a checkpoint keeps -------------------------------------------

    def rolled_back(self, skipped: dict) -> None:
        self.rollbacks += 1
        self.lr_scale *= self.config.rollback_lr_factor
        self.data_skips.append(skipped)
        self.pending.clear()  # the abandoned steps' signals: judged already or moot
        self.recent_losses.clear()

    def state_dict(self) -> dict:
        def host(ring: torch.Tensor) -> list:
            return [None if math.isnan(x) else x for x in ring.tolist()]

        return {
            "loss_ring": host(self.loss_ring),
            "norm_ring": host(self.norm_ring),
            "count": self.count,
            "skipped_steps": self.skipped_steps,
            "rollbacks": self.rollbacks,
            "lr_scale": self.lr_scale,
            "data_skips": self.data_skips,
            "recent_losses": list(self.recent_losses),
        }

    def load_state_dict(self, state: dict) -> None:
        def device(values: list) -> torch.Tensor:
            return torch.tensor([math.nan if x is None else x for x in values], device=self.device)

        if len(state["loss_ring"]) == self.config.window:  # another window: start the medians afresh
            self.loss_ring, self.norm_ring = device(state["loss_ring"]), device(state["norm_ring"])
            self.count = state["count"]
            self.recent_losses.extend(state["recent_losses"])
        self.skipped_steps, self.rollbacks = state["skipped_steps"], state["rollbacks"]
        self.lr_scale, self.data_skips = state["lr_scale"], list(state["data_skips"])


def layer_name(parameter_name: str) -> str:
    """`blocks.3.attention.qkv.weight` -> `blocks.3`; `embedding.weight` -> `embedding`."""
    parts = parameter_name.removeprefix("_orig_mod.").split(".")
    return ".".join(parts[:2]) if parts[0] == "blocks" else parts[0]


class UpdateRatio:
    """|dW|/|W| per layer over one optimizer step: a copy of the weights before, norms after. The
    tiny preset (lr 1e-2) measures 2-4e-2 in its first 30 steps, 1.7e-3 by step 60: `every` x
    `ratio_patience` (150 steps by default) lets warmup pass before a warning."""

    def __init__(self, model: torch.nn.Module):
        # Weight matrices only: a norm gain's ratio falls toward 0 as its learning rate decays, which
        # is healthy, and would trip the band's floor at the end of every cosine schedule.
        self.named = [(layer_name(name), p) for name, p in model.named_parameters() if p.requires_grad and p.dim() >= 2]
        self.before: list[torch.Tensor] | None = None

    def start(self) -> None:
        self.before = [p.detach().clone() for _, p in self.named]

    def finish(self) -> dict[str, float]:
        sums: dict[str, list[torch.Tensor]] = {}
        for (layer, p), old in zip(self.named, self.before, strict=True):
            delta, weight = _full(torch.linalg.vector_norm(p.detach() - old)), _full(torch.linalg.vector_norm(old))
            pair = sums.setdefault(layer, [torch.zeros((), device=weight.device)] * 2)
            sums[layer] = [pair[0] + delta.float() ** 2, pair[1] + weight.float() ** 2]
        self.before = None
        layers = list(sums)
        stacked = torch.stack([torch.stack(sums[layer]) for layer in layers]).tolist()  # one sync per sample
        return {
            layer: math.sqrt(d) / math.sqrt(w) if w > 0 else 0.0 for layer, (d, w) in zip(layers, stacked, strict=True)
        }


def _full(value: torch.Tensor) -> torch.Tensor:
    return value.full_tensor() if hasattr(value, "full_tensor") else value  # FSDP: a sharded DTensor


class MemoryWatch:
    """CUDA: the peak allocated and reserved memory of each log interval, and a warning when the
    reserved peak grows past the first interval's by more than `growth_percent`."""

    def __init__(self, device: torch.device, growth_percent: float, events: EventLog):
        self.device, self.growth, self.events = device, growth_percent, events
        self.baseline: float | None = None

    def interval(self, step: int) -> dict:
        if self.device.type != "cuda":
            return {}
        allocated = torch.cuda.max_memory_allocated(self.device) / 2**30
        reserved = torch.cuda.max_memory_reserved(self.device) / 2**30
        torch.cuda.reset_peak_memory_stats(self.device)
        if self.baseline is None:
            self.baseline = reserved
        elif reserved > self.baseline * (1 + self.growth / 100):
            self.events.emit(
                step,
                "memory_creep",
                "warning",
                f"peak reserved {reserved:.2f} GiB is {100 * (reserved / self.baseline - 1):.0f}% above the first "
                f"interval's {self.baseline:.2f} GiB",
                reserved_gib=reserved,
                baseline_gib=self.baseline,
            )
            self.baseline = reserved  # warn again only on further growth
        return {"mem_allocated_peak_gib": allocated, "mem_reserved_peak_gib": reserved}
