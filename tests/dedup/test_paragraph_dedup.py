"""Paragraph splitting, hashing and removal, and the Arrow batch functions, without Spark."""

from __future__ import annotations

import pyarrow as pa

from corpus_pipeline.dedup.paragraph_batches import REASON, cleaned_batch, paragraph_hash_batch
from corpus_pipeline.dedup.paragraphs import (
    document_paragraph_hashes,
    normalize_paragraph,
    paragraph_hash,
    remove_paragraphs,
    split_paragraphs,
)

ARTICLE = "Share this: Facebook Twitter\n\nThe council met on Monday.\nIt approved the budget.\n\n© 2021 Example Ltd"
CHINESE = "分享到：微信 微博\n\n国务院昨天召开常务会议。\n会议研究了今年的经济工作。\n\n责任编辑：王伟"


def test_every_line_is_a_paragraph_and_separators_are_kept():
    paragraphs, separators = split_paragraphs("  first\n\n second \n  third  \n")
    assert paragraphs == ["first", "second", "third"] and separators == ["\n\n ", " \n  "]
    assert split_paragraphs(" \n\n ") == ([], [])
    assert split_paragraphs(CHINESE)[0] == [
        "分享到：微信 微博",
        "国务院昨天召开常务会议。",
        "会议研究了今年的经济工作。",
        "责任编辑：王伟",
    ]


def test_normalization_ignores_case_punctuation_and_digits():
    assert (
        normalize_paragraph("© 2021 Example Ltd.") == normalize_paragraph("© 1999 EXAMPLE  ltd") == "0000 example ltd"
    )
    assert paragraph_hash("Page 3 of 12") == paragraph_hash("page 4 of 15")
    assert paragraph_hash("责任编辑：王伟") == paragraph_hash("责任编辑: 王伟") != paragraph_hash("责任编辑：李明")
    assert paragraph_hash("２０２１年１月１日") == paragraph_hash("1999年3月5日")  # full-width digits too
    assert paragraph_hash("* * *") is None and paragraph_hash("——") is None
    assert -(1 << 63) <= paragraph_hash("text") < (1 << 63)


def test_a_document_counts_each_paragraph_once():
    assert len(document_paragraph_hashes("same line\nsame line\nSame line!\nother")) == 2
    assert document_paragraph_hashes("***\n\n---") == set()


def test_removal_keeps_the_other_paragraphs_and_their_breaks():
    repeated = {paragraph_hash("Share this: Facebook Twitter"), paragraph_hash("© 2024 Example Ltd")}
    cleaned = remove_paragraphs(ARTICLE, repeated)
    assert cleaned.text == "The council met on Monday.\nIt approved the budget."
    assert cleaned.paragraphs_removed == 2 and cleaned.characters_removed == len(ARTICLE) - len(cleaned.text)
    middle = remove_paragraphs("one\ntwo\n\nthree\nfour", {paragraph_hash("two")})
    assert middle.text == "one\n\nthree\nfour"  # the widest break of the removed stretch stays
    untouched = remove_paragraphs("  text with no repeats \n", repeated)
    assert untouched.text == "  text with no repeats \n" and untouched.paragraphs_removed == 0


def test_removal_in_chinese_paragraphs_without_spaces():
    repeated = {paragraph_hash("分享到：微信 微博"), paragraph_hash("责任编辑：王伟")}
    cleaned = remove_paragraphs(CHINESE, repeated)
    assert cleaned.text == "国务院昨天召开常务会议。\n会议研究了今年的经济工作。"
    assert cleaned.paragraphs_removed == 2


def test_batches_hash_paragraphs_and_reject_what_removal_empties():
    docs = pa.RecordBatch.from_pylist(
        [{"id": "a", "text": ARTICLE}, {"id": "b", "text": "Share this: Facebook Twitter\n\n---"}]
    )
    hashes = paragraph_hash_batch(docs)
    assert hashes.column("id").to_pylist() == ["a"] * 4 + ["b"]
    boilerplate = [paragraph_hash("Share this: Facebook Twitter"), paragraph_hash("© 2021 Example Ltd")]
    flagged = pa.RecordBatch.from_pylist(
        [
            {"id": "a", "text": ARTICLE, "repeated": boilerplate},
            {"id": "b", "text": "Share this: Facebook Twitter\n\n---", "repeated": boilerplate[:1]},
        ]
    )
    rows = cleaned_batch(flagged, min_documents=3, min_chars=1).to_pylist()
    assert rows[0]["cleaned_text"] == "The council met on Monday.\nIt approved the budget."
    assert rows[0]["reject_detail"] is None and rows[0]["paragraphs_removed"] == 2
    assert rows[1]["cleaned_text"] == "---"  # punctuation only: no characters once normalized
    assert rows[1]["reject_detail"] == "1 of 2 paragraphs found in >= 3 documents; 0 characters left (min_chars 1)"
    strict = cleaned_batch(flagged, min_documents=3, min_chars=60).to_pylist()
    assert strict[0]["reject_detail"].startswith("2 of 4 paragraphs") and REASON == "empty_after_paragraph_dedup"
