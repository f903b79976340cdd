"""Config of `mix`: token shards built to target shares of groups of documents.

Shares are of shard tokens (each document's tokens plus its end-of-document token: what a trainer
reads and what the .idx sequence lengths add up to). A group is one value of the `by` columns
(`web`, or `web/en` for `by: [source, language]`; a null column reads `unknown`).
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, model_validator

from corpus_pipeline.config_base import Strict

GroupColumn = Literal["source", "domain", "language"]
_SHARE_TOLERANCE = 1e-6
# A share of the tokens: finite and in [0, 1] (1.5 and -0.5 add up to 1 too; NaN and inf crashed mix).
Share = Annotated[float, Field(ge=0.0, le=1.0, allow_inf_nan=False)]


def _check_shares(shares: dict[str, float], what: str) -> None:
    if shares and abs(sum(shares.values()) - 1.0) > _SHARE_TOLERANCE:
        raise ValueError(f"{what} must add up to 1, they add up to {sum(shares.values()):.6g}")


# A tier's weight: whole (2: every document twice per pass) or fractional (1.5: each document once,
# and a second time with probability 0.5, chosen by a seeded hash of its id, so the expected count
# is 1.5 and a rerun picks the same documents). At least 1: a pass holds every document of its group.
TierWeight = Annotated[int, Field(ge=1)] | Annotated[float, Field(ge=1.0, allow_inf_nan=False)]


class WeightTier(Strict):
    """Documents whose value lies in [min, max) appear `weight` times per pass over their group
    (in expectation, for a fractional weight)."""

    min: float | None = None
    max: float | None = None
    weight: TierWeight

    def bounds(self) -> tuple[float | None, float | None, float]:
        return (self.min, self.max, self.weight)


class TierWeights(Strict):
    """Weights by a numeric column: the first tier holding a document's value gives its weight;
    a document in no tier, or with a null value, weighs 1."""

    column: str
    tiers: list[WeightTier] = Field(min_length=1)


class MixPhase(Strict):
    """One curriculum phase: its share of the total tokens and its own group targets."""

    name: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
    share: float = Field(gt=0.0, le=1.0)
    targets: dict[str, Share] = Field(min_length=1)

    @model_validator(mode="after")
    def _targets_add_up(self) -> MixPhase:
        _check_shares(self.targets, f"phase {self.name}: targets")
        return self


class MixConfig(Strict):
    by: list[GroupColumn] = Field(default_factory=lambda: ["source"], min_length=1)
    # Group -> share of the tokens, adding up to 1; groups not listed are left out. Empty: every
    # document once, in the corpus's own proportions (a global shuffle of the corpus).
    targets: dict[str, Share] = Field(default_factory=dict)
    # Shard tokens to write; None: the most the targets allow without a group passing max_repeats.
    total_tokens: int | None = Field(None, ge=1)
    # Passes over a group at most (a pass: each of its documents once, times its weight). Four
    # passes cost little against fresh data (Muennighoff et al. 2023, "Scaling data-constrained LMs").
    max_repeats: float = Field(4.0, ge=1.0)
    # Quality-tier upweighting, e.g. {column: fineweb_edu_score, tiers: [{min: 3, weight: 1.5}]}.
    quality_tiers: TierWeights | None = None
    # FineWeb-2-style rehydration: weights by the size of the duplicate cluster a document was kept
    # from (dedup's dup_cluster_size), e.g. [{min: 2, max: 10, weight: 2}, {min: 10, weight: 3}].
    rehydration: list[WeightTier] = Field(default_factory=list)
    # The global shuffle (every shard holds every group) and the choice within a partial pass.
    seed: int = Field(0, ge=0, lt=2**64)
    # Curriculum: phases in order, written as consecutive shard groups; replaces `targets`.
    phases: list[MixPhase] = Field(default_factory=list)

    @model_validator(mode="after")
    def _consistent(self) -> MixConfig:
        _check_shares(self.targets, "mix.targets")
        if self.phases and self.targets:
            raise ValueError("mix.phases replaces mix.targets: give each phase its targets")
        _check_shares({phase.name: phase.share for phase in self.phases}, "the phases' shares")
        if self.rehydration and self.quality_tiers is not None and self.quality_tiers.column == "dup_cluster_size":
            raise ValueError("mix.quality_tiers on dup_cluster_size: that is mix.rehydration")
        names = [phase.name for phase in self.phases]
        if len(set(names)) != len(names):
            raise ValueError(f"phase names repeat: {names}")
        return self

    @property
    def builds_the_shards(self) -> bool:
        """Targets (or phases) set: a run's shards are mix's, built to them; else tokenize's."""
        return bool(self.targets or self.phases)

    def weight_columns(self) -> dict[str, tuple[tuple[float | None, float | None, float], ...]]:
        """Column -> its tiers as (min, max, weight), for every weighting configured."""
        columns = {"dup_cluster_size": self.rehydration} if self.rehydration else {}
        if self.quality_tiers is not None:
            columns[self.quality_tiers.column] = self.quality_tiers.tiers
        return {column: tuple(tier.bounds() for tier in tiers) for column, tiers in columns.items()}
