from __future__ import annotations

import re

import pytest

from corpus_pipeline.normalize.boilerplate import BoilerplateFilter, required_literals, too_few_words
from corpus_pipeline.normalize.config import BoilerplateConfig

DEFAULT = BoilerplateFilter(BoilerplateConfig())

# Lines the default patterns remove, with the rule (name in line_patterns) that removes each.
REMOVED_BY_DEFAULT = {
    "This website uses cookies to improve your experience.": "cookie_banner",
    "We use cookies to ensure that we give you the best experience on our website.": "cookie_banner",
    "Cookie Policy": "cookie_banner",
    "Accept all cookies": "cookie_banner",
    "Please enable JavaScript to view the comments powered by Disqus.": "javascript_notice",
    "JavaScript is disabled in your browser.": "javascript_notice",
    "Privacy Policy": "footer_links",
    "Terms of Service": "footer_links",
    "All rights reserved.": "footer_links",
    "© 2024 Example Media Inc. All rights reserved.": "footer_links",  # the first rule that matches
    "Copyright © 2024 Example Inc.": "copyright_line",
    "Copyright 2023 The Daily Planet": "copyright_line",
    "Share this article": "share_prompt",
    "Follow us on Twitter": "share_prompt",
    "本网站使用cookie以提升体验": "zh_boilerplate",
    "本站使用 Cookie 来改善您的体验": "zh_boilerplate",
    "版权所有 © 2024 人民网": "zh_boilerplate",
    "点击查看隐私政策": "zh_boilerplate",
    "分享到：微信 微博 QQ空间": "zh_boilerplate",
    "关注我们": "zh_boilerplate",
}

# Article sentences that mention the same words and must survive.
ARTICLE_LINES = [
    "Cookies are a traditional snack in many countries.",
    "She baked cookies with her grandmother every Sunday.",
    "Copyright law was reformed in 1976.",
    "The privacy policy of the company was criticised by regulators.",
    "Share prices fell sharply on Monday.",
    "All rights reserved, the author told the court, meant nothing here.",
    "中国人民银行今日宣布下调存款准备金率。",
    "根据新的隐私政策，用户可以删除自己的数据。",
    "东京の桜は三月末に満開になりました。",
]


@pytest.mark.parametrize(("line", "rule"), REMOVED_BY_DEFAULT.items())
def test_default_patterns_remove_english_and_chinese_boilerplate(line, rule):
    assert DEFAULT.rule_for(line) == rule


@pytest.mark.parametrize("line", ARTICLE_LINES)
def test_default_patterns_keep_article_lines(line):
    assert DEFAULT.rule_for(line) is None
    assert DEFAULT.filter(line) == (line, {})


def test_filter_counts_lines_per_rule_and_keeps_paragraph_breaks():
    text = (
        "Cookies are a traditional snack in many countries.\n"
        "This website uses cookies to improve your experience.\n"
        "\n"
        "Privacy Policy\n"
        "\n"
        "中国人民银行今日宣布下调存款准备金率。\n"
        "本网站使用cookie以提升体验\n"
        "\n"
        "版权所有 © 2024 人民网\n"
        "Follow us on Twitter"
    )
    out, removed = DEFAULT.filter(text)
    # The removed "Privacy Policy" paragraph leaves one paragraph break, not two; the trailing
    # footer paragraph leaves no blank line at the end.
    assert out == f"{ARTICLE_LINES[0]}\n\n{ARTICLE_LINES[6]}"
    assert removed == {"cookie_banner": 1, "footer_links": 1, "zh_boilerplate": 2, "share_prompt": 1}


def test_unchanged_text_is_returned_as_is():
    text = "First paragraph.\n\nSecond paragraph."
    out, removed = DEFAULT.filter(text)
    assert out is text and removed == {}


def test_a_match_across_a_line_break_is_not_a_line_match():
    # Over the whole text `^copyright\s*\d{4}` matches "Copyright\n2024"; neither line matches alone.
    text = "Copyright\n2024 was a year of elections in many countries."
    assert DEFAULT.filter(text) == (text, {})


def test_a_line_matched_by_two_rules_counts_once_for_the_first():
    text = "Body text stays.\nCopyright 2024 Example. All rights reserved. This website uses cookies."
    assert DEFAULT.filter(text) == ("Body text stays.", {"cookie_banner": 1})


def test_disabled_filter_changes_nothing():
    off = BoilerplateFilter(BoilerplateConfig(enabled=False, min_words_per_line=3))
    text = "Privacy Policy\nHome\n本网站使用cookie以提升体验"
    assert off.filter(text) == (text, {})


