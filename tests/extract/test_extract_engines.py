"""extract.engine: each engine through the stage, the config refusing an unknown one, the
trafilatura engine's second passes (CJK pages, layout tables) on real pages, and the hybrid's choice
between resiliparse and trafilatura."""

from __future__ import annotations

import contextlib
import itertools

import pytest
from conftest import html_page, shared_data, write_warc
from pydantic import ValidationError
from warcio.archiveiterator import ArchiveIterator

from corpus_pipeline.extract.config import ExtractConfig
from corpus_pipeline.extract.engines import (
    COMMENTS_KEPT,
    HYBRID_MAX_LINES,
    HYBRID_MIN_CHARS,
    HybridEngine,
    ResiliparseEngine,
    TrafilaturaEngine,
    cjk_share,
    comments_heavy,
    resiliparse_is_weak,
    short_line_share,
    table_row_share,
    title_is_cjk,
    trafilatura_module,
    within_prose_span,
    without_list_runs,
    without_repeated_lines,
)
from corpus_pipeline.extract.stage import ExtractStage
from corpus_pipeline.readers.html_decode import decode_html
from corpus_pipeline.stats import StageStats

ARTICLE = "<p>" + "The committee approved the new river restoration plan after a long debate. " * 6 + "</p>"


def kept_texts(path, **config) -> list[str]:
    rows = list(ExtractStage(ExtractConfig(**config)).read(str(path), StageStats("extract")))
    return [row["text"] for row, verdict in rows if verdict is None]


@pytest.mark.parametrize("engine", ["trafilatura", "resiliparse", "hybrid"])
def test_each_engine_finds_the_article_and_drops_the_navigation(tmp_path, engine):
    warc = write_warc(
        tmp_path / "one.warc.gz",
        [{"url": "https://news.example/a", "payload": html_page(ARTICLE).encode(), "content_type": "text/html"}],
    )
    (text,) = kept_texts(warc, engine=engine)
    assert "river restoration plan" in text and "About" not in text


def test_an_unknown_engine_is_refused_by_the_config():
    with pytest.raises(ValidationError, match="engine"):
        ExtractConfig(engine="magic-html")


def test_the_signals_of_the_second_passes():
    assert cjk_share("国务院总理在北京主持召开常务会议 ok") > 0.8 and cjk_share("Die Sitzung 会议") < 0.3
    assert title_is_cjk("<html><head><title>人民日报 - 首页</title>") and not title_is_cjk("<title>News</title>")
    assert table_row_share("| Home | Shop |\n| 1位 | Bag |") == 1.0
    assert table_row_share("A paragraph of text.\n| a | b |") < 0.5


def test_a_run_of_six_list_items_is_dropped_with_its_date_lines_and_a_shorter_list_is_kept():
    related = "\n".join(f"- 相关新闻标题第{n}条\n强图打榜 2024-05-23 09:4{n}:17" for n in range(6))
    text = "以色列战时内阁审查了一份重启停火谈判的提案。\n" + related + "\n加载更多新闻"
    # the date line after the last item is not between two items: it stays
    assert (
        without_list_runs(text)
        == "以色列战时内阁审查了一份重启停火谈判的提案。\n强图打榜 2024-05-23 09:45:17\n加载更多新闻"
    )
    five = "正文第一段。\n" + "\n".join(f"- 第{n}点" for n in range(5))
    assert without_list_runs(five) == five
    # a long line between items ends the run: two runs of 3, both kept
    split = (
        "- a\n- b\n- c\n"
        + "这是一段很长的正文，它说明了列表前后的内容，并不是新闻来源或者日期那样短的一行。"
        + "\n- d\n- e\n- f"
    )
    assert without_list_runs(split) == split


def test_a_line_repeated_in_the_text_is_kept_once_and_short_lines_may_repeat():
    text = "《北京影人》5月20日起电影频道播出\n时长：01:45\n《北京影人》5月20日起电影频道播出\n回复\n回复"
    assert without_repeated_lines(text) == "《北京影人》5月20日起电影频道播出\n时长：01:45\n回复\n回复"


def test_the_menu_signal_is_the_share_of_characters_on_short_lines():
    menu = "首页\n板块\n导航页\n登录\n注册\n商标审查标准\n" + "商标的资料，包括审查标准的全文与说明。" * 2
    assert (
        short_line_share(menu)
        > 0.3
        > short_line_share("一段很长的正文，说明了这个页面的主要内容，没有菜单。" * 3 + "\n回复")
    )


