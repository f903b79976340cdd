"""Drift against the previous snapshot: language and domain proportions, the mix groups' achieved
shares (when either run had a mix), duplicate rate and token distribution, each compared with its
bound in `report.drift`; crossing one raises an alert.

A figure either snapshot could not measure (its stage did not run) is reported as not measured,
never as an alert: a missing stage is the pipeline's failure to report, not the web's drift.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from corpus_pipeline.config import DriftBounds
from corpus_pipeline.report.bars import shares


@dataclass
class Profile:
    """What drift compares, for one snapshot."""

    language_counts: dict[str, int] | None = None
    domain_counts: dict[str, int] | None = None
    duplicate_rate: float | None = None
    token_counts: dict[str, int] | None = None
    token_labels: dict[str, str] = field(default_factory=dict)  # vocabulary spelling -> decoded text
    mix_shares: dict[str, float] | None = None  # mix group -> achieved share (the run had a mix)


@dataclass
class ShareChange:
    key: str
    previous: float
    current: float

    @property
    def change(self) -> float:
        return self.current - self.previous


@dataclass
class DriftCheck:
    name: str
    value: float | None  # None: not measured in one of the snapshots
    bound: float
    detail: str = ""
    changes: list[ShareChange] = field(default_factory=list)  # largest change first

    @property
    def alert(self) -> bool:
        return self.value is not None and self.value > self.bound


def share_changes(previous: dict[str, float], current: dict[str, float]) -> list[ShareChange]:
    """Every key whose share changed, largest change first."""
    before, after = shares(previous), shares(current)
    changes = [ShareChange(k, before.get(k, 0.0), after.get(k, 0.0)) for k in set(before) | set(after)]
    return sorted((c for c in changes if c.change), key=lambda c: (-abs(c.change), c.key))


def jensen_shannon_bits(previous: dict[str, float], current: dict[str, float]) -> float:
    """JSD in bits: 0 for the same distribution, 1 for two with no token in common."""
    p, q = shares(previous), shares(current)
    total = 0.0
    for key in set(p) | set(q):
        a, b = p.get(key, 0.0), q.get(key, 0.0)
        middle = (a + b) / 2
        if a:
            total += 0.5 * a * math.log2(a / middle)
        if b:
            total += 0.5 * b * math.log2(b / middle)
    return max(0.0, min(1.0, total))


def _share_check(name: str, previous: dict | None, current: dict | None, bound: float, shown: int) -> DriftCheck:
    if not previous or not current:
        return DriftCheck(name, None, bound, "not measured: a snapshot has no such documents")
    changes = share_changes(previous, current)
    if not changes:
        return DriftCheck(name, 0.0, bound, "the same shares")
    top = changes[0]
    detail = f"{top.key}: {top.previous:.1%} -> {top.current:.1%}"
    return DriftCheck(name, abs(top.change), bound, detail, changes[:shown])


def compare(previous: Profile, current: Profile, bounds: DriftBounds, shown: int) -> list[DriftCheck]:
    checks = [
        _share_check("language share", previous.language_counts, current.language_counts, bounds.language_share, shown),
        _share_check("domain share", previous.domain_counts, current.domain_counts, bounds.domain_share, shown),
    ]
    if previous.mix_shares is not None or current.mix_shares is not None:
        checks.append(_share_check("mix share", previous.mix_shares, current.mix_shares, bounds.mix_share, shown))
    if previous.duplicate_rate is None or current.duplicate_rate is None:
        checks.append(DriftCheck("duplicate rate", None, bounds.duplicate_rate, "not measured: dedup did not run"))
    else:
        change = current.duplicate_rate - previous.duplicate_rate
        detail = f"{previous.duplicate_rate:.2%} -> {current.duplicate_rate:.2%}"
        checks.append(DriftCheck("duplicate rate", abs(change), bounds.duplicate_rate, detail))
    if not previous.token_counts or not current.token_counts:
        checks.append(DriftCheck("token distribution (JSD, bits)", None, bounds.token_jsd, "not measured: no shards"))
    else:
        jsd = jensen_shannon_bits(previous.token_counts, current.token_counts)
        labels = {**previous.token_labels, **current.token_labels}
        changes = share_changes(previous.token_counts, current.token_counts)[:shown]
        for change in changes:
            change.key = labels.get(change.key, change.key)
        checks.append(DriftCheck("token distribution (JSD, bits)", jsd, bounds.token_jsd, f"{jsd:.4f} bits", changes))
    return checks
