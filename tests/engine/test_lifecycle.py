"""The one lifecycle: output guards, task identity on resume, first-attempt-wins commits, fused chains."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from stage_fixtures import real_documents, write_stage
from stage_plans import planned_dirs

from corpus_pipeline.cli import EXIT_USAGE, main
from corpus_pipeline.config import PipelineConfig
from corpus_pipeline.engine.exec.local import LocalExecutor
from corpus_pipeline.engine.exec.task_plan import plan_part_tasks
from corpus_pipeline.engine.store.stage_dir import MissingInputError, OutputOverlapsInputError
from corpus_pipeline.engine.store.task_output import COMMITTED_DIR, STATS_DIR, TaskAttempt
from corpus_pipeline.stage_runner import run_fused, run_stage
from corpus_pipeline.stats import StageStats
from corpus_pipeline.storage import Storage

CHAIN = ["langid", "normalize", "pii", "quality"]


@pytest.fixture(scope="module")
def documents(tmp_path_factory) -> Path:
    return write_stage(tmp_path_factory.mktemp("lifecycle") / "docs", real_documents(english=40, chinese=40), parts=2)


def tree_bytes(directory: Path, pattern: str = "*.parquet") -> dict[str, bytes]:
    return {str(p.relative_to(directory)): p.read_bytes() for p in sorted(directory.rglob(pattern)) if p.is_file()}


def test_an_output_on_its_input_is_refused_before_anything_is_written(tmp_path, documents, capsys):
    before = tree_bytes(documents, "*")
    for output in (documents, documents / "inside", documents.parent):
        code = main(["normalize", "--input", str(documents), "--output", str(output), "--runner", "local"])
        assert code == EXIT_USAGE
        assert "would destroy the input" in capsys.readouterr().err
    assert tree_bytes(documents, "*") == before
    assert not (documents / "inside").exists()
    with pytest.raises(OutputOverlapsInputError, match="lies inside the input"):
        run_stage("normalize", documents, documents / "x", PipelineConfig(), LocalExecutor())


def test_a_missing_input_says_it_does_not_exist(tmp_path, capsys):
    code = main(
        ["langid", "--input", str(tmp_path / "no" / "such"), "--output", str(tmp_path / "o"), "--runner", "local"]
    )
    assert code == EXIT_USAGE  # refused before anything ran
    assert "does not exist" in capsys.readouterr().err
    (tmp_path / "half").mkdir()
    with pytest.raises(MissingInputError, match="did not finish"):
        run_stage("langid", tmp_path / "half", tmp_path / "o", PipelineConfig(), LocalExecutor())


def test_a_fused_chain_writes_the_same_documents_as_stage_by_stage(tmp_path, documents):
    config, executor = PipelineConfig(), LocalExecutor()
    source = documents
    for name in CHAIN:
        source = run_stage(name, source, tmp_path / "apart" / name, config, executor).output
    fused = run_fused(CHAIN, documents, [tmp_path / "fused" / n for n in CHAIN], config, executor)
    assert tree_bytes(fused[-1].output) == tree_bytes(source), "kept documents and their rejects"
    for name, result in zip(CHAIN, fused, strict=True):
        apart = tmp_path / "apart" / name
        assert tree_bytes(result.output / "_rejected") == tree_bytes(apart / "_rejected"), name
        timings = {"seconds": 0, "task_seconds": 0}
        assert result.stats.to_dict() | timings == StageStats.read(apart / "_stats.json").to_dict() | timings
    # Only the last stage holds kept documents; the others say where they went.
    assert not list(fused[0].output.glob("part-*.parquet"))
    assert json.loads((fused[0].output / "_SUCCESS").read_text())["kept"] == "quality"
    with pytest.raises(MissingInputError, match="ran fused with the stages after it"):
        run_stage("normalize", fused[0].output, tmp_path / "o", config, executor)
    again = run_fused(CHAIN, documents, [tmp_path / "fused" / n for n in CHAIN], config, executor)
    assert all(result.skipped for result in again)


def test_write_intermediate_keeps_every_stages_documents(tmp_path, documents):
    config = PipelineConfig.model_validate({"engine": {"write_intermediate": True}})
    fused = run_fused(CHAIN[:2], documents, [tmp_path / n for n in CHAIN[:2]], config, LocalExecutor())
    apart = run_stage("langid", documents, tmp_path / "alone", PipelineConfig(), LocalExecutor())
    assert tree_bytes(fused[0].output) == tree_bytes(apart.output)
    # A later stage can start from the middle of the chain.
    assert run_stage("normalize", fused[0].output, tmp_path / "n2", config, LocalExecutor()).stats.docs_in == 80


def test_a_resumed_chain_reruns_a_passed_on_stage_when_a_later_one_must(tmp_path, documents):
    outputs = [tmp_path / n for n in CHAIN[:2]]
    run_fused(CHAIN[:2], documents, outputs, PipelineConfig(), LocalExecutor())
    before = tree_bytes(outputs[1])
    changed = PipelineConfig.model_validate({"normalize": {"unicode_form": "NFKC"}})
    results = run_fused(CHAIN[:2], documents, outputs, changed, LocalExecutor())
    assert not results[0].skipped and not results[1].skipped, "langid's documents were passed on, not kept"
    assert results[1].stats.docs_in == results[0].stats.kept
    assert tree_bytes(outputs[1]) != before


def test_a_task_is_reused_only_under_its_own_identity(tmp_path, documents):
    config = PipelineConfig.model_validate({"langid": {"allowed_languages": ["en"]}})
    clean = run_stage("langid", documents, tmp_path / "clean", config, LocalExecutor())
    output = tmp_path / "resumed"
    planned = planned_dirs(["langid"], documents, [output], config, LocalExecutor())[0]
    planned.begin()  # an earlier attempt's work directory
    work = planned.work
    # An earlier attempt that planned part-00000 over other rows left a "finished" task behind.
    attempt = TaskAttempt(work, "part-00000", "part-00009.parquet|row groups 0-0|5 rows")
    attempt.stage("langid", pq.read_schema(clean.output / "part-00000.parquet"), write_kept=True)
    attempt.commit({"langid": StageStats("langid", docs_in=5, kept=5, tasks=1)})
    resumed = run_stage("langid", documents, output, config, LocalExecutor())
    assert resumed.stats.docs_in == clean.stats.docs_in == 80
    assert tree_bytes(resumed.output) == tree_bytes(clean.output)
    identities = [json.loads(p.read_text())["task_identity"] for p in sorted((output / STATS_DIR).glob("*.json"))]
    assert identities == [
        task.identity for task in plan_part_tasks(sorted(documents.glob("part-*.parquet")), 5_000, storage=Storage())
    ]


def test_two_attempts_of_one_task_never_mix(tmp_path, documents):
    """A retried or speculative copy that finishes second discards its files; the first stands."""
    schema = pq.read_schema(sorted(documents.glob("part-*.parquet"))[0])
    table = pq.read_table(sorted(documents.glob("part-*.parquet"))[0])
    first, second = (TaskAttempt(tmp_path, "part-00000", "same input") for _ in range(2))
    first.stage("s", schema, write_kept=True).keep(table.slice(0, 3))
    second.stage("s", schema, write_kept=True).keep(table.slice(0, 5))
    assert first.directory != second.directory, "attempts write under names of their own"
    won = first.commit({"s": StageStats("s", docs_in=3, kept=3, tasks=1)})
    lost = second.commit({"s": StageStats("s", docs_in=5, kept=5, tasks=1)})
    assert won["s"].kept == lost["s"].kept == 3
    committed = tmp_path / COMMITTED_DIR / "part-00000"
    assert pq.read_table(committed / "s" / "kept.parquet").num_rows == 3
    assert not second.directory.exists() and not first.directory.exists()


def test_tasks_cover_row_groups_whatever_the_cluster(tmp_path):
    docs = real_documents(english=300, chinese=300)
    source = write_stage(tmp_path / "docs", docs, parts=1)
    parts = sorted(source.glob("part-*.parquet"))
    assert pq.ParquetFile(parts[0]).metadata.num_row_groups == 1  # 600 rows: one group of ROWS_PER_WRITE
    config = PipelineConfig.model_validate({"langid": {"min_score": 0.0}})
    out = run_stage("langid", source, tmp_path / "langid", config, LocalExecutor()).output
    written = pq.ParquetFile(out / "part-00000.parquet").metadata
    assert [written.row_group(i).num_rows for i in range(written.num_row_groups)] == [600]
    tasks = plan_part_tasks(parts, task_rows=1, storage=Storage())
    assert [task.identity for task in tasks] == ["part-00000.parquet|row groups 0-0|600 rows"]
