"""The quality stage: every signal as a typed column in one pass, blocklists, rules, noise retention,
and the stage run end to end by the local and Spark executors."""

from __future__ import annotations

import pickle
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from stage_fixtures import stage_dir

from corpus_pipeline.config import PipelineConfig
from corpus_pipeline.document import empty_document
from corpus_pipeline.engine.exec.local import LocalExecutor
from corpus_pipeline.engine.publish import publish_rows
from corpus_pipeline.quality import spam
from corpus_pipeline.quality.config import BlocklistConfig, QualityConfig
from corpus_pipeline.quality.stage import QualityStage
from corpus_pipeline.stage_runner import run_stage
from corpus_pipeline.stats import StageStats

CLEAN_EN = (
    "The city council voted on Tuesday to expand the public library and to extend its opening hours. "
    "Members said that the branch had been overcrowded for years, and that students with nowhere else to "
    "study had filled the reading rooms every evening. The new wing will open next spring.\n"
    "The plan was approved by seven votes to two. Two members argued that the money should have gone to "
    "road repairs, which residents have asked for since the floods of last winter."
)
CLEAN_ZH = (
    "国务院总理在北京主持召开常务会议，研究部署进一步促进经济平稳运行的措施。会议指出，今年以来各地区各部门"
    "认真贯彻落实党中央决策部署，经济运行总体平稳，就业和物价保持稳定。\n会议要求，要加大对中小企业的支持力度，"
    "落实好各项减税降费政策，帮助企业解决融资难、融资贵的问题，稳定市场预期。"
)
MENU = "\n".join(["Home", "About", "Products", "Contact", "Login"] * 3)


def run(stage, text, language="en", url=None, doc_id="d1"):
    doc = empty_document(id=doc_id, text=text, language=language, url=url)
    stats = StageStats("quality")
    return doc, stage.process(doc, stats), stats


def test_signal_columns_are_typed_and_prefixed():
    stage = QualityStage()
    types = {f.name: f.type for f in stage.output_fields}
    assert types["gopher_word_count"] == pa.int32() and types["gopher_mean_word_length"] == pa.float32()
    assert types["c4_policy_lines"] == pa.int32() and types["fineweb_list_ratio"] == pa.float32()
    assert types["dup_content_hash"] == pa.int64() and types["retained_noise"] == pa.bool_()
    assert types["blocklist_adult_domains"] == pa.int32() and types["quality_classifier_score"] == pa.float32()
    assert types["quality_score"] == pa.float32()
    prefixes = ("gopher_", "c4_", "fineweb_", "spam_", "blocklist_")
    others = {"vocab_coverage", "char_entropy", "dup_content_hash", "quality_classifier_score", "quality_score"}
    assert all(name.startswith(prefixes) or name in others | {"retained_noise"} for name in types)
    # 20 Gopher, 7 C4, 4 FineWeb, 8 spam, 3 corpus, classifier, embedding head, 3 blocklists, noise flag
    assert len(types) == 48


def test_clean_english_and_chinese_are_kept_with_every_signal_filled():
    stage = QualityStage()
    for text, language in ((CLEAN_EN, "en"), (CLEAN_ZH, "zh")):
        doc, verdict, _ = run(stage, text, language)
        assert verdict is None, verdict
        assert doc["retained_noise"] is False and doc["vocab_coverage"] > 0.95
        missing = [f.name for f in stage.output_fields if doc[f.name] is None]
        # No model configured; and the spam signals, which need a title line, 3+ term matches or
        # 5+ lines, say nothing about these paragraphs (their first lines end in a full stop);
        # the operator count is a count, 0.
        assert doc["spam_operator_terms"] == 0
        spam_nulls = [name for name in spam.SIGNALS if name != "spam_operator_terms"]
        assert missing == [*spam_nulls, "quality_classifier_score", "quality_score"]
    assert run(stage, CLEAN_EN, "en")[0]["char_entropy"] == pytest.approx(4.2, abs=0.3)


def test_junk_is_dropped_with_the_rule_as_reason():
    stage = QualityStage()
    _, verdict, _ = run(stage, MENU)
    assert verdict.reason == "gopher_word_count" and "15 < min 50" in verdict.detail
    _, verdict, _ = run(stage, CLEAN_EN, url="https://www.pornhub.com/x")
    assert verdict.reason == "blocklist_adult_domains"


