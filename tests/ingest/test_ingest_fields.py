"""Fields are kept and checked: the metadata column, a per-record source, dates from the usual
names, fields the data lacks refused before anything is written (exit 2), an ingest that keeps
nothing (exit 1) or reads nothing (a warning), ids with one prefix and rejected ids relative to the
input, dictionary-encoded and binary columns read as strings."""

from __future__ import annotations

import json

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from ingest_inputs import ingest, kept, reasons, rejected, write_jsonl

from corpus_pipeline.cli import main
from corpus_pipeline.config import ConfigError, load_config
from corpus_pipeline.failures import RunRefused

DOLMA = [
    {"id": f"d{n}", "text": f"dolma text {n}", "source": "wiki" if n % 2 else "c4",
     "added": f"2024-01-0{n}T00:00:00.000Z", "created": f"2019-0{n}-01",
     "metadata": {"url": f"https://w.example/{n}", "length": 10 + n}}
    for n in range(1, 5)
]  # fmt: skip


def _verb(tmp_path, source, *more) -> list[str]:
    return ["ingest", "--input", str(source), "--output", str(tmp_path / "out"), "--runner", "local", *more]


def test_unknown_fields_go_into_metadata_and_the_source_field_names_each_record(tmp_path):
    source = write_jsonl(tmp_path / "dolma.jsonl", DOLMA)
    result = ingest([source], tmp_path / "out", "ingest.source_field=source", "ingest.url_field=metadata.url")
    rows = kept(result, ["id", "source", "url", "date", "metadata"])
    assert [r["source"] for r in rows] == [d["source"] for d in DOLMA]
    assert [r["url"] for r in rows] == [d["metadata"]["url"] for d in DOLMA]
    assert [r["date"] for r in rows] == [d["created"] for d in DOLMA]  # created before added
    for row, record in zip(rows, DOLMA, strict=True):
        assert json.loads(row["metadata"]) == {
            "added": record["added"],
            "metadata": {"length": record["metadata"]["length"]},
        }
    off = ingest([source], tmp_path / "off", "ingest.keep_metadata=false")
    assert {r["metadata"] for r in kept(off, ["metadata"])} == {None}


def test_parquet_extra_columns_and_a_timestamp_become_metadata_and_date(tmp_path):
    table = pa.table({"text": ["one", "two"], "timestamp": pa.array([0, 86400], pa.timestamp("s", "UTC")),
                      "score": [0.5, None], "tags": [["a"], []]})  # fmt: skip
    pq.write_table(table, tmp_path / "fw.parquet")
    rows = kept(ingest([tmp_path / "fw.parquet"], tmp_path / "out"), ["date", "metadata"])
    assert [r["date"] for r in rows] == ["1970-01-01T00:00:00Z", "1970-01-02T00:00:00Z"]
    assert [json.loads(r["metadata"]) for r in rows] == [{"score": 0.5, "tags": ["a"]}, {"tags": []}]


def test_a_text_or_id_field_the_data_lacks_is_refused_before_anything_is_written(tmp_path, capsys):
    source = write_jsonl(tmp_path / "d.jsonl", DOLMA)
    assert main(_verb(tmp_path, source, "--text-field", "body")) == 2
    err = capsys.readouterr().err
    assert "'body'" in err and "added, created, id, metadata, metadata.length, metadata.url, source, text" in err
    assert main(_verb(tmp_path, source, "--id-field", "doc_id")) == 2
    assert "'doc_id'" in capsys.readouterr().err and not (tmp_path / "out").exists()
    pq.write_table(pa.table({"content": ["x"]}), tmp_path / "p.parquet")
    with pytest.raises(ConfigError, match="its Parquet schema; the fields there: content"):
        ingest([tmp_path / "p.parquet"], tmp_path / "p")


def test_keeping_none_of_the_records_exits_1_and_an_empty_input_warns(tmp_path, capsys):
    source = write_jsonl(tmp_path / "blank.jsonl", [{"text": " "}, {"text": ""}, {"text": None}])
    assert main(_verb(tmp_path, source)) == 1
    assert "kept none of 3 records: empty_text (2), missing_text (1)" in capsys.readouterr().err
    (tmp_path / "empty.jsonl").write_bytes(b"")
    assert (
        main(["ingest", "--input", str(tmp_path / "empty.jsonl"), "--output", str(tmp_path / "e"), "--runner", "local"])
        == 0
    )
    assert "warning: the input holds no records" in capsys.readouterr().err


def test_the_prefix_is_never_doubled_and_rejected_ids_are_relative_to_the_input(tmp_path):
    folder = tmp_path / "data" / "sub"
    folder.mkdir(parents=True)
    write_jsonl(folder / "a.jsonl", [{"id": "viwiki:1001", "text": "x"}, {"id": "7", "text": "y"}, {"id": "8"}])
    result = ingest([tmp_path / "data"], tmp_path / "out", "ingest.id_prefix='viwiki:'")
    assert [r["id"] for r in kept(result, ["id"])] == ["viwiki:1001", "viwiki:7"]
    assert [r["id"] for r in rejected(result)] == ["sub/a.jsonl:line 3"]


def test_dictionary_and_binary_text_and_id_columns_are_read_as_strings(tmp_path):
    frame = pd.DataFrame({"id": pd.Categorical(["a", "b", "a2"]), "text": pd.Categorical(["same", "same", "other"])})
    frame.to_parquet(tmp_path / "categorical.parquet")
    rows = kept(ingest([tmp_path / "categorical.parquet"], tmp_path / "c"), ["id", "text"])
    assert rows == [{"id": "a", "text": "same"}, {"id": "b", "text": "same"}, {"id": "a2", "text": "other"}]
    binary = pa.table({"id": pa.array([b"x", b"y"]), "text": pa.array(["caf\u00e9".encode(), b"caf\xe9"], pa.binary())})
    pq.write_table(binary, tmp_path / "binary.parquet")
    result = ingest([tmp_path / "binary.parquet"], tmp_path / "b")
    assert kept(result, ["id", "text"]) == [{"id": "x", "text": "caf\u00e9"}] and reasons(result) == {"invalid_utf8": 1}


def test_a_run_source_may_lack_the_default_id_and_url_fields(tmp_path):
    """A pipeline source's ingest config sets every field: only a field named otherwise is checked."""
    from corpus_pipeline.pipeline.context import RunPlan
    from corpus_pipeline.pipeline.preflight import check_run_config

    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "a.jsonl").write_text('{"text": "only a text"}\n', encoding="utf-8")
    path = tmp_path / "in" / "a.jsonl"
    source = f"pipeline.sources=[{{name: d, kind: jsonl, paths: ['{path}']}}]"
    check_run_config(RunPlan.from_config(load_config(None, [f"data_root={tmp_path}", source]), "local"))
    named = f"pipeline.sources=[{{name: d, kind: jsonl, paths: ['{path}'], overrides: [ingest.url_field=link]}}]"
    with pytest.raises(RunRefused, match="ingest.url_field 'link'"):
        check_run_config(RunPlan.from_config(load_config(None, [f"data_root={tmp_path}", named]), "local"))
