"""What each source of `pipeline.sources` runs with: the run's config with the source's overrides,
its name and default domain in its source stage's config, and the dedup keep order the priorities
give. One function per question, so the pipeline, the stage builder and the config check agree."""

from __future__ import annotations

from corpus_pipeline.config import ConfigError, PipelineConfig, RunConfig, apply_override, validate_config
from corpus_pipeline.config.pipeline import SourceConfig
from corpus_pipeline.engine.registry import STAGES

SOURCES_DIR = "sources"  # runs/<run_id>/sources/<name>/: a source's stages up to dedup
# Stages whose config a source may override: its own chain up to normalize, and the document
# stages after dedup that apply the override to its rows. Dedup, tokenize, mix are one per run.
OVERRIDABLE_SECTIONS = tuple(spec.section for spec in STAGES if spec.kind in ("source", "document"))
SKIPPABLE_STAGES = tuple(spec.name for spec in STAGES if spec.kind == "document")
INGEST_KINDS = ("jsonl", "parquet", "text", "wikipedia")


def source_stage(source: SourceConfig) -> str:
    """The registry stage that reads the source's files: extract (WARC), or ingest (datasets)."""
    return "ingest" if source.kind in INGEST_KINDS else "extract"


def _labels(source: SourceConfig) -> list[str]:
    """Overrides naming the source in its source stage: its documents' `source` and `domain`."""
    section = source_stage(source)
    labels = [f"{section}.source={source.name}"]
    if source.domain is not None:
        labels.append(f"{section}.domain={source.domain}")
    if section == "ingest":
        labels.append(f"ingest.format={source.kind}")
        if not any(assignment.partition("=")[0].strip() == "ingest.id_prefix" for assignment in source.overrides):
            labels.append(f"ingest.id_prefix='{source.name}:'")  # quoted: YAML reads name: as a mapping
    return labels


def check_overrides(source: SourceConfig) -> None:
    for assignment in source.overrides:
        section = assignment.partition("=")[0].strip().split(".")[0]
        if section not in OVERRIDABLE_SECTIONS:
            raise ConfigError(
                f"source {source.name}: override {assignment!r} is not of a per-source stage "
                f"(one of {', '.join(OVERRIDABLE_SECTIONS)})"
            )
    unknown = [name for name in source.skip if name not in SKIPPABLE_STAGES]
    if unknown:
        raise ConfigError(
            f"source {source.name}: cannot skip {', '.join(unknown)} (document stages: {', '.join(SKIPPABLE_STAGES)})"
        )


def source_config(config: PipelineConfig, source: SourceConfig) -> PipelineConfig:
    """The config `source` runs with: the run's, its overrides applied, naming it in its source
    stage, as a run of that one source (its crawl in <data_root>/crawl/<run_id>-<name>)."""
    check_overrides(source)
    raw = config.model_dump(mode="json")
    raw["pipeline"]["sources"] = []
    raw["run_id"] = f"{config.run_id}-{source.name}"
    for assignment in [*source.overrides, *_labels(source)]:
        apply_override(raw, assignment)
    return validate_config(raw, PipelineConfig, f"(source {source.name})")


def source_priority(run: RunConfig) -> list[str]:
    """Source names in the order dedup keeps their copies: highest priority first, then as listed."""
    ranked = sorted(enumerate(run.sources), key=lambda item: (-item[1].priority, item[0]))
    return [source.name for _, source in ranked]


def with_source_priority(config: PipelineConfig) -> PipelineConfig:
    """The run's config with `dedup.source_priority` from pipeline.sources (unless set by hand)."""
    if not config.pipeline.sources or config.dedup.source_priority:
        return config
    dedup = config.dedup.model_copy(update={"source_priority": source_priority(config.pipeline)})
    return config.model_copy(update={"dedup": dedup})
