"""What `run`, `demo` and `nightly` print at the end: the funnel, the gates' verdict, where things are."""

from __future__ import annotations

from corpus_pipeline.pipeline.runner import GATE_FAILED, PipelineResult
from corpus_pipeline.storage.locations import link
from corpus_pipeline.summary import format_funnel


def run_summary(result: PipelineResult) -> str:
    staged = [o for o in result.outcomes.values() if o.stats is not None]
    lines = [format_funnel([o.stats for o in staged], {o.stats.stage for o in staged if o.status == "reused"}), ""]
    # "extract", or "<source>/extract" for each source of pipeline.sources that ran it.
    for name, extract in result.outcomes.items():
        if name.rpartition("/")[2] != "extract" or "read_faults" not in extract.notes:
            continue
        if extract.notes["read_faults"]["files"] or extract.notes["vanished_before_extract"]:
            lines.append(
                f"{name}: input files not read to the end: {extract.notes['read_faults']['files']}, "
                f"vanished before extract: {len(extract.notes['vanished_before_extract'])} (see the run record)"
            )
    if result.status == GATE_FAILED:
        lines.append("GATE FAILED: " + "; ".join(result.outcomes["gates"].notes["failed"]))
    if result.context.tokens is not None:
        lines.append(f"token shards: {result.context.tokens}")
    training = result.outcomes.get("train")
    if training is not None and training.output is not None:
        lines.append(f"model:        {training.output} (validation loss {training.notes['val_loss']:.3f})")
    lines.append(f"run record:   {result.record.path}")
    report = result.outcomes.get("report")
    if report is not None and report.output is not None:
        where = link(report.output)
        lines.append(f"report:       open {where}")
    return "\n".join(lines)
