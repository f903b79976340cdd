from __future__ import annotations

import pickle

import pytest
from conftest import shared_data

from corpus_pipeline.config import load_config
from corpus_pipeline.document import empty_document
from corpus_pipeline.langid.config import LangIdConfig
from corpus_pipeline.langid.stage import LangIdStage, language_sample
from corpus_pipeline.stats import StageStats

EN = "The city council voted on Tuesday to expand the public library and extend its opening hours."
ZH = "国务院总理在北京主持召开常务会议，研究部署进一步促进经济平稳运行的措施。"


@pytest.fixture(scope="module")
def stage():
    stage = LangIdStage(LangIdConfig(min_score=0.5))
    stage.setup()
    return stage


def run(stage, text):
    doc = empty_document(id="x", text=text)
    return doc, stage.process(doc, StageStats("langid"))


def test_english_and_chinese(stage):
    doc, verdict = run(stage, EN)
    assert verdict is None and doc["language"] == "en" and doc["language_score"] > 0.9
    doc, verdict = run(stage, ZH)
    assert verdict is None and doc["language"] == "zh"
    assert doc["language_topk"][0] == {"language": "zh", "score": doc["language_score"]}
    assert len(doc["language_topk"]) == 3


def test_empty_text_is_rejected_not_guessed(stage):
    doc, verdict = run(stage, " \n\t ")
    assert verdict.reason == "language_unknown" and doc["language"] is None


def test_mixed_scripts_report_both_languages_in_topk(stage):
    doc, _ = run(stage, (EN + " ") * 2 + ZH * 2)
    assert {"en", "zh"} <= {entry["language"] for entry in doc["language_topk"]}


def test_newlines_do_not_split_the_prediction(stage):
    # fastText predicts on the first line only when given newlines; the sample is one line.
    doc, _ = run(stage, "Hi\n" + ZH * 3)
    assert doc["language"] == "zh"


def test_long_documents_are_sampled_from_three_windows():
    text = "a" * 5000 + "b" * 5000 + "c" * 5000
    sample = language_sample(text, 900)
    assert len(sample) <= 902 and set(sample) == {"a", "b", "c", " "}
    assert language_sample("short\n\ntext", 900) == "short text"


def test_keep_rule_allowed_languages_and_per_language_threshold():
    stage = LangIdStage(
        LangIdConfig(allowed_languages=["en", "zh"], min_score=0.5, min_score_by_language={"zh": 0.99999})
    )
    stage.setup()
    doc, verdict = run(stage, "Der Stadtrat hat am Dienstag beschlossen, die öffentliche Bibliothek zu erweitern.")
    assert verdict.reason == "language_not_allowed" and verdict.detail.startswith("de ")
    _, verdict = run(stage, ZH)
    assert verdict.reason == "low_language_score"
    assert stage.keep_rule("en", 0.6) is None
    assert stage.keep_rule("en", 0.4).reason == "low_language_score"


def test_the_model_is_never_pickled(stage):
    assert stage._model is not None
    copy = pickle.loads(pickle.dumps(stage))
    assert copy._model is None and copy.config == stage.config
    assert len(pickle.dumps(stage)) < 2_000


def test_a_missing_model_path_is_a_clear_error(tmp_path):
    stage = LangIdStage(LangIdConfig(model_path=str(tmp_path / "nope.bin")))
    with pytest.raises(FileNotFoundError, match="nope.bin"):
        stage.setup()


@pytest.mark.realdata
def test_accuracy_on_75_language_sentences_matches_the_raw_model():
    from corpus_pipeline.evaluation.commands import evaluate_langid

    report = evaluate_langid(str(shared_data("langid/sentences")), load_config())
    assert len(report.per_language) == 67
    assert report.micro_accuracy >= 0.89
    assert report.per_language["zh"].accuracy >= 0.95
