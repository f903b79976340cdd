"""The training sample's language mix: the corpus's own, or the configured weights."""

from __future__ import annotations

import pytest

from corpus_pipeline.tokenize.config import TrainTokenizerConfig
from corpus_pipeline.tokenize.sample import SAMPLE_MODULUS, in_sample, plan_sample, sample_key
from corpus_pipeline.tokenize.sharding import bucket_count, bucket_of, partition_keys, signed_xxhash64, spark_int_hash

TOTALS = {"en": (900, 9_000_000), "zh": (100, 1_000_000)}


def test_the_corpus_mix_is_followed_when_no_weights_are_given():
    plan = plan_sample(TOTALS, TrainTokenizerConfig(sample_bytes=1_000_000))
    en, zh = plan.languages["en"], plan.languages["zh"]
    assert (en.weight, zh.weight) == pytest.approx((0.9, 0.1))
    # Both languages sampled at 10%: 0.9 MB of English, 0.1 MB of Chinese.
    assert en.threshold == zh.threshold == round(0.1 * SAMPLE_MODULUS)


def test_weights_set_the_mix_and_a_short_language_is_reported():
    config = TrainTokenizerConfig(sample_bytes=4_000_000, language_weights={"en": 1, "zh": 1, "ja": 2})
    plan = plan_sample(TOTALS, config)
    assert plan.languages["en"].threshold == round(1_000_000 / 9_000_000 * SAMPLE_MODULUS)
    assert plan.languages["zh"].threshold == SAMPLE_MODULUS  # wants 1 MB, has 1 MB: all of it
    assert plan.notes == ["language 'ja' has weight 0.500 but no documents"]
    only_en = plan_sample(TOTALS, TrainTokenizerConfig(sample_bytes=10**9, language_weights={"en": 1}))
    assert only_en.thresholds == {"en": SAMPLE_MODULUS}, "unlisted languages are left out"
    assert "all 9,000,000 bytes taken" in only_en.notes[0]


def test_membership_is_a_pure_function_of_seed_and_id():
    plan = plan_sample(TOTALS, TrainTokenizerConfig(sample_bytes=5_000_000))
    ids = [f"{i:032x}" for i in range(4_000)]
    chosen = [doc_id for doc_id in ids if in_sample(plan, doc_id, "en")]
    # English: 90% of 5 MB wanted from 9 MB, so probability 0.5.
    assert plan.languages["en"].threshold == SAMPLE_MODULUS // 2
    assert 1_800 < len(chosen) < 2_200
    assert chosen == [doc_id for doc_id in ids if sample_key(0, doc_id) < plan.languages["en"].threshold]
    assert not in_sample(plan, ids[0], "fr"), "a language absent from the totals is never sampled"


def test_spark_compatible_hash_and_buckets():
    # Spark 4.3: SELECT xxhash64('abc'), pmod(xxhash64('abc'), 7), xxhash64('id0'), pmod(xxhash64('id0'), 7),
    #   pmod(xxhash64('0:id0'), 2147483648)  ->  1423657621850124518, 4, -5139295612460427456, 4, 543589642
    assert (signed_xxhash64("abc"), bucket_of("abc", 7)) == (1423657621850124518, 4)
    assert (signed_xxhash64("id0"), bucket_of("id0", 7)) == (-5139295612460427456, 4)
    assert sample_key(0, "id0") == 543589642
    # Spark 4.3: SELECT hash(0), hash(1), hash(42), hash(-1), hash(123456)
    assert [spark_int_hash(v) for v in (0, 1, 42, -1, 123456)] == [
        933211791,
        -559580957,
        29417773,
        -1604776387,
        1905992991,
    ]
    keys = partition_keys(1_000)
    assert sorted(spark_int_hash(key) % 1_000 for key in keys) == list(range(1_000))
    assert bucket_count(text_bytes=3 * 2**30, text_bytes_per_token=3.0, itemsize=2, shard_bytes=256 * 2**20) == 8
    assert bucket_count(text_bytes=0, text_bytes_per_token=3.0, itemsize=2, shard_bytes=1) == 1
