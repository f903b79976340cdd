"""The `quality:` section: spam signals, blocklists, the classifier and score head, keep rules and gates."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator, model_validator

from corpus_pipeline.config_base import Strict
from corpus_pipeline.quality.keep_rules import (
    DEFAULT_QUALITY_RULES,
    DEFAULT_RULES_BY_DOMAIN,
    KeepRule,
    KeepRulePatch,
    merge_rules,
)


class SpamConfig(Strict):
    """Spam signals (quality/spam.py); their bounds are keep rules like every other signal's."""

    # The first line is the title when at most this long and more text follows. ABC's first lines
    # run to 150 characters (a headline sentence), and a hijacked title adds ~25 to a real one.
    title_max_chars: int = Field(200, ge=1)
    # Title repeats are measured on a body of at least this many word units (shorter: null).
    min_body_units: int = Field(50, ge=1)
    # spam_term_density counts from this many matches on (fewer: null, the rule decides nothing):
    # one news item naming a term twice and another once is no spam.
    min_term_matches: int = Field(5, ge=1)
    # The line shares are measured on documents of at least this many non-empty lines.
    min_lines: int = Field(5, ge=1)
    # Term lists (gambling, adult), the brand list and the ad-marker list, one entry per line;
    # empty/None: the lists shipped in quality/data (spam_terms_zh.txt, spam_terms_adult_zh.txt, spam_terms_en.txt,
    # spam_brands.txt, spam_ad_markers.txt).
    term_lists: list[str] = Field(default_factory=list)
    brands: str | None = None
    ad_markers: str | None = None
    # Phrases of the betting-operator trade, one of which in a page is spam (spam_operator_terms);
    # None: quality/data/spam_operator_phrases_zh.txt.
    operator_phrases: str | None = None


class BlocklistConfig(Strict):
    # The drop reason is `blocklist_<name>` and the match count column `blocklist_<name>`.
    name: str = Field(pattern=r"^[a-z0-9_]+$")
    # domains: the URL's host or any parent domain is listed. keywords: case-insensitive terms,
    # whole words in space-separated text, anywhere in Chinese/Japanese.
    kind: Literal["domains", "keywords"]
    # One entry per line, `#` comments. None: the list shipped as quality/data/blocklist_<name>.txt.
    path: str | None = None
    # Keyword lists: documents of these languages only; empty: every document.
    languages: list[str] = Field(default_factory=list)
    # Keyword lists: dropped above this many matches per 1,000 characters (domain lists: any match),
    # counting from min_matches matches on: a news report naming a term twice in 500 characters is
    # 4 per 1,000 but no spam.
    max_per_1000_chars: float = Field(1.0, ge=0.0)
    min_matches: int = Field(3, ge=1)


def _default_blocklists() -> list[BlocklistConfig]:
    return [
        BlocklistConfig(name="adult_domains", kind="domains"),
        BlocklistConfig(name="spam_keywords_en", kind="keywords", languages=["en"]),
        BlocklistConfig(name="spam_keywords_zh", kind="keywords", languages=["zh"]),
    ]


class QualityClassifierConfig(Strict):
    # A fastText supervised model (`corpus-pipeline quality train-classifier`); None: no classifier.
    # Its probability of `positive_label` becomes the signal `quality_classifier_score`.
    model_path: str | None = None
    positive_label: str = "hq"


class ScoreHeadConfig(Strict):
    """The embedding quality head (embeddings/quality_head.py): the `quality_score` column, the
    head's probability that a document reads like reference text (Wikipedia, news) rather than a
    random web page. Mix weights it by tier: `mix.quality_tiers: {column: quality_score, tiers:
    [{min: 0.8, weight: 1.5}]}`; a keep rule drops by it: `quality.rules.quality_score: {signal:
    quality_score, min: 0.2}`."""

    # Off by default: it runs a transformer on every document (~18 documents/s on 2 CPU cores, more
    # than every other stage together; needs the `embed` extra). Off, `quality_score` is null.
    enabled: bool = False
    # A head written by `corpus-pipeline quality train-head`; None: the one shipped in
    # corpus_pipeline/embeddings/data/quality_head.npz (its .json names its sources).
    path: str | None = None
    device: Literal["auto", "cpu", "cuda"] = "auto"
    batch_size: int = Field(32, ge=1)