SENTENCE = "The committee approved the new river restoration plan after a long debate on its cost."  # 87 chars
CHINESE = "国务院总理在北京主持召开国务院常务会议，研究部署相关工作。"


def test_the_hybrid_calls_trafilatura_on_short_many_lined_comment_heavy_and_cjk_texts():
    article = " ".join([SENTENCE] * 6)
    assert not resiliparse_is_weak(article)
    assert resiliparse_is_weak(article[: HYBRID_MIN_CHARS - 1])  # a fragment
    many = "\n".join([SENTENCE] * (HYBRID_MAX_LINES + 1))
    assert resiliparse_is_weak(many)  # many blocks
    assert not resiliparse_is_weak(many[: -len(SENTENCE) - 1])
    assert resiliparse_is_weak(CHINESE * 10)  # by the text
    # a thread: without its comment sections the text keeps under COMMENTS_KEPT of its characters
    kept = int(COMMENTS_KEPT * len(article))
    assert comments_heavy(article, article[: kept - 1])
    assert not comments_heavy(article, article[: kept + 1])


def test_the_hybrid_takes_each_resiliparse_text_only_where_the_checks_before_it_did_not_decide():
    """A CJK title goes to trafilatura with no resiliparse text, a CJK text with one, an article
    that stays with resiliparse takes both."""
    config = ExtractConfig(engine="hybrid")
    hybrid = HybridEngine(config)
    texts = []
    real_text = hybrid.fast.text

    def counted(tree, comments=True, skip_elements=()):
        texts.append(comments)
        return real_text(tree, comments=comments, skip_elements=skip_elements)

    hybrid.fast.text = counted
    hybrid.thorough = lambda html, url: "trafilatura's text"
    assert hybrid(html_page(f"<p>{CHINESE * 10}</p>", title="国务院常务会议"), None) == "trafilatura's text"
    assert texts == []
    assert hybrid(html_page(f"<p>{CHINESE * 10}</p>", title="River plan"), None) == "trafilatura's text"
    assert texts == [True]
    article = html_page("<p>" + " ".join([SENTENCE] * 6) + "</p>")
    assert SENTENCE in hybrid(article, None)
    assert texts == [True, True, False]


def test_the_hybrid_text_skips_the_byline_and_the_comment_section():
    """resiliparse's own text keeps both; the hybrid's drops the comments (`comments=False`) and
    the byline (HYBRID_SKIP), and the one comment is too small a share to send the page on."""
    comment = "I think the council should have asked the residents before it spent this money."
    byline = "By Jane Doe, staff reporter covering the environment and local politics"
    page = html_page(
        "<p>" + " ".join([SENTENCE] * 6) + f"</p><div class='byline'>{byline}</div>"
        f"<div id='comments' class='comments-area'><ol><li class='comment'><p>{comment}</p></li></ol></div>"
    )
    config = ExtractConfig(engine="hybrid")
    assert comment in ResiliparseEngine(config)(page, None) and byline in ResiliparseEngine(config)(page, None)
    hybrid = HybridEngine(config)
    hybrid.thorough = lambda html, url: pytest.fail("the page went to trafilatura")
    text = hybrid(page, None)
    assert SENTENCE in text and comment not in text and byline not in text


def test_the_hybrid_cuts_resiliparse_text_to_its_first_and_last_prose_lines():
    text = "Home\nNews | Sport\n" + SENTENCE + "\nshort caption\n" + SENTENCE + "\nContact us\nImprint"
    assert within_prose_span(text) == SENTENCE + "\nshort caption\n" + SENTENCE
    assert within_prose_span("Home\nNews\nContact") == "Home\nNews\nContact"  # no prose line: whole


def test_the_hybrid_gives_resiliparse_text_on_an_article_and_trafilatura_text_on_a_chinese_page():
    config = ExtractConfig(engine="hybrid")
    article = html_page("<p>" + " ".join([SENTENCE] * 6) + "</p>")
    assert HybridEngine(config)(article, None) == within_prose_span(ResiliparseEngine(config)(article, None))
    chinese = html_page(f"<p>{CHINESE * 10}</p>", title="国务院常务会议")
    assert HybridEngine(config)(chinese, None) == TrafilaturaEngine(config)(chinese, None)


