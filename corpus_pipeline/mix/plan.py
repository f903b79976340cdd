"""Which documents go where, decided on the driver from (group, weight, length, key) alone: no text.

A group is consumed as a stream of passes. One pass lists each of its documents `weight` times, in
the order of a seeded hash of the id; the phases take consecutive stretches of that stream, so a
document repeats only once its whole group has been used, and a repeat is always a whole document.
Each phase's entries are then shuffled globally by a hash of (document, repeat), so every shard
holds every group. Budgets are in shard tokens (text tokens + the end-of-document token); a stretch
ends at the entry nearest its budget, so a group misses its share by half a document at most.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from corpus_pipeline.mix.config import MixConfig, MixPhase
from corpus_pipeline.stages.base import StageRefusedError

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
# Floating point slack when a budget equals the cap exactly (total_tokens left to its default).
_CAP_SLACK = 1e-9


class MixTargetsError(StageRefusedError):
    """Targets the data cannot meet under mix.max_repeats; the message gives the numbers per group."""


@dataclass(frozen=True)
class Documents:
    """One row per document, in id order: what planning needs and nothing more."""

    group: np.ndarray  # int32 index into `groups`
    groups: list[str]
    weight: np.ndarray  # int64, >= 1
    length: np.ndarray  # int64 shard tokens (text tokens + 1)
    key: np.ndarray  # uint64, a seeded hash of the id

    def pass_tokens(self) -> np.ndarray:
        """Shard tokens of one pass over each group (weights applied)."""
        return np.bincount(self.group, weights=self.weight * self.length, minlength=len(self.groups))


@dataclass
class PhasePlan:
    name: str
    share: float
    targets: dict[str, float]
    entries: np.ndarray  # int64 document indices, in shard order
    repeats: np.ndarray  # int32: how many times the shards held the document before this entry
    shards: list[tuple[int, int]] = field(default_factory=list)  # [start, stop) into entries
    group_tokens: dict[str, int] = field(default_factory=dict)  # shard tokens each group got


@dataclass
class MixPlan:
    total_tokens: float  # asked (the budget); the shards hold what `phases` achieved
    pass_tokens: dict[str, int]  # one pass over each group (weights applied)
    asked: dict[str, float]  # each group's share of the whole output, over every phase
    phases: list[PhasePlan]

    def taken(self, group: str) -> int:
        return sum(phase.group_tokens.get(group, 0) for phase in self.phases)


def splitmix64(values: np.ndarray) -> np.ndarray:
    """A bijective 64-bit mix (Steele et al., SplitMix64): hash keys combined with numpy ops."""
    with np.errstate(over="ignore"):
        z = values.astype(np.uint64) + _GOLDEN
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return z ^ (z >> np.uint64(31))


def phases_of(config: MixConfig, docs: Documents) -> list[MixPhase]:
    """The configured phases; without them one phase of mix.targets, or of the corpus's own shares."""
    if config.phases:
        return list(config.phases)
    targets = config.targets
    if not targets:
        tokens = docs.pass_tokens()
        if not tokens.sum():
            return []  # no documents: nothing to mix
        targets = {name: float(t / tokens.sum()) for name, t in zip(docs.groups, tokens, strict=True) if t > 0}
    return [MixPhase(name="all", share=1.0, targets=targets)]


def _asked(phases: list[MixPhase]) -> dict[str, float]:
    """Each group's share of the whole output, over all phases."""
    asked: dict[str, float] = {}
    for phase in phases:
        for group, share in phase.targets.items():
            asked[group] = asked.get(group, 0.0) + phase.share * share
    return asked


def percent(share: float) -> str:
    return f"{share * 100:.1f} %"


def _refusal(group: str, asked: float, one_pass: float, total: float, phases: list[MixPhase], cap: float) -> str:
    if one_pass == 0:
        return f"{group}: {percent(asked)} asked, no documents in this group"
    by_phase = ""
    if len(phases) > 1:
        by_phase = " (" + ", ".join(f"{p.name} {percent(p.targets.get(group, 0.0))}" for p in phases) + ")"
    return (
        f"{group}: {percent(asked)} asked{by_phase}, {percent(one_pass / total)} available, "
        f"{cap:g} passes allowed give at most {percent(cap * one_pass / total)}"
    )


def total_tokens(config: MixConfig, docs: Documents, phases: list[MixPhase]) -> float:
    """The budget in shard tokens; refuses (MixTargetsError) targets the data cannot meet."""
    one_pass = dict(zip(docs.groups, docs.pass_tokens().tolist(), strict=True))
    asked = _asked(phases)
    if not asked:
        return 0.0
    if config.total_tokens is not None:
        total = float(config.total_tokens)
    elif not config.targets and not config.phases:
        total = float(sum(one_pass.values()))  # the corpus's own shares: one pass of everything
    else:
        total = min(config.max_repeats * one_pass.get(g, 0.0) / share for g, share in asked.items() if share > 0)
    # A target naming a group the input does not hold is refused even at share 0: it is a typo or
    # a source that did not arrive, and the group's absence would otherwise pass unseen.
    absent = [g for g in sorted(asked) if not one_pass.get(g)]
    short = absent or [
        g for g, share in sorted(asked.items()) if share * total > config.max_repeats * one_pass[g] * (1 + _CAP_SLACK)
    ]
    if short:
        faults = [_refusal(g, asked[g], one_pass.get(g, 0.0), total, phases, config.max_repeats) for g in short]
        present = ", ".join(f"{g} ({t:,.0f} tokens)" for g, t in sorted(one_pass.items()))
        budget = "" if absent else f" over {total:,.0f} tokens"
        raise MixTargetsError(
            f"mix targets cannot be met with at most {config.max_repeats:g} passes per group{budget}: "
            + "; ".join(faults)
            + f". Groups in the input: {present}"
        )
    return total


