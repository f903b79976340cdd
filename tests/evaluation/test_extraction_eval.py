import json

import pytest
from conftest import SHARED_DATA

from corpus_pipeline.evaluation.extraction import (
    GoldPage,
    is_chinese,
    load_gold,
    score_extraction,
    score_page,
    tokenize,
)

GOLD_PATH = SHARED_DATA / "web" / "gold.jsonl"


def snippets(page_id, with_snippets, without_snippets):
    return GoldPage(page_id, "http://x", "snippets", tuple(with_snippets), tuple(without_snippets))


def full(page_id, text):
    return GoldPage(page_id, "http://x", "full", text=text)


def test_tokenize_words_drop_punctuation_and_split_cjk_per_character():
    text = "Hello, world! 你好 2002年 ２００ 한국 東京へ café"
    assert tokenize(text) == [
        "Hello",
        "world",
        "你",
        "好",
        "2002",
        "年",
        "200",
        "한",
        "국",
        "東",
        "京",
        "へ",
        "café",
    ]


def test_snippet_page_counts_and_whitespace_insensitive_matching():
    page = snippets("trafilatura-eval/a.html", ["Die GEMA dreht", "not there"], ["Impressum", "absent"])
    score = score_page(page, "xx Die\n GEMA\tdreht yy\nImp ressum")
    assert (score.tp, score.fn, score.fp, score.tn) == (1, 1, 1, 1)
    assert score.precision == 0.5 and score.recall == 0.5


def test_snippet_page_without_negatives_has_precision_one_once_something_is_found():
    page = snippets("trafilatura-eval/a.html", ["alpha", "beta", "gamma", "delta"], [])
    score = score_page(page, "alpha beta gamma")
    assert score.precision == 1.0 and score.recall == 0.75


def test_snippet_page_with_no_checked_string_found_scores_zero():
    page = snippets("trafilatura-eval/a.html", ["alpha"], ["menu"])
    score = score_page(page, "unrelated text")
    assert (score.precision, score.recall) == (0.0, 0.0)


def test_full_page_bag_of_tokens_overlap():
    page = full("scrapinghub-aeb/a", "the cat sat on the mat")
    score = score_page(page, "The the the cat.")  # case kept: "The" is not "the"
    # overlap: the x2 (pred has 2 lower-case) + cat = 3; pred has 4 tokens, gold 6
    assert (score.tp, score.fp, score.fn) == (3, 1, 3)
    assert score.precision == 0.75 and score.recall == 0.5


def test_full_chinese_page_is_compared_per_character():
    score = score_page(full("magic-html/zh", "我爱北京。"), "我爱上海")
    assert score.precision == 0.5 and score.recall == 0.5


def test_empty_output_and_empty_gold_rules():
    assert score_page(full("m/a", "some text"), "").precision == 0.0
    both_empty = score_page(full("m/a", ""), "  ")
    assert (both_empty.precision, both_empty.recall) == (1.0, 1.0)
    only_gold_empty = score_page(full("m/a", ""), "junk")
    assert (only_gold_empty.precision, only_gold_empty.recall) == (0.0, 0.0)


def test_missing_page_scores_zero_even_with_empty_gold():
    score = score_page(full("m/a", ""), None)
    assert score.missing and (score.precision, score.recall) == (0.0, 0.0)


def test_is_chinese_threshold_on_han_share():
    assert not is_chinese(full("m/a", "北京 abcdefgh"))  # 2 Han of 10 non-space characters
    assert is_chinese(full("m/a", "北京欢 abcdefg"))  # 3 of 10 = 0.3
    assert is_chinese(snippets("t/a", ["北京", "x"], ["menu menu menu"]))  # `without` is ignored
    assert not is_chinese(full("m/a", "   "))


