"""`corpus-pipeline ablate` end to end on CPU: two corpora, one held-out set, one answer."""

from __future__ import annotations

import json

import pytest
import torch
import train_fixtures
from stage_fixtures import real_documents
from train_fixtures import make_shards

from corpus_pipeline.cli import main

tokenizer_file = train_fixtures.tokenizer_file

pytestmark = pytest.mark.realdata


@pytest.mark.slow  # two trainings: ~15 s
def test_the_corpus_that_matches_the_held_out_text_wins(tokenizer_file, tmp_path, capsys):
    # A: English news only; B: People's Daily only; held out: later People's Daily documents, so B
    # must reach the lower validation loss after the same number of training tokens.
    english = make_shards(tmp_path / "a", real_documents(english=200, chinese=0), tokenizer_file)
    chinese = make_shards(tmp_path / "b", real_documents(english=0, chinese=200), tokenizer_file)
    held_out = make_shards(tmp_path / "eval", real_documents(english=0, chinese=260)[200:], tokenizer_file)
    overrides = [
        "model.seq_len=64",
        "tensorboard=false",
        "max_steps=40",
        "micro_batch_size=16",
        "lr=1e-2",
        "eval_every=1000",
        "log_every=20",
    ]
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        code = main(
            [
                "ablate",
                "--a",
                str(english),
                "--b",
                str(chinese),
                "--eval",
                str(held_out),
                "--out",
                str(tmp_path / "ablation"),
                *[a for o in overrides for a in ("--set", o)],
            ]
        )
    finally:
        torch.set_num_threads(threads)
    assert code == 0
    record = json.loads((tmp_path / "ablation" / "ablation.json").read_text())
    assert record["tokens"] == 40 * 16 * 64
    assert record["val_loss_b"] < record["val_loss_a"] - 0.2, record
    # both curves (one evaluation here: eval_every 1000 > 40 steps, and the last step) and the seed
    assert record["curve_a"] == [[40, record["val_loss_a"]]] and record["curve_b"] == [[40, record["val_loss_b"]]]
    assert record["seed"] == 1337
    assert "B is better" in capsys.readouterr().out


def test_shards_of_another_tokenizer_are_refused(tokenizer_file, tmp_path, capsys):
    shards = make_shards(tmp_path / "a", real_documents(english=20, chinese=20), tokenizer_file)
    other = tmp_path / "other"
    other.mkdir()
    foreign = other / "tokenizer.json"
    foreign.write_text(tokenizer_file.read_text(encoding="utf-8").replace('"<|pad|>"', '"<|padding|>"'))
    foreign_shards = make_shards(other, real_documents(english=20, chinese=20), foreign)
    code = main(
        [
            "ablate",
            "--a",
            str(shards),
            "--b",
            str(foreign_shards),
            "--eval",
            str(shards),
            "--out",
            str(tmp_path / "out"),
            "--set",
            "model.seq_len=64",
        ]
    )
    assert code == 1
    assert "another tokenizer" in capsys.readouterr().err
