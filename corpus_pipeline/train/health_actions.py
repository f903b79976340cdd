"""What the Trainer does when its health monitor asks (health.py decides, this acts): roll back to
the last checkpoint past a window of data, stop with the last good checkpoint on disk, or end a
stalled process (watchdog.py) after writing what it can. A mixin of Trainer (train.py)."""

from __future__ import annotations

from corpus_pipeline.train.checkpoint import load_checkpoint_meta
from corpus_pipeline.train.logs import truncate_metrics
from corpus_pipeline.train.watchdog import EXIT_HUNG


class HealthActions:
    def _rollback(self) -> None:
        """PaLM's remedy: back to the last checkpoint, then past the next rollback_skip_batches batches
        of data; the skipped window is recorded (events, checkpoints), so the data order is reproducible."""
        bad_step, settings = self.step, self.config.health
        self._load(restore_health=False)
        before = self.sampler.state_dict()
        for _ in range(settings.rollback_skip_batches):
            self.sampler.take(self.loader.windows_per_step)
        skipped = {"at_step": self.step, "batches": settings.rollback_skip_batches, "from": before}
        skipped["to"] = self.sampler.state_dict()
        self.health.rolled_back(skipped)
        if self.dist.is_main:
            truncate_metrics(self.out_dir, self.step)  # the abandoned steps; their values are in the events
        self.events.emit(
            bad_step,
            "rollback",
            "error",
            f"back to step {self.step}, skipping {settings.rollback_skip_batches} batches, learning rate x "
            f"{self.health.lr_scale:g} (rollback {self.health.rollbacks} of {settings.max_rollbacks})",
            to_step=self.step,
            data_skip=skipped,
            lr_scale=self.health.lr_scale,
        )

    def _stop_for_health(self, action: str) -> None:
        step = load_checkpoint_meta(self.out_dir)["step"]
        why = "health.on_* is stop" if action == "stop" else f"{self.health.rollbacks} rollbacks already"
        self.events.emit(
            self.step, "stop", "error", f"{why}: the checkpoint of step {step} stays on disk (--resume continues it)"
        )

    def _on_stall(self, step: int, timeout_s: float) -> None:
        """The watchdog's: this rank waited timeout_s for a batch. A single process holds the whole
        state and writes it (at the position before the batch); ranks of a job leave the last checkpoint."""
        where = f"rank {self.dist.rank} waited more than {timeout_s:g} s for the batch of step {step + 1}"
        self.events.enabled = True  # the stalled rank speaks for itself
        if not self.dist.active:
            self.save(sampler_state=self._batch_position)
            kept = f"checkpoint of step {self.step} written"
        else:
            kept = "the last checkpoint stays"
        message = f"{where}; {kept}; ending with exit code {EXIT_HUNG}"
        self.events.emit(step, "data_stall", "error", message, rank=self.dist.rank)
