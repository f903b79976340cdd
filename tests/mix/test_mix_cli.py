"""`corpus-pipeline mix --input DIR... --tokenizer T --output DIR --config C`: the registry's verb."""

from __future__ import annotations

import re

import mix_fixtures
import yaml
from mix_fixtures import labelled_documents, read_output, write_labelled

from corpus_pipeline.cli import main

tokenizer_path = mix_fixtures.tokenizer_path


def test_the_verb_mixes_several_inputs_to_the_configured_shares(tmp_path, tokenizer_path, capsys):
    docs = labelled_documents()
    web = write_labelled(tmp_path / "web", [d for d in docs if d["source"] == "web"], parts=1)
    rest = write_labelled(tmp_path / "rest", [d for d in docs if d["source"] != "web"], parts=2)
    config = tmp_path / "mix.yaml"
    config.write_text(
        yaml.safe_dump(
            {"mix": {"by": ["domain", "language"], "targets": {"web/en": 0.4, "news/en": 0.3, "news/zh": 0.3}}}
        )
    )
    argv = [
        "mix",
        "--input",
        str(web),
        str(rest),
        "--tokenizer",
        str(tokenizer_path),
        "--output",
        str(tmp_path / "out"),
    ]
    assert main([*argv, "--config", str(config), "--runner", "local"]) == 0
    printed = capsys.readouterr().out
    shown = re.search(r"web/en ([\d.]+) % \(target 40\.0 %", printed)
    assert shown and abs(float(shown[1]) - 40.0) < 1.0, printed
    documents, _, manifest = read_output(tmp_path / "out")
    assert set(manifest["mix"]["groups"]) == {"web/en", "news/en", "news/zh"}
    assert documents.num_rows == manifest["documents"]
    refused = ["--set", "mix.targets={web/en: 0.5, code/en: 0.5}", "--runner", "local"]
    assert main([*argv[:-1], str(tmp_path / "refused"), *refused]) == 1
    assert "code/en: 50.0 % asked, no documents in this group" in capsys.readouterr().err
    assert not (tmp_path / "refused").exists()
