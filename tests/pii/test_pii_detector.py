"""The whole detector: overlaps, placeholders, byte-for-byte preservation, Chinese text."""

import random

from corpus_pipeline.pii.config import PiiConfig
from corpus_pipeline.pii.detector import PiiDetector, redact, resolve_overlaps
from corpus_pipeline.pii.types import Span

DETECTOR = PiiDetector()


def test_every_placeholder_in_one_text():
    text = (
        "Mail a@b.com, call +1-984-182-0190, ip 8.8.8.8, card 4111 1111 1111 1111, "
        "IBAN GB82WEST12345698765432, SSN 460-89-9847, 身份证11010519491231002X, key=Zx9pQ2rT7vW4."
    )
    assert redact(text, DETECTOR.find(text)) == (
        "Mail <EMAIL>, call <PHONE>, ip <IP_ADDRESS>, card <CREDIT_CARD>, "
        "IBAN <IBAN>, SSN <ID_NUMBER>, 身份证<ID_NUMBER>, key=<SECRET>."
    )


def test_text_outside_matches_is_kept_byte_for_byte():
    noise = ["\u00a0", "\t", "\r\n", "é", "漢字", "🙂", "\u200b", "  ", ".", "，", "\ud800", "x "]
    random.seed(7)
    pieces, expected = [], []
    for index in range(200):
        filler = "".join(random.choice(noise) for _ in range(random.randint(1, 6)))
        pieces.append(filler)
        expected.append(filler)
        if index % 20 == 0:
            pieces.append(" 13812345678 ")
            expected.append(" <PHONE> ")
    text, want = "".join(pieces), "".join(expected)
    assert redact(text, DETECTOR.find(text)).encode("utf-8", "surrogatepass") == want.encode("utf-8", "surrogatepass")
    assert redact("nothing here", []) == "nothing here"


def test_overlaps_most_specific_then_longest_then_first():
    spans = [
        Span(0, 12, "phone"),
        Span(0, 11, "ssn"),
        Span(5, 30, "email"),
        Span(40, 45, "phone"),
        Span(40, 46, "phone"),
    ]
    assert resolve_overlaps(spans) == [Span(5, 30, "email"), Span(40, 46, "phone")]
    assert resolve_overlaps(list(reversed(spans))) == resolve_overlaps(spans)
    assert resolve_overlaps([Span(0, 5, "ip"), Span(0, 5, "ip")]) == [Span(0, 5, "ip")]


def test_overlap_resolution_matches_the_plain_definition_on_random_spans():
    from corpus_pipeline.pii.types import PII_TYPES, RANK

    random.seed(3)
    for _ in range(200):
        spans = []
        for _ in range(random.randint(0, 30)):
            start = random.randint(0, 100)
            spans.append(Span(start, start + random.randint(1, 15), random.choice(PII_TYPES)))
        accepted = []  # the definition, quadratic: best first, keep what overlaps nothing kept
        for span in sorted(set(spans), key=lambda s: (RANK[s.kind], s.start - s.end, s.start)):
            if all(span.end <= other.start or other.end <= span.start for other in accepted):
                accepted.append(span)
        assert resolve_overlaps(spans) == sorted(accepted)


def test_a_resident_id_that_passes_luhn_stays_an_id():
    number = "11010519491231002X"
    assert [s.kind for s in DETECTOR.find(f"ID {number}")] == ["cn_id"]
    luhn_id = next(  # an 18-digit valid resident ID that also passes Luhn with a card prefix
        candidate
        for serial in range(1000)
        for candidate in [_cn_id(f"41010519900101{serial:03d}")]
        if candidate[-1].isdigit() and _luhn(candidate)
    )
    assert [s.kind for s in DETECTOR.find(f"ID {luhn_id} ok")] == ["cn_id"]


def test_numbers_inside_emails_and_chinese_sentences():
    text = "请拨打13812345678联系，或发邮件至123456789@qq.com，地址：北京市"
    assert [(text[s:e], k) for s, e, k in DETECTOR.find(text)] == [
        ("13812345678", "phone"),
        ("123456789@qq.com", "email"),
    ]
    assert redact(text, DETECTOR.find(text)) == "请拨打<PHONE>联系，或发邮件至<EMAIL>，地址：北京市"


def test_full_width_numbers_and_addresses():
    text = "电话：０１０－１２３４５６７８，手机１３８１２３４５６７８，邮箱ｈｒ＠ｅｘａｍｐｌｅ．ｃｏｍ。"
    assert redact(text, DETECTOR.find(text)) == "电话：<PHONE>，手机<PHONE>，邮箱<EMAIL>。"


def test_disabled_types_are_not_looked_for():
    text = "a@b.com 460-89-9847 +1-984-182-0190"
    only_phone = PiiDetector(PiiConfig(types=["phone"]))
    assert [s.kind for s in only_phone.find(text)] == ["phone"]


def _cn_id(first17: str) -> str:
    from corpus_pipeline.pii.national_ids import cn_id_check_char

    return first17 + cn_id_check_char(first17)


def _luhn(digits: str) -> bool:
    from corpus_pipeline.pii.cards import luhn_valid

    return luhn_valid(digits)
