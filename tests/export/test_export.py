"""`corpus-pipeline export`: a stage's documents as a dataset repository that `datasets` reads back
with the same ids and texts, with a card; an output that holds anything is refused (exit 2)."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from stage_fixtures import real_documents, stage_dir

from corpus_pipeline.cli import main
from corpus_pipeline.config import PipelineConfig
from corpus_pipeline.engine.exec.local import LocalExecutor
from corpus_pipeline.stage_runner import run_stage

datasets = pytest.importorskip("datasets", reason="the datasets package reads the export back")


@pytest.fixture(scope="module")
def stage(tmp_path_factory) -> Path:
    """An ingest stage of real English and Chinese documents, with metadata and a licence each."""
    root = tmp_path_factory.mktemp("export")
    docs = real_documents(english=40, chinese=40)
    with (root / "docs.jsonl").open("w", encoding="utf-8") as out:
        for number, doc in enumerate(docs):
            licence = "cc-by-4.0" if doc["language"] == "en" else "odc-by"
            record = {"id": f"doc-{number}", "text": doc["text"], "url": doc["url"], "language": doc["language"],
                      "license": licence, "score": number / 100}  # fmt: skip
            out.write(json.dumps(record, ensure_ascii=False) + "\n")
    return run_stage(
        "ingest", [str(root / "docs.jsonl")], stage_dir(root, "ingest"), PipelineConfig(), LocalExecutor()
    ).output


def _export(stage: Path, output: Path, *more: str) -> int:
    return main(["export", "--input", str(stage), "--output", str(output), *more])


def _load(kind: str, output: Path, cache: Path):
    files = sorted(str(p) for p in (output / "data").iterdir())
    return datasets.load_dataset(kind, data_files=files, split="train", cache_dir=str(cache))


@pytest.mark.parametrize("fmt, loader", [("parquet", "parquet"), ("jsonl", "json")])
def test_datasets_reads_the_export_back_with_the_same_ids_and_texts(stage, tmp_path, fmt, loader, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    output = tmp_path / "dataset"
    assert _export(stage, output, "--format", fmt, "--shard-mb", "0.02") == 0
    names = sorted(p.name for p in (output / "data").iterdir())
    shards = len(names)
    suffix = ".parquet" if fmt == "parquet" else ".jsonl.zst"
    assert shards > 1 and names == [f"train-{n:05d}-of-{shards:05d}{suffix}" for n in range(shards)]
    loaded = _load(loader, output, tmp_path / "cache")
    expected = pq.read_table(stage, columns=["id", "text", "metadata"]).to_pylist()
    assert loaded["id"] == [r["id"] for r in expected] and loaded["text"] == [r["text"] for r in expected]
    assert loaded["metadata"] == [r["metadata"] for r in expected]
    card = (output / "README.md").read_text(encoding="utf-8")
    assert f"{len(expected):,} documents" in card and "| en | 40 | 50.0% |" in card and "| zh | 40 | 50.0% |" in card
    assert "| dataset | cc-by-4.0 | 40 |" in card and "| dataset | odc-by | 40 |" in card
    assert "| ingest | 80 | 80 |" in card and "path: data/train-*" in card


def test_an_output_that_holds_anything_is_refused_and_left_alone(stage, tmp_path, capsys):
    a_file = tmp_path / "file.txt"
    a_file.write_text("mine")
    assert _export(stage, a_file) == 2 and a_file.read_text() == "mine"
    assert "is a file" in capsys.readouterr().err
    folder = tmp_path / "folder"
    folder.mkdir()
    (folder / "keep.me").write_text("mine")
    assert _export(stage, folder) == 2
    assert "keep.me" in capsys.readouterr().err and [p.name for p in folder.iterdir()] == ["keep.me"]
    empty = tmp_path / "empty"
    empty.mkdir()
    assert _export(stage, empty) == 0 and (empty / "README.md").exists()
    assert not [p for p in tmp_path.rglob(".export*")]  # no scratch left behind


def test_an_export_to_a_store_writes_the_same_files_and_refuses_a_prefix_with_objects(stage, tmp_path, bucket, capsys):
    from corpus_pipeline.storage import Storage

    prefix = f"s3://{bucket}/datasets/web"
    assert _export(stage, prefix, "--shard-mb", "0.02") == 0
    storage = Storage()
    keys = sorted(uri.removeprefix(prefix + "/") for uri in storage.list_under(prefix))
    shards = len(keys) - 1
    assert keys == ["README.md", *(f"data/train-{n:05d}-of-{shards:05d}.parquet" for n in range(shards))]
    local = tmp_path / "copy"
    (local / "data").mkdir(parents=True)
    for key in keys:
        storage.get_file(f"{prefix}/{key}", str(local / key))
    loaded = _load("parquet", local, tmp_path / "cache")
    assert loaded["id"] == pq.read_table(stage, columns=["id"]).column("id").to_pylist()
    assert _export(stage, prefix) == 2 and f"{prefix}/" in capsys.readouterr().err
    assert len(storage.list_under(prefix)) == shards + 1


def test_a_mix_is_exported_in_shard_order_from_its_documents_parquet(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    from stage_fixtures import write_stage

    docs = real_documents(english=30, chinese=20)
    for number, doc in enumerate(docs):
        doc.update(id=f"m{number}", source="daily" if doc["language"] == "zh" else "news", domain="news")
    corpus = write_stage(tmp_path / "docs", docs)
    config = PipelineConfig.model_validate(
        {"train_tokenizer": {"vocab_size": 1_000}, "tokenize": {"shard_bytes": 8_000},
         "mix": {"by": ["source"], "targets": {"news": 0.7, "daily": 0.3}}}
    )  # fmt: skip
    tokenizer = run_stage("train-tokenizer", corpus, tmp_path / "tokenizer", config, LocalExecutor()).output
    mixed = run_stage(
        "mix", [corpus], tmp_path / "mix", config, LocalExecutor(), tokenizer=tokenizer / "tokenizer.json"
    )
    order = pq.read_table(mixed.output / "documents.parquet")
    assert _export(mixed.output, tmp_path / "dataset") == 0
    loaded = _load("parquet", tmp_path / "dataset", tmp_path / "cache")
    texts = {d["id"]: d["text"] for d in docs}
    assert loaded["id"] == order.column("id").to_pylist() and loaded["repeat"] == order.column("repeat").to_pylist()
    assert loaded["text"] == [texts[i] for i in loaded["id"]]


def _killed_before_the_card(monkeypatch):
    """The next export dies as `kill -9` would leave it: shards written, the card never."""
    def killed(*args, **kwargs):
        raise KeyboardInterrupt("killed before the card")

    monkeypatch.setattr("corpus_pipeline.export.card.render", killed)


def test_a_killed_export_is_finished_by_its_rerun_with_no_scratch_left(stage, tmp_path, monkeypatch):
    output = tmp_path / "dataset"
    with monkeypatch.context() as patch:
        _killed_before_the_card(patch)
        with pytest.raises(KeyboardInterrupt):
            _export(stage, output, "--shard-mb", "0.02")
    assert (output / ".export-intent.json").exists() and not (output / "README.md").exists()
    # What a `kill -9` leaves in the scratch folder (a KeyboardInterrupt's `finally` removed it).
    import hashlib
    import tempfile

    name = f"corpus-pipeline-export-{hashlib.sha256(str(output).encode()).hexdigest()[:16]}"
    scratch = Path(tempfile.gettempdir()) / name
    (scratch / "data").mkdir(parents=True)
    (scratch / "data" / "train-00000-of-00009.parquet").write_bytes(b"half a shard")
    assert _export(stage, output, "--shard-mb", "0.02") == 0
    assert not scratch.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dataset"]
    assert sorted(p.name for p in output.iterdir()) == ["README.md", "data"]


def test_a_killed_export_to_a_store_is_finished_by_its_rerun(stage, tmp_path, bucket, monkeypatch):
    from corpus_pipeline.storage import Storage

    prefix = f"s3://{bucket}/datasets/killed"
    with monkeypatch.context() as patch:
        _killed_before_the_card(patch)
        with pytest.raises(KeyboardInterrupt):
            _export(stage, prefix, "--shard-mb", "0.02")
    storage = Storage()
    assert any(uri.endswith(".parquet") for uri in storage.list_under(prefix))
    assert _export(stage, prefix, "--shard-mb", "0.02") == 0
    keys = sorted(uri.removeprefix(prefix + "/") for uri in storage.list_under(prefix))
    assert keys[0] == "README.md" and all(key.startswith("data/train-") for key in keys[1:])


def test_a_second_export_of_one_output_exits_75_and_writes_nothing(stage, tmp_path):
    from corpus_pipeline.storage import Storage
    from corpus_pipeline.storage.locks import output_lock

    output = tmp_path / "dataset"
    with output_lock(Storage(), str(output)):
        assert _export(stage, output) == 75
    assert sorted(p.name for p in tmp_path.iterdir()) == []
