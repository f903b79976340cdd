"""The contamination gate in the pipeline's gates step: a corpus that still holds a HumanEval item
fails it (and with it the run: nothing after the gates runs, the nightly publishes nothing)."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pyarrow as pa
from stage_fixtures import stage_dir
from text_sources import english_text

from corpus_pipeline.config import PipelineConfig
from corpus_pipeline.decontam.config import EvalSetConfig
from corpus_pipeline.decontam.eval_sets import load_eval_set
from corpus_pipeline.document import DOCUMENT_SCHEMA, empty_document
from corpus_pipeline.engine.exec.local import LocalExecutor
from corpus_pipeline.engine.publish import publish_rows
from corpus_pipeline.pipeline import steps
from corpus_pipeline.stage_runner import run_stage

# The columns the quality gates read, with values that pass them.
GATE_COLUMNS = {"gopher_word_count": (pa.int32(), 100), "vocab_coverage": (pa.float32(), 0.99)}
GATE_COLUMNS |= {"char_entropy": (pa.float32(), 4.4), "dup_content_hash": (pa.int64(), None)}
SCHEMA = pa.schema([*DOCUMENT_SCHEMA, *(pa.field(name, kind) for name, (kind, _) in GATE_COLUMNS.items())])


def _quality_dir(run_dir):
    lines = [line for line in english_text().splitlines() if len(line) > 80][:60]
    problem = load_eval_set(EvalSetConfig(name="humaneval", builtin="humaneval")).items[11].text
    texts = [*lines[:-1], f"{lines[-1]}\n{problem}"]
    rows = []
    for number, text in enumerate(texts):
        values = {name: value for name, (_, value) in GATE_COLUMNS.items()} | {"dup_content_hash": number}
        rows.append({**empty_document(id=str(number), text=text, language="en"), **values})
    return publish_rows(stage_dir(run_dir, "quality"), [rows], SCHEMA, stage="quality")


def _gates_after(tmp_path, action: str):
    run_dir = tmp_path / action
    sets = [{"name": "humaneval", "builtin": "humaneval", "action": action}]
    config = PipelineConfig.model_validate({"decontamination": {"eval_sets": sets}})
    out = run_stage(
        "decontaminate", _quality_dir(run_dir), stage_dir(run_dir, "decontaminate"), config, LocalExecutor()
    )
    ctx = SimpleNamespace(documents=out.output, config=config, run_dir=run_dir, gates_passed=None)
    outcome = steps.gates(ctx)
    return ctx.gates_passed, outcome.notes["failed"], json.loads((run_dir / steps.GATES_FILE).read_text())


def test_a_corpus_still_holding_a_humaneval_item_fails_the_gates(tmp_path):
    passed, failed, record = _gates_after(tmp_path, "keep")
    assert passed is False and failed == ["all contamination:humaneval = 0.006098, bound <= 0"]
    assert not record["passed"]
    passed, failed, record = _gates_after(tmp_path, "drop")
    assert passed is True and failed == [] and record["passed"]
    assert {g["name"]: g["value"] for g in record["gates"]}["contamination:humaneval"] == 0.0
