"""Keep rules from the config: bounds per language, null signals, drop reasons; noise retention."""

from __future__ import annotations

import pytest

from corpus_pipeline.config import ConfigError, load_config
from corpus_pipeline.quality.keep_rules import KeepRule
from corpus_pipeline.quality.rules import KeepRules, retained_as_noise


def rules(**given):
    return KeepRules({name: KeepRule.model_validate(rule) for name, rule in given.items()}, {"words", "ratio"})


def test_first_rule_out_of_bounds_names_the_drop():
    keep = rules(too_short={"signal": "words", "min": 50}, too_symbolic={"signal": "ratio", "max": 0.1})
    assert keep.verdict({"words": 60, "ratio": 0.05}, "en") is None
    drop = keep.verdict({"words": 10, "ratio": 0.5}, "en")
    assert drop.reason == "too_short" and drop.detail == "words=10 < min 50 (en)"
    assert keep.verdict({"words": 60, "ratio": 0.5}, "en").detail == "ratio=0.5 > max 0.1 (en)"
    assert keep.verdict({"words": 50, "ratio": 0.1}, None) is None  # bounds are inclusive


def test_language_overrides_replace_only_what_they_set():
    keep = rules(
        words={"signal": "words", "min": 50, "max": 1000, "by_language": {"zh": {"min": 80}, "ja": {"enabled": False}}}
    )
    assert keep.verdict({"words": 60}, "zh").reason == "words"
    assert keep.verdict({"words": 5000}, "zh").reason == "words"  # max 1000 still applies
    assert keep.verdict({"words": 1}, "ja") is None
    assert keep.verdict({"words": 60}, "de") is None


def test_null_signals_and_disabled_rules_decide_nothing():
    keep = rules(words={"signal": "words", "min": 50}, off={"signal": "ratio", "max": 0.0, "enabled": False})
    assert keep.verdict({"words": None, "ratio": 1.0}, "en") is None


def test_unknown_signal_is_a_clear_error():
    with pytest.raises(ValueError, match="unknown signals {'x': 'wordz'}"):
        KeepRules({"x": KeepRule(signal="wordz", min=1)}, {"words"})


def test_config_overrides_merge_over_the_default_rules():
    config = load_config(
        None,
        [
            "quality.rules.gopher_word_count.min=30",
            "quality.rules.gopher_stop_words.enabled=false",
            "quality.rules.my_rule={signal: char_entropy, min: 3.0}",
        ],
    ).quality
    assert config.rules["gopher_word_count"].min == 30 and config.rules["gopher_word_count"].max == 100_000
    assert config.rules["gopher_word_count"].by_language["zh"].min == 80  # the default override stays
    assert not config.rules["gopher_stop_words"].enabled
    assert config.rules["my_rule"].signal == "char_entropy" and "fineweb_list_ratio" in config.rules
    with pytest.raises(ConfigError, match="signal"):
        load_config(None, ["quality.rules.new_rule={min: 3}"])


def test_noise_retention_is_seeded_by_document_id():
    ids = [f"doc-{i}" for i in range(20_000)]
    kept = [i for i in ids if retained_as_noise(i, 0.05, seed=0)]
    assert 0.045 < len(kept) / len(ids) < 0.055
    assert kept == [i for i in ids if retained_as_noise(i, 0.05, seed=0)]  # the same on a rerun
    assert kept != [i for i in ids if retained_as_noise(i, 0.05, seed=1)]
    assert not any(retained_as_noise(i, 0.0, seed=0) for i in ids[:100])
    assert all(retained_as_noise(i, 1.0, seed=0) for i in ids[:100])
