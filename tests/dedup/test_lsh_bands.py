"""The banding choice equals datasketch's `_optimal_param` (our own integrals, so a run needs no
scipy import): on every threshold, permutation count and weighting of a grid."""

from __future__ import annotations

import itertools

import pytest

from corpus_pipeline.dedup.lsh import bands_and_rows

# 96 settings, ~1 s of datasketch's integrals (a grid of 448 with 100 and 256 permutations agreed
# too, in ~8 s).
THRESHOLDS = (0.05, 0.3, 0.5, 0.6, 0.7, 0.8, 0.9, 0.99)
PERMUTATIONS = (8, 32, 64, 128)
WEIGHTS = ((0.5, 0.5), (0.2, 0.8), (0.8, 0.2))


def test_bands_and_rows_equal_datasketchs_choice_on_every_setting_of_a_grid():
    lsh = pytest.importorskip("datasketch.lsh")
    differ = [
        (threshold, perm, weights)
        for threshold, perm, weights in itertools.product(THRESHOLDS, PERMUTATIONS, WEIGHTS)
        if bands_and_rows(threshold, perm, *weights) != lsh._optimal_param(threshold, perm, *weights)
    ]
    assert differ == []


def test_the_default_setting_gives_18_bands_of_7_rows():
    assert bands_and_rows(0.7, 128, 0.2, 0.8) == (18, 7)
