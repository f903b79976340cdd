"""Operator names anywhere in a page, and link-farm entry lines (quality/spam_operators.py), on
small documents: the shapes of real hijacks, with made-up operator names where a list is not the point."""

from __future__ import annotations

import pytest

from corpus_pipeline.document import empty_document
from corpus_pipeline.quality import spam_operators
from corpus_pipeline.quality.config import SpamConfig
from corpus_pipeline.quality.spam import SpamSignals
from corpus_pipeline.quality.stage import QualityStage
from corpus_pipeline.stats import StageStats
from corpus_pipeline.word_units import segment

ZH_NEWS = (
    "国务院总理在北京主持召开常务会议，研究部署进一步促进经济平稳运行的措施。会议指出，今年以来各地区各部门"
    "认真贯彻落实党中央决策部署，经济运行总体平稳，就业和物价保持稳定。\n会议要求，要加大对中小企业的支持力度，"
    "落实好各项减税降费政策，帮助企业解决融资难、融资贵的问题，稳定市场预期。"
)

# Four lines: what is appended after it lies past the head (HEAD_LINES = 3).
PAGE = "会议部署经济工作\n" + ZH_NEWS + "\n记者从会上了解到，相关措施将于下月起陆续实施，各地将结合实际抓好落实。\n"


@pytest.fixture(scope="module")
def spam() -> SpamSignals:
    return SpamSignals(SpamConfig())


def operators(spam: SpamSignals, text: str) -> int:
    return spam.signals(segment(text))["spam_operator_terms"]


def test_a_brand_spliced_into_the_body_with_a_trade_word(spam):
    # the title is clean and the brand is in the body: the old title-only rule saw nothing
    assert operators(spam, "会议部署经济工作\n" + ZH_NEWS + "\nyabo手机版登录:冻生开杂色蛤肉。") == 1
    assert operators(spam, "会议部署经济工作\n" + ZH_NEWS + "\n必威betway中文版，" + ZH_NEWS) == 2  # 必威, betway


def test_a_brand_in_the_head_counts_though_the_body_names_it(spam):
    assert operators(spam, "经济运行总体平稳_华体会\n" + ZH_NEWS + "华体会") == 1
    # the title is not always the first line: a menu line comes first
    assert operators(spam, "首页 | 新闻\n经济运行总体平稳_华体会\n" + ZH_NEWS) == 1
    # further down, a brand without a trade word is a news report's
    assert operators(spam, "英超赛况\n" + ZH_NEWS + "\n" + ZH_NEWS + "\n赞助商必威与球队续约。") == 0


def test_latin_brands_need_a_trade_word():
    spam = SpamSignals(SpamConfig())
    headline = "William Hill profits fall as betting shops close\nThe bookmaker said on Monday that ..."
    assert operators(spam, headline) == 0
    assert operators(spam, "Results\nDownload the bet365 app today and get a bonus.") == 0
    assert operators(spam, "赛事\nbet365手机版登录 立即注册") == 1


def test_lexicon_phrases_and_unlisted_operators(spam):
    assert operators(spam, PAGE + "澳门金沙娱乐城") == 1  # ToolGood.Words' phrase (its brand alone: no trade word)
    assert operators(spam, PAGE + "金龟子国际现金网网址：某某市") == 1  # made-up name, a sales tail
    assert operators(spam, PAGE + "王者金龟现金网") == 1  # any name before 现金网
    assert operators(spam, PAGE + "附近的银行现金网点已经恢复营业。") == 0
    assert operators(spam, PAGE + "中央电视台体育频道官网直播了比赛。") == 0  # 体育官网 is a broadcaster's


def test_operator_rule_drops_the_page():
    stage = QualityStage()
    text = PAGE + "yabo手机版登录"
    doc = empty_document(id="1", text=text, language="zh")
    verdict = stage.process(doc, StageStats("quality"))
    assert verdict is not None and verdict.reason == "spam_operator_terms"


def test_head_end_and_listing_lines_by_hand():
    assert spam_operators.head_end("a\n\nb\nc\nd") == len("a\n\nb\nc\n")
    lines = [
        "2020-06-19",
        "发布时间：2020-06-18 10:21 | 来源：本站",
        "某地举行活动",
        "2020年6月17日",
        "今天，这里举行了一场活动。",
    ]
    assert spam_operators.listing_line_frac(lines, 5) == pytest.approx(3 / 5)
    assert spam_operators.listing_line_frac(lines[:4], 5) is None


def test_adult_lexicon_counts_toward_density(spam):
    text = "首页\n" + "情色小说 成人电影 色情影片 淫荡视频 三级片 " * 2
    assert spam.signals(segment(text))["spam_term_density"] is not None  # 10 matches in ~50 characters
