"""The span-matching rule of evaluation/pii.py, and the detector's figures on the presidio test set."""

from __future__ import annotations

import json

import pytest
from conftest import shared_data

from corpus_pipeline.evaluation.pii import GoldText, load_gold, match_spans, score_pii

TARGETS = {"email": 0.95, "card": 0.95, "iban": 0.95, "ip": 0.95, "ssn": 0.95, "phone": 0.90}


def test_a_match_needs_the_same_type_and_half_the_gold_span():
    gold = [(10, 30, "phone")]
    assert match_spans([(10, 20, "phone")], gold) == [(0, 0)]  # exactly half
    assert match_spans([(10, 19, "phone")], gold) == []
    assert match_spans([(0, 40, "phone")], gold) == [(0, 0)]  # covering it all, and more
    assert match_spans([(10, 30, "card")], gold) == []
    # One-to-one, the larger overlap first: the second prediction on the same gold span is unmatched.
    assert match_spans([(10, 22, "phone"), (10, 30, "phone")], gold) == [(1, 0)]


def test_scores_confusions_and_uncovered_types():
    texts = [
        GoldText("call 555-123-4567 or mail a@b.com", ((5, 17, "PHONE_NUMBER"), (26, 33, "EMAIL_ADDRESS"))),
        GoldText("John lives at 117 5720 Main St", ((0, 4, "PERSON"), (14, 30, "STREET_ADDRESS"))),
    ]
    predictions = {
        texts[0].text: [(5, 17, "phone"), (26, 33, "email"), (0, 4, "secret")],
        texts[1].text: [(14, 22, "phone")],
    }
    report = score_pii(texts, lambda text: predictions[text])
    phone, email = report.per_type["phone"], report.per_type["email"]
    assert (phone.gold, phone.predicted, phone.matched_gold, phone.matched_predictions) == (1, 2, 1, 1)
    assert (phone.precision, phone.recall, phone.exact) == (0.5, 1.0, 1)
    assert (email.precision, email.recall) == (1.0, 1.0)
    assert report.per_type["iban"].gold == 0 and report.per_type["iban"].precision == 1.0
    assert report.confusions == {"phone -> STREET_ADDRESS": 1}
    assert report.unscored == {"secret": 1}
    assert report.not_covered == {"PERSON": 1, "STREET_ADDRESS": 1}
    assert "not covered: PERSON (1), STREET_ADDRESS (1)" in report.format_table()


def test_gold_files_with_bad_spans_are_refused(tmp_path):
    path = tmp_path / "gold.json"
    path.write_text(
        json.dumps([{"full_text": "abc", "spans": [{"entity_type": "X", "start_position": 2, "end_position": 9}]}])
    )
    with pytest.raises(ValueError, match="outside the text"):
        load_gold(path)
    path.write_text(json.dumps([{"text": "abc"}]))
    with pytest.raises(ValueError, match="lacks"):
        load_gold(path)


@pytest.mark.realdata
def test_targets_on_presidio_synth_dev(capsys):
    from corpus_pipeline.cli import main

    gold = shared_data("pii/presidio_synth_dev.json")
    assert main(["eval", "pii", "--gold", str(gold), "--json"]) == 0
    figures = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert figures["texts"] == 750
    for kind, target in TARGETS.items():
        score = figures["per_type"][kind]
        assert score["gold"] > 0, kind
        assert score["precision"] >= target and score["recall"] >= target, (kind, score)
    assert {"PERSON", "STREET_ADDRESS"} <= set(figures["not_covered"])
    assert figures["unscored"] == {}, "no resident IDs or secrets in this English set"
