"""The decontaminate stage on documents in memory: drop, remove with a margin and a piece limit,
character n-grams for Chinese, short items matched whole, and what is recorded."""

from __future__ import annotations

import json

import numpy as np
import pytest
from text_sources import chinese_text, english_text

from corpus_pipeline.decontam.config import DecontaminationConfig, EvalSetConfig
from corpus_pipeline.decontam.record import set_summaries
from corpus_pipeline.decontam.stage import DecontaminateStage
from corpus_pipeline.stats import StageStats


def _lines(text: str, count: int, minimum: int) -> list[str]:
    return [line.strip() for line in text.splitlines() if len(line.strip()) >= minimum][:count]


ENGLISH = _lines(english_text(), 60, 100)
CHINESE = _lines(chinese_text(), 60, 60)


def _stage(tmp_path, items: list[str], **set_settings) -> DecontaminateStage:
    path = tmp_path / "set.jsonl"
    path.write_text("".join(json.dumps({"id": f"q{n}", "text": t}) + "\n" for n, t in enumerate(items)), "utf-8")
    config = DecontaminationConfig(eval_sets=[EvalSetConfig(name="mine", path=str(path), **set_settings)])
    return DecontaminateStage(config)


def _run(stage: DecontaminateStage, texts: list[str]) -> tuple[list, list[dict], StageStats]:
    docs = [{"id": f"d{n}", "text": text} for n, text in enumerate(texts)]
    stats = StageStats(stage.name)
    return stage.process_batch(docs, stats), docs, stats


def test_drop_names_the_set_the_items_and_a_redacted_start_of_the_match(tmp_path):
    stage = _stage(tmp_path, ENGLISH[:3])
    planted = f"{ENGLISH[10]}\n\n{'   '.join(ENGLISH[1].upper().split())}\n\n{ENGLISH[11]}"
    verdicts, docs, stats = _run(stage, [planted, ENGLISH[20], "\n".join(ENGLISH[30:40])])
    assert verdicts[1:] == [None, None] and docs[1]["decontam_items_matched"] == 0
    assert verdicts[0].reason == "contaminated"
    detail = verdicts[0].detail
    assert detail.startswith("mine: 1 item (q1), ") and "n-grams, matched" in detail
    assert "chars]" in detail and ENGLISH[1] not in detail  # quoted only in part
    (summary,) = set_summaries(stats).values()
    assert (summary.items, summary.documents_hit, summary.documents_dropped, summary.items_found) == (3, 1, 1, 1)
    assert summary.items_remaining == 0


def test_remove_cuts_each_match_with_its_margin_and_keeps_the_rest(tmp_path):
    stage = _stage(tmp_path, ENGLISH[:3], action="remove", margin_chars=30)
    before, after = ENGLISH[10], ENGLISH[11]
    text = f"{before}\n{ENGLISH[2]}\n{after}"
    verdicts, docs, stats = _run(stage, [text])
    assert verdicts == [None]
    # The match runs from the item's first letter or digit to its last; 30 characters more each side.
    words = [n for n, c in enumerate(text) if c.isalnum() and len(before) < n < len(text) - len(after)]
    start, end = words[0] - 30, words[-1] + 1 + 30
    assert docs[0]["text"] == f"{text[:start].strip()}\n{text[end:].strip()}"
    assert docs[0]["decontam_spans_removed"] == 1 and docs[0]["decontam_chars_removed"] >= end - start
    (summary,) = set_summaries(stats).values()
    assert (summary.spans_removed, summary.documents_dropped, summary.items_remaining) == (1, 0, 0)


def test_a_document_cut_into_more_pieces_than_the_limit_is_dropped(tmp_path):
    stage = _stage(tmp_path, ENGLISH[:4], action="remove", margin_chars=0, max_pieces=3)
    fillers = ENGLISH[20:25]
    three_cuts = "\n".join([*(part for pair in zip(fillers, ENGLISH[:4], strict=False) for part in pair), fillers[4]])
    two_cuts = "\n".join([fillers[0], ENGLISH[0], fillers[1], ENGLISH[1], fillers[2]])
    verdicts, docs, _ = _run(stage, [three_cuts, two_cuts])
    assert verdicts[0].reason == "contaminated"
    assert verdicts[0].detail.startswith("cut into 5 pieces > 3: mine: 4 items")
    assert verdicts[1] is None and docs[1]["text"] == "\n".join(fillers[:3])
    only_the_item = _run(stage, [ENGLISH[3]])[0][0]
    assert only_the_item.detail.startswith("nothing left once the matches were cut")


