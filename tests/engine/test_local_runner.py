"""The stage contracts of DESIGN.md, checked with a toy stage through the local executor."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from corpus_pipeline.document import empty_document
from corpus_pipeline.engine.exec.local import LocalExecutor
from corpus_pipeline.engine.lifecycle import run_chain
from corpus_pipeline.engine.publish import publish_rows
from corpus_pipeline.engine.store.stage_dir import SUCCESS, MissingInputError
from corpus_pipeline.stages.base import DocumentStage, Drop
from corpus_pipeline.stats import StageStats
from corpus_pipeline.storage import Storage

SIGNAL = pa.field("length", pa.int64())


class LengthStage(DocumentStage):
    """Keeps texts of at least `min_length` characters and records their length as a signal."""

    name = "length"
    output_fields = (SIGNAL,)

    def __init__(self, min_length: int, explode_on: str | None = None):
        self.config = {"min_length": min_length}
        self.explode_on = explode_on
        self.processed = 0

    def config_fingerprint(self) -> str:
        return repr(self.config)

    def process(self, doc, stats):
        if doc["text"] == self.explode_on:
            raise RuntimeError("simulated crash")
        self.processed += 1
        doc["length"] = len(doc["text"])
        return None if doc["length"] >= self.config["min_length"] else Drop("too_short", str(doc["length"]))


def make_input(root: Path, texts_per_part: list[list[str]]) -> Path:
    """A finished stage directory holding one part per list of texts."""
    rows = [
        [empty_document(id=f"{task}-{index}", text=text) for index, text in enumerate(texts)]
        for task, texts in enumerate(texts_per_part)
    ]
    return publish_rows(root / "input", rows, stage="input")


PARTS = [["a", "bbbb", "cc"], ["dddddd", "e"], ["ffff", "gg", "hhhhhh", ""]]


def run(tmp_path, stage):
    return run_chain([stage], tmp_path / "input", [tmp_path / "length"], LocalExecutor(), storage=Storage())[0]


def test_every_document_is_kept_or_rejected_with_its_reason(tmp_path):
    make_input(tmp_path, PARTS)
    result = run(tmp_path, LengthStage(3))
    stats = result.stats
    assert (stats.docs_in, stats.kept, dict(stats.dropped)) == (9, 4, {"too_short": 5})
    kept = pq.read_table(result.output, columns=["text", "length"]).to_pylist()
    assert sorted(r["text"] for r in kept) == ["bbbb", "dddddd", "ffff", "hhhhhh"]
    assert all(r["length"] == len(r["text"]) for r in kept)
    rejected = pq.read_table(result.output / "_rejected").to_pylist()
    assert sorted(r["text"] for r in rejected) == ["", "a", "cc", "e", "gg"]
    assert {r["reason"] for r in rejected} == {"too_short"}
    assert {r["reject_detail"] for r in rejected} == {"0", "1", "2"}
    written = json.loads((result.output / "_stats.json").read_text())
    assert written["docs_in"] == written["kept"] + sum(written["dropped"].values())
    assert (result.output / SUCCESS).exists()
    assert not list(tmp_path.glob(".length*")), "no work directory may be left behind"


def test_rerun_with_same_input_and_config_does_nothing(tmp_path):
    make_input(tmp_path, PARTS)
    first = run(tmp_path, LengthStage(3))
    before = {p: p.stat().st_mtime_ns for p in first.output.rglob("*")}
    stage = LengthStage(3)
    second = run(tmp_path, stage)
    assert second.skipped and stage.processed == 0
    assert second.stats.to_dict() == first.stats.to_dict()
    assert {p: p.stat().st_mtime_ns for p in first.output.rglob("*")} == before


def test_a_config_change_reruns_and_replaces_the_output(tmp_path):
    make_input(tmp_path, PARTS)
    run(tmp_path, LengthStage(3))
    stage = LengthStage(5)
    result = run(tmp_path, stage)
    assert not result.skipped and stage.processed == 9
    assert result.stats.kept == 2


def test_a_killed_run_resumes_and_produces_the_same_bytes(tmp_path):
    clean_root, crash_root = tmp_path / "clean", tmp_path / "crash"
    for root in (clean_root, crash_root):
        make_input(root, PARTS)
    clean = run(clean_root, LengthStage(3))

    with pytest.raises(RuntimeError, match="simulated crash"):
        run(crash_root, LengthStage(3, explode_on="gg"))  # dies inside the third task
    assert not (crash_root / "length").exists(), "a crashed stage must not appear"
    resumed_stage = LengthStage(3)
    resumed = run(crash_root, resumed_stage)
    assert resumed_stage.processed == len(PARTS[2]), "finished tasks are reused, not redone"
    assert resumed.stats.docs_in == clean.stats.docs_in

    def files(root: Path) -> dict[str, bytes]:
        return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*.parquet"))}

    assert files(resumed.output) == files(clean.output)


def test_an_unfinished_input_is_refused(tmp_path):
    (tmp_path / "input").mkdir()
    with pytest.raises(MissingInputError, match="did not finish"):
        run(tmp_path, LengthStage(3))


def test_unbalanced_counts_are_caught():
    stats = StageStats("x", docs_in=3, kept=1)
    stats.count_dropped("r")
    with pytest.raises(AssertionError, match="3 in != 1 kept"):
        stats.check_balanced()


class ModelStage(DocumentStage):
    """Keeps every document; its setup stands for a model load of SETUP_SECONDS."""

    name = "model"
    SETUP_SECONDS = 0.5

    def __init__(self):
        self.loaded = False

    def setup(self):
        if not self.loaded:  # once per process, as a real model stage loads its model
            time.sleep(self.SETUP_SECONDS)
            self.loaded = True

    def process(self, doc, stats):
        return None


def test_each_stage_setup_is_booked_to_that_stage(tmp_path):
    make_input(tmp_path, PARTS)
    outputs = [tmp_path / "length", tmp_path / "model"]
    results = run_chain([LengthStage(0), ModelStage()], tmp_path / "input", outputs, LocalExecutor(), storage=Storage())
    seconds = {r.stats.stage: json.loads((r.output / "_stats.json").read_text())["seconds"] for r in results}
    # The fused pass's wall clock is shared by the stages' own task time: the load is the model's.
    assert seconds["model"] >= ModelStage.SETUP_SECONDS > seconds["length"], seconds
