"""Wikipedia as text: the shapes of wikitext that mwparserfromhell returns as text in real dumps
(measured on Vietnamese and Japanese dumps: an indented table, a multi-line parser function, image
links under namespace aliases, pasted TeX), generated here; each leaves no residue and keeps the
prose around it. And through ingest, as a dump."""

from __future__ import annotations

import bz2

import pytest
from ingest_inputs import ingest, kept

from corpus_pipeline.ingest.wikitext import non_text_prefixes, plain_text

RESIDUE = ("{|", "|}", "thumb|", "{{", "}}", "[[File:", "[[Category:", "-{", "}-")
PREFIXES = non_text_prefixes(None)

SHAPES = {
    "indented_table": (
        "Bảng chữ cái.\n:{| class=wikitable style=text-align:center\n|-\n! colspan=2| !! Môi\n|-\n"
        "| Tắc || p/b {{IPA|p}}\n|}\nMột số phụ âm chỉ có một cách viết.",
        ["Bảng chữ cái.", "Một số phụ âm chỉ có một cách viết."],
    ),
    "table_closing_a_template": (
        'Trước.\n{{Hộp thông tin\n| dữ liệu =\n{| class="wikitable"\n| a || b\n|}}}\nSau hộp.',
        ["Trước.", "Sau hộp."],
    ),
    "multi_line_parser_function": (
        "人口密度：{{formatnum:{{ #expr: ({{人口|鳥取市}}\n + {{人口|岩美町}}) /\n ({{面積|鳥取市}}\n"
        " + {{面積|岩美町}}) round 1\n }}}}人/km<sup>2</sup>。県庁所在地は鳥取市。",
        ["人口密度：", "県庁所在地は鳥取市。"],
    ),
    "vietnamese_image_alias": (
        "Văn bản trước.\n\n[[Hình:Router.jpg|thumb|270px| A [[router (computing)|router]] running Linux.]]\n\n"
        "Do chi phí thấp, Linux được dùng.",
        ["Văn bản trước.", "Do chi phí thấp, Linux được dùng."],
    ),
    "japanese_image_alias": (
        "前の文。\n\n[[画像:Bryo_cladogram.jpg|thumb|556px|center|[[陸上植物]]の系統関係]]\n\n藻類との関係。",
        ["前の文。", "藻類との関係。"],
    ),
    "unlisted_namespace_with_image_options": (
        "Before.\n[[Berkas:Map.svg|220px|left|A map]]\nAfter.",
        ["Before.", "After."],
    ),
    "image_inside_an_unclosed_link": (
        "Η δυναστεία [[Οίκος|των Γιαγκελλόνων) έληξε.\n[[File:Empire.png|250px|thumb|Μεγάλο [[Λουθηρανισμός|μέρος]]]]\n"
        "Το 1538 χωρίστηκε.]] Τέλος.",
        ["έληξε.", "Το 1538 χωρίστηκε.", "Τέλος."],
    ),
    # Armenian dump: MediaWiki shows these as text too; a reader of the corpus sees only junk
    "template_never_closed": (
        "Ուժեր (ՌԾՈՒ), նորվեգերեն՝ {{lang-no|Sjøforsvaret)), անգլերեն՝ ,\nՆոր տող։",
        ["Ուժեր (ՌԾՈՒ), նորվեգերեն՝ Sjøforsvaret))", "Նոր տող։"],
    ),
    "closing_braces_that_close_nothing": (
        "Նոր ոճեր համար<ref name=a>G. Thompson, {{ISBN|0-7486-1910-0}}, p. 134.</ref>։}}\n\n== Տես նաև ==\nՌոք",
        ["Նոր ոճեր համար։", "Տես նաև", "Ռոք"],
    ),
    "category_link_inside_a_category_link": (
        "Վերջ։\n\n[[Category:Ուելսի մշակույթ]]\n[[Category:[[Category:Կելտական լեզուներ]]]]",
        ["Վերջ։"],
    ),
    # Chinese: language-variant markup, which MediaWiki resolves for each reader
    "chinese_variant_markup": (
        "'''快速UDP網路連-{zh-hans:接;zh-hant:線}-'''是一種協定。{{NoteTA|G1=IT}}-{H|zh-cn:内存;zh-tw:記憶體;}-"
        "見[[流控制传输协议|-{zh-tw:串流控制傳輸協定; zh-cn:流控制传输协议;}-]]與-{R|Linux}-。",
        ["快速UDP網路連接是一種協定。", "見流控制传输协议與Linux。"],
    ),
    "template_in_a_comment_is_no_variant_block": (
        "<!--{{expert needed|1=Engineering|date=June 2018}}-->\n'''等M圓'''是繪圖工具。",
        ["等M圓是繪圖工具。"],
    ),
    "pasted_tex": (
        "Chữ A.\n{\\displaystyle 10^{-18}}\n\nA được đọc là a.",
        ["Chữ A.", "A được đọc là a."],
    ),
}


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_each_shape_leaves_no_residue_and_keeps_its_prose(name):
    markup, prose = SHAPES[name]
    text = plain_text(markup, PREFIXES)
    assert not [r for r in RESIDUE if r in text], text
    assert all(part in text for part in prose), text


