"""A run whose directory is an `s3://` prefix (data_root or --output on a store): what it cannot do
there (training: its checkpoints are local files), refused before any stage runs."""

from __future__ import annotations

from corpus_pipeline.storage.locations import renames


class NotOnStoreError(ValueError):
    """A run on a store asked for a step that needs a local or shared directory."""


def check_runs_on_store(plan) -> None:
    """Refuse, before any step, what a run (a RunPlan) cannot do with its run directory on a store."""
    if not renames(plan.run_dir) and plan.config.pipeline.train_config is not None:
        raise NotOnStoreError(
            f"run directory {plan.run_dir} is on an object store: pipeline.train_config: the model's "
            "checkpoints are local files; leave it unset and train on the run's shards with "
            "`corpus-pipeline train --shards <run>/tokens`"
        )
