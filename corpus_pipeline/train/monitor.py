"""What a run reports: a console progress line, TensorBoard scalars and metrics.jsonl (rank 0 only).

metrics.jsonl holds one JSON object per logged step ({"step", "loss", "lr", "grad_norm",
"tokens_per_s", "mfu"}) or evaluation ({"step", "val_loss"}), so tests, `ablate` and the report
read the curves without TensorBoard.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import torch

from corpus_pipeline.train.logs import METRICS_FILE

# Dense bf16 peak FLOP/s per device, from the vendors' data sheets (SXM parts; sparsity excluded).
PEAK_BF16_FLOPS = {"H200": 989e12, "H100": 989e12, "A100": 312e12, "L40S": 362e12, "A10": 125e12}



def peak_flops(device: torch.device, configured: float | None) -> float | None:
    if configured is not None:
        return configured
    if device.type != "cuda":
        return None
    name = torch.cuda.get_device_name(device)
    return next((flops for model, flops in PEAK_BF16_FLOPS.items() if model in name), None)


class Monitor:
    def __init__(self, out_dir: Path, enabled: bool, tensorboard: bool, max_steps: int):
        self.enabled, self.max_steps = enabled, max_steps
        self.writer = None
        self.metrics = None
        if not enabled:
            return
        out_dir.mkdir(parents=True, exist_ok=True)
        self.metrics = open(out_dir / METRICS_FILE, "a", encoding="utf-8")
        if tensorboard:
            from torch.utils.tensorboard import SummaryWriter  # needs the tensorboard package ([train] extra)

            self.writer = SummaryWriter(str(out_dir / "tensorboard"))
        self.started = time.monotonic()

    def log(self, step: int, values: dict) -> None:
        if not self.enabled:
            return
        self.metrics.write(json.dumps({"step": step, **values}) + "\n")
        self.metrics.flush()
        if self.writer is not None:
            for key, value in values.items():
                if value is not None:
                    self.writer.add_scalar(f"train/{key}" if key != "val_loss" else "val/loss", value, step)

    def progress(self, step: int, values: dict) -> None:
        if not self.enabled:
            return
        elapsed = time.monotonic() - self.started
        mfu = f" mfu {values['mfu']:.1%}" if values.get("mfu") is not None else ""
        print(
            f"step {step:>6}/{self.max_steps} | loss {values['loss']:.4f} | lr {values['lr']:.2e} | "
            f"grad {values['grad_norm']:.3f} | {values['tokens_per_s']:,.0f} tok/s{mfu} | {elapsed:,.0f}s",
            file=sys.stderr,
            flush=True,
        )

    def close(self) -> None:
        if self.metrics is not None:
            self.metrics.close()
        if self.writer is not None:
            self.writer.close()