def test_links_with_a_colon_but_no_image_option_keep_their_text():
    text = plain_text("See [[wikt:ngôn ngữ|ngôn ngữ]] and [[Help:Contents|the help]].", PREFIXES)
    assert text == "See ngôn ngữ and the help."


def _dump(path, pages: list[tuple[int, str, str]]) -> None:
    body = "".join(
        f"<page><title>{title}</title><ns>0</ns><id>{pid}</id><revision><id>{pid}</id>"
        f"<timestamp>2024-01-01T00:00:00Z</timestamp>"
        f'<text xml:space="preserve">{_escape(markup)}</text></revision></page>'
        for pid, title, markup in pages
    )
    xml = (
        '<mediawiki xmlns="http://www.mediawiki.org/xml/export-0.10/" version="0.10" xml:lang="vi"><siteinfo>'
        "<sitename>Wikipedia</sitename><dbname>viwiki</dbname><base>https://vi.wikipedia.org/wiki/Trang_Chính</base>"
        '<namespaces><namespace key="0" case="first-letter" />'
        '<namespace key="6" case="first-letter">Tập tin</namespace>'
        f"</namespaces></siteinfo>{body}</mediawiki>"
    )
    path.write_bytes(bz2.compress(xml.encode("utf-8")))


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def test_a_dump_of_those_shapes_gives_articles_without_residue_and_ids_with_one_prefix(tmp_path):
    pages = [(n, name, markup) for n, (name, (markup, _)) in enumerate(sorted(SHAPES.items()), 1)]
    _dump(tmp_path / "viwiki-pages-articles.xml.bz2", pages)
    result = ingest([tmp_path / "viwiki-pages-articles.xml.bz2"], tmp_path / "out", "ingest.id_prefix='viwiki:'")
    rows = kept(result, ["id", "text"])
    assert [r["id"] for r in rows] == [f"viwiki:{n}" for n, _, _ in pages]
    assert not [r["id"] for r in rows if any(residue in r["text"] for residue in RESIDUE)]


def test_templates_are_cut_brace_pair_by_brace_pair_and_code_is_left_alone():
    from corpus_pipeline.ingest.wikitext import without_templates

    markup = "a {{x|{{y}}}} b {{Infobox\n| f = {{nowrap|{{abbr|dd|day}}}}\n| cctld = [[.in]]\n}}\n"
    markup += "c <code>{{keep}}</code> {{open"
    assert without_templates(markup) == "a  b \nc <code>{{keep}}</code> {{open"


def test_a_comment_before_a_list_item_leaves_no_bullet_line_and_an_opening_in_nowiki_is_text():
    # Vietnamese "Tiếng Anh": each bibliography entry follows a comment naming it, across a line
    # break; MediaWiki removes comments first, so the `*` starts a list item, not text. One never
    # closed runs to the end; `<!--` inside nowiki (an article on HTML) opens none.
    markup = "== Thư mục ==\n{{refbegin}}\n" + "".join(
        f"<!-- Author{n}2006\n-->* {{{{cite book |title=Book {n}}}}} Sách số {n}.\n" for n in range(3)
    )
    markup += "HTML opens a comment with <code><nowiki><!--</nowiki></code>, as here.\n<!-- never closed\n* hidden"
    lines = [line.strip() for line in plain_text(markup, PREFIXES).split("\n")]
    assert "*" not in lines and "hidden" not in " ".join(lines)
    assert [line for line in lines if line.startswith("Sách")] == [f"Sách số {n}." for n in range(3)]
    assert lines[-1] == "HTML opens a comment with , as here."


def test_italics_around_a_template_leave_no_quote_line_and_apostrophes_in_words_stay():
    # Ukrainian "Залежні території": flag templates in italics, `#:: ''{{HMD}}''`, one a line.
    markup = "У списку території.\n# {{AUS}}\n#:: ''{{HMD}}''\n#:: ''[[Острови Коралового моря]]''\n#:: ''{{NFK}}''\n"
    markup += "'''''Сен-П'єр і Мікелон'''''  — ''заморська'' спільнота."
    lines = [line.strip() for line in plain_text(markup, PREFIXES).split("\n") if line.strip()]
    assert lines == ["У списку території.", "Острови Коралового моря", "Сен-П'єр і Мікелон  — заморська спільнота."]
