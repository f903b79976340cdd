"""Config of the stages that drop or rewrite documents: dedup, pii, quality."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, NonNegativeFloat, field_validator, model_validator

from corpus_pipeline.config.base import Strict
from corpus_pipeline.config.keep_rules import (
    DEFAULT_QUALITY_RULES,
    DEFAULT_RULES_BY_DOMAIN,
    KeepRule,
    KeepRulePatch,
    merge_rules,
)


class SimhashConfig(Strict):
    """Document-level SimHash (dedup/simhash.py): 64-bit fingerprints of the MinHash shingles; two
    documents within max_distance differing bits are duplicates."""

    # 3, Manku et al.'s choice for 64-bit fingerprints (WWW 2007): 4 blocks of 16 bits keep a block
    # bucket at n / 65,536 unrelated documents (15 at 10^6), and two unrelated fingerprints are this
    # close with probability 2.4 * 10^-15. 3 bits is a shingle Jaccard of about 0.97: on web_docs.jsonl
    # with planted copies (`eval dedup --plant 1`) it finds the 4 real page copies and 0 of the 89
    # planted copies at J >= 0.7, precision 1.0 (planted copies at J 0.8-0.9 differ in 11 bits on
    # average, 9.5 in Chinese). max_distance 10 finds 32 of the 89, still at precision 1.0, but its 11
    # blocks of 6 bits put n / 64 documents in a bucket. MinHash at 0.7 finds 70: SimHash is the cheap
    # pass for near-exact copies (fingerprints 3-4x faster than 128-permutation signatures).
    # At most 15: past that, blocks of 4 bits put 1/16 of the corpus in every bucket.
    max_distance: int = Field(3, ge=0, le=15)
    # Guard against huge buckets: each member of a bucket, sorted by fingerprint then id, is compared
    # with the next `window` members only. 64 compares every pair of any bucket up to 65 members
    # (n / 65,536 is 65 at 4 * 10^6 documents), and a bucket of 100,000 identical boilerplate pages
    # costs 6.4 * 10^6 comparisons instead of 5 * 10^9; identical fingerprints sort next to each other.
    window: int = Field(64, ge=1)


class ParagraphDedupConfig(Strict):
    """CCNet-style boilerplate removal (dedup/paragraphs.py): paragraphs found in at least
    min_documents documents are removed from all of them."""

    # 5: on web_docs.jsonl (1,432 pages of many sites) the 36 paragraphs in >= 5 documents are
    # comment, contact and heading boilerplate ("Kommentare", "Pressekontakt:", "Liebe Grüße",
    # "Ingredients") and list markers ("1.)", "[13]"), and on
    # People's Daily articles the 18 are bylines and captions (图片：, 本报评论员); at >= 2, the 486
    # include recipe lines such as "300 g Mehl" and shared quotations: content, not boilerplate.
    min_documents: int = Field(5, ge=2)
    # A document left with fewer characters (after dedup normalization, so "***" counts 0) is
    # rejected as empty_after_paragraph_dedup. 1 rejects only what removal emptied: how short is
    # too short is the quality stage's call (gopher_word_count), not dedup's.
    min_chars: int = Field(1, ge=1)


class SemanticDedupConfig(Strict):
    """SemDeDup (dedup/semantic.py): k-means clusters of the documents' embeddings (the embed
    stage's `embedding` column), and within a cluster every pair at or above a cosine threshold."""

    # Cosine of two unit vectors. 0.9 on 200 real pages with 92 planted paraphrases: e5 precision
    # 0.978, recall 0.946 (at 0.85: 0.519 / 0.924, unrelated pages of one language sit near 0.8);
    # MiniLM 1.000 / 0.489 (at 0.85: 0.966 / 0.620). benchmarks/bench_semantic_dedup.py.
    threshold: float = Field(0.9, gt=0.0, le=1.0)
    # Average documents per k-means cluster: k = ceil(n / cluster_size). Pairs are compared within a
    # cluster only, so the work is ~n * cluster_size dot products (10^9 for 10^6 documents at 1,000:
    # seconds of numpy) instead of n^2 / 2; a paraphrase lands in its original's cluster unless the
    # two sit near a border, which a larger cluster makes rarer.
    cluster_size: int = Field(1000, ge=2)
    # k-means is fitted on at most this many vectors (a seeded sample, dedup.seed), then every
    # vector is assigned to its nearest centre: 100,000 x 384 float32 is 150 MB.
    fit_sample: int = Field(100_000, ge=100)
    # The vectors are gathered on the driver (768 bytes each at 384 dimensions, ~1.5 GB at this
    # bound, ids and keep columns besides): past it the stage refuses rather than exhaust the driver.
    max_documents: int = Field(2_000_000, ge=1)


