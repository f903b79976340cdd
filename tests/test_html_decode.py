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
