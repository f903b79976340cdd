"""Training is deterministic, special tokens have fixed ids, and the dtype rule is enforced."""

from __future__ import annotations

import random

import numpy as np
import pytest
from shards_fixtures import real_documents

from corpus_pipeline.tokenize.bpe import (
    TokenizerError,
    choose_dtype,
    file_sha256,
    load_tokenizer,
    save_tokenizer,
    special_tokens,
    tokenizer_from_json,
    train_bpe,
)
from corpus_pipeline.tokenize.config import TrainTokenizerConfig

CONFIG = TrainTokenizerConfig(vocab_size=1_500, reserved_tokens=["<|im_start|>", "<|im_end|>"], reserved_slots=2)


def batches(texts: list[str], size: int = 7) -> list[list[str]]:
    return [texts[i : i + size] for i in range(0, len(texts), size)]


def test_same_texts_in_any_order_give_a_byte_identical_tokenizer(tmp_path):
    texts = [doc["text"] for doc in real_documents(english=30, chinese=30)]
    shuffled = list(texts)
    random.Random(7).shuffle(shuffled)
    first = save_tokenizer(train_bpe(batches(texts), CONFIG), tmp_path / "a.json")
    second = save_tokenizer(train_bpe(batches(shuffled, 5), CONFIG), tmp_path / "b.json")
    assert first == second
    assert (tmp_path / "a.json").read_bytes() == (tmp_path / "b.json").read_bytes()


def test_special_tokens_come_first_and_stay_whole(tmp_path):
    texts = [doc["text"] for doc in real_documents(english=10, chinese=10)]
    save_tokenizer(train_bpe(batches(texts), CONFIG), tmp_path / "t.json")
    tokenizer = load_tokenizer(str(tmp_path / "t.json"))
    expected = ["<|endoftext|>", "<|pad|>", "<|im_start|>", "<|im_end|>", "<|reserved_0|>", "<|reserved_1|>"]
    assert special_tokens(CONFIG) == expected
    assert [tokenizer.token_to_id(token) for token in expected] == list(range(6))
    assert tokenizer.get_vocab_size() == 1_500
    # A document quoting the end-of-document token must not end early: it is encoded as text.
    ids = tokenizer.encode("see <|endoftext|> here", add_special_tokens=False).ids
    assert 0 not in ids and tokenizer.decode(ids) == "see <|endoftext|> here"


def test_a_tokenizer_is_loaded_once_per_sha256_from_its_file_its_copy_or_its_json(tmp_path):
    texts = [doc["text"] for doc in real_documents(english=10, chinese=10)]
    save_tokenizer(train_bpe(batches(texts), CONFIG), tmp_path / "t.json")
    sha256 = file_sha256(tmp_path / "t.json")
    loaded = load_tokenizer(str(tmp_path / "t.json"), sha256)
    (tmp_path / "copy.json").write_bytes((tmp_path / "t.json").read_bytes())  # as the run's tokens/ holds it
    assert load_tokenizer(str(tmp_path / "copy.json"), sha256) is loaded
    assert tokenizer_from_json((tmp_path / "t.json").read_text(encoding="utf-8"), sha256) is loaded
    assert load_tokenizer(str(tmp_path / "copy.json")) is not loaded  # no sha256: by its path


def test_too_small_a_vocabulary_and_duplicate_specials_are_refused():
    with pytest.raises(TokenizerError, match="no room for merges"):
        train_bpe([["text"]], TrainTokenizerConfig(vocab_size=300, reserved_slots=50))
    with pytest.raises(TokenizerError, match="listed twice"):
        special_tokens(TrainTokenizerConfig(reserved_tokens=["<|pad|>"]))


def test_dtype_follows_the_vocabulary_and_refuses_what_does_not_fit():
    assert choose_dtype(65_536) == np.uint16
    assert choose_dtype(65_537) == np.int32
    assert choose_dtype(1_000, "int32") == np.int32
    with pytest.raises(TokenizerError, match="does not fit uint16"):
        choose_dtype(100_000, "uint16")
