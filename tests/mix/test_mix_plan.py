"""The mix plan on its own (no files, no tokenizer): budgets, refusals, streams of passes, shards."""

from __future__ import annotations

import numpy as np
import pytest

from corpus_pipeline.mix.config import MixConfig
from corpus_pipeline.mix.plan import Documents, MixTargetsError, plan_mix, shard_ranges


def documents(lengths: dict[str, list[int]], weights: dict[str, list[int]] | None = None) -> Documents:
    groups = sorted(lengths)
    group = np.concatenate([np.full(len(lengths[g]), n, np.int32) for n, g in enumerate(groups)])
    length = np.concatenate([np.array(lengths[g], np.int64) for g in groups])
    weight = np.concatenate([np.array((weights or {}).get(g, [1] * len(lengths[g])), np.int64) for g in groups])
    key = np.random.default_rng(7).integers(0, 2**63, len(length)).astype(np.uint64)
    return Documents(group=group, groups=groups, weight=weight, length=length, key=key)


def test_targets_past_the_cap_are_refused_with_the_numbers():
    docs = documents({"code": [7, 7, 7], "web": [11] * 89})  # 21 and 979 tokens a pass
    config = MixConfig(targets={"code": 0.3, "web": 0.7}, total_tokens=1_000, max_repeats=4)
    with pytest.raises(MixTargetsError) as refused:
        plan_mix(config, docs, itemsize=2, shard_bytes=1_000)
    message = str(refused.value)
    assert "code: 30.0 % asked, 2.1 % available, 4 passes allowed give at most 8.4 %" in message
    assert "web" not in message.split("Groups in the input")[0].split("code:")[1]  # web's 70 % fits
    with pytest.raises(MixTargetsError, match="prose: 10.0 % asked, no documents in this group"):
        plan_mix(MixConfig(targets={"web": 0.9, "prose": 0.1}), docs, itemsize=2, shard_bytes=1_000)


def test_the_default_total_is_the_most_the_cap_allows():
    docs = documents({"code": [10] * 5, "web": [10] * 100})  # 50 and 1,000 tokens a pass
    plan = plan_mix(MixConfig(targets={"code": 0.2, "web": 0.8}, max_repeats=2), docs, 2, 10_000)
    # code limits: 2 passes = 100 tokens = 20 %, so 500 tokens in all; web gets 400 of its 1,000.
    assert plan.total_tokens == pytest.approx(500)
    assert plan.taken("code") == 100 and plan.taken("web") == 400
    code = plan.phases[0].entries[docs.group[plan.phases[0].entries] == 0]
    assert sorted(np.bincount(code).tolist()) == [2] * 5  # two whole passes: each document twice
    assert plan.phases[0].repeats.max() == 1


def test_weights_repeat_documents_within_their_pass():
    docs = documents({"web": [10, 10, 10, 10]}, weights={"web": [3, 1, 1, 1]})
    plan = plan_mix(MixConfig(), docs, 2, 10_000)  # no targets: one pass of everything
    assert np.bincount(plan.phases[0].entries).tolist() == [3, 1, 1, 1]
    assert sorted(plan.phases[0].repeats[plan.phases[0].entries == 0].tolist()) == [0, 1, 2]


def test_phases_continue_each_group_where_the_last_phase_stopped():
    docs = documents({"a": [10] * 10, "b": [10] * 10})
    config = MixConfig(
        phases=[
            {"name": "first", "share": 0.5, "targets": {"a": 0.5, "b": 0.5}},
            {"name": "second", "share": 0.5, "targets": {"a": 1.0}},
        ],
        total_tokens=200,
    )
    first, second = plan_mix(config, docs, 2, 10_000).phases
    a_first = set(first.entries[docs.group[first.entries] == 0].tolist())
    a_second = second.entries.tolist()
    assert len(a_first) == 5 and len(a_second) == 10
    # The second phase takes a's 5 unused documents before any repeat of the first phase's 5.
    assert set(a_second) >= set(range(10)) - a_first


def test_shards_roll_before_a_document_would_pass_shard_bytes():
    assert shard_ranges(np.array([3, 3, 3, 10, 1]), itemsize=2, shard_bytes=12) == [(0, 2), (2, 3), (3, 4), (4, 5)]