def gold_pages():
    """(WARC-Bench-Id, decoded HTML, url) of each page of shared/data/web/pages.warc.gz, in order."""
    with open(shared_data("web/pages.warc.gz"), "rb") as stream:
        for record in ArchiveIterator(stream):
            if record.rec_type == "response":
                html, _ = decode_html(record.content_stream().read(), record.http_headers.get_header("Content-Type"))
                headers = record.rec_headers
                yield headers.get_header("WARC-Bench-Id"), html, headers.get_header("WARC-Target-URI")


def gold_page_html(bench_id: str) -> tuple[str, str]:
    """(decoded HTML, url) of one gold page, by its WARC-Bench-Id."""
    for page_id, html, url in gold_pages():
        if page_id == bench_id:
            return html, url
    raise LookupError(bench_id)


@pytest.mark.realdata
def test_the_cjk_recall_pass_drops_the_related_news_list():
    """A Yahoo Hong Kong article: favor_recall keeps its 20-item "你可能還想看" list (3,736 characters
    for a 132-character article, precision 0.05); without the list run the article is the text."""
    html, url = gold_page_html("magic-html/article/2681eeacec6ab049817f3908bab3ae67a01396cedc3ede29df29ecc94ecd1265")
    text = TrafilaturaEngine(ExtractConfig())(html, url)
    assert "路透月度調查顯示，日本企業信心5月保持穩定" in text
    assert "信報財經新聞" not in text and len(text) < 400
    untrimmed = TrafilaturaEngine(ExtractConfig())._extract(html, url, TrafilaturaEngine(ExtractConfig()).cjk_settings)
    assert "信報財經新聞" in untrimmed  # the list is there before the trim: the test can fail


@pytest.mark.realdata
def test_a_recall_text_of_menus_is_extracted_again_with_favor_precision():
    """A poem page: the recall pass adds the report dialog's eight options as lines of their own
    (precision 0.61); favor_precision drops them and keeps the poem."""
    html, url = gold_page_html("magic-html/article/777ddd63e01e0fb13f4ab1f4bc6a2ff0c15e68c50ef6707d800e13d17fb5e99e")
    engine = TrafilaturaEngine(ExtractConfig())
    recall_text = engine._extract(html, url, engine.cjk_settings)
    assert short_line_share(recall_text) >= 0.3 and "侵权抄袭" in recall_text
    text = engine(html, url)
    assert "侵权抄袭" not in text and "深夜看书须尽欢" in text


@pytest.mark.realdata
def test_a_text_not_in_the_titles_script_gives_way_to_resiliparses():
    """A Chinese forum thread: trafilatura's text is the upload widget's English notice ("Your
    browser, unfortunately, is not supported by Uploader.js", precision and recall 0); resiliparse's
    main-content text has the posts."""
    html, url = gold_page_html("magic-html/forum/60dacbf71199f6594a070af5f5b13cd8e82f2b993e1934749446ce6132a914f4")
    engine = TrafilaturaEngine(ExtractConfig())
    assert cjk_share(engine._extract(html, url, engine.cjk_settings) or "") < 0.3  # the test can fail
    text = engine(html, url)
    assert "花了1天半的时间买了4个平板" in text and "Uploader.js" not in text


@pytest.mark.realdata
def test_a_latin_text_under_a_chinese_title_stays_when_resiliparse_has_no_chinese_either():
    """A Common Crawl company page with a Chinese <title> and an English body keeps trafilatura's text."""
    html, url = common_crawl_page("037426.cn")
    engine = TrafilaturaEngine(ExtractConfig())
    assert cjk_share(engine.resiliparse(html, url)) < 0.3
    assert engine(html, url).startswith("BONDTEK CHEMICALS")


def common_crawl_page(host: str) -> tuple[str, str]:
    """(decoded HTML, url) of the response for `host` in the cc-main-2020-34 excerpt."""
    with open(shared_data("warc/cc-main-2020-34-excerpt.warc.gz"), "rb") as stream:
        record = next(
            r
            for r in ArchiveIterator(stream)
            if r.rec_type == "response" and host in (r.rec_headers.get_header("WARC-Target-URI") or "")
        )
        html, _ = decode_html(record.content_stream().read(), record.http_headers.get_header("Content-Type"))
        return html, record.rec_headers.get_header("WARC-Target-URI")