class DedupConfig(Strict):
    """Duplicate removal; methods run in order, each on what the previous one kept."""

    # "url" (one canonical URL fetched several times keeps its latest fetch) is opt-in: a page whose
    # text changed between fetches is a new version, not a copy. "simhash" is opt-in: it finds only
    # near-exact copies, a subset of what MinHash finds. "paragraph" (boilerplate removal) is opt-in
    # and rewrites the text, so the methods after it compare the cleaned text; put it after the
    # document methods (["exact", "minhash", "paragraph"]) so three copies of one article are one
    # document before their paragraphs are counted, and are not emptied as "repeated" paragraphs.
    # "semantic" (SemDeDup on the embed stage's vectors) is opt-in: it needs the embed stage
    # (embeddings.enabled) and drops paraphrases as well as copies.
    methods: list[Literal["url", "exact", "minhash", "simhash", "paragraph", "semantic"]] = Field(
        default_factory=lambda: ["exact", "minhash"], min_length=1
    )

    # Jaccard threshold for banding and for verifying a candidate pair by its estimated Jaccard. 0.7
    # (not 0.8) so that pairs at J=0.8 are caught: 98.6% become candidates and 99.7% pass verification.
    threshold: float = Field(0.7, gt=0.0, lt=1.0)
    num_perm: int = Field(128, ge=8, le=1024)
    # datasketch's weights for choosing bands x rows; recall weighs more: a missed copy stays forever.
    false_positive_weight: float = Field(0.2, ge=0.0)
    false_negative_weight: float = Field(0.8, ge=0.0)
    word_ngram: int = Field(5, ge=1)
    char_ngram: int = Field(5, ge=1)  # Chinese, Japanese, Thai...: ~3 words of Chinese
    seed: int = 1
    # Kept document of a cluster: highest value of this column when the input has it, then
    # earliest `date`, then smallest id.
    prefer_column: str | None = "quality_classifier_score"
    # Before all of that, the `source` column: a cluster keeps the copy of the first source listed
    # here that it holds (sources not listed, and documents without one, come after them). A run
    # with pipeline.sources fills it from their priorities.
    source_priority: list[str] = Field(default_factory=list)
    # Output parts (hash of id); None: as many as the input has. Fixed by the data, not by Spark's
    # partitioning, so the output bytes do not depend on the cluster.
    output_parts: int | None = Field(None, ge=1)
    simhash: SimhashConfig = Field(default_factory=SimhashConfig)
    paragraph: ParagraphDedupConfig = Field(default_factory=ParagraphDedupConfig)
    semantic: SemanticDedupConfig = Field(default_factory=SemanticDedupConfig)

    @field_validator("methods")
    @classmethod
    def _each_method_once(cls, methods: list[str]) -> list[str]:
        repeated = sorted({m for m in methods if methods.count(m) > 1})
        if repeated:
            raise ValueError(f"each method may appear once; repeated: {', '.join(repeated)}")
        return methods


PiiTypeName = Literal["email", "phone", "ip", "card", "iban", "ssn", "cn_id", "secret"]


class PiiConfig(Strict):
    # Types detected, counted and (with `redact`) replaced; a type left out gets a null count column.
    types: list[PiiTypeName] = Field(
        default_factory=lambda: ["email", "phone", "ip", "card", "iban", "ssn", "cn_id", "secret"]
    )
    # Replace every match with its typed placeholder (<EMAIL>, <PHONE>...); False: count only.
    redact: bool = True
    # Also find `name [at] domain [dot] com`, `name(at)domain.com` and `name AT domain DOT com`.
    obfuscated_emails: bool = True
    # Private, loopback, link-local and reserved addresses identify nobody: only public ones count.
    public_ips_only: bool = True
    # A value assigned to a name like api_key, token, password or secret is a secret when it has at
    # least secret_min_length characters, a digit, and this Shannon entropy in bits per character.
    # 3.0 passes random keys (16 random base62 characters average 3.77) and passwords such as
    # `password123` (3.28), not placeholders like `changeme` (2.75) or `xxxxxxxx1` (0.50).
    secret_min_length: int = Field(8, ge=1)
    secret_min_entropy: float = Field(3.0, ge=0.0)
    # Keep rule: drop a document whose PII matches per 1,000 characters exceed max_density (all
    # enabled types together; None turns the rule off) or a per-type limit in max_density_by_type,
    # e.g. {"secret": 0.1}. Density is meaningless on a short text (one address in a 120-character
    # note is 8.3 per 1,000), so both apply only from density_min_matches matches on. Of the 1,432
    # real documents of shared/data/dedup/web_docs.jsonl, 80 hold PII and these defaults drop 2: a
    # list of 362 MPs' addresses (9.8 per 1,000) and a directory of 61 hotline numbers (11.7); the
    # next densest document with 5+ matches has 3.7.
    max_density: float | None = Field(5.0, gt=0.0)
    max_density_by_type: dict[PiiTypeName, NonNegativeFloat] = Field(default_factory=dict)
    density_min_matches: int = Field(5, ge=1)


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