def test_score_extraction_macro_average_groups_and_missing():
    gold = [
        snippets("trafilatura-eval/a", ["alpha", "beta"], ["menu"]),  # P 1/2, R 1/2
        full("magic-html/b", "我爱北京"),  # P 2/3, R 2/4 (pred 我爱上)
        full("magic-html/c", "one two"),  # missing: P 0, R 0
    ]
    extracted = {
        "trafilatura-eval/a": "alpha menu",
        "magic-html/b": "我爱上",
        "magic-html/c": None,
        "stray/id": "x",
    }
    report = score_extraction(gold, extracted)
    assert report.overall.pages == 3 and report.overall.missing == 1
    assert report.overall.precision == pytest.approx((0.5 + 2 / 3 + 0) / 3)
    assert report.overall.recall == pytest.approx((0.5 + 0.5 + 0) / 3)
    p, r = (0.5 + 2 / 3) / 3, 1 / 3
    assert report.overall.f1 == pytest.approx(2 * p * r / (p + r))
    assert sorted(report.by_source) == ["magic-html", "trafilatura-eval"]
    assert report.by_source["magic-html"].recall == pytest.approx(0.25)
    assert report.chinese.pages == 1 and report.chinese.precision == pytest.approx(2 / 3)
    micro = report.overall.snippet_micro
    assert (micro.tp, micro.fp, micro.fn, micro.tn) == (1, 1, 1, 0)
    assert micro.accuracy == pytest.approx(1 / 3)
    assert report.by_source["magic-html"].snippet_micro is None
    assert report.unknown_ids == 1
    json.dumps(report.to_dict(include_pages=True))
    table = report.format_table()
    assert "magic-html" in table and "chinese" in table and "1 extracted ids" in table


def test_score_extraction_per_language_most_pages_first():
    gold = [full("magic-html/a", "one two"), full("magic-html/b", "drei vier"), full("magic-html/c", "fünf")]
    extracted = {"magic-html/a": "one two", "magic-html/b": "drei", "magic-html/c": "fünf"}
    report = score_extraction(gold, extracted, {"magic-html/b": "de", "magic-html/c": "de"})
    assert list(report.by_language) == ["de", "unknown"]  # a page the mapping does not name
    assert report.by_language["de"].pages == 2 and report.by_language["de"].recall == pytest.approx(0.75)
    assert report.by_language["unknown"].f1 == 1.0
    assert "lang:de" in report.format_table() and "de" in report.to_dict()["by_language"]
    assert score_extraction(gold, extracted).by_language == {}  # no mapping, no language rows


def test_page_absent_from_mapping_counts_as_missing():
    report = score_extraction([full("magic-html/a", "text")], {})
    assert report.overall.missing == 1 and report.overall.recall == 0.0


@pytest.mark.parametrize(
    "bad_line, message",
    [
        ("{not json", ":2:"),
        ('{"id": "s/a", "url": "u", "kind": "full"}', "text"),
        ('{"id": "s/a", "url": "u", "kind": "other", "text": ""}', "unknown kind"),
        ('{"id": "s/a", "url": "u", "kind": "snippets", "with": [" "], "without": []}', "empty snippet"),
        ('{"id": "s/a", "url": "u", "kind": "snippets", "with": "abc", "without": []}', "list of strings"),
        ('{"id": "s/first", "url": "u", "kind": "full", "text": ""}', "duplicate gold id"),
    ],
)
def test_load_gold_names_the_bad_line(tmp_path, bad_line, message):
    path = tmp_path / "gold.jsonl"
    path.write_text('{"id": "s/first", "url": "u", "kind": "full", "text": "t"}\n' + bad_line + "\n")
    with pytest.raises(ValueError, match=message) as error:
        load_gold(path)
    assert f"{path}:2:" in str(error.value)


requires_gold = pytest.mark.skipif(not GOLD_PATH.exists(), reason=f"real gold labels not found at {GOLD_PATH}")


@pytest.mark.realdata
@requires_gold
def test_real_gold_counts_per_source_and_chinese():
    gold = load_gold(GOLD_PATH)
    counts = {}
    for page in gold:
        counts[page.source] = counts.get(page.source, 0) + 1
    assert counts == {"trafilatura-eval": 990, "scrapinghub-aeb": 181, "magic-html": 261}
    assert sum(is_chinese(page) for page in gold) == 86


@pytest.mark.realdata
@requires_gold
def test_real_gold_perfect_and_dropped_extractions():
    gold = load_gold(GOLD_PATH)
    perfect = {p.id: p.text if p.kind == "full" else "\n".join(p.with_snippets) for p in gold}
    report = score_extraction(gold, perfect)
    assert (report.overall.precision, report.overall.recall, report.overall.missing) == (1.0, 1.0, 0)
    dropped = score_extraction(gold, {})
    assert dropped.overall.missing == len(gold) and dropped.overall.recall == 0.0
