"""Config of the stages that drop or rewrite documents: dedup, pii, quality."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, NonNegativeFloat, field_validator

from corpus_pipeline.config.base import Strict


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


class DedupConfig(Strict):
    """Duplicate removal; methods run in order, each on what the previous one kept."""

    # "url" (one canonical URL fetched several times keeps its latest fetch) is opt-in: a page whose
    # text changed between fetches is a new version, not a copy. "simhash" is opt-in: it finds only
    # near-exact copies, a subset of what MinHash finds. "paragraph" (boilerplate removal) is opt-in
    # and rewrites the text, so the methods after it compare the cleaned text; put it after the
    # document methods (["exact", "minhash", "paragraph"]) so three copies of one article are one
    # document before their paragraphs are counted, and are not emptied as "repeated" paragraphs.
    methods: list[Literal["url", "exact", "minhash", "simhash", "paragraph"]] = Field(
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


class SignalBounds(Strict):
    """Keep a document when min <= signal <= max; an absent bound does not limit, and a signal that
    is null for a document (no stop-word list for its language, say) does not decide either."""

    min: float | None = None
    max: float | None = None
    enabled: bool = True


class KeepRule(SignalBounds):
    """One keep rule of the quality stage; its key in `QualityConfig.rules` is its drop reason.
    `by_language` overrides, for documents of that language, the fields it sets (min, max, enabled)."""

    signal: str
    by_language: dict[str, SignalBounds] = Field(default_factory=dict)


def _rule(signal: str, min: float | None = None, max: float | None = None, **by_language: dict) -> dict:
    return {"signal": signal, "min": min, "max": max, "by_language": by_language}


_CJK_OFF = {"zh": {"enabled": False}, "ja": {"enabled": False}}
# The default keep rules, in the order they are checked (the first that fails names the drop).
# English thresholds: Gopher (Rae et al. 2021, appendix A), C4 and FineWeb as published; zh/ja
# bounds are on character units (quality/words.py), calibrated on People's Daily articles in
# tests/quality/test_quality_realdata.py. Names are the signal names: what was out of bounds.
DEFAULT_QUALITY_RULES: dict[str, dict] = {
    "gopher_word_count": _rule("gopher_word_count", 50, 100_000, zh={"min": 80, "max": 200_000}, ja={"min": 80}),
    # Korean is space-separated, but each Hangul block is a syllable: words run 2-3 blocks long.
    "gopher_mean_word_length": _rule("gopher_mean_word_length", 3, 10, **_CJK_OFF, ko={"min": 1.5}),
    "gopher_symbol_word_ratio": _rule("gopher_symbol_word_ratio", max=0.1),
    "gopher_bullet_lines_frac": _rule("gopher_bullet_lines_frac", max=0.9),
    "gopher_ellipsis_lines_frac": _rule("gopher_ellipsis_lines_frac", max=0.3),
    "gopher_alpha_words_frac": _rule("gopher_alpha_words_frac", min=0.8),
    "gopher_stop_words": _rule("gopher_stop_words", min=2),
    "gopher_dup_line_frac": _rule("gopher_dup_line_frac", max=0.3),
    "gopher_dup_para_frac": _rule("gopher_dup_para_frac", max=0.3),
    "gopher_dup_line_char_frac": _rule("gopher_dup_line_char_frac", max=0.2),
    "gopher_dup_para_char_frac": _rule("gopher_dup_para_char_frac", max=0.2),
    **{
        f"gopher_top_{n}gram_char_frac": _rule(f"gopher_top_{n}gram_char_frac", max=limit)
        for n, limit in ((2, 0.20), (3, 0.18), (4, 0.16))
    },
    # Chinese/Japanese n-grams are of characters (a word is 1-3 of them), and news repeats names and
    # set phrases (中华人民共和国): each zh/ja bound lies above the 99.5th percentile of the signal
    # on People's Daily articles (dup 5-gram: 0.309, 10-gram: 0.188).
    **{
        f"gopher_dup_{n}gram_char_frac": _rule(
            f"gopher_dup_{n}gram_char_frac", max=limit, zh={"max": cjk_limit}, ja={"max": cjk_limit}
        )
        for n, limit, cjk_limit in (
            (5, 0.15, 0.35),
            (6, 0.14, 0.32),
            (7, 0.13, 0.29),
            (8, 0.12, 0.26),
            (9, 0.11, 0.23),
            (10, 0.10, 0.20),
        )
    },
    "c4_lorem_ipsum_lines": _rule("c4_lorem_ipsum_lines", max=0),
    "c4_curly_bracket_lines": _rule("c4_curly_bracket_lines", max=0),
    "fineweb_line_punct_ratio": _rule("fineweb_line_punct_ratio", min=0.12),
    "fineweb_short_line_ratio": _rule("fineweb_short_line_ratio", max=0.67),
    "fineweb_dup_line_char_ratio": _rule("fineweb_dup_line_char_ratio", max=0.01),
    "fineweb_list_ratio": _rule("fineweb_list_ratio", max=0.3),
    "quality_classifier_score": _rule("quality_classifier_score", min=0.5),
}


def _merge(defaults: dict, given: dict) -> dict:
    merged = dict(defaults)
    for key, value in given.items():
        old = merged.get(key)
        merged[key] = _merge(old, value) if isinstance(old, dict) and isinstance(value, dict) else value
    return merged


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
    # Stop words per language, replacing the built-in lists of quality/words.py for that language.
    stop_words_by_language: dict[str, list[str]] = Field(default_factory=dict)
    # Reference vocabularies per language (one entry per line, plain or .gz), replacing the shipped
    # en and zh lists (quality/reference_vocab.py says how those were built).
    reference_vocabularies: dict[str, str] = Field(default_factory=dict)
    blocklists: list[BlocklistConfig] = Field(default_factory=_default_blocklists)
    classifier: QualityClassifierConfig = Field(default_factory=QualityClassifierConfig)
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
        return _merge(DEFAULT_QUALITY_RULES, given)
