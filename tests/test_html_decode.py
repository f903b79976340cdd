import codecs

import pytest

from corpus_pipeline.readers.html_decode import decode_html

ZH = "<html><head>{meta}</head><body>人民日报评论员文章：坚持改革开放不动摇</body></html>"


def test_http_header_wins():
    text, how = decode_html("é".encode(), "text/html; charset=UTF-8")
    assert (text, how) == ("é", "utf-8:http")


def test_meta_charset_used_when_the_header_has_none():
    payload = ZH.format(meta='<meta http-equiv="Content-Type" content="text/html; charset=gb2312">').encode("gbk")
    text, how = decode_html(payload, "text/html")
    assert "坚持改革开放不动摇" in text and how == "gb18030:meta"


def test_a_wrong_header_falls_through_to_meta():
    payload = ZH.format(meta='<meta charset="gbk">').encode("gbk")
    text, how = decode_html(payload, "text/html; charset=utf-8")
    assert "坚持改革开放" in text and how.endswith(":meta")


def test_bom_first():
    text, how = decode_html(codecs.BOM_UTF8 + "ü".encode(), "text/html; charset=latin-1")
    assert text == "ü" and how == "utf-8-sig:bom"


def test_latin1_label_decodes_as_windows_1252():
    text, _ = decode_html("“quoted”".encode("cp1252"), "text/html; charset=iso-8859-1")
    assert text == "“quoted”"


@pytest.mark.parametrize("encoding", ["gb18030", "big5", "shift_jis", "euc-kr", "cp1251"])
def test_undeclared_legacy_encodings_are_detected(encoding):
    samples = {
        "gb18030": "中华人民共和国国务院新闻办公室今天举行新闻发布会，介绍经济运行情况。",
        "big5": "中華民國行政院今天舉行記者會，說明經濟發展的最新情況與政策方向。",
        "shift_jis": "日本政府は本日、経済対策についての記者会見を開きました。今後の方針を説明しました。",
        "euc-kr": "대한민국 정부는 오늘 경제 정책에 관한 기자 회견을 열었습니다. 향후 방향을 설명했습니다.",
        "cp1251": "Правительство сегодня провело пресс-конференцию о мерах экономической политики.",
    }
    payload = f"<html><body><p>{samples[encoding] * 3}</p></body></html>".encode(encoding)
    text, how = decode_html(payload, None)
    assert samples[encoding] in text, how
    assert how.endswith(":detected")


LYING_SAMPLES = {
    "gb18030": "中华人民共和国国务院新闻办公室今天举行新闻发布会，介绍今年前三季度国民经济运行情况。",
    "shift_jis": "日本政府は本日、経済対策についての記者会見を開き、今後の方針を詳しく説明しました。",
    "euc-kr": "대한민국 정부는 오늘 경제 정책에 관한 기자 회견을 열고 향후 방향을 자세히 설명했습니다.",
}


@pytest.mark.parametrize("encoding", sorted(LYING_SAMPLES))
@pytest.mark.parametrize(
    "declared",
    ["text/html; charset=iso-8859-1", "text/html; charset=iso-8859-15", "text/html; charset=windows-1251"],
)
def test_a_lying_single_byte_header_is_overridden_when_detection_is_confident(encoding, declared):
    sample = LYING_SAMPLES[encoding]
    payload = f"<html><head><title>news</title></head><body><p>{sample}</p><p>{sample}</p></body></html>"
    payload = payload.encode(encoding)
    text, how = decode_html(payload, declared)
    assert sample in text, how
    # iso-8859-15 decodes every byte, so there the declaration "works" and only the override saves
    # the page; windows-1251 and windows-1252 leave a few bytes undefined, which detection catches.
    declared_decodes = _decodes(payload, _READ_AS.get(label := declared.split("=")[1], label))
    assert how.endswith(":override" if declared_decodes else ":detected"), how


_READ_AS = {"iso-8859-1": "cp1252"}  # the WHATWG superset the reader decodes that label with


def _decodes(payload: bytes, codec: str) -> bool:
    try:
        payload.decode(codec)
    except UnicodeDecodeError:
        return False
    return True


@pytest.mark.parametrize("encoding", sorted(LYING_SAMPLES))
def test_a_lying_meta_charset_is_overridden_too(encoding):
    sample = LYING_SAMPLES[encoding]
    payload = f'<html><head><meta charset="iso-8859-15"></head><body><p>{sample * 2}</p></body></html>'
    text, how = decode_html(payload.encode(encoding), None)
    assert sample in text and how.endswith(":override"), how


@pytest.mark.parametrize(
    ("sample", "encoding", "declared"),
    [
        ("Die Bürger können ab Montag wählen. Größere Änderungen folgen später.", "cp1252", "iso-8859-1"),
        ("Les élèves ont été reçus à l'hôtel de ville où le maire les a félicités.", "cp1252", "windows-1252"),
        ("Правительство сегодня провело пресс-конференцию о мерах экономической политики.", "cp1251", "windows-1251"),
        ("Η κυβέρνηση παρουσίασε σήμερα τα νέα μέτρα για την οικονομία της χώρας.", "iso-8859-7", "iso-8859-7"),
    ],
)
def test_a_true_single_byte_declaration_is_kept(sample, encoding, declared):
    payload = f"<html><body><p>{sample * 3}</p></body></html>".encode(encoding)
    text, how = decode_html(payload, f"text/html; charset={declared}")
    assert sample in text and how.endswith(":http"), how
