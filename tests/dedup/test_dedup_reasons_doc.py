"""Every drop reason the dedup stage writes is listed in schemas/document.md."""

from __future__ import annotations

import re
from pathlib import Path

from corpus_pipeline.dedup import chain, paragraph_batches, simhash_decisions, small_decisions

ROOT = Path(__file__).resolve().parents[2]


def test_schema_page_lists_every_dedup_drop_reason():
    decisions = (ROOT / "corpus_pipeline" / "dedup" / "decisions.py").read_text(encoding="utf-8")
    reasons = set(re.findall(r'F\.lit\("(\w+_duplicate)"\)', decisions))
    assert reasons == {"exact_duplicate", "url_duplicate", "minhash_duplicate"}
    reasons |= {
        simhash_decisions.REASON,
        paragraph_batches.REASON,
        chain.ID_COLLISION,
        small_decisions.SEMANTIC_REASON,
    }
    page = (ROOT / "schemas" / "document.md").read_text(encoding="utf-8")
    for reason in reasons:
        assert f"| dedup | `{reason}` |" in page, reason