def test_chinese_items_match_by_characters_even_split_across_paragraphs(tmp_path):
    stage = _stage(tmp_path, CHINESE[:5])
    assert stage.index.char_widths == (25,) and stage.index.word_widths == ()
    item = CHINESE[4]
    split = f"{CHINESE[30]}\n\n{item[: len(item) // 2]}\n\n{item[len(item) // 2 :]}\n{CHINESE[31]}"
    verdicts, _, _ = _run(stage, [split, "\n".join(CHINESE[20:40])])
    assert verdicts[0].reason == "contaminated" and "(q4)" in verdicts[0].detail
    assert verdicts[1] is None
    english_page = f"{ENGLISH[5]} As the paper wrote: {CHINESE[2]} {ENGLISH[6]}"
    assert _run(stage, [english_page])[0][0].reason == "contaminated"  # a quote inside another language


def test_short_items_match_whole_digit_runs_and_shared_template_never_match(tmp_path):
    short = "the quick brown fox jumps over the lazy dog"  # 9 words < 13: one shingle
    template = " ".join(ENGLISH[50].split()[:15])
    items = [short, "New York", " ".join(str(n) for n in range(1, 30)) + " " + ENGLISH[0]]
    items += [f"{template} {line}" for line in ENGLISH[39:50]]  # 11 items share the template
    stage = _stage(tmp_path, items)
    assert stage.index.skipped == {"mine": 1} and stage.index.word_widths == (9, 13)
    texts = [
        f"Yesterday The Quick Brown Fox jumps over the LAZY dog again. {ENGLISH[30]}",
        f"He moved to New York. {ENGLISH[31]}",
        "Table: " + " | ".join(str(n) for n in range(1, 30)),
        # "midday" after the template: an n-gram across its end must not meet an item's by chance
        # (the packaged fallback text puts "In ..." after it in one item and in ENGLISH[33]).
        f"{ENGLISH[32]} {template} midday. {ENGLISH[33]}",
        f"quick brown fox jumps over the lazy dog {ENGLISH[34]}",  # 8 of its 9 words
    ]
    verdicts, _, stats = _run(stage, texts)
    assert [v.reason if v else None for v in verdicts] == ["contaminated", None, None, None, None]
    assert stage.index.template_ngrams > 0 and set_summaries(stats)["mine"].items == 14


def test_keep_counts_what_stays_in_the_corpus_for_the_gates(tmp_path):
    stage = _stage(tmp_path, ENGLISH[:3], action="keep")
    verdicts, docs, stats = _run(stage, [f"{ENGLISH[10]} {ENGLISH[0]}", ENGLISH[11]])
    assert verdicts == [None, None] and docs[0]["decontam_items_matched"] == 1
    assert docs[0]["text"] == f"{ENGLISH[10]} {ENGLISH[0]}"
    summary = set_summaries(stats)["mine"]
    assert summary.items_remaining == 1 and summary.remaining_share == pytest.approx(1 / 3)


def test_the_verb_option_replaces_the_configured_sets_and_names_are_unique(tmp_path):
    path = tmp_path / "my-set.v2.jsonl"
    path.write_text(json.dumps({"text": ENGLISH[0]}) + "\n", encoding="utf-8")
    stage = DecontaminateStage(DecontaminationConfig(), eval=["humaneval", str(path)])
    assert stage.index.set_names == ("humaneval", "my-set") and stage.index.set_sizes == (164, 1)
    twice = [EvalSetConfig(name="a", builtin="humaneval")] * 2
    with pytest.raises(ValueError, match="a name given twice"):
        DecontaminateStage(DecontaminationConfig(eval_sets=twice))


def test_the_index_is_saved_once_then_mapped_and_a_changed_set_is_a_new_index(tmp_path):
    from corpus_pipeline.decontam import index as index_module

    path = tmp_path / "set.jsonl"
    path.write_text(json.dumps({"text": ENGLISH[0]}) + "\n", encoding="utf-8")
    sets = [EvalSetConfig(name="mine", path=str(path))]
    config = DecontaminationConfig(eval_sets=sets, index_cache=str(tmp_path / "c"))
    built = DecontaminateStage(config)
    assert len(list((tmp_path / "c").iterdir())) == 1
    index_module._PROCESS_INDEXES.clear()  # as a fresh executor process
    loaded = DecontaminateStage(config)
    assert isinstance(loaded.index.hashes, np.memmap) and np.array_equal(loaded.index.hashes, built.index.hashes)
    assert _run(loaded, [ENGLISH[0]])[0][0].reason == "contaminated"
    path.write_text(json.dumps({"text": ENGLISH[1]}) + "\n", encoding="utf-8")
    changed = DecontaminateStage(config)
    assert len(list((tmp_path / "c").iterdir())) == 2 and changed.config_fingerprint() != built.config_fingerprint()
    assert _run(changed, [ENGLISH[0]])[0] == [None]
