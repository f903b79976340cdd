"""The decontamination figures of a run: per eval set what the decontaminate stage found and did,
and a few dropped documents shown by their reject detail only.

A contaminated document's text holds the eval items; a report is read (and crawled) far more widely
than the corpus, so its text is withheld and the detail quotes the start of the match only
(`decontamination.example_chars`).
"""

from __future__ import annotations

from dataclasses import dataclass

from corpus_pipeline.decontam.record import SetSummary, set_summaries
from corpus_pipeline.decontam.stage import REASON
from corpus_pipeline.report.examples import EXAMPLE_COLUMNS, Example, Redactor
from corpus_pipeline.report.run_dir import StageRun, first_rows, rejected_parts

WITHHELD = "(text withheld: it holds evaluation items)"


@dataclass
class DecontaminationFigures:
    sets: list[SetSummary]
    examples: list[Example]


def decontamination_figures(stage: StageRun, redactor: Redactor, count: int) -> DecontaminationFigures:
    rows = first_rows(rejected_parts(stage).get(REASON, []), EXAMPLE_COLUMNS, count) if count else []
    return DecontaminationFigures(
        sets=list(set_summaries(stage.stats).values()),
        examples=[redactor.example({**row, "text": WITHHELD}) for row in rows],
    )


def decontamination_section(figures, stage: StageRun, config) -> None:
    """The report's decontamination section (registry `report`)."""
    redactor = Redactor(config.pii, config.report.example_chars)
    figures.decontamination = decontamination_figures(stage, redactor, config.report.examples_per_rule)
