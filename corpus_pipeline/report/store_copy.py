"""A local copy of a run directory on a store, for the report: each finished stage's files, as its
manifest names them, under their logical names (`part-00000.parquet`, `_stats.json`, `_SUCCESS`),
so the report's readers (Parquet footers and columns, a memory-mapped pass over the shards) run on
it as on a local run.

The report reads every shard whole (the token distribution) and a few columns of the final
corpus and of the rejected rows; the copy fetches those files whole, text columns included: about
the run's output size once per report (a demo run: ~1 MB; a 10 GB night: ~10 GB through the
driver). A stage without a manifest is not copied: to the report it did not run.
"""

from __future__ import annotations

import json
from pathlib import Path

from corpus_pipeline.config.sources import SOURCES_DIR
from corpus_pipeline.engine.store.output_guard import read_marker
from corpus_pipeline.engine.store.stage_dir import SUCCESS, child
from corpus_pipeline.report.run_dir import STAGES
from corpus_pipeline.storage import Storage


def copy_stage(stage_uri: str, local: Path, storage: Storage) -> bool:
    """The files `stage_uri`'s manifest names, into `local`; False when the stage did not finish."""
    manifest = read_marker(stage_uri, storage)
    if manifest is None:
        return False
    for relative, key in sorted(manifest.get("files", {}).items()):
        target = local / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        storage.get_file(child(stage_uri, key), str(target))
    # The copy's own marker: the same stage, its files under their logical names.
    local_marker = {**manifest, "files": {relative: relative for relative in manifest.get("files", {})}}
    (local / SUCCESS).write_text(json.dumps(local_marker, indent=2) + "\n", encoding="utf-8")
    return True


def _source_names(run_uri: str, storage: Storage) -> list[str]:
    """The sources of a pipeline.sources run (runs/<id>/sources/<name>/): a listing finds their
    names only; what each holds is read through its stages' manifests."""
    base = child(run_uri, SOURCES_DIR)
    return sorted({uri[len(base) + 1 :].split("/")[0] for uri in storage.list_under(base)})


def copy_run(run_uri: str, local: Path, storage: Storage) -> Path:
    """Every finished stage of the run (and of its sources) under `local`, which is returned."""
    local.mkdir(parents=True, exist_ok=True)
    for directory, _ in STAGES:
        copy_stage(child(run_uri, directory), local / directory, storage)
    for name in _source_names(run_uri, storage):
        source = child(run_uri, f"{SOURCES_DIR}/{name}")
        (local / SOURCES_DIR / name).mkdir(parents=True, exist_ok=True)
        for directory, _ in STAGES:
            copy_stage(child(source, directory), local / SOURCES_DIR / name / directory, storage)
    return local
