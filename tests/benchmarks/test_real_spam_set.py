"""benchmarks/real_spam_set.py: every labelled page is found in the real data, and no site is in
both halves."""

from __future__ import annotations

import sys
from collections import defaultdict
from pathlib import Path

import pytest
from conftest import shared_data

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import real_spam_set  # noqa: E402


def test_a_site_is_in_one_half_whatever_the_page():
    assert real_spam_set.site("http://www.Example.com/a?b") == "example.com"
    halves = {real_spam_set.half(f"https://example.com/{n}") for n in range(20)}
    assert len(halves) == 1
    assert {real_spam_set.half(f"https://site{n}.org/") for n in range(40)} == {"dev", "heldout"}


@pytest.mark.realdata
def test_the_labels_name_real_pages_and_the_halves_share_no_site(monkeypatch):
    monkeypatch.setattr(real_spam_set, "WEB_DOCS", shared_data("dedup/web_docs.jsonl"))
    warcs = {prefix: shared_data(f"warc/{path.name}") for prefix, path in real_spam_set.WARCS.items()}
    monkeypatch.setattr(real_spam_set, "WARCS", warcs)
    pages = real_spam_set.real_documents()  # raises if a labelled page is missing
    labels = real_spam_set.read_labels()
    assert sum(label == "spam" for label in labels.values()) == 8
    halves_of: dict[str, set[str]] = defaultdict(set)
    for page in pages:
        halves_of[page["site"]].add(page["half"])
    assert all(len(halves) == 1 for halves in halves_of.values())
    assert {page["half"] for page in pages if page["label"] == "spam"} == {"dev", "heldout"}
