"""A run whose directory is an `s3://` prefix (data_root or --output on a store): what it cannot do
there (training: its checkpoints are local files), refused before any stage runs, and the small JSON
files of the driver (the run record, the gates, the nightly's history) written as whole objects.

A store has no rename, but one PUT is atomic: a reader GETs the old object or the new one, never
half of either, which is what the local files get from write-beside-and-rename.
"""

from __future__ import annotations

import json

from corpus_pipeline.storage import Storage, is_object_uri


class NotOnStoreError(ValueError):
    """A run on a store asked for a step that needs a local or shared directory."""


def check_runs_on_store(plan) -> None:
    """Refuse, before any step, what a run (a RunPlan) cannot do with its run directory on a store."""
    if is_object_uri(plan.run_dir) and plan.config.pipeline.train_config is not None:
        raise NotOnStoreError(
            f"run directory {plan.run_dir} is on an object store: pipeline.train_config: the model's "
            "checkpoints are local files; leave it unset and train on the run's shards with "
            "`corpus-pipeline train --shards <run>/tokens`"
        )


def write_json_object(uri: str, data: dict | list, storage: Storage | None = None) -> None:
    body = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    (storage or Storage()).put_bytes(uri, body.encode("utf-8"))


def read_json_object(uri: str, storage: Storage | None = None) -> dict | list | None:
    """The object's JSON, or None when there is none."""
    try:
        return json.loads((storage or Storage()).read_bytes(uri))
    except FileNotFoundError:
        return None
