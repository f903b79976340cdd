"""Where a stage run will work, for the tests that plant an earlier attempt's files there first."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from corpus_pipeline.config import PipelineConfig
from corpus_pipeline.engine.lifecycle import Executor, chain_dirs, global_dir
from corpus_pipeline.engine.registry import stage_spec
from corpus_pipeline.engine.store.stage_dir import StageDir, location
from corpus_pipeline.stage_runner import _global_input, _source_input, build_stage
from corpus_pipeline.storage import Storage


def planned_dirs(
    names: Sequence[str], source, outputs: Sequence[Path], config: PipelineConfig, executor: Executor, **options
) -> list[StageDir]:
    """Where `run_fused(names, ...)` (or `run_stage` for one name) will work and publish: each stage's
    output and fingerprint, hence its work directory `.<output>.inprogress-<fingerprint>`."""
    specs = [stage_spec(name) for name in names]
    storage = Storage(config.storage)
    if len(specs) == 1 and specs[0].kind == "global":
        if specs[0].input == "seeds":
            options = {**options, "seeds": Path(source)}
        stage = build_stage(specs[0], config, **options)
        return [global_dir(stage, _global_input(specs[0], source), location(outputs[0]), executor, storage)]
    stages = [build_stage(spec, config) for spec in specs]
    outputs = [location(o) for o in outputs]
    return chain_dirs(stages, _source_input(stages[0], source, outputs), outputs, config.engine, storage)
