"""A document stage appended to the registry after decontaminate: it becomes the final corpus that
the gates read, and decontaminate's gates still find decontaminate's stats by its name, so the
gates pass as they do without it."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq
from stage_fixtures import stage_dir
from text_sources import english_text

from corpus_pipeline.config import PipelineConfig
from corpus_pipeline.document import DOCUMENT_SCHEMA, empty_document
from corpus_pipeline.engine import registry
from corpus_pipeline.engine.exec.local import LocalExecutor
from corpus_pipeline.engine.publish import publish_rows
from corpus_pipeline.engine.registry import StageSpec
from corpus_pipeline.gates import evaluate_gates, final_corpus
from corpus_pipeline.pipeline import steps
from corpus_pipeline.stage_runner import run_fused
from corpus_pipeline.stages.base import DocumentStage
from corpus_pipeline.storage import Storage

GATE_COLUMNS = {"gopher_word_count": (pa.int32(), 100), "vocab_coverage": (pa.float32(), 0.99)}
GATE_COLUMNS |= {"char_entropy": (pa.float32(), 4.4)}
SCHEMA = pa.schema(
    [
        *DOCUMENT_SCHEMA,
        *(pa.field(n, t) for n, (t, _) in GATE_COLUMNS.items()),
        pa.field("dup_content_hash", pa.int64()),
    ]
)
TAG = pa.field("tagged", pa.bool_())


class TagStage(DocumentStage):
    """A document stage of the kind one appends: a column of its own."""

    name = "tag"
    output_fields = (TAG,)
    input_columns = ("id",)

    def __init__(self, config=None):
        self.config = config

    def process(self, doc, stats):
        doc["tagged"] = True
        return None


def _appended(monkeypatch) -> StageSpec:
    spec = StageSpec("tag", "document", "tag", "normalize", f"{__name__}:TagStage", "tag every document")
    monkeypatch.setattr(registry, "STAGES", (*registry.STAGES, spec))
    monkeypatch.setattr(registry, "_BY_NAME", {**registry._BY_NAME, "tag": spec})
    return spec


def _quality_dir(run_dir):
    lines = [line for line in english_text().splitlines() if len(line) > 80][:40]
    rows = [
        {**empty_document(id=str(n), text=text, language="en"), **{k: v for k, (_, v) in GATE_COLUMNS.items()}}
        | {"dup_content_hash": n}
        for n, text in enumerate(lines)
    ]
    return publish_rows(stage_dir(run_dir, "quality"), [rows], SCHEMA, stage="quality")


def test_a_document_stage_after_decontaminate_is_the_final_corpus_and_the_gates_pass(tmp_path, monkeypatch):
    spec = _appended(monkeypatch)
    run_dir, storage = tmp_path / "run", Storage()
    config = PipelineConfig.model_validate(
        {"decontamination": {"eval_sets": [{"name": "humaneval", "builtin": "humaneval"}]}}
    )
    outputs = [stage_dir(run_dir, "decontaminate"), run_dir / spec.directory]
    run_fused(["decontaminate", "tag"], _quality_dir(run_dir), outputs, config, LocalExecutor())
    assert not list(outputs[0].glob("part-*.parquet"))  # fused: its documents went on to tag's

    assert final_corpus(run_dir, storage) == (outputs[1], run_dir)
    assert final_corpus(outputs[0], storage) == (outputs[1], run_dir)  # a fused stage names where
    report = evaluate_gates(run_dir, config, storage)
    assert report.passed, report.format_table()
    assert report.corpus == outputs[1] and report.documents == 40
    assert {g.name: g.value for g in report.gates}["contamination:humaneval"] == 0.0
    assert pq.read_table(outputs[1], columns=["tagged"]).column(0).to_pylist() == [True] * 40

    ctx = type("Ctx", (), {"documents": outputs[1], "config": config, "run_dir": run_dir, "gates_passed": None})()
    outcome = steps.gates(ctx)
    assert ctx.gates_passed is True and outcome.notes["failed"] == []


def test_without_a_finished_decontaminate_the_contamination_gate_is_not_measured(tmp_path, monkeypatch):
    spec = _appended(monkeypatch)
    run_dir, storage = tmp_path / "run", Storage()
    config = PipelineConfig()
    run_fused(["tag"], _quality_dir(run_dir), [run_dir / spec.directory], config, LocalExecutor())
    report = evaluate_gates(run_dir, config, storage)
    assert report.corpus == run_dir / spec.directory and not report.passed
    assert [(g.name, g.value) for g in report.gates if not g.passed] == [("contamination:humaneval", None)]
