"""Questions about the registry's order (engine/registry.py): which stage's documents a stage
reads, which stages one pass runs, which opt-in stages a run leaves out. They read `registry.STAGES`
when called, so a stage registered after import (a test's) takes its place."""

from __future__ import annotations

from collections.abc import Callable

from corpus_pipeline.engine import registry
from corpus_pipeline.engine.registry import StageSpec


def previous_documents_stage(name: str, holds_documents: Callable[[str], bool] | None = None) -> StageSpec | None:
    """The stage whose documents `name` reads in a run (None for a stage that reads files or seeds).

    An opt-in stage counts only when `holds_documents(directory)` says it ran (dedup reads embed's
    directory after `corpus-pipeline embed`, normalize's otherwise). Right after the source stages
    (extract, ingest) that is the one source stage whose directory `holds_documents(directory)`
    says is there; with no such test, or none there, the first (extract). Several there:
    ValueError, the caller must say which (`--input`)."""
    if registry.stage_spec(name).input != "documents":
        return None
    before = registry.STAGES[: registry.STAGES.index(registry.stage_spec(name))]

    def ran(spec: StageSpec) -> bool:
        return not spec.opt_in or (holds_documents is not None and holds_documents(spec.directory))

    previous = next(spec for spec in reversed(before) if spec.output == "documents" and ran(spec))
    if previous.kind != "source":
        return previous
    sources = [spec for spec in registry.STAGES if spec.kind == "source"]
    present = [spec for spec in sources if holds_documents is not None and holds_documents(spec.directory)]
    if len(present) > 1:
        found = ", ".join(spec.directory for spec in present)
        raise ValueError(f"{name}: the run holds the documents of several source stages ({found}): give --input")
    return (present or sources)[0]


def opted_out(config) -> tuple[str, ...]:
    """The opt-in stages a run with `config` (a PipelineConfig) leaves out."""
    return tuple(spec.name for spec in registry.STAGES if spec.opt_in and not getattr(config, spec.section).enabled)


def fused_run(name: str) -> tuple[StageSpec, ...]:
    """`name` and the document stages after it up to the next global stage (a source stage passes
    over the other source stages): what one pass over each task runs."""
    start = registry.STAGES.index(registry.stage_spec(name))
    if not registry.STAGES[start].fusable:
        return (registry.STAGES[start],)
    run = [registry.STAGES[start]]
    for spec in registry.STAGES[start + 1 :]:
        if spec.kind == "global":
            break
        if spec.kind == "document":
            run.append(spec)
    return tuple(run)
