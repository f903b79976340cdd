"""Paragraph boilerplate removal inside the dedup chain on Spark: English and Chinese pages, the
reject reason, the stats, the chain's order, and identical bytes for 4 and 13 partitions."""

from __future__ import annotations

import json
import random

import pyarrow.parquet as pq
import pytest
from dedup_runs import assert_same_bytes, dedup_at_partitionings

from corpus_pipeline.config import PipelineConfig
from corpus_pipeline.dedup.shingles import document_shingles, jaccard

pytestmark = pytest.mark.spark

WORDS = [f"word{i}" for i in range(3000)]
HANZI = [chr(0x4E00 + i) for i in range(2000)]
SHARE = "Share this article: Facebook Twitter LinkedIn Email"
RELATED = "Related: how the council budget was made"  # in 4 documents and an exact copy of one
NAV = [" ".join(random.Random(line).choices(WORDS, k=15)) for line in range(8)]  # a site's menu
ZH_SHARE, ZH_EDITOR = "分享到：微信 微博 QQ空间", "责任编辑：王伟"


def _footer(i: int) -> str:
    return f"© {2015 + i} Example News Ltd. All rights reserved."  # one template once digits are 0


def _corpus() -> tuple[list[dict], dict[str, list[str]]]:
    """-> (docs, id -> the paragraphs that must remain, for every document paragraph removal sees)."""
    rng = random.Random(9)
    docs, remains = [], {}

    def add(doc_id: str, content: list[str], boilerplate_before: list[str], boilerplate_after: list[str], **extra):
        docs.append({"id": doc_id, "text": "\n\n".join(boilerplate_before + content + boilerplate_after), **extra})
        remains[doc_id] = content

    for i in range(11):
        content = [" ".join(rng.choices(WORDS, k=40)) for _ in range(3)]
        if i < 4:
            content.append(RELATED)
        before = [SHARE] if i < 8 else NAV
        after = [_footer(i)] if i < 6 else []
        add(f"e{i:03d}", content, before, after, language="en")
    add("eb", [], [SHARE], [_footer(9)], language="en")  # nothing but boilerplate
    for name in ("m1", "m2"):  # short pages inside the same big navigation: similar until it goes
        add(name, [" ".join(rng.choices(WORDS, k=5))], NAV, [], language="en")
    for i in range(8):
        content = ["".join(rng.choices(HANZI, k=80)) for _ in range(3)]
        before = ([ZH_SHARE] if i < 7 else []) + [f"１９９８年１月{'１２３４５６７８'[i]}日"]
        add(f"zh{i}", content, before, [ZH_EDITOR] if i < 6 else [], language="zh")
    add("zb", [], [ZH_SHARE, "１９９８年１月９日"], [ZH_EDITOR], language="zh")
    docs.append({"id": "x000", "text": docs[0]["text"].upper() + "!", "language": "en"})  # exact copy of e000
    return docs, remains


def _read(directory, pattern):
    return [row for part in sorted(directory.glob(pattern)) for row in pq.read_table(part).to_pylist()]


def test_paragraphs_in_five_documents_are_removed_after_exact_and_before_minhash(spark, tmp_path):
    docs, remains = _corpus()
    by_id = {doc["id"]: doc for doc in docs}
    m1, m2 = (document_shingles(by_id[name]["text"], "en", 5, 5) for name in ("m1", "m2"))
    assert jaccard(m1, m2) > 0.8  # MinHash would call them copies if the navigation stayed
    config = PipelineConfig.model_validate({"dedup": {"output_parts": 2, "methods": ["exact", "paragraph", "minhash"]}})
    outputs = dedup_at_partitionings(spark, docs, config, tmp_path)
    out = outputs[0]
    rejected = {row["id"]: row for row in _read(out, "_rejected/reason=*/*.parquet")}
    assert {i: r["reject_detail"] for i, r in rejected.items() if i == "x000"} == {"x000": "e000"}
    for doc_id, paragraphs in (("eb", 2), ("zb", 3)):
        detail = rejected[doc_id]["reject_detail"]
        assert (
            detail
            == f"{paragraphs} of {paragraphs} paragraphs found in >= 5 documents; 0 characters left (min_chars 1)"
        )
        assert rejected[doc_id]["text"] == by_id[doc_id]["text"]  # the rejected row shows what was there
    assert sorted({p.parent.name for p in out.glob("_rejected/*/*.parquet")}) == [
        "reason=empty_after_paragraph_dedup",
        "reason=exact_duplicate",
    ]
    kept = {row["id"]: row["text"] for row in _read(out, "part-*.parquet")}
    expected = {doc_id: "\n\n".join(paragraphs) for doc_id, paragraphs in remains.items() if paragraphs}
    assert kept == expected  # RELATED stays: 4 documents once the exact copy is gone; m1 and m2 both stay
    stats = json.loads((out / "_stats.json").read_text())
    assert stats["dropped"] == {"empty_after_paragraph_dedup": 2, "exact_duplicate": 1}
    cleaned = [doc_id for doc_id in remains if by_id[doc_id]["text"] != expected.get(doc_id, "")]
    assert stats["extra"]["paragraph_dedup"] == {
        "documents_cleaned": len(cleaned),
        "paragraphs_removed": sum(len(by_id[i]["text"].split("\n\n")) - len(remains[i]) for i in cleaned),
        "characters_removed": sum(len(by_id[i]["text"]) - len(expected.get(i, "")) for i in cleaned),
    }
    assert_same_bytes(outputs)