def test_min_words_drops_short_english_lines_only():
    f = BoilerplateFilter(BoilerplateConfig(line_patterns={}, min_words_per_line=3))
    text = "\n".join(
        [
            "Home",  # 1 word: dropped
            "Read more",  # 2 words: dropped
            "The council met on Tuesday.",  # kept
            "",
            "中国人民银行今日宣布下调存款准备金率。",  # one whitespace token, Chinese: kept
            "关于我们",  # short, but Chinese: never dropped by the word rule
            "今日は晴れです。",  # Japanese: kept
            "สวัสดีครับ",  # Thai: kept
            "使用Docker部署",  # half Latin, still no spaces to count: kept
            "１２３４",  # full-width digits are not an unspaced script: dropped
        ]
    )
    out, removed = f.filter(text)
    assert out == "\n".join(
        [
            "The council met on Tuesday.",
            "",
            "中国人民银行今日宣布下调存款准备金率。",
            "关于我们",
            "今日は晴れです。",
            "สวัสดีครับ",
            "使用Docker部署",
        ]
    )
    assert removed == {"min_words": 3}


def test_too_few_words_share_rule():
    assert too_few_words("Click here", 3)
    assert not too_few_words("Click here now", 3)
    assert not too_few_words("新华社北京１月１日电", 3)
    assert too_few_words("Hello мир", 3)  # Cyrillic is written with spaces


def test_required_literals():
    assert required_literals(r"\bcookie (policy|settings)\b") == {"cookie "}
    assert required_literals(r"^(Privacy Policy|terms of (use|service))$") == {"privacy policy", "terms of "}
    assert required_literals(r"^(©|\(c\)|copyright)\s*\d{4}") == {"©", "(c)", "copyright"}
    assert required_literals(r"a|\w+") is None  # one branch needs no literal: search every document
    assert required_literals(r"\d{4}") is None


def _reference_filter_lines(patterns: dict[str, str], lines: list[str]) -> list[str]:
    """The obvious implementation: every pattern on every line."""
    compiled = [re.compile(p, re.IGNORECASE) for p in patterns.values()]
    return [line for line in lines if not any(p.search(line) for p in compiled)]


def test_fast_path_removes_exactly_the_lines_a_line_by_line_search_removes():
    lines = (
        list(REMOVED_BY_DEFAULT)
        + ARTICLE_LINES
        + [
            "JavaScript frameworks required a lot of boilerplate in 2015.",
            "The yahoo page claims the browser will not accept cookies",
            "Copyright",
            "2024 annual report",
            "ＣＯＯＫＩＥ ＰＯＬＩＣＹ",  # full-width: only matches after NFKC, in the normalize stage
        ]
    )
    text = "\n".join(lines)
    out, removed = DEFAULT.filter(text)
    expected = _reference_filter_lines(BoilerplateConfig().line_patterns, lines)
    assert out.split("\n") == expected
    assert sum(removed.values()) == len(lines) - len(expected)


def test_a_bad_pattern_fails_when_the_filter_is_built():
    with pytest.raises(re.error):
        BoilerplateFilter(BoilerplateConfig(line_patterns={"broken": "(unclosed"}))


# Phrasings a first, looser set of patterns missed or wrongly removed: kept as regression cases.
MORE_BOILERPLATE = [
    "Our website uses cookies to give you the best experience.",
    "You must have JavaScript enabled to use this site.",
    "JavaScript must be enabled to play this video.",
    "Privacy Policy | Terms of Use",
    "Copyright © 2024 Example Inc.",
    "© Copyright 2021 Acme Corp",
    "Copyright (c) 2019 Foo Ltd.",
    "我们使用Cookie来改善您的浏览体验",
    "接受所有Cookie",
]
MORE_ARTICLE_LINES = [
    "In this tutorial we enable strict mode in JavaScript.",
    "JavaScript frameworks required a lot of boilerplate in 2015.",
    "The EU's new cookie policy rules have changed how websites track users.",
    "Why you should never accept cookies from strangers, according to experts.",
    "Share this with your kids: a simple recipe for bread.",
    "Follow us on the journey through the Alps, said the guide.",
    "版权所有者可以向法院提起诉讼。",
    "关注我们身边的留守儿童",
    "分享到这里，大家应该明白了。",
    # From shared/data/text/en_webtext.txt (Firefox bug titles):
    "When javascript status bar changing is disabled",
    "Override cookie settings per cookie",
]


@pytest.mark.parametrize("line", MORE_BOILERPLATE)
def test_more_boilerplate_phrasings_are_removed(line):
    assert DEFAULT.rule_for(line) is not None


@pytest.mark.parametrize("line", MORE_ARTICLE_LINES)
def test_article_lines_about_cookies_javascript_and_copyright_survive(line):
    assert DEFAULT.rule_for(line) is None


def test_a_long_line_ending_in_all_rights_reserved_is_content_not_a_footer():
    page = "The festival programme lists forty concerts over three weekends in the old town. " * 6
    line = page + "All Rights Reserved."
    assert DEFAULT.rule_for(line) is None
    assert DEFAULT.rule_for("© 2024 Example Media Inc. All rights reserved.") == "footer_links"
