"""Run stages by their registry name: what the CLI verbs, `jobs/stage.py`, the make targets and the
pipeline steps all call.

    run_stage("langid", input_dir, output, config, executor)
    run_stage("dedup", input_dir, output, config, executor, index=index_dir)
    run_fused(["extract", "langid", "normalize"], warc_files, outputs, config, executor)
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from corpus_pipeline.config import PipelineConfig
from corpus_pipeline.engine.columns import check_input_columns
from corpus_pipeline.engine.config import RUNNERS
from corpus_pipeline.engine.lifecycle import (
    Executor,
    GlobalStage,
    StageResult,
    run_chain,
    run_global,
)
from corpus_pipeline.engine.registry import StageSpec, resolve, stage_spec
from corpus_pipeline.engine.store.stage_dir import check_output_apart, location
from corpus_pipeline.failures import Work
from corpus_pipeline.stages.base import SourceStage
from corpus_pipeline.storage import Storage


def make_executor(config: PipelineConfig, runner: str, work: Work | None = None) -> Executor:
    """The executor of `runner`; it marks `work` (the verb's) when its first task starts."""
    if runner == "local":
        from corpus_pipeline.engine.exec.local import LocalExecutor

        return LocalExecutor(config.spark, config.engine.progress_seconds, work, config.engine.memory_mb)
    if runner == "spark":
        from corpus_pipeline.engine.exec.session import get_spark
        from corpus_pipeline.engine.exec.spark import SparkExecutor

        return SparkExecutor(get_spark(config.spark, config.engine.memory_mb), work)
    raise ValueError(f"unknown runner {runner!r}: expected one of {', '.join(RUNNERS)}")


def stage_class(spec: StageSpec) -> type:
    return resolve(spec.factory)


def _sections(spec: StageSpec, config: PipelineConfig) -> tuple:
    """The config sections that decide the stage's output: its own, then `also_reads`."""
    return (getattr(config, spec.section), *(getattr(config, name) for name in spec.also_reads))


def _instance(spec: StageSpec, config: PipelineConfig, options: dict):
    own, *more = _sections(spec, config)
    return stage_class(spec)(own, **dict(zip(spec.also_reads, more, strict=True)), **options)


def build_stage(spec: StageSpec, config: PipelineConfig, **options):
    """The stage object of `spec`, built with its config section and its own options; a document
    stage that some of pipeline.sources configure otherwise (or skip) gets their rows its way."""
    stage = _instance(spec, config, options)
    if spec.kind != "document" or not config.pipeline.sources:
        return stage
    from corpus_pipeline.config.sources import source_config
    from corpus_pipeline.stages.by_source import BySourceStage

    by_source = {}
    for source in config.pipeline.sources:
        own = source_config(config, source)
        if spec.name in source.skip:
            by_source[source.name] = None
        elif _sections(spec, own) != _sections(spec, config):
            by_source[source.name] = _instance(spec, own, options)
    return BySourceStage(stage, by_source) if by_source else stage


def _arguments(source) -> list[str]:
    return [str(path) for path in (source if isinstance(source, (list, tuple)) else [source])]


def _source_input(stage, source, outputs):
    """What a chain headed by `stage` reads: the files a source stage's `--input` names (paths,
    directories, globs), or a stage directory. Each output is checked against the arguments as
    given, before they are expanded: `--input D --output D/out` names no file of D's that
    contains D/out, and yet the next run over D would read the stage's own parts."""
    for output in outputs:
        check_output_apart(output, _arguments(source))
    if isinstance(stage, SourceStage):
        return stage.input_files(_arguments(source))
    return location(source)


def _global_input(spec: StageSpec, source) -> Path | list[Path] | None:
    """What a global stage reads: nothing (crawl: its seeds are an option), one stage directory, or
    several for a stage that takes many (a single one given is a list of one)."""
    if spec.input == "seeds":
        return None
    if spec.many_inputs:
        return [location(path) for path in (source if isinstance(source, (list, tuple)) else [source])]
    return location(source)


def run_stage(name: str, source, output: Path, config: PipelineConfig, executor: Executor, **options) -> StageResult:
    """One stage: `source` is a stage directory (or a list of them for a stage with many_inputs),
    or crawl files for extract (paths, dirs, globs), or a seeds file for crawl."""
    spec = stage_spec(name)
    if spec.input == "seeds":
        options = {**options, "seeds": Path(source)}
    stage = build_stage(spec, config, **options)
    storage = Storage(config.storage)
    if isinstance(stage, GlobalStage):
        return run_global(stage, _global_input(spec, source), location(output), executor, storage)
    outputs = [location(output)]
    read = _source_input(stage, source, outputs)
    _check_columns([spec], read, storage)
    return run_chain([stage], read, outputs, executor, config.engine, storage=storage)[0]


def run_fused(
    names: Sequence[str], source, outputs: Sequence[Path], config: PipelineConfig, executor: Executor
) -> list[StageResult]:
    """Consecutive source/document stages in one pass over each task; each keeps its own directory
    of rejects and stats, and only the last writes the kept documents (unless engine.write_intermediate)."""
    specs = [stage_spec(name) for name in names]
    if not all(spec.fusable for spec in specs) or any(spec.kind == "source" for spec in specs[1:]):
        raise ValueError(f"cannot fuse {', '.join(names)}: a source stage, then document stages only")
    stages = [build_stage(spec, config) for spec in specs]
    outputs = [location(o) for o in outputs]
    storage = Storage(config.storage)
    read = _source_input(stages[0], source, outputs)
    _check_columns(specs, read, storage)
    return run_chain(stages, read, outputs, executor, config.engine, storage=storage)


def _check_columns(specs: list[StageSpec], read, storage: Storage) -> None:
    """Before the first task: the stage directory a document chain reads holds every column it
    reads (a source stage writes its own columns)."""
    if specs[0].kind == "document":
        check_input_columns(specs, read, storage)
