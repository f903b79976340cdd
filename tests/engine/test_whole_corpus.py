"""The whole-corpus stages (dedup, tokenize, mix) use the engine through engine/whole_corpus.py, and
its settle step leaves a stage's work directory as the lifecycle expects: each committed task's
files in place, nothing left under `_committed/`."""

from __future__ import annotations

from functools import partial

import pyarrow as pa
import pyarrow.parquet as pq
from test_import_cycles import import_graph

from corpus_pipeline.engine.store.layout import COMMITTED_DIR
from corpus_pipeline.engine.whole_corpus import STATS_DIR, commit_task, keep_all, part_name, settle_committed

# What a whole-corpus stage may import of engine/: the facade, the registry (its Preflight hooks)
# and the engine's settings (dedup's memory budget, engine.memory_mb).
STAGE_API = {"whole_corpus", "registry", "config"}
# The dedup evaluation verb is an entry point, not the stage: it builds a session and runs the
# dedup stage by name, as the CLI does.
ENTRY_POINTS = {
    "corpus_pipeline.dedup.cli": {"exec.session"},
    "corpus_pipeline.dedup.evaluate": {"exec.spark"},
}


def test_whole_corpus_stages_reach_the_engine_through_its_facade():
    beyond = {}
    for module, targets in import_graph().items():
        if module.split(".")[1:2] not in (["dedup"], ["tokenize"], ["mix"]):
            continue
        engine = {t.removeprefix("corpus_pipeline.engine.") for t in targets if t.startswith("corpus_pipeline.engine.")}
        if engine - STAGE_API - ENTRY_POINTS.get(module, set()):
            beyond[module] = sorted(engine - STAGE_API - ENTRY_POINTS.get(module, set()))
    assert beyond == {}


def test_settle_committed_moves_every_committed_task_into_the_stage(tmp_path):
    schema = pa.schema([("id", pa.string())])
    for number, ids in enumerate((["b", "a"], ["c"])):
        fill = partial(keep_all, [pa.table({"id": ids})], stage="mix", schema=schema)
        commit_task(tmp_path, part_name(number), f"rows {ids}", None, fill)
    assert sorted(p.name for p in (tmp_path / COMMITTED_DIR).iterdir()) == ["part-00000", "part-00001"]

    settle_committed("mix", tmp_path)

    assert list((tmp_path / COMMITTED_DIR).iterdir()) == []
    assert pq.read_table(tmp_path / "part-00000.parquet").column("id").to_pylist() == ["b", "a"]
    assert pq.read_table(tmp_path / "part-00001.parquet").column("id").to_pylist() == ["c"]
    assert sorted(p.name for p in (tmp_path / STATS_DIR).iterdir()) == ["part-00000.json", "part-00001.json"]
