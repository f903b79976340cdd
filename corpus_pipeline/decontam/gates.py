"""The contamination gates: per eval set named in `decontamination.max_contamination`, the share of
its items still found in the corpus after the decontaminate stage acted must stay within the bound.

They read the decontaminate stage's `_stats.json` (decontam/record.py), so they cost nothing. A
set the stage did not check (a corpus that is not decontaminate's output, or a set left out of
its eval_sets) fails as not measured: a nightly never publishes a corpus that may hold HumanEval
because someone removed the set from the config.
"""

from __future__ import annotations

import json
from pathlib import Path

from corpus_pipeline.config import DecontaminationConfig
from corpus_pipeline.decontam.record import SetSummary, set_summaries
from corpus_pipeline.engine.stage_dir import STATS_FILE, read_stage_bytes, stage_file
from corpus_pipeline.quality.gates import Gate
from corpus_pipeline.stats import StageStats

STAGE = "decontaminate"
# Gates are per language; these are over the whole corpus.
SCOPE = "all"


def checked_sets(corpus: Path) -> dict[str, SetSummary]:
    """The sets the stage that wrote `corpus` checked; none when that stage is not decontaminate."""
    if stage_file(corpus, STATS_FILE) is None:
        return {}
    stats = StageStats.from_dict(json.loads(read_stage_bytes(corpus, STATS_FILE)))
    return set_summaries(stats) if stats.stage == STAGE else {}


def contamination_gates(corpus: Path, config: DecontaminationConfig) -> list[Gate]:
    checked = checked_sets(corpus)
    gates = []
    for name, bound in sorted(config.max_contamination.items()):
        summary = checked.get(name)
        share = summary.remaining_share if summary is not None else None
        gates.append(Gate(SCOPE, f"contamination:{name}", share, f"<= {bound:g}", share is not None and share <= bound))
    return gates
