"""Domain and keyword blocklists: one automaton pass, whole words, per-language lists, thresholds."""

from __future__ import annotations

import pickle

import pytest

from corpus_pipeline.quality.blocklist import Blocklists
from corpus_pipeline.quality.config import BlocklistConfig


@pytest.fixture
def lists(tmp_path):
    (tmp_path / "domains.txt").write_text("# adult\nbad.example\nwww.worse.example\n", encoding="utf-8")
    (tmp_path / "en.txt").write_text("sex\nonline casino\nc++\n", encoding="utf-8")
    (tmp_path / "zh.txt").write_text("博彩\n六合彩\n", encoding="utf-8")
    return Blocklists(
        [
            BlocklistConfig(name="domains", kind="domains", path=str(tmp_path / "domains.txt")),
            BlocklistConfig(name="en", kind="keywords", path=str(tmp_path / "en.txt"), languages=["en"]),
            BlocklistConfig(name="zh", kind="keywords", path=str(tmp_path / "zh.txt"), languages=["zh"]),
        ]
    )


def test_domains_match_the_host_and_its_parents(lists):
    assert lists.hits("https://bad.example/page", "", None) == [1, 0, 0]
    assert lists.hits("http://m.shop.bad.example:8080/x", "", None) == [1, 0, 0]
    assert lists.hits("https://worse.example/", "", None) == [1, 0, 0]  # "www." is folded
    assert lists.hits("https://notbad.example/", "", None) == [0, 0, 0]
    assert lists.hits(None, "", None) == [0, 0, 0]
    assert lists.verdict([1, 0, 0], 100) == ("blocklist_domains", "URL domain is listed")


def test_keywords_are_whole_words_in_english_and_anywhere_in_chinese(lists):
    text = "sex essex sexy sex. online casino! (sex) c++ code"
    assert lists.hits(None, text, "en") == [0, 5, 0]  # sex, sex., online casino, (sex), c++
    assert lists.hits(None, text, "zh") == [0, 0, 0]  # the English list is for English documents
    assert lists.hits(None, "欢迎来到博彩网站，六合彩开奖，博彩", "zh") == [0, 0, 3]


def test_a_list_drops_from_min_matches_above_its_density(lists):
    assert lists.verdict([0, 3, 0], 1000) == (
        "blocklist_en",
        "3 matches, 3.00 per 1,000 chars > 1",
    )
    assert lists.verdict([0, 2, 0], 100) is None  # 20 per 1,000, but only 2 matches
    assert lists.verdict([0, 3, 0], 5000) is None  # 0.6 per 1,000


def test_shipped_default_lists_and_a_missing_file(tmp_path):
    defaults = Blocklists(
        [
            BlocklistConfig(name="adult_domains", kind="domains"),
            BlocklistConfig(name="spam_keywords_en", kind="keywords"),
        ]
    )
    assert defaults.hits("https://www.pornhub.com/x", "buy viagra and cialis, viagra now", "en") == [1, 3]
    with pytest.raises(FileNotFoundError, match="no list of that name ships"):
        Blocklists([BlocklistConfig(name="nope", kind="keywords")])
    with pytest.raises(FileNotFoundError, match="missing.txt"):
        Blocklists([BlocklistConfig(name="x", kind="keywords", path=str(tmp_path / "missing.txt"))])
    with pytest.raises(ValueError, match="unique"):
        Blocklists([BlocklistConfig(name="a", kind="domains")] * 2)


def test_automata_are_rebuilt_after_pickling(lists):
    lists.hits(None, "sex", "en")
    copy = pickle.loads(pickle.dumps(lists))
    assert copy._automata == {} and copy.hits(None, "sex sex", "en") == [0, 2, 0]
