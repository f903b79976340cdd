"""What `run` and `nightly` check before their first step: every input, the tokenizer, the eval sets
and the mix targets. A bad `pipeline.tokenizer` used to fail after dedup, pii and quality had run,
and a missing source path after the earlier sources ran; now each is refused in the first seconds,
exit 2 (failures.RunRefused), every problem in one message naming its key and path."""

from __future__ import annotations

from corpus_pipeline.config import PipelineConfig
from corpus_pipeline.engine import registry
from corpus_pipeline.engine.registry import Preflight, resolve
from corpus_pipeline.failures import RunRefused, one_line
from corpus_pipeline.pipeline.context import RunPlan
from corpus_pipeline.pipeline.input_files import list_crawl_files
from corpus_pipeline.storage import Storage


def check_config(config: PipelineConfig, tokenizer=None, remixes_published: bool = False) -> None:
    """What does not depend on a night's files: the run-wide keys (the tokenizer loads, the training
    config exists), then every registry stage's own checks (`StageSpec.preflight`: eval sets, mix
    targets, what semantic dedup reads). `remixes_published`: the nightly's run, whose mix holds the
    groups of the sources that sit the night out too. RunRefused with every problem."""
    problems = _tokenizer_problems(config, tokenizer)
    train_config = config.pipeline.train_config
    if train_config:
        from pathlib import Path

        if not Path(train_config).is_file():
            problems.append(f"pipeline.train_config: {train_config} does not exist")
    given = Preflight(config, tokenizer, remixes_published)
    for spec in registry.STAGES:
        for check in spec.preflight:
            problems += resolve(check)(given)
    if problems:
        raise RunRefused("refused before the first step: " + "; ".join(problems))


def check_run_config(plan: RunPlan) -> None:
    """`check_config`, and every input of the plan exists and holds files (exit 2 otherwise)."""
    problems = _input_problems(plan)
    try:
        check_config(plan.config, plan.tokenizer, remixes_published=bool(plan.published_documents))
    except RunRefused as refused:
        problems.append(str(refused).removeprefix("refused before the first step: "))
    if problems:
        raise RunRefused("refused before the first step: " + "; ".join(problems))


def _input_problems(plan: RunPlan) -> list[str]:
    storage = Storage(plan.config.storage)
    problems = []
    if plan.sources:
        from corpus_pipeline.config.sources import source_config, source_stage
        from corpus_pipeline.engine.registry import stage_spec
        from corpus_pipeline.stage_runner import build_stage

        for source in plan.sources:
            key = f"pipeline.sources[{source.name}]"
            if source.kind == "crawl":
                problems += _seeds_problem(source.seeds, f"{key}.seeds")
                continue
            stage = build_stage(stage_spec(source_stage(source)), source_config(plan.config, source))
            problems += _files_problem(source.paths, stage.input_files, f"{key}.paths")
        return problems
    if plan.inputs:
        from corpus_pipeline.inputs import expand_crawl_inputs

        return _files_problem(list(plan.inputs), lambda paths: expand_crawl_inputs(paths, storage), "pipeline.inputs")
    if plan.seeds is not None:
        return _seeds_problem(str(plan.seeds), "pipeline.seeds")
    return ["nothing to run on: set pipeline.inputs (WARC/WET files) or pipeline.seeds (URLs to crawl)"]


def _files_problem(paths: list[str], expand, key: str) -> list[str]:
    try:
        files = list_crawl_files(paths, expand)
    except (OSError, ValueError) as error:
        return [f"{key}: {one_line(error)}"]
    return [] if files else [f"{key}: no input files under {', '.join(paths)}"]


def _seeds_problem(seeds: str | None, key: str) -> list[str]:
    from pathlib import Path

    return [] if seeds and Path(seeds).is_file() else [f"{key}: seeds file {seeds} does not exist"]


def _tokenizer_problems(config: PipelineConfig, tokenizer) -> list[str]:
    given = tokenizer if tokenizer is not None else config.pipeline.tokenizer
    if given is None:
        return []  # trained on the run's corpus
    from corpus_pipeline.tokenize.bpe import load_tokenizer
    from corpus_pipeline.tokenize.shard_vocabulary import resolve_tokenizer

    try:
        path, sha256 = resolve_tokenizer("pipeline.tokenizer", given, Storage(config.storage))
        load_tokenizer(str(path), sha256)
    except (OSError, ValueError) as error:
        return [f"pipeline.tokenizer: {one_line(error)}"]
    return []
