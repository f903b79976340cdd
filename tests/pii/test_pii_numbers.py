"""Cards (Luhn), IBAN (mod-97), SSN (ranges), Chinese resident IDs (MOD 11-2), IP addresses."""

import datetime

import pytest

from corpus_pipeline.pii.cards import luhn_valid
from corpus_pipeline.pii.config import PiiConfig
from corpus_pipeline.pii.detector import PiiDetector
from corpus_pipeline.pii.iban import iban_valid
from corpus_pipeline.pii.national_ids import cn_id_check_char, cn_id_valid, ssn_valid


def found(text, kind, **config):
    return [text[s:e] for s, e, k in PiiDetector(PiiConfig(types=[kind], **config)).find(text) if k == kind]


def test_luhn():
    assert luhn_valid("4111111111111111") and luhn_valid("378282246310005")
    assert not luhn_valid("4111111111111112")


@pytest.mark.parametrize(
    "card", ["4454794511390933", "4111 1111 1111 1111", "5500-0000-0000-0004", "3782 822463 10005", "630427373398"]
)
def test_cards_with_a_valid_checksum(card):
    assert found(f"card {card}, thanks", "card") == [card]


def test_cards_failing_luhn_or_issuer_are_not_cards():
    assert found("card 4111111111111112", "card") == []  # Luhn fails
    assert luhn_valid("9783064061569")
    assert found("ISBN 9783064061569", "card") == []  # an ISBN-13 that passes Luhn: no issuer starts with 9
    assert found("posts/2395361813834269 and 3.4111111111111111", "card") == []  # a path, a decimal


def test_iban_mod97_and_country_length():
    assert iban_valid("GB82WEST12345698765432") and iban_valid("de89370400440532013000")
    assert not iban_valid("GB82WEST12345698765433")  # mod-97 fails
    assert not iban_valid("GB82WEST1234569876543")  # one short for GB
    text = "IBAN: DE89 3704 0044 0532 0130 00, or gb82west12345698765432."
    assert found(text, "iban") == ["DE89 3704 0044 0532 0130 00", "gb82west12345698765432"]
    assert found("XDE89370400440532013000 and DE89370400440532013001", "iban") == []


def test_ssn_valid_ranges():
    assert ssn_valid("460-89-9847") and ssn_valid("853 37 1694")
    for invalid in ("000-12-3456", "666-12-3456", "912-12-3456", "123-00-4567", "123-45-0000"):
        assert not ssn_valid(invalid), invalid
    assert found("SSN: 460-89-9847.", "ssn") == ["460-89-9847"]
    assert found("SSN: 666-89-9847, 460-89-98471, 1-460-89-9847", "ssn") == []


def test_chinese_resident_id_checksum_and_birth_date():
    valid = "11010519491231002X"
    assert cn_id_check_char(valid[:17]) == "X" and cn_id_valid(valid) and cn_id_valid(valid.lower())
    assert not cn_id_valid("110105194912310021")  # wrong check character
    assert not cn_id_valid("110105194913310028")  # month 13
    body = "1101052099123100"  # born 2099: in the future
    assert not cn_id_valid(body + "1" + cn_id_check_char(body + "1"), today=datetime.date(2024, 1, 1))
    assert found(f"身份证号{valid}，请核对", "cn_id") == [valid]
    assert found("身份证号110105194912310021，请核对", "cn_id") == []


def test_ip_addresses():
    text = "from 106.31.73.20|, 2001:4860:4860::8888, local 192.168.1.1 and ::1"
    assert found(text, "ip") == ["106.31.73.20", "2001:4860:4860::8888"]
    assert found(text, "ip", public_ips_only=False) == ["106.31.73.20", "2001:4860:4860::8888", "192.168.1.1", "::1"]
    assert found("version 1.2.3.4.5, 300.1.1.1, 03.93.92.16, at 12:30:45, std::vector, a::b", "ip") == []
    assert found("KAFKA_LISTENERS=EXTERNAL://47.119.23.205:19092, scp root@110.42.230.56:/usr", "ip") == [
        "47.119.23.205",
        "110.42.230.56",
    ]
