"""The `normalize:` section: Unicode form, repairs, whitespace, and the boilerplate lines removed."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from corpus_pipeline.config_base import Strict

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
