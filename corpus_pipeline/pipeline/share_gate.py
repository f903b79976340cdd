"""The nightly's gate on the mix: a night whose shards give a named group (nightly.min_shares) less
than its bound of the tokens does not publish. Read from the mix section of the shards' manifest,
the same achieved shares the report shows."""

from __future__ import annotations

from corpus_pipeline.engine.store.stage_dir import Location
from corpus_pipeline.storage import Storage
from corpus_pipeline.tokenize.manifest import read_manifest


def share_shortfalls(tokens: Location, min_shares: dict[str, float], storage: Storage) -> list[str]:
    """One line per group under its bound (a group missing from the mix holds 0%)."""
    if not min_shares:
        return []
    groups = read_manifest(tokens, storage).get("mix", {}).get("groups", {})
    shortfalls = []
    for group, bound in sorted(min_shares.items()):
        achieved = groups.get(group, {}).get("achieved", 0.0)
        if achieved < bound:
            shortfalls.append(f"mix share of {group} {achieved:.1%} < bound {bound:.1%}")
    return shortfalls
