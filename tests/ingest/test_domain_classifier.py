"""The fastText domain classifier: trained from labelled real documents with the quality
classifier's training (`quality train-classifier --label`), applied by ingest after the URL rules."""

from __future__ import annotations

import random

import pytest
from conftest import shared_data
from ingest_inputs import ingest, kept, wikipedia_dump, write_jsonl
from text_sources import english_text

from corpus_pipeline.cli import main
from corpus_pipeline.fasttext_models import classifier_tokens, load_model

LINES_PER_DOC = 4


def documents(lines: list[str]) -> list[str]:
    lines = [line.strip() for line in lines if len(line.strip()) > 20]
    return ["\n".join(lines[i : i + LINES_PER_DOC]) for i in range(0, len(lines) - LINES_PER_DOC, LINES_PER_DOC)]


@pytest.fixture(scope="module")
def labelled(tmp_path_factory) -> dict[str, list[str]]:
    """ABC news, web forum and chat lines (NLTK's webtext), Wikipedia paragraphs: 4-line documents."""
    work = tmp_path_factory.mktemp("wiki")
    articles = kept(ingest([wikipedia_dump(work / "wiki.xml.bz2", pages=60)], work / "out"), ["text"])
    paragraphs = [p for a in articles for p in a["text"].split("\n\n") if len(p) > 200]
    forum = shared_data("text/en_webtext.txt").read_text(encoding="latin-1").splitlines()
    return {
        "news": documents(english_text().splitlines())[:300],
        "forum": documents(forum)[:300],
        "encyclopedia": paragraphs[:300],
    }


def test_a_domain_classifier_trained_from_labelled_documents_labels_new_ones(tmp_path, labelled, capsys):
    train, held = {}, {}
    for label, texts in labelled.items():
        texts = random.Random(0).sample(texts, len(texts))  # held-out documents from the same articles too
        cut = len(texts) * 3 // 4
        train[label] = write_jsonl(tmp_path / f"{label}.jsonl", [{"text": t} for t in texts[:cut]])
        held[label] = texts[cut:]
    model = tmp_path / "domains.bin"
    argv = ["quality", "train-classifier", "--output", str(model), "--dim", "16", "--bucket", "20000"]
    argv += ["--epoch", "25", "--lr", "0.5"]  # ~700 short documents: fastText's 5 epochs leave it unsure
    for label, path in train.items():
        argv += ["--label", f"{label}={path}"]
    assert main(argv) == 0
    assert "--set domains.classifier.model_path=" in capsys.readouterr().out
    records = [{"text": text, "label": label} for label, texts in held.items() for text in texts]
    source = write_jsonl(tmp_path / "new.jsonl", records)
    labelled_by = ingest([source], tmp_path / "out", f"domains.classifier.model_path={model}")
    domains = [row["domain"] for row in kept(labelled_by, ["domain"])]
    right = sum(domain == record["label"] for domain, record in zip(domains, records, strict=True))
    assert right / len(records) >= 0.9, f"{right} of {len(records)} held-out documents labelled right"
    # A URL rule still comes first; where the classifier is unsure the source's default stays.
    ruled = write_jsonl(tmp_path / "ruled.jsonl", [{"text": records[0]["text"], "url": "https://github.com/x"}])
    rule = ingest([ruled], tmp_path / "rule", f"domains.classifier.model_path={model}",
                  "domains.rules=[{host: github.com, domain: code}]")  # fmt: skip
    assert [r["domain"] for r in kept(rule, ["domain"])] == ["code"]
    strange = "qzxv wpfk jhgt " * 20  # no word it knows: it guesses, unsure
    _, (score,) = load_model(str(model)).predict(" ".join(classifier_tokens(strange)))
    assert score < 0.9
    bound = f"domains.classifier.min_score={(score + 1) / 2}"
    source = write_jsonl(tmp_path / "strange.jsonl", [{"text": strange}])
    unsure = ingest(
        [source], tmp_path / "unsure", f"domains.classifier.model_path={model}", bound, "ingest.domain=general"
    )
    assert {r["domain"] for r in kept(unsure, ["domain"])} == {"general"}


def test_labels_and_a_missing_model_are_clear_errors(tmp_path, capsys):
    one = write_jsonl(tmp_path / "one.jsonl", [{"text": "a page of news"}])
    assert main(["quality", "train-classifier", "--label", f"news={one}", "--output", str(tmp_path / "m.bin")]) == 1
    assert "two labels or more" in capsys.readouterr().err
    assert main(["quality", "train-classifier", "--label", "news", "--output", str(tmp_path / "m.bin")]) == 1
    assert "DOMAIN=PATH" in capsys.readouterr().err
    with pytest.raises(FileNotFoundError, match="domains.classifier.model_path"):
        ingest([one], tmp_path / "out", f"domains.classifier.model_path={tmp_path / 'none.bin'}")
