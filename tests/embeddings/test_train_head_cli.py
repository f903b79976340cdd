"""`corpus-pipeline quality train-head` on a user's files, read through ingest (the fake encoder
stands in for the model)."""

from __future__ import annotations

import json

import pytest
from fake_encoder import FakeEncoder

import corpus_pipeline.embeddings.encoder as encoder_module
from corpus_pipeline.cli import main
from corpus_pipeline.embeddings.quality_head import load_head


@pytest.fixture()
def files(tmp_path, monkeypatch):
    monkeypatch.setattr(encoder_module, "load_encoder", lambda name, device: FakeEncoder())
    body = " words" * 60
    reference, web = tmp_path / "reference.jsonl", tmp_path / "web.jsonl"
    reference.write_text("".join(json.dumps({"text": f"science{body} {n}"}) + "\n" for n in range(30)))
    web.write_text("".join(json.dumps({"text": f"casino{body} {n}"}) + "\n" for n in range(30)))
    return reference, web, tmp_path / "head.npz"


def test_it_trains_and_says_how_to_use_the_head(files, capsys):
    reference, web, head = files
    assert main(["quality", "train-head", "--reference", str(reference), "--web", str(web), "--output", str(head)]) == 0
    out = capsys.readouterr().out
    assert "heldout_accuracy: 1.0" in out and f"quality.score_head.path={head}" in out
    card = load_head(head).card
    assert [(s["name"], s["role"], s["documents"]) for s in card["sources"]] == [
        ("reference.jsonl", "reference", 30),
        ("web.jsonl", "web", 30),
    ]


def test_an_existing_head_is_not_overwritten_without_replace(files, capsys):
    reference, web, head = files
    args = ["quality", "train-head", "--reference", str(reference), "--web", str(web), "--output", str(head)]
    assert main(args) == 0
    ours = head.read_bytes()
    assert main(args) == 1
    assert "--replace" in capsys.readouterr().err and head.read_bytes() == ours
    assert main([*args, "--replace"]) == 0 and load_head(head).dim == 16


def test_a_users_file_at_the_output_is_never_replaced_even_with_replace(files, capsys):
    reference, web, head = files
    head.write_bytes(b"mine")
    args = ["quality", "train-head", "--reference", str(reference), "--web", str(web), "--output", str(head)]
    assert main([*args, "--replace"]) == 2
    assert "did not write it" in capsys.readouterr().err and head.read_bytes() == b"mine"


def test_reference_without_web_is_refused(files, capsys):
    reference, _, head = files
    assert main(["quality", "train-head", "--reference", str(reference), "--output", str(head)]) != 0
    assert "give both --reference and --web" in capsys.readouterr().err
    assert not head.exists()
