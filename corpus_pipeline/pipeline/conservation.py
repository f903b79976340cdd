"""Conservation over a whole run: every WARC record extract read is in the shards or in exactly
one stage's `_rejected/`. Each stage balances itself (in == kept + dropped); this checks the seams,
that every stage read exactly what the stage before it kept."""

from __future__ import annotations

from corpus_pipeline.stats import StageStats


class DocumentsLostError(RuntimeError):
    """A stage read a different number of documents than the one before it kept."""


def check_seam(before: StageStats, after: StageStats) -> None:
    """Checked as soon as `after` finished, so a run stops at the stage that lost or added documents."""
    if after.docs_in != before.kept:
        raise DocumentsLostError(
            f"{after.stage} read {after.docs_in:,} documents but {before.stage} kept {before.kept:,}"
        )


def sources_kept(flows: dict[str | None, list[StageStats]]) -> StageStats:
    """What the sources' last stages kept together: what dedup must read."""
    last = {name: flow[-1] for name, flow in flows.items() if name is not None and flow}
    combined = StageStats(" + ".join(f"{name} {stats.stage}" for name, stats in last.items()))
    combined.kept = sum(stats.kept for stats in last.values())
    return combined


def conservation_summary(flows: dict[str | None, list[StageStats]]) -> dict:
    """`flows`: the stats of the document stages in run order (extract or ingest first), seams
    checked; under None the run's, under a source's name its stages up to dedup."""
    sources = {name: flow for name, flow in flows.items() if name is not None and flow}
    run = flows.get(None, [])
    firsts = [flow[0] for flow in sources.values()] or run[:1]
    if not firsts:
        return {}
    rejected = {
        (stats.stage if name is None else f"{name}/{stats.stage}"): sum(stats.dropped.values())
        for name, flow in [*sources.items(), (None, run)]
        for stats in flow
    }
    last = run[-1] if run else None
    return {
        "input_records": sum(stats.docs_in for stats in firsts),
        "output_documents": last.kept if last else sources_kept(flows).kept,
        "rejected": rejected,
        "rejected_total": sum(rejected.values()),
    }
