"""A stage whose input lacks a column it reads is refused before its first task, exit 2, naming the
column and the stage that writes it; and each registry entry's `reads`/`writes` are the stage's own."""

from __future__ import annotations

import pyarrow as pa
import pytest

from corpus_pipeline.config import PipelineConfig
from corpus_pipeline.document import DOCUMENT_SCHEMA, empty_document
from corpus_pipeline.engine.columns import MissingColumnError, unwritten_columns
from corpus_pipeline.engine.exec.local import LocalExecutor
from corpus_pipeline.engine.publish import publish_rows
from corpus_pipeline.engine.registry import STAGES, stage_spec
from corpus_pipeline.exit_codes import exit_code
from corpus_pipeline.stage_runner import build_stage, run_fused, run_stage

WITHOUT_LANGUAGE = pa.schema([field for field in DOCUMENT_SCHEMA if not field.name.startswith("language")])


def _documents(directory, schema=DOCUMENT_SCHEMA):
    rows = [empty_document(id=str(n), text=f"document number {n} with a few words", language="en") for n in range(3)]
    return publish_rows(directory, [rows], schema, stage="input")


def test_a_stage_whose_input_lacks_a_column_it_reads_is_refused_before_any_task(tmp_path):
    source = _documents(tmp_path / "input", WITHOUT_LANGUAGE)
    output = tmp_path / "quality"
    with pytest.raises(MissingColumnError, match=r"quality reads column 'language'.*\(written by langid\)") as refused:
        run_stage("quality", source, output, PipelineConfig(), LocalExecutor())
    assert exit_code(refused.value, work_started=False) == 2
    assert not output.exists(), "refused before the first task: no directory made"


def test_a_column_written_earlier_in_a_fused_chain_is_there_for_the_stages_after(tmp_path):
    assert unwritten_columns([stage_spec("langid"), stage_spec("quality")], WITHOUT_LANGUAGE.names) == []
    source = _documents(tmp_path / "input", WITHOUT_LANGUAGE)
    outputs = [tmp_path / "normalize", tmp_path / "quality"]
    with pytest.raises(MissingColumnError, match="quality reads column 'language'"):
        run_fused(["normalize", "quality"], source, outputs, PipelineConfig(), LocalExecutor())


def test_a_complete_input_runs(tmp_path):
    result = run_stage("normalize", _documents(tmp_path / "input"), tmp_path / "out", PipelineConfig(), LocalExecutor())
    assert result.stats.docs_in == 3


def test_each_entry_reads_what_its_stage_selects_and_writes_columns_its_stage_makes():
    for spec in STAGES:
        if spec.kind != "document":
            continue
        stage = build_stage(spec, PipelineConfig())
        assert set(spec.reads) == set(stage.input_columns or ()), spec.name
        made = {field.name for field in stage.output_fields} | set(stage.rewrites)
        assert set(spec.writes) <= made, spec.name
