"""The contamination gates: per eval set named in `decontamination.max_contamination`, the share of
its items still found in the corpus after the decontaminate stage acted must stay within the bound.

They read the `_stats.json` of the run's decontaminate directory (decontam/record.py), so they cost
nothing, whichever stage wrote the final corpus. A set the stage did not check (no decontaminate
stage finished in the run, or a set left out of its eval_sets) fails as not measured: a nightly
never publishes a corpus that may hold HumanEval because someone removed the set from the config.
"""

from __future__ import annotations

import json

from corpus_pipeline.decontam.config import DecontaminationConfig
from corpus_pipeline.decontam.record import SetSummary, set_summaries
from corpus_pipeline.engine.store.stage_dir import STATS_FILE, Location, read_stage_bytes, stage_file
from corpus_pipeline.gates import Gate, GateFindings, GateInputs
from corpus_pipeline.stats import StageStats
from corpus_pipeline.storage import Storage

STAGE = "decontaminate"
# Gates are per language; these are over the whole corpus.
SCOPE = "all"


def checked_sets(stage_dir: Location, storage: Storage) -> dict[str, SetSummary]:
    """The sets decontaminate checked in `stage_dir`; none when no decontaminate stage finished there."""
    try:
        found = stage_file(stage_dir, STATS_FILE, storage)
    except FileNotFoundError:  # no _SUCCESS on a store: the stage did not finish there
        return {}
    if found is None:
        return {}
    stats = StageStats.from_dict(json.loads(read_stage_bytes(stage_dir, STATS_FILE, storage)))
    return set_summaries(stats) if stats.stage == STAGE else {}


def contamination_gates(stage_dir: Location, config: DecontaminationConfig, storage: Storage) -> list[Gate]:
    checked = checked_sets(stage_dir, storage)
    gates = []
    for name, bound in sorted(config.max_contamination.items()):
        summary = checked.get(name)
        share = summary.remaining_share if summary is not None else None
        gates.append(Gate(SCOPE, f"contamination:{name}", share, f"<= {bound:g}", share is not None and share <= bound))
    return gates


def decontamination_gates(inputs: GateInputs) -> GateFindings:
    """The registry's gates of the decontaminate stage (engine/registry.py): over its own directory."""
    return GateFindings(contamination_gates(inputs.stage_dir, inputs.config.decontamination, inputs.storage))
