"""PiiStage: signals, redaction, the keep rule, and the stage run by the engine (local and Spark)."""

from __future__ import annotations

import json
import pickle
from collections import Counter
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from stage_fixtures import stage_dir

from corpus_pipeline.config import PipelineConfig
from corpus_pipeline.document import empty_document
from corpus_pipeline.engine.exec.local import LocalExecutor
from corpus_pipeline.engine.publish import publish_rows
from corpus_pipeline.pii.config import PiiConfig
from corpus_pipeline.pii.stage import COUNT_COLUMNS, DENSITY_COLUMN, PiiStage
from corpus_pipeline.stage_runner import run_stage
from corpus_pipeline.stats import StageStats

PROSE = "The council met on Tuesday to discuss the new library and its opening hours. " * 6
CONTACT = "Contact: Jane Doe, jane.doe@example.org, +1-984-182-0190. Office hours are nine to five."
DIRECTORY = "\n".join(f"Desk {i}: staff{i}@example.org, +1-984-182-{i:04d}" for i in range(20))
CHINESE = "如有疑问，请拨打13812345678联系客服，或发邮件至123456789@qq.com。身份证号11010519491231002X。"


def run_one(text: str, config: PiiConfig | None = None):
    stage = PiiStage(config)
    stage.setup()
    stats = StageStats("pii")
    doc = empty_document(id="d", text=text)
    return doc, stage.process(doc, stats), stats


def test_counts_density_and_redaction():
    doc, verdict, stats = run_one(CONTACT)
    assert verdict is None
    assert doc["text"] == "Contact: Jane Doe, <EMAIL>, <PHONE>. Office hours are nine to five."
    assert doc["pii_email_count"] == 1 and doc["pii_phone_count"] == 1 and doc["pii_card_count"] == 0
    assert doc[DENSITY_COLUMN] == pytest.approx(2000 / len(CONTACT))
    assert stats.extra == {"pii_matches": Counter(email=1, phone=1), "pii_documents": Counter(email=1, phone=1)}


def test_chinese_document():
    doc, verdict, _ = run_one(CHINESE)
    assert verdict is None
    assert doc["text"] == "如有疑问，请拨打<PHONE>联系客服，或发邮件至<EMAIL>。身份证号<ID_NUMBER>。"
    assert (doc["pii_phone_count"], doc["pii_email_count"], doc["pii_cn_id_count"]) == (1, 1, 1)


def test_disabled_types_have_null_counts_and_redact_false_keeps_the_text():
    doc, _, _ = run_one(CONTACT, PiiConfig(types=["email"], redact=False))
    assert doc["text"] == CONTACT
    assert doc["pii_email_count"] == 1 and doc["pii_phone_count"] is None
    assert doc[DENSITY_COLUMN] == pytest.approx(1000 / len(CONTACT))


def test_keep_rule_drops_pii_dense_documents_and_names_counts_not_values():
    doc, verdict, _ = run_one(DIRECTORY)
    assert verdict.reason == "pii_density"
    assert "40 matches" in verdict.detail and "email 20, phone 20" in verdict.detail
    assert "@" not in verdict.detail and "984" not in verdict.detail
    assert "staff1@example.org" not in doc["text"], "a rejected document is redacted too"
    assert run_one(DIRECTORY, PiiConfig(max_density=None))[1] is None
    # A short note with a few matches is dense but no list: judged only from density_min_matches.
    assert run_one(CONTACT)[1] is None and run_one(CONTACT, PiiConfig(density_min_matches=2))[1].reason == "pii_density"


def test_per_type_density_limit():
    stage = PiiStage(PiiConfig(max_density=None, max_density_by_type={"phone": 1.0}, density_min_matches=1))
    assert stage.keep_rule(Counter(phone=3), 1000).reason == "pii_density"
    assert "phone: 3 in 1,000 chars" in stage.keep_rule(Counter(phone=3), 1000).detail
    assert stage.keep_rule(Counter(phone=1), 1000) is None
    assert stage.keep_rule(Counter(email=30), 1000) is None
    assert stage.keep_rule(Counter(), 0) is None


def test_signal_fields_are_typed_and_the_stage_pickles_small():
    stage = PiiStage()
    types = {field.name: field.type for field in stage.output_fields}
    assert types == {**dict.fromkeys(COUNT_COLUMNS.values(), pa.int32()), DENSITY_COLUMN: pa.float32()}
    stage.setup()
    assert len(pickle.dumps(stage)) < 3_000


def make_input(root: Path, texts: list[str]) -> Path:
    rows = [empty_document(id=str(index), text=text) for index, text in enumerate(texts)]
    return publish_rows(root / "input", [rows], stage="input")


TEXTS = [PROSE, CONTACT, DIRECTORY, CHINESE, ""]


def check_output(output: Path) -> None:
    stats = json.loads((output / "_stats.json").read_text())
    assert (stats["docs_in"], stats["kept"], stats["dropped"]) == (5, 4, {"pii_density": 1})
    assert stats["extra"]["pii_matches"] == {"cn_id": 1, "email": 22, "phone": 22}
    kept = pq.read_table(output)
    assert kept.schema.field("pii_email_count").type == pa.int32()
    assert kept.schema.field(DENSITY_COLUMN).type == pa.float32()
    rows = {row["id"]: row for row in kept.to_pylist()}
    assert rows["0"]["text"] == PROSE and rows["0"]["pii_email_count"] == 0
    assert rows["1"]["text"].startswith("Contact: Jane Doe, <EMAIL>, <PHONE>.")
    assert rows["4"][DENSITY_COLUMN] == 0.0
    rejected = pq.read_table(output / "_rejected").to_pylist()
    assert [(r["id"], r["reason"]) for r in rejected] == [("2", "pii_density")]
    assert "@example.org" not in rejected[0]["text"]


def test_stage_through_the_local_executor_and_rerun_skip(tmp_path):
    input_dir = make_input(tmp_path, TEXTS)
    result = run_stage("pii", input_dir, stage_dir(tmp_path, "pii"), PipelineConfig(), LocalExecutor())
    assert not result.skipped
    check_output(result.output)
    assert run_stage("pii", input_dir, stage_dir(tmp_path, "pii"), PipelineConfig(), LocalExecutor()).skipped


@pytest.mark.spark
def test_stage_on_spark_gives_the_local_result(tmp_path, spark):
    from corpus_pipeline.engine.exec.spark import SparkExecutor

    input_dir = make_input(tmp_path, TEXTS)
    check_output(run_stage("pii", input_dir, stage_dir(tmp_path, "pii"), PipelineConfig(), SparkExecutor(spark)).output)


def test_cli_verb_runs_the_stage(tmp_path, capsys):
    from corpus_pipeline.cli import main

    input_dir = make_input(tmp_path, TEXTS)
    code = main(
        [
            "pii",
            "--input",
            str(input_dir),
            "--output",
            str(tmp_path / "out"),
            "--runner",
            "local",
            "--set",
            "pii.redact=false",
        ]
    )
    assert code == 0
    assert "pii" in capsys.readouterr().out
    assert CONTACT in pq.read_table(tmp_path / "out").column("text").to_pylist()