class QualityGatesConfig(Strict):
    # Corpus-level gates over a run's final corpus, per language (`corpus-pipeline gates RUN_DIR`).
    min_vocab_coverage: float = Field(0.98, ge=0.0, le=1.0)
    max_duplicate_ratio: float = Field(0.005, ge=0.0, le=1.0)
    # Word-weighted mean character entropy, bits per character, must lie in the band. Measured on
    # the real pages (shared/data/web): en 4.57, de 4.62, es 4.46, fr 4.53, zh 8.11, ja 7.16.
    entropy_band: tuple[float, float] = (3.5, 5.5)
    entropy_band_by_language: dict[str, tuple[float, float]] = Field(
        default_factory=lambda: {"zh": (6.0, 10.0), "ja": (5.5, 10.0)}
    )
    # Languages gated; empty: every language with at least min_documents documents (fewer: listed
    # in the report, not gated: a handful of documents says nothing about a corpus).
    languages: list[str] = Field(default_factory=list)
    min_documents: int = Field(20, ge=1)


class QualityConfig(Strict):
    # Keep rules, merged key by key over DEFAULT_QUALITY_RULES: `--set quality.rules.gopher_word_count.min=30`
    # changes one bound and keeps every other rule; `enabled: false` turns a rule off.
    rules: dict[str, KeepRule] = Field(default_factory=lambda: dict(DEFAULT_QUALITY_RULES), validate_default=True)
    # FineWeb's short line: at most this many characters (30 in FineWeb; CJK lines carry more per char).
    short_line_chars: int = Field(30, ge=1)
    short_line_chars_by_language: dict[str, int] = Field(default_factory=lambda: {"zh": 10, "ja": 10})
    # Stop words per language, replacing the built-in lists of word_units.py for that language.
    stop_words_by_language: dict[str, list[str]] = Field(default_factory=dict)
    # Reference vocabularies per language (one entry per line, plain or .gz), replacing the shipped
    # en and zh lists (quality/reference_vocab.py says how those were built).
    reference_vocabularies: dict[str, str] = Field(default_factory=dict)
    # Domain -> changes to `rules` for documents of that `domain` (merged key by key over
    # DEFAULT_RULES_BY_DOMAIN; `rules_by_domain.news: {}` keeps the defaults, and web rules for
    # news need `rules_by_domain.news.fineweb_line_punct_ratio.enabled=true`).
    rules_by_domain: dict[str, dict[str, KeepRulePatch]] = Field(
        default_factory=lambda: dict(DEFAULT_RULES_BY_DOMAIN), validate_default=True
    )
    spam: SpamConfig = Field(default_factory=SpamConfig)
    blocklists: list[BlocklistConfig] = Field(default_factory=_default_blocklists)
    classifier: QualityClassifierConfig = Field(default_factory=QualityClassifierConfig)
    score_head: ScoreHeadConfig = Field(default_factory=ScoreHeadConfig)
    # Noise retention: this fraction of the documents the rules reject is kept anyway, flagged
    # `retained_noise` (over-cleaned corpora make models brittle on messy text). Chosen by a seeded
    # hash of the document id, so a rerun keeps the same documents.
    noise_retention: float = Field(0.0, ge=0.0, le=1.0)
    noise_seed: int = 0
    gates: QualityGatesConfig = Field(default_factory=QualityGatesConfig)

    @field_validator("rules", mode="before")
    @classmethod
    def _merge_over_defaults(cls, given: dict) -> dict:
        if not isinstance(given, dict):
            return given
        return merge_rules(DEFAULT_QUALITY_RULES, given)

    @field_validator("rules_by_domain", mode="before")
    @classmethod
    def _merge_domains_over_defaults(cls, given: dict) -> dict:
        if not isinstance(given, dict):
            return given
        return merge_rules(DEFAULT_RULES_BY_DOMAIN, given)

    @model_validator(mode="after")
    def _domain_rules_resolve(self) -> QualityConfig:
        for domain in self.rules_by_domain:
            self.domain_rules(domain)  # a patch of an unknown rule without a signal fails here
        return self

    def domain_rules(self, domain: str | None) -> dict[str, KeepRule]:
        """The keep rules for documents of `domain`: `rules` with the domain's patches applied."""
        patches = self.rules_by_domain.get(domain) if domain is not None else None
        if not patches:
            return self.rules
        rules = dict(self.rules)
        for name, patch in patches.items():
            # None is "not changed" (a config written back whole spells every field out).
            changes = {key: value for key, value in patch.model_dump(exclude_unset=True).items() if value is not None}
            if name in rules:
                old = rules[name].model_dump(exclude_unset=True)
                if "by_language" in changes:  # merged language by language, as `rules` merges
                    changes["by_language"] = merge_rules(old.get("by_language", {}), changes["by_language"])
                rules[name] = KeepRule.model_validate({**old, **changes})
            elif "signal" not in changes:
                raise ValueError(
                    f"quality.rules_by_domain.{domain}.{name}: no rule of that name in quality.rules, "
                    "so it must name its signal"
                )
            else:
                rules[name] = KeepRule(**changes)
        return rules