def test_language_without_stop_words_or_vocabulary_skips_those_rules():
    doc, verdict, _ = run(QualityStage(), CLEAN_EN, language="xx")
    assert verdict is None and doc["gopher_stop_words"] is None and doc["vocab_coverage"] is None


def test_noise_retention_keeps_and_flags_rejected_documents():
    stage = QualityStage(QualityConfig(noise_retention=1.0))
    doc, verdict, stats = run(stage, MENU)
    assert verdict is None and doc["retained_noise"] is True
    assert stats.extra == {"retained_noise": {"gopher_word_count": 1}}
    half = QualityStage(QualityConfig(noise_retention=0.5, noise_seed=3))
    flags = [run(half, MENU, doc_id=f"d{i}")[0]["retained_noise"] for i in range(400)]
    assert 150 < sum(flags) < 250
    assert flags == [run(half, MENU, doc_id=f"d{i}")[0]["retained_noise"] for i in range(400)]


def test_bad_config_fails_at_construction(tmp_path):
    with pytest.raises(ValueError, match="unknown signals"):
        QualityStage(QualityConfig(rules={"x": {"signal": "nope", "min": 1}}))
    with pytest.raises(FileNotFoundError):
        QualityStage(QualityConfig(blocklists=[BlocklistConfig(name="x", kind="keywords", path=str(tmp_path / "n"))]))


def test_pickles_small_and_fingerprints_list_contents(tmp_path):
    words = tmp_path / "words.txt"
    words.write_text("alpha\n", encoding="utf-8")
    config = QualityConfig(blocklists=[BlocklistConfig(name="mine", kind="keywords", path=str(words))])
    stage = QualityStage(config)
    run(stage, CLEAN_EN)
    copy = pickle.loads(pickle.dumps(stage))
    # The lists travel with the stage (the spam lists are 11 KB of it); automata and models do not.
    assert copy._languages == {} and copy._classifier is None and len(pickle.dumps(stage)) < 32_000
    before = stage.config_fingerprint()
    words.write_text("alpha\nbeta\n", encoding="utf-8")
    assert QualityStage(config).config_fingerprint() != before


def make_input(root: Path, docs: list[tuple[str, str]], parts: int = 2) -> Path:
    rows = [
        [
            empty_document(id=f"{task}-{index}", text=text, language=language)
            for index, (text, language) in enumerate(docs[task::parts])
        ]
        for task in range(parts)
    ]
    return publish_rows(root / "input", rows, stage="input")


DOCS = [(CLEAN_EN, "en"), (CLEAN_ZH, "zh"), (MENU, "en"), ("Lorem ipsum dolor sit amet. " * 30, "en")] * 3


def test_run_quality_writes_typed_columns_and_rejects_by_reason(tmp_path):
    result = run_stage(
        "quality", make_input(tmp_path, DOCS), stage_dir(tmp_path, "quality"), PipelineConfig(), LocalExecutor()
    )
    stats = result.stats.to_dict()
    assert (stats["docs_in"], stats["kept"]) == (12, 6)
    assert stats["dropped"] == {"gopher_stop_words": 3, "gopher_word_count": 3}  # lorem ipsum, the menu
    kept = pq.read_table(stage_dir(tmp_path, "quality"))
    assert kept.schema.field("gopher_top_2gram_char_frac").type == pa.float32()
    assert set(kept.column("language").to_pylist()) == {"en", "zh"}
    rejected = pq.read_table(stage_dir(tmp_path, "quality") / "_rejected")
    assert rejected.num_rows == 6 and rejected.column("gopher_word_count").to_pylist().count(15) == 3
    again = run_stage("quality", tmp_path / "input", stage_dir(tmp_path, "quality"), PipelineConfig(), LocalExecutor())
    assert again.skipped


@pytest.mark.spark
def test_spark_and_local_give_the_same_rows(spark, tmp_path):
    from corpus_pipeline.engine.exec.spark import SparkExecutor

    source = make_input(tmp_path, DOCS)
    local = run_stage("quality", source, tmp_path / "local", PipelineConfig(), LocalExecutor())
    distributed = run_stage("quality", source, tmp_path / "spark", PipelineConfig(), SparkExecutor(spark))
    assert distributed.stats.dropped == local.stats.dropped

    def rows(path):
        return sorted(pq.read_table(path).to_pylist(), key=lambda row: row["id"])

    assert rows(tmp_path / "spark") == rows(tmp_path / "local")
