"""The tokenizer's training sample: which documents, decided by a seeded hash of their id.

Each language gets a share of `sample_bytes`: its share of the corpus's text bytes, or its
configured weight. A document of language L is in the sample when
    pmod(xxhash64("<seed>:<id>"), 2^31) < threshold[L],  threshold[L] = 2^31 * min(1, share / bytes[L])
the same integer test in Spark (built-in xxhash64) and here, so the sample does not depend on the
partitioning or the runner, and a new seed draws a new sample.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from corpus_pipeline.tokenize.config import TrainTokenizerConfig
from corpus_pipeline.tokenize.sharding import signed_xxhash64

SAMPLE_MODULUS = 2**31
UNKNOWN_LANGUAGE = "unknown"  # documents without a language (langid not run)


@dataclass
class LanguageShare:
    corpus_docs: int
    corpus_bytes: int
    weight: float = 0.0
    threshold: int = 0  # out of SAMPLE_MODULUS
    sample_docs: int = 0  # filled while the sample streams
    sample_bytes: int = 0

    def to_dict(self) -> dict:
        return {**self.__dict__, "probability": round(self.threshold / SAMPLE_MODULUS, 6)}


@dataclass
class SamplePlan:
    seed: int
    languages: dict[str, LanguageShare] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    @property
    def thresholds(self) -> dict[str, int]:
        return {language: share.threshold for language, share in sorted(self.languages.items()) if share.threshold}

    def to_dict(self) -> dict:
        return {
            "seed": self.seed,
            "languages": {language: share.to_dict() for language, share in sorted(self.languages.items())},
            "notes": self.notes,
        }


def plan_sample(totals: dict[str, tuple[int, int]], config: TrainTokenizerConfig) -> SamplePlan:
    """totals: language -> (documents, text bytes) of the whole input."""
    plan = SamplePlan(config.seed, {lang: LanguageShare(docs, nbytes) for lang, (docs, nbytes) in totals.items()})
    corpus_bytes = sum(share.corpus_bytes for share in plan.languages.values())
    if config.language_weights:
        total_weight = sum(config.language_weights.values())
        if total_weight <= 0:
            raise ValueError("train_tokenizer.language_weights must have a positive weight")
        weights = {lang: w / total_weight for lang, w in config.language_weights.items()}
        for language in sorted(set(weights) - set(plan.languages)):
            plan.notes.append(f"language {language!r} has weight {weights[language]:.3f} but no documents")
    else:
        weights = {lang: share.corpus_bytes / corpus_bytes for lang, share in plan.languages.items() if corpus_bytes}
    for language, share in plan.languages.items():
        share.weight = weights.get(language, 0.0)
        if share.corpus_bytes and share.weight:
            probability = min(1.0, config.sample_bytes * share.weight / share.corpus_bytes)
            share.threshold = max(1, round(probability * SAMPLE_MODULUS))
            if probability == 1.0 and config.language_weights:
                want = config.sample_bytes * share.weight
                if want > share.corpus_bytes:
                    plan.notes.append(
                        f"language {language!r}: all {share.corpus_bytes:,} bytes taken, "
                        f"{want:,.0f} wanted (the sample is lighter in it than the weights ask)"
                    )
    return plan


def sample_key(seed: int, document_id: str) -> int:
    return signed_xxhash64(f"{seed}:{document_id}") % SAMPLE_MODULUS


def in_sample(plan: SamplePlan, document_id: str, language: str | None) -> bool:
    share = plan.languages.get(language or UNKNOWN_LANGUAGE)
    return share is not None and sample_key(plan.seed, document_id) < share.threshold