@pytest.mark.realdata
def test_the_precision_text_is_refused_where_it_drops_the_pages_prose():
    """A Common Crawl list page: favor_precision keeps 65 characters of footer for its 565
    characters of Chinese text; the recall text stays."""
    html, url = common_crawl_page("077678u.info")
    engine = TrafilaturaEngine(ExtractConfig())
    assert cjk_share(engine._extract(html, url, engine.precision_settings) or "") == 0.0
    assert cjk_share(engine(html, url)) > 0.5


@pytest.mark.realdata
@pytest.mark.parametrize("engine", ["trafilatura", "hybrid"])
def test_japanese_shop_pages_keep_their_own_text_not_the_sidebar(engine):
    """ClueWeb09's 29 Japanese shop pages: trafilatura alone gives every one the same sidebar ranking
    table (1 distinct text); the layout-table pass finds each product's description. The hybrid
    sends them to trafilatura (Japanese titles)."""
    texts = kept_texts(shared_data("warc/clueweb09-ja-quirk.warc.gz"), engine=engine)
    assert len(texts) == 29
    assert len(set(texts)) >= 20
    assert sum("人気ランキング" in text for text in texts) < 10  # the sidebar's heading
    assert all(cjk_share(text) > 0.3 for text in texts)


@contextlib.contextmanager
def lxml_html_element_classes():
    """trafilatura's parser with lxml.html's own class lookup (forms, inputs, labels: subclasses)."""
    from lxml.html import HtmlElementClassLookup
    from trafilatura.utils import HTML_PARSER

    HTML_PARSER.set_element_class_lookup(HtmlElementClassLookup())
    try:
        yield
    finally:  # the engine's lookup back, for the tests after this one
        trafilatura_module.cache_clear()
        trafilatura_module()


FORM_PAGE = html_page(
    '<form action="/search"><label for="q">Search the archive</label><input name="q" value="river">'
    "<select name='year'><option>2024</option><option selected>2025</option></select>"
    "<textarea name='note'>A note left in the form.</textarea><button>Go</button></form>" + ARTICLE
)


def test_trafilatura_parses_into_plain_html_elements_with_the_same_text():
    """The engine's parser gives forms, inputs and labels lxml.html's one HtmlElement class (no Python
    call per element); trafilatura's text is the one lxml.html's own subclasses give."""
    from lxml.html import HtmlElement
    from trafilatura.utils import load_html

    engine = TrafilaturaEngine(ExtractConfig())
    text = engine(FORM_PAGE, "https://example.org/a")
    assert {type(element) for element in load_html(FORM_PAGE).iter()} == {HtmlElement}
    with lxml_html_element_classes():
        assert {type(element).__name__ for element in load_html(FORM_PAGE).iter()} > {"HtmlElement", "FormElement"}
        assert engine(FORM_PAGE, "https://example.org/a") == text
    assert "river restoration plan" in text


@pytest.mark.realdata
def test_the_plain_element_classes_give_the_same_texts_on_real_pages():
    """Every 48th of the 1,432 gold pages (30 pages: news, forums, shops, Chinese), each engine that
    calls trafilatura: the same text with lxml.html's element subclasses and without them."""
    pages = [(html, url) for _, html, url in itertools.islice(gold_pages(), 0, None, 48)]
    assert len(pages) == 30
    for engine in (TrafilaturaEngine(ExtractConfig()), HybridEngine(ExtractConfig(engine="hybrid"))):
        texts = [engine(html, url) for html, url in pages]
        with lxml_html_element_classes():
            assert [engine(html, url) for html, url in pages] == texts


def test_resiliparse_text_keeps_words_whole_across_soft_hyphens_and_zero_width_spaces():
    """`&shy;` inside words and zero-width spaces go (trafilatura's text has neither); the joiners
    that Persian spelling and emoji sequences need stay."""
    sentence = (
        "Die gro&szlig;en Wei&shy;ne Ita&shy;li&shy;ens neben Baro&shy;lo, zero\u200bwidth, می\u200cخواهم 👩\u200d💻. "
    )
    page = html_page("<p>" + sentence * 8 + "</p>")
    for engine in (
        ResiliparseEngine(ExtractConfig(engine="resiliparse")),
        HybridEngine(ExtractConfig(engine="hybrid")),
    ):
        text = engine(page, None)
        assert "Weine Italiens neben Barolo, zerowidth" in text
        assert "\u00ad" not in text and "\u200b" not in text
        assert "می\u200cخواهم" in text and "👩\u200d💻" in text
