"""Spam signals on small documents (quality/spam.py), each with its own drop reason, and the keep
rules chosen by a document's domain."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from corpus_pipeline.document import empty_document
from corpus_pipeline.quality.config import QualityConfig, SpamConfig
from corpus_pipeline.quality.spam import SpamSignals, split_title
from corpus_pipeline.quality.stage import QualityStage
from corpus_pipeline.stats import StageStats
from corpus_pipeline.word_units import segment

ZH_BODY = (
    "国务院总理在北京主持召开常务会议，研究部署进一步促进经济平稳运行的措施。会议指出，今年以来各地区各部门"
    "认真贯彻落实党中央决策部署，经济运行总体平稳，就业和物价保持稳定。\n会议要求，要加大对中小企业的支持力度，"
    "落实好各项减税降费政策，帮助企业解决融资难、融资贵的问题，稳定市场预期。"
)
EN_BODY = (
    "The city council voted on Tuesday to expand the public library and to extend its opening hours. "
    "Members said that the branch had been overcrowded for years, and that students with nowhere else to "
    "study had filled the reading rooms every evening. The new wing will open next spring.\n"
    "The plan was approved by seven votes to two. Two members argued that the money should have gone to "
    "road repairs, which residents have asked for since the floods of last winter."
)


@pytest.fixture(scope="module")
def spam() -> SpamSignals:
    return SpamSignals(SpamConfig())


def signals(spam: SpamSignals, text: str) -> dict:
    return spam.signals(segment(text))


def verdict(text: str, language: str, domain: str | None = "web", config: QualityConfig | None = None):
    stage = QualityStage(config)
    doc = empty_document(id="d", text=text, language=language, domain=domain)
    return stage.process(doc, StageStats("quality"))


@pytest.mark.parametrize(
    "title",
    [
        "国务院常务会议研究经济运行_华体会",
        "【欧宝体育app】_欧宝体育app",
        "yabo手机版登录",
        "bt365手机下载",
        "必威betway中文版",
        "国务院常务会议研究经济运行——12betapp下载",
    ],
)
def test_a_title_naming_a_betting_brand_its_body_never_names_is_hijacked(spam, title):
    text = f"{title}\n{ZH_BODY}"
    assert signals(spam, text)["spam_title_hijack_terms"] >= 1
    assert verdict(text, "zh").reason == "spam_title_hijack_terms"


def test_english_hijack_and_a_news_report_on_the_brand(spam):
    hijacked = f"Council expands library | Bet365 Sports Betting\n{EN_BODY}"
    assert signals(spam, hijacked)["spam_title_hijack_terms"] == 2  # the brand and "sports betting"
    assert verdict(hijacked, "en").reason == "spam_title_hijack_terms"
    report = f"Bet365 fined over library ads\n{EN_BODY} Bet365 said it would appeal."
    assert signals(spam, report)["spam_title_hijack_terms"] == 0
    assert verdict(report, "en") is None
    plain = f"Council expands library\n{EN_BODY}"
    assert signals(spam, plain)["spam_title_hijack_terms"] == 0 and verdict(plain, "en") is None


def test_generic_terms_match_whole_words_in_the_title(spam):
    # "casino" is a term, "Casinos" too, but not "Casinoville" (a made-up town): whole words only.
    assert signals(spam, f"Casinoville council expands library\n{EN_BODY}")["spam_title_hijack_terms"] == 0
    assert signals(spam, f"Best online casino bonus\n{EN_BODY}")["spam_title_hijack_terms"] == 2


def test_the_title_is_a_short_first_line_that_is_not_a_sentence():
    assert split_title(f"Council expands library\n{EN_BODY}", 200) == ("Council expands library", EN_BODY)
    assert split_title(ZH_BODY, 200) is None  # the first line ends in 。: a lead paragraph
    assert split_title("A title alone", 200) is None
    assert split_title("x" * 201 + "\nbody", 200) is None


def test_a_title_repeating_its_keyword_is_keyword_stuffing(spam):
    stuffed = "深圳装修公司_深圳装修公司价格_深圳装修公司排名"
    value = signals(spam, f"{stuffed}\n{ZH_BODY}")["spam_title_self_repeat_frac"]
    assert value == pytest.approx(18 / 22)  # the keyword's 3 x 6 characters of the title's 22
    assert verdict(f"{stuffed}\n{ZH_BODY}", "zh").reason == "spam_title_self_repeat_frac"
    english = "Best Cheap Flights | Cheap Flights Deals | Cheap Flights Today"
    assert signals(spam, f"{english}\n{EN_BODY}")["spam_title_self_repeat_frac"] == pytest.approx(6 / 9)
    assert signals(spam, f"国务院常务会议研究经济运行\n{ZH_BODY}")["spam_title_self_repeat_frac"] == 0.0
    # A repeat inside one part is a headline's rhetoric (People's Daily, January 1998).
    assert signals(spam, f"成也规模败也规模\n{ZH_BODY}")["spam_title_self_repeat_frac"] == 0.0


def test_a_body_stuffed_with_the_titles_ngrams(spam):
    sentences = ZH_BODY.replace("\n", "").split("。")
    stuffed = "".join("深圳装修公司哪家好，" * 5 + s + "。" for s in sentences if s)
    value = signals(spam, f"深圳装修公司哪家好\n{stuffed}")["spam_title_repeat_frac"]
    plain = signals(spam, f"国务院召开常务会议\n{ZH_BODY}")["spam_title_repeat_frac"]
    assert value > 0.45 > 0.1 > plain
    # This much repetition trips Gopher's n-gram rules first; without them, the spam rule drops it.
    assert verdict(f"深圳装修公司哪家好\n{stuffed}", "zh").reason == "gopher_top_4gram_char_frac"
    ngram_rules = [f"gopher_top_{n}gram_char_frac" for n in (2, 3, 4)]
    ngram_rules += [f"gopher_dup_{n}gram_char_frac" for n in range(5, 11)]
    without = QualityConfig(rules={name: {"enabled": False} for name in ngram_rules})
    assert verdict(f"深圳装修公司哪家好\n{stuffed}", "zh", config=without).reason == "spam_title_repeat_frac"
    assert signals(spam, f"Title\n{EN_BODY[:100]}")["spam_title_repeat_frac"] is None  # body too short


def test_term_density_counts_from_five_matches(spam):
    four = f"{ZH_BODY}\n有人说华体会、必威、bet365和老虎机不可信。"
    assert signals(spam, four)["spam_term_density"] is None
    # Brands (not in the blocklist, which would drop the page first), matched anywhere.
    dense = f"{ZH_BODY}\n华体会、欧宝体育、必威betway、bet365都在这里。"
    assert signals(spam, dense)["spam_term_density"] == pytest.approx(5000 / len(dense))
    assert verdict(dense, "zh").reason == "spam_term_density"


def test_link_farm_lines_are_anchors_with_addresses(spam):
    farm = "\n".join(["友情链接"] + [f"装修公司{i} www.site{i}.com" for i in range(9)])
    assert signals(spam, farm)["spam_link_line_frac"] == pytest.approx(0.9)
    prose = "\n".join(f"{EN_BODY[:120]} Read more at www.example{i}.org today." for i in range(6))
    assert signals(spam, prose)["spam_link_line_frac"] == 0.0  # addresses inside paragraphs
    assert signals(spam, "a www.x.com\nb www.y.com")["spam_link_line_frac"] is None  # under 5 lines


def test_ad_lines_hold_offers_or_contacts(spam):
    ads = "\n".join(
        [
            "全新上市",
            "咨询热线：400-123-4567",
            "微信：vip888 全天在线",
            "全国包邮，限时特价",
            "联系我们 13912345678",
            "品质保证",
        ]
    )
    assert signals(spam, ads)["spam_ad_line_frac"] == pytest.approx(4 / 6)
    # A phone number counts as pii redacts it (pii runs first); raw, it is left to pii.
    english = "\n".join(["Great shoes", "Order now!", "Free shipping worldwide", "Call us: <PHONE>", "555 0100"])
    assert signals(spam, english)["spam_ad_line_frac"] == pytest.approx(3 / 5)
    assert signals(spam, "\n".join(EN_BODY.split(". ")))["spam_ad_line_frac"] == 0.0


def test_the_domain_picks_the_rule_set():
    # Headings and list items without end punctuation: a web page of them is dropped, an article not.
    headings = [
        "Early life", "Education", "Career", "Personal life", "Awards and honours", "Selected works",
        "Legacy", "Further reading", "External links", "See also", "Notes", "Bibliography",
        "Filmography", "Discography", "Publications",
    ]  # fmt: skip
    article = "\n".join([EN_BODY, *headings])
    assert verdict(article, "en", "web").reason == "fineweb_line_punct_ratio"
    assert verdict(article, "en", None).reason == "fineweb_line_punct_ratio"
    assert verdict(article, "en", "general").reason == "fineweb_line_punct_ratio"
    assert verdict(article, "en", "encyclopedia") is None
    on = QualityConfig(rules_by_domain={"encyclopedia": {"fineweb_line_punct_ratio": {"enabled": True}}})
    assert verdict(article, "en", "encyclopedia", on).reason == "fineweb_line_punct_ratio"


def test_domain_patches_merge_and_unknown_rules_need_a_signal():
    config = QualityConfig(
        rules_by_domain={"forum": {"gopher_word_count": {"by_language": {"zh": {"min": 10}}}}},
        rules={"gopher_word_count": {"min": 40}},
    )
    forum = config.domain_rules("forum")["gopher_word_count"]
    assert forum.min == 40 and forum.by_language["zh"].min == 10 and forum.by_language["ja"].min == 80
    assert config.domain_rules("encyclopedia")["gopher_word_count"].min == 40  # run-wide change kept
    assert config.domain_rules("web") is config.rules
    with pytest.raises(ValidationError, match="must name its signal"):
        QualityConfig(rules_by_domain={"news": {"no_such_rule": {"max": 1}}})
    with pytest.raises(ValueError, match="unknown signals"):
        QualityStage(QualityConfig(rules_by_domain={"news": {"odd": {"signal": "nothing", "max": 1}}}))
