"""The tokenize verbs as a user types them (local runner): train-tokenizer, tokenize, shards."""

from __future__ import annotations

import shards_fixtures

from corpus_pipeline.cli import main as run_verb

corpus_dir = shards_fixtures.corpus_dir


def test_train_then_tokenize_from_the_command_line(tmp_path, corpus_dir, capsys):
    tokenizer = tmp_path / "tokenizer"
    local = ["--runner", "local"]
    assert (
        run_verb(
            ["train-tokenizer", "--input", str(corpus_dir), "--output", str(tokenizer), "--vocab-size", "600", *local]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "600 ids" in out and "zh" in out and (tokenizer / "tokenizer.training.json").exists()
    assert (
        run_verb(
            ["train-tokenizer", "--input", str(corpus_dir), "--output", str(tokenizer), "--vocab-size", "600", *local]
        )
        == 0
    )
    assert "train-tokenizer (reused)" in capsys.readouterr().out
    output = tmp_path / "tokens"
    argv = ["tokenize", "--input", str(corpus_dir), "--tokenizer", str(tokenizer), "--output", str(output), *local]
    assert run_verb([*argv, "--set", "tokenize.prefix=corpus"]) == 0
    out = capsys.readouterr().out
    assert "tokenize" in out and "80 documents" in out and (output / "corpus_00000.bin").exists()
    assert run_verb(["shards", "inspect", str(output), "--documents", "1"]) == 0
    assert "document 0 (" in capsys.readouterr().out
