"""Pre-tokenization pieces, and long texts encoded piece by piece giving the ids of the whole."""

from __future__ import annotations

import numpy as np
import shards_fixtures
from text_sources import chinese_text, english_text

from corpus_pipeline.tokenize.bpe import load_tokenizer
from corpus_pipeline.tokenize.encode import DocumentEncoder
from corpus_pipeline.tokenize.pretokenize import pre_tokenizer, split_long_text

# Session fixtures shared by the tokenize tests (pytest finds them as module attributes).
corpus_dir = shards_fixtures.corpus_dir
tokenizer_path = shards_fixtures.tokenizer_path


def pieces(text: str, split_cjk: bool = True) -> list[str]:
    from tokenizers import Regex, pre_tokenizers

    from corpus_pipeline.tokenize.pretokenize import PATTERN_PLAIN, PATTERN_SPLIT_CJK

    split = pre_tokenizers.Split(Regex(PATTERN_SPLIT_CJK if split_cjk else PATTERN_PLAIN), behavior="isolated")
    return [piece for piece, _ in split.pre_tokenize_str(text)]


def test_digits_are_single_pieces_and_cjk_runs_stand_alone():
    assert pieces("in 1998 we") == ["in", " ", "1", "9", "9", "8", " we"]
    assert pieces("中文abc，中国人民。") == ["中文", "abc", "，", "中国人民", "。"]
    assert pieces("１２月３１日") == ["１", "２", "月", "３", "１", "日"]  # full-width digits too
    # Without the rule, CJK merges with Latin letters and takes a leading punctuation mark.
    assert pieces("中文abc，中国人民。", split_cjk=False) == ["中文abc", "，中国人民", "。"]


def test_pre_tokenizer_is_byte_level_after_the_split():
    out = pre_tokenizer().pre_tokenize_str("Hello world")
    assert [piece for piece, _ in out] == ["Hello", "Ġworld"]


def test_split_long_text_cuts_at_boundaries_and_keeps_every_character():
    text = ("word " * 50 + "\n") * 40
    cut = list(split_long_text(text, 1_000))
    assert "".join(piece for piece, _ in cut) == text
    assert all(len(piece) <= 1_000 for piece, _ in cut) and not any(hard for _, hard in cut)
    letters = "a" * 5_000  # no boundary anywhere: cut hard, and said so
    assert [hard for _, hard in split_long_text(letters, 1_000)] == [True] * 4 + [False]


def test_long_documents_encode_to_the_ids_of_the_whole(tokenizer_path):
    tokenizer = load_tokenizer(str(tokenizer_path))
    english = english_text()[:60_000]
    chinese = chinese_text()[:60_000]
    mixed = english[:20_000] + chinese[:20_000] + " 12345 (x) 'll\r\n\r\n" + english[20_000:40_000]
    encoder = DocumentEncoder(tokenizer, np.dtype(np.uint16), max_chunk_chars=1_000, batch_chars=5_000)
    for text in (english, chinese, mixed):
        whole = tokenizer.encode(text, add_special_tokens=False).ids
        [(_, arrays)] = list(encoder.encode([("doc", text)]))
        assert len(arrays) > 40, "the text was cut into pieces"
        assert np.concatenate(arrays).tolist() == whole
    assert encoder.repairs["long_documents"] == 3 and not encoder.repairs["hard_cuts"]
