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


def conservation_summary(flow: list[StageStats]) -> dict:
    """`flow`: the stats of the document stages in run order (extract first), seams checked."""
    if not flow:
        return {}
    rejected = {stats.stage: sum(stats.dropped.values()) for stats in flow}
    return {
        "input_records": flow[0].docs_in,
        "output_documents": flow[-1].kept,
        "rejected": rejected,
        "rejected_total": sum(rejected.values()),
    }
