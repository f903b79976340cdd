"""Where `train --shards DIR` finds token shards: DIR itself, or what a run directory published.

A run publishes its shards through one of the registry's stages whose output is token shards (mix,
or tokenize when there are no mix targets), in the stage's own directory (`engine/registry.py`), with
`_SUCCESS` written last. The later stage of the registry wins: in a run that has both, mix built the
shards the run trained on (pipeline/steps.py). Nothing here knows a directory name.
"""

from __future__ import annotations

from pathlib import Path

from corpus_pipeline.engine import registry
from corpus_pipeline.engine.store.layout import SUCCESS
from corpus_pipeline.tokenize.manifest import MANIFEST_FILE


def find_shards(directory: Path) -> tuple[Path, str | None]:
    """(the shard directory, the stage that published it, or None when `directory` is one itself)."""
    directory = Path(directory)
    if (directory / MANIFEST_FILE).exists():
        return directory, None
    stages = [spec for spec in registry.STAGES if spec.output == "tokens"]
    looked = [str(directory / MANIFEST_FILE)]
    for spec in reversed(stages):
        stage_dir = directory / spec.directory
        if (stage_dir / SUCCESS).exists() and (stage_dir / MANIFEST_FILE).exists():
            return stage_dir, spec.name
        looked.append(f"{stage_dir / MANIFEST_FILE} with {SUCCESS} ({spec.name} stage)")
    raise FileNotFoundError(
        f"no token shards at {directory}: looked for " + "; ".join(looked) + ". Give a shard directory "
        "(corpus-pipeline tokenize or mix) or a run directory whose mix or tokenize stage finished"
    )
