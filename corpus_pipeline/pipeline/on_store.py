"""A run whose directory is an `s3://` prefix (data_root or --output on a store): what it cannot do
there, refused before any stage runs, and the small JSON files of the driver (the run record, the
gates, the nightly's history) written as whole objects.

A store has no rename, but one PUT is atomic: a reader GETs the old object or the new one, never
half of either, which is what the local files get from write-beside-and-rename.
"""

from __future__ import annotations

import json

from corpus_pipeline.storage import Storage, is_object_uri


class NotOnStoreError(ValueError):
    """A run on a store asked for a step that needs a local or shared directory."""


def store_refusals(plan) -> list[str]:
    """What of `plan` (a RunPlan) cannot run with its run directory on a store; [] locally."""
    if not is_object_uri(plan.run_dir):
        return []
    config = plan.config
    refused = []
    crawls = [s.name for s in plan.sources if s.kind == "crawl"]
    if plan.seeds is not None or crawls:
        which = f"source {', '.join(crawls)}" if crawls else "pipeline.seeds"
        refused.append(
            f"{which}: crawl writes WARC files as it fetches, into a local or shared directory; "
            "give pipeline.inputs (WARC/WET objects, s3://bucket/prefix) instead"
        )
    if config.mix.builds_the_shards:
        refused.append(
            "mix.targets/mix.phases: mix's shard tasks memory-map the encode tasks' token files, which "
            "needs a shared directory; leave them unset (tokenize writes the shards)"
        )
    if config.pipeline.train_config is not None:
        refused.append(
            "pipeline.train_config: the model's checkpoints are local files; leave it unset and train "
            "on the run's shards with `corpus-pipeline train --shards <run>/tokens`"
        )
    return refused


def check_runs_on_store(plan) -> None:
    refused = store_refusals(plan)
    if refused:
        raise NotOnStoreError(f"run directory {plan.run_dir} is on an object store: " + "; ".join(refused))


def write_json_object(uri: str, data: dict | list, storage: Storage | None = None) -> None:
    body = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    (storage or Storage()).put_bytes(uri, body.encode("utf-8"))


def read_json_object(uri: str, storage: Storage | None = None) -> dict | list | None:
    """The object's JSON, or None when there is none."""
    try:
        return json.loads((storage or Storage()).read_bytes(uri))
    except FileNotFoundError:
        return None
