"""The ingest stage as users run it: the CLI verb, stable ids, reruns, run directories, Spark."""

from __future__ import annotations

import shutil

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from ingest_inputs import ingest, kept, web_docs, write_jsonl
from stage_fixtures import real_documents, stage_dir

from corpus_pipeline.cli import main
from corpus_pipeline.config import PipelineConfig
from corpus_pipeline.engine.exec.local import LocalExecutor
from corpus_pipeline.stage_runner import run_stage


@pytest.fixture(scope="module")
def daily() -> list[dict]:
    """People's Daily and ABC news documents, as a dataset without ids stores them."""
    return [{"body": d["text"], "link": d["url"]} for d in real_documents(english=20, chinese=20)]


def test_the_cli_verb_maps_fields_and_names_the_source(tmp_path, daily, capsys):
    source = write_jsonl(tmp_path / "daily.data", daily)
    out = tmp_path / "out"
    argv = ["ingest", "--input", str(source), "--output", str(out), "--runner", "local", "--format", "jsonl"]
    argv += ["--text-field", "body", "--source", "daily", "--domain", "news"]
    argv += ["--set", "ingest.url_field=link"]
    assert main(argv) == 0
    assert "ingest: " in capsys.readouterr().out
    rows = pq.read_table(out, columns=["text", "url", "source", "domain"]).to_pylist()
    assert rows == [{"text": d["body"], "url": d["link"], "source": "daily", "domain": "news"} for d in daily]


def test_a_file_of_unknown_format_is_refused_before_anything_runs(tmp_path, capsys):
    (tmp_path / "notes.md").write_text("# hello\n", encoding="utf-8")
    out = tmp_path / "out"
    assert main(["ingest", "--input", str(tmp_path / "notes.md"), "--output", str(out), "--runner", "local"]) == 1
    assert "cannot tell its format" in capsys.readouterr().err and not out.exists()


def test_ids_are_stable_across_runs_files_and_formats(tmp_path, daily):
    records = [{"text": d["body"]} for d in daily]
    first = ingest([write_jsonl(tmp_path / "a.jsonl", records)], tmp_path / "one", "ingest.source=daily")
    shutil.copy(tmp_path / "a.jsonl", tmp_path / "b.jsonl")
    again = ingest([tmp_path / "b.jsonl"], tmp_path / "two", "ingest.source=daily")
    pq.write_table(pa.Table.from_pylist(records), tmp_path / "c.parquet")
    parquet = ingest([tmp_path / "c.parquet"], tmp_path / "three", "ingest.source=daily")
    ids = [r["id"] for r in kept(first, ["id"])]
    assert len(set(ids)) == len(records) and all(len(i) == 32 for i in ids)
    assert ids == [r["id"] for r in kept(again, ["id"])] == [r["id"] for r in kept(parquet, ["id"])]
    other = ingest([tmp_path / "a.jsonl"], tmp_path / "four", "ingest.source=other")
    assert not set(ids) & {r["id"] for r in kept(other, ["id"])}  # the source is part of the hash
    assert ingest([tmp_path / "a.jsonl"], tmp_path / "one", "ingest.source=daily").skipped


def test_an_id_prefix_keeps_two_datasets_numbered_alike_apart(tmp_path, daily):
    """Both number their records 0..N; a prefix each gives ids that never meet in dedup."""
    records = [{"id": number, "text": d["body"]} for number, d in enumerate(daily)]
    jsonl, parquet = write_jsonl(tmp_path / "a.jsonl", records), tmp_path / "b.parquet"
    pq.write_table(pa.Table.from_pylist(records), parquet)  # the batch path, not the line one
    plain = ingest([jsonl], tmp_path / "plain")
    assert [r["id"] for r in kept(plain, ["id"])] == [str(n) for n in range(len(daily))]
    for path, name in ((jsonl, "news"), (parquet, "blog")):
        result = ingest([path], tmp_path / name, f"ingest.id_prefix='{name}:'")
        assert [r["id"] for r in kept(result, ["id"])] == [f"{name}:{n}" for n in range(len(daily))]


def test_run_dir_mode_finds_the_source_stage_that_ran(tmp_path, daily, capsys):
    run = tmp_path / "runs" / "r1"
    source = write_jsonl(tmp_path / "daily.jsonl", [{"text": d["body"]} for d in daily])
    assert main(["ingest", "--run-dir", str(run), "--runner", "local"]) == 2
    assert "--input is required: the dataset files" in capsys.readouterr().err
    assert main(["ingest", "--run-dir", str(run), "--input", str(source), "--runner", "local"]) == 0
    assert main(["langid", "--run-dir", str(run), "--runner", "local"]) == 0
    assert (stage_dir(run, "langid") / "_SUCCESS").exists()
    assert pq.read_table(stage_dir(run, "langid"), columns=["source"]).num_rows == len(daily)
    shutil.copytree(stage_dir(run, "ingest"), stage_dir(run, "extract"))
    capsys.readouterr()
    assert main(["normalize", "--run-dir", str(run), "--runner", "local"]) == 0  # reads langid's
    assert main(["langid", "--run-dir", str(run), "--output", str(tmp_path / "l2"), "--runner", "local"]) == 2
    assert f"{stage_dir(run, 'extract').name}, {stage_dir(run, 'ingest').name}" in capsys.readouterr().err


@pytest.mark.spark
def test_spark_tasks_give_what_the_local_runner_gives(tmp_path, spark):
    from corpus_pipeline.engine.exec.spark import SparkExecutor

    docs = web_docs()[:200]
    (tmp_path / "in").mkdir()
    write_jsonl(tmp_path / "in" / "a.jsonl", docs[:100])
    pq.write_table(pa.Table.from_pylist(docs[100:]), tmp_path / "in" / "b.parquet")
    inputs = [str(tmp_path / "in")]
    local = run_stage("ingest", inputs, tmp_path / "local", PipelineConfig(), LocalExecutor())
    distributed = run_stage("ingest", inputs, tmp_path / "spark", PipelineConfig(), SparkExecutor(spark))
    assert distributed.stats.tasks == 2 and distributed.stats.kept == local.stats.kept
    for name in ("part-00000.parquet", "part-00001.parquet"):
        assert pq.read_table(tmp_path / "spark" / name).equals(pq.read_table(tmp_path / "local" / name))


def test_ids_two_files_share_are_kept_and_named_by_ingest_and_export(tmp_path, daily, capsys):
    """Each file's own repeats are `duplicate_id` rows; repeats across files (a Data-Juicer export's
    parts: 100 rows, 93 ids) are kept, with one warning line from ingest and from export."""
    records = [{"id": str(n), "text": d["body"]} for n, d in enumerate(daily)]
    parts = tmp_path / "parts"
    parts.mkdir()
    write_jsonl(parts / "a.jsonl", records[:3])
    write_jsonl(parts / "b.jsonl", records[1:])  # ids 1 and 2 again
    out = tmp_path / "out"
    assert main(["ingest", "--input", str(parts), "--output", str(out), "--runner", "local"]) == 0
    rows, ids = len(records) + 2, len(records)
    said = f"holds {rows} rows under {ids} distinct ids: 2 rows repeat the id of another"
    assert f"ingest: warning: {out} {said}" in capsys.readouterr().out
    assert main(["export", "--input", str(out), "--output", str(tmp_path / "dataset")]) == 0
    assert f"export: warning: {out} {said}" in capsys.readouterr().err
    write_jsonl(parts / "b.jsonl", records[3:])
    assert main(["ingest", "--input", str(parts), "--output", str(tmp_path / "apart"), "--runner", "local"]) == 0
    assert "warning" not in capsys.readouterr().out
