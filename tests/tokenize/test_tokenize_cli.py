"""The verbs `register` adds: train-tokenizer and tokenize, as a user types them (local runner)."""

from __future__ import annotations

import argparse

import shards_fixtures

from corpus_pipeline.config import load_config
from corpus_pipeline.tokenize.cli import register

corpus_dir = shards_fixtures.corpus_dir


def run_verb(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="corpus-pipeline")
    register(parser.add_subparsers(dest="verb", required=True))
    args = parser.parse_args(argv)
    return args.handler(args, load_config(args.config, args.overrides))


def test_train_then_tokenize_from_the_command_line(tmp_path, corpus_dir, capsys):
    tokenizer = tmp_path / "tokenizer.json"
    local = ["--runner", "local"]
    assert (
        run_verb(
            ["train-tokenizer", "--input", str(corpus_dir), "--output", str(tokenizer), "--vocab-size", "600", *local]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "600 ids" in out and "zh" in out and (tmp_path / "tokenizer.training.json").exists()
    assert (
        run_verb(
            ["train-tokenizer", "--input", str(corpus_dir), "--output", str(tokenizer), "--vocab-size", "600", *local]
        )
        == 0
    )
    assert "reused (same input and config)" in capsys.readouterr().out
    output = tmp_path / "tokens"
    argv = ["tokenize", "--input", str(corpus_dir), "--tokenizer", str(tokenizer), "--output", str(output), *local]
    assert run_verb([*argv, "--set", "tokenize.prefix=corpus"]) == 0
    out = capsys.readouterr().out
    assert "tokenize" in out and "80 documents" in out and (output / "corpus_00000.bin").exists()
    assert run_verb(["shards", "inspect", str(output), "--documents", "1"]) == 0
    assert "document 0 (" in capsys.readouterr().out
