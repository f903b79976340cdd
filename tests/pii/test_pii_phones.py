import pytest

from corpus_pipeline.pii.config import PiiConfig
from corpus_pipeline.pii.detector import PiiDetector


def phones(text):
    return [text[s:e] for s, e, _ in PiiDetector(PiiConfig(types=["phone"])).find(text)]


@pytest.mark.parametrize(
    "number",
    [
        "+1-984-182-0190",
        "+46 (0)8 928 571 38",
        "+447700 921 916",
        "+4915208649244",
        "001-518-640-0854",
        "905-674-3793",
        "259.735.7502x459",
        "(579)888-3058",
        "(898)666-3621x0135",
        "1-800-273-8255",
        "(37) 788-063",
        "01.84.17.61.18",
        "71-33-52-22",
    ],
)
def test_phone_layouts_found_without_any_cue(number):
    assert phones(f"x {number} y") == [number]


@pytest.mark.parametrize(
    "text, number",
    [
        ("Phone: 0490 75 40 81", "0490 75 40 81"),
        ("Can someone call me on 9472 7916? Thanks", "9472 7916"),
        ("Fax: 9498777106", "9498777106"),
        ("781 1704 office", "781 1704"),
        ("21 253 109 8211-Office", "21 253 109 8211"),
        ("They're not answering at 99 668472", "99 668472"),
        ("Personal Info:\nPhone:\n467 3395\n", "467 3395"),
        ("T: 020 7946 0958", "020 7946 0958"),
    ],
)
def test_loose_layouts_need_a_cue(text, number):
    assert phones(text) == [number]
    assert phones(f"The restaurant is at {number} Crown St") == []


def test_street_numbers_dates_and_versions_are_not_phones():
    assert phones("The restaurant is at 17151 2450 Crown St") == []
    assert phones("Scott had given Belle his address: 975 3968 Bay Street") == []
    assert phones("Date: 1978-04-13 12:20:39\nName: Toshimi Arata") == []
    assert phones("Nourani, M. (2016-02-01). Nonlinear dimension") == []
    assert phones("Mozilla/5.0 Chrome/59.0.3071.125 Mobile Safari/537.36") == []
    assert phones("courses 624-634 301-302+456 58-62 53-60 X") == []
    assert phones("in 2019 1,234,567 people") == []


def test_chinese_mobiles_and_landlines():
    assert phones("请拨打13812345678联系") == ["13812345678"]
    assert phones("手机：138 1234 5678，微信同号") == ["138 1234 5678"]
    assert phones("手机138-1234-5678") == ["138-1234-5678"]
    assert phones("电话：010-12345678；传真（0755）") == ["010-12345678"]
    assert phones("咨询电话：(0755)12345678") == ["(0755)12345678"]
    assert phones("游客咨询电话：58792888\n备注") == ["58792888"]
    assert phones("有意思的联系QQ 282369262 我手机13431221132") == ["13431221132"]
    assert phones("请客服及时联系我。174208675是我的订单编号") == []
    assert phones("收到一张发票号码：02840189") == []
    # A cue-less 8-digit run in Chinese text is no phone; a mobile glued to ASCII letters is a token.
    assert phones("共计58792888元") == []
    assert phones("id13812345678x") == []
