"""benchmarks/wiki_residue.py counts an article as residue by its markup outside code only."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

from wiki_residue import residue  # noqa: E402

PREFIXES = ("file:", "category:", "thể loại:")


def test_residue_is_markup_outside_code_and_a_lone_variant_opening_is_text():
    assert residue("Text.\n{{Infobox x}}\nMore.", PREFIXES) == ["{{Infobox x}}"]
    assert residue("Kết thúc.\n[[Thể loại:Toán học]]", PREFIXES) == ["[[Thể loại:Toán học]]"]
    assert residue("網路連-{zh-hans:接;zh-hant:線}-。", PREFIXES) == ["網路連-{zh-hans:接;zh-hant:線}-。"]
    assert residue("C: <code>if (a) {{ b(); }}</code> ends.", PREFIXES) == []
    assert residue("x-{y and no closing", PREFIXES) == []
