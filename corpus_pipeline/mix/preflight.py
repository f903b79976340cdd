"""Before a run's first step (registry `preflight`): mix targets by source name sources of the run."""

from __future__ import annotations

from corpus_pipeline.engine.registry import Preflight


def target_problems(given: Preflight) -> list[str]:
    """Targets by source can be checked now: each names a source of the run. (Domain and language
    groups are known only from the documents; mix refuses those with the numbers before writing.)
    The nightly's run remixes published increments: the nightly checked its targets against every
    source, also those that sit the night out. Without pipeline.sources the run's one source is its
    WARC files' (`extract.source`)."""
    config = given.config
    mix = config.mix
    if given.remixes_published or mix.by != ["source"]:
        return []
    sources = {source.name for source in config.pipeline.sources} or {config.extract.source}
    of_run = "pipeline.sources" if config.pipeline.sources else "this run (pipeline.inputs: extract.source)"
    targets = [(None, mix.targets)] + [(phase.name, phase.targets) for phase in mix.phases]
    problems = []
    for phase, shares in targets:
        unknown = sorted(set(shares) - sources)
        if unknown:
            where = f"mix.phases[{phase}].targets" if phase else "mix.targets"
            named = ", ".join(f"{group} ({shares[group]:g})" for group in unknown)
            problems.append(f"{where}: {named} not a source of {of_run} ({', '.join(sorted(sources))})")
    return problems
