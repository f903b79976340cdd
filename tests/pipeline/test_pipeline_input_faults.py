"""Input files that vanish or cannot be read while a run is under way: each is counted and named
in the run record, and every other file is processed."""

from __future__ import annotations

import json

import pyarrow.parquet as pq
from pipeline_inputs import small_config, warc_record_count, write_demo_warc

from corpus_pipeline.extract.stage import ExtractStage
from corpus_pipeline.pipeline.console import run_summary
from corpus_pipeline.pipeline.context import RunPlan
from corpus_pipeline.pipeline.runner import run_pipeline
from corpus_pipeline.pipeline.steps import STEPS

# crawl, extract, langid, normalize: the faults are extract's to handle; dedup and later stages
# would only add a Spark job to a test that is about files.
STEPS_THROUGH_NORMALIZE = STEPS[: [step.name for step in STEPS].index("normalize") + 1]


def test_vanished_and_unreadable_inputs_are_counted_and_the_rest_processed(tmp_path, monkeypatch):
    incoming = tmp_path / "incoming"
    good = write_demo_warc(incoming / "a-good.warc.gz", seed=0)
    vanishing = write_demo_warc(incoming / "b-vanishing.warc.gz", seed=1)
    unreadable = incoming / "c-unreadable.warc.gz"
    unreadable.write_bytes(b"\x1f\x8b\x08\x00" + bytes(range(256)) * 8)  # a gzip header, then noise
    read = ExtractStage.read

    def read_while_another_process_deletes_a_file(stage, path, stats):
        if path == str(good):  # extract has listed and fingerprinted b, and is reading a
            vanishing.unlink()
        yield from read(stage, path, stats)

    monkeypatch.setattr(ExtractStage, "read", read_while_another_process_deletes_a_file)
    config = small_config(tmp_path, f"pipeline.inputs=[{incoming}]")
    result = run_pipeline(RunPlan.from_config(config, "local"), steps=STEPS_THROUGH_NORMALIZE)

    assert result.status == "succeeded"
    extract = result.outcomes["extract"]
    assert extract.notes["input_files"] == 3
    faults = {fault["file"]: fault["error"] for fault in extract.notes["read_faults"]["listed"]}
    assert set(faults) == {str(vanishing), str(unreadable)}
    assert faults[str(vanishing)].startswith("FileNotFoundError")
    assert sum(extract.stats.extra["read_faults"].values()) == 2
    # every record of the good file, plus one rejected row per file that could not be read
    assert extract.stats.docs_in == warc_record_count([good]) + 2
    assert extract.stats.dropped["read_error"] == 2
    normalized = pq.read_table(result.outcomes["normalize"].output, columns=["file_path"]).column(0).to_pylist()
    assert normalized and set(normalized) == {str(good)}
    record = json.loads(result.record.path.read_text())
    assert record["steps"][1]["read_faults"]["files"] == 2
    # the unreadable file is skipped whole; the vanished one had no bytes to skip
    assert record["steps"][1]["read_faults"]["skipped_bytes"] == unreadable.stat().st_size
    assert "input files not read to the end: 2" in run_summary(result)