def _stream(docs: Documents, members: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One pass over a group: (document, copy, cumulative tokens before each entry and after the last)."""
    members = members[np.argsort(docs.key[members], kind="stable")]
    copies = docs.weight[members]
    documents = np.repeat(members, copies)
    starts = np.cumsum(copies) - copies
    copy = np.arange(len(documents)) - np.repeat(starts, copies)
    bounds = np.concatenate([[0], np.cumsum(docs.length[documents])])
    return documents, copy, bounds


def _entries_to(budget: float, bounds: np.ndarray) -> int:
    """How many stream entries end nearest `budget` tokens (the stream repeats the pass)."""
    per_pass, pass_entries = bounds[-1], len(bounds) - 1  # rest < per_pass, so at <= pass_entries
    passes = int(budget // per_pass)
    rest = budget - passes * per_pass
    at = int(np.searchsorted(bounds, rest))
    if at > 0 and rest - bounds[at - 1] <= bounds[at] - rest:
        at -= 1
    return passes * pass_entries + at


def _tokens_to(entries: int, bounds: np.ndarray) -> float:
    """Tokens in the first `entries` entries of the stream."""
    passes, within = divmod(entries, len(bounds) - 1)
    return float(passes * bounds[-1] + bounds[within])


def _stretches(docs: Documents, phases: list[MixPhase], total: float):
    """Per phase, the (document, repeat) entries each group gives it."""
    taken: list[list[tuple[np.ndarray, np.ndarray]]] = [[] for _ in phases]
    for number, group in enumerate(docs.groups):
        shares = [phase.share * phase.targets.get(group, 0.0) for phase in phases]
        if not any(shares):
            continue
        documents, copy, bounds = _stream(docs, np.flatnonzero(docs.group == number))
        # Each phase's stretch ends nearest its own budget counted from where the last one really
        # ended, so a phase misses its share by half a document at most, not by the errors before it.
        ends, end = [], 0
        for share in shares:
            end = _entries_to(_tokens_to(end, bounds) + share * total, bounds)
            ends.append(end)
        for phase, (start, stop) in enumerate(zip([0, *ends[:-1]], ends, strict=True)):
            at = np.arange(start, stop)
            within, passes = at % len(documents), at // len(documents)
            picked = documents[within]
            taken[phase].append((picked, passes * docs.weight[picked] + copy[within]))
    return taken


def shard_ranges(lengths: np.ndarray, itemsize: int, shard_bytes: int) -> list[tuple[int, int]]:
    """Consecutive entries per shard, a new shard started before a document would take its .bin
    past shard_bytes (the rule of tokenize's rolling shards; a longer document is a shard alone)."""
    bounds = np.concatenate([[0], np.cumsum(lengths * itemsize)])
    ranges, start = [], 0
    while start < len(lengths):
        stop = int(np.searchsorted(bounds, bounds[start] + shard_bytes, side="right")) - 1
        stop = max(stop, start + 1)
        ranges.append((start, stop))
        start = stop
    return ranges


def plan_mix(config: MixConfig, docs: Documents, itemsize: int, shard_bytes: int) -> MixPlan:
    phases = phases_of(config, docs)
    total = total_tokens(config, docs, phases)
    plans = []
    for phase, parts in zip(phases, _stretches(docs, phases, total), strict=True):
        entries = np.concatenate([p for p, _ in parts]) if parts else np.zeros(0, np.int64)
        repeats = np.concatenate([r for _, r in parts]) if parts else np.zeros(0, np.int64)
        shuffle = splitmix64(docs.key[entries] ^ splitmix64(repeats.astype(np.uint64)))
        order = np.lexsort((repeats, entries, shuffle))
        plan = PhasePlan(phase.name, phase.share, dict(phase.targets), entries[order], repeats[order].astype(np.int32))
        plan.shards = shard_ranges(docs.length[plan.entries], itemsize, shard_bytes)
        tokens = np.bincount(docs.group[plan.entries], weights=docs.length[plan.entries], minlength=len(docs.groups))
        plan.group_tokens = {g: int(t) for g, t in zip(docs.groups, tokens, strict=True) if t}
        plans.append(plan)
    _number_repeats_in_shard_order(plans)
    pass_tokens = {g: int(t) for g, t in zip(docs.groups, docs.pass_tokens(), strict=True)}
    return MixPlan(total, pass_tokens, _asked(phases), plans)


def _number_repeats_in_shard_order(plans: list[PhasePlan]) -> None:
    """A document's repeat number: how many times the shards held it before (0: its first copy),
    in the order a trainer reads the shards (the stream's pass number was only a shuffle key)."""
    entries = np.concatenate([plan.entries for plan in plans]) if plans else np.zeros(0, np.int64)
    order = np.argsort(entries, kind="stable")
    ranked = entries[order]
    first = np.flatnonzero(np.concatenate([[True], ranked[1:] != ranked[:-1]])) if len(ranked) else ranked
    runs = np.diff(np.concatenate([first, [len(ranked)]]))
    repeats = np.empty(len(entries), np.int32)
    repeats[order] = np.arange(len(ranked)) - np.repeat(first, runs)
    start = 0
    for plan in plans:
        plan.repeats = repeats[start : start + len(plan.entries)]
        start += len(plan.entries)
