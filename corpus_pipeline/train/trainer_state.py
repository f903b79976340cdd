"""The Trainer's checkpoints: what it writes (checkpoint.py's two files) and how it reads them back,
on --resume and on a health rollback. A mixin of Trainer (train.py), kept apart to keep that short."""

from __future__ import annotations

from torch.distributed.checkpoint.state_dict import StateDictOptions, get_state_dict, set_state_dict

from corpus_pipeline.train.checkpoint import (
    check_model_shape,
    load_checkpoint,
    restore_rng_states,
    rng_states,
    save_checkpoint,
)
from corpus_pipeline.train.preflight import PreflightError


class CheckpointState:
    def _state_options(self) -> StateDictOptions:
        return StateDictOptions(full_state_dict=True, cpu_offload=True)

    def save(self, sampler_state: dict | None = None) -> None:
        """A checkpoint of now; `sampler_state`: the data position to record instead of the sampler's
        (the watchdog's, taken before the batch it waits for)."""
        model_state, optimizer_state = get_state_dict(self.raw_model, self.optimizer, options=self._state_options())
        if self.dist.is_main:
            rng_tensors, rng_json = rng_states()
            tensors = {"model": model_state, "optimizer": optimizer_state, **rng_tensors}
            if self.scaler:
                tensors["scaler"] = self.scaler.state_dict()
            meta = {
                "step": self.step,
                "schedule": {
                    "step": self.step,
                    "warmup_steps": self.config.warmup_steps,
                    "max_steps": self.config.max_steps,
                },
                "sampler": sampler_state or self.sampler.state_dict(),
                "rng": rng_json,
                "config": self.given.model_dump(mode="json"),
                "model_shape": self.model_config.model_dump(mode="json"),
                "manifest_sha256": self.manifest_sha256,
                "health": self.health.state_dict() if self.health else None,
            }
            save_checkpoint(self.out_dir, tensors, meta)
        self.dist.barrier()

    def _load(self, restore_health: bool) -> None:
        """Everything of the checkpoint in out_dir: on --resume, the health monitor's state too; on a
        rollback, not (its count of rollbacks and its skipped data are newer than the checkpoint)."""
        state = load_checkpoint(self.out_dir)
        check_model_shape(state["model_shape"], self.model_config.model_dump(mode="json"))
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
        if self.scaler and state.get("scaler"):
            self.scaler.load_state_dict(state["scaler"])
        self.sampler.load_state_dict(state["sampler"])
        restore_rng_states(state)
        self.step = state["step"]
        if restore_health and self.health and state.get("health"):
            self.health.load_state_dict(state["health"])
