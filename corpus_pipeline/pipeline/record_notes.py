"""What a stage's step adds to its entry of the run record (pipeline/record.py), beyond its counts:
each named by its registry entry (`StageSpec.notes`), called with the step's outcome and the config."""

from __future__ import annotations

from corpus_pipeline.config import PipelineConfig
from corpus_pipeline.pipeline.context import StepOutcome
from corpus_pipeline.storage import Storage


def decontamination_notes(outcome: StepOutcome, config: PipelineConfig) -> dict:
    """What decontaminate found per eval set, and a few redacted examples (quoted in part only)."""
    from corpus_pipeline.decontam.record import set_summaries
    from corpus_pipeline.decontam.stage import REASON
    from corpus_pipeline.document import REJECT_DETAIL_FIELD
    from corpus_pipeline.pipeline.input_files import rejected_files
    from corpus_pipeline.report.run_dir import first_rows

    notes = {"eval_sets": {name: s.to_record() for name, s in set_summaries(outcome.stats).items()}}
    storage = Storage(config.storage)
    # Opened one by one as first_rows reads them: it stops at examples_per_rule rows.
    dropped = (storage.parquet_source(str(p)) for p in rejected_files(outcome.output, REASON, storage))
    rows = first_rows(dropped, [REJECT_DETAIL_FIELD.name], config.report.examples_per_rule)
    notes["examples"] = [row[REJECT_DETAIL_FIELD.name] for row in rows]
    return notes
