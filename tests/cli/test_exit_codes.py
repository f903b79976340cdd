"""Every failure is one documented exit code and one line naming the file, key or object; the
traceback only with --debug (README "Exit codes", corpus_pipeline/failures.py)."""

from __future__ import annotations

import errno
import os

import pytest
from conftest import html_page, write_warc
from stage_fixtures import real_documents, write_stage

from corpus_pipeline import exit_codes, failures
from corpus_pipeline.cli import main
from corpus_pipeline.config import ConfigError, load_config
from corpus_pipeline.engine.store import task_output
from corpus_pipeline.mix.config import MixConfig
from corpus_pipeline.mix.plan import MixTargetsError, plan_mix
from corpus_pipeline.pipeline.context import RunContext, RunPlan
from corpus_pipeline.pipeline.runner import run_pipeline
from corpus_pipeline.pipeline.steps import STEPS
from corpus_pipeline.storage import StorageAccessError

ARTICLE = "<p>" + "Engineers finished the new bridge over the river two months ahead of schedule. " * 5 + "</p>"


@pytest.fixture(scope="module")
def documents(tmp_path_factory):
    return write_stage(tmp_path_factory.mktemp("exit") / "docs", real_documents(english=6, chinese=0), parts=1)


def _warc(directory):
    page = {"url": "https://a.example/", "payload": html_page(ARTICLE).encode(), "content_type": "text/html"}
    return write_warc(directory / "in.warc.gz", [page])


def _run_locally(tmp_path, *settings: str) -> int:
    """`corpus-pipeline run --runner local` with data_root in tmp_path and each of `settings` a --set."""
    sets = [arg for setting in (f"data_root={tmp_path}", *settings) for arg in ("--set", setting)]
    return main(["run", "--runner", "local", *sets])


def _err(capsys) -> str:
    err = capsys.readouterr().err.strip()
    assert "Traceback" not in err
    return err


def test_bad_yaml_exits_2_naming_the_file_and_line(tmp_path, documents, capsys):
    config = tmp_path / "bad.yaml"
    config.write_text("langid:\n  min_score: [0.5\n")
    assert main(["normalize", "--input", str(documents), "--output", str(tmp_path / "o"), "--config", str(config)]) == 2
    err = _err(capsys)
    assert str(config) in err and "not valid YAML" in err and "line 3" in err
    assert err.count("\n") == 0


def test_a_bad_set_value_exits_2_naming_the_key(tmp_path, documents, capsys):
    arguments = ["normalize", "--input", str(documents), "--output", str(tmp_path / "o")]
    assert main([*arguments, "--set", "langid.allowed_languages=[en,"]) == 2
    assert "--set langid.allowed_languages" in _err(capsys)


def test_a_non_utf8_config_exits_2_naming_the_file(tmp_path, documents, capsys):
    config = tmp_path / "latin1.yaml"
    config.write_bytes("run_id: caf\xe9\n".encode("latin-1"))
    assert main(["normalize", "--input", str(documents), "--output", str(tmp_path / "o"), "--config", str(config)]) == 2
    err = _err(capsys)
    assert str(config) in err and "not UTF-8" in err


def test_a_full_disk_exits_1_naming_the_file(tmp_path, documents, capsys, monkeypatch):
    def no_space(self, path, schema):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))

    monkeypatch.setattr(task_output.ArrowFile, "__init__", no_space)
    arguments = ["normalize", "--input", str(documents), "--output", str(tmp_path / "o"), "--runner", "local"]
    assert main(arguments) == exit_codes.ERROR
    err = _err(capsys)
    assert "no space left on the device" in err and str(tmp_path) in err and "kept.parquet" in err


def test_a_traceback_only_with_debug(tmp_path, documents, capsys, monkeypatch):
    monkeypatch.setattr(task_output.ArrowFile, "__init__", lambda *a: {}["missing"])
    arguments = ["normalize", "--input", str(documents), "--output", str(tmp_path / "o"), "--runner", "local"]
    assert main(arguments) == exit_codes.ERROR
    assert "KeyError: 'missing'" in _err(capsys)
    assert main([*arguments, "--debug"]) == exit_codes.ERROR
    assert "Traceback" in capsys.readouterr().err


def test_a_store_lost_after_tasks_ran_is_exit_1_not_2(tmp_path, documents, capsys, monkeypatch):
    """StorageAccessError before any task is a refusal (2); once a task started it is a failed stage."""

    def store_gone(self, path, schema):
        raise StorageAccessError("s3://bucket: Connection refused")

    monkeypatch.setattr(task_output.ArrowFile, "__init__", store_gone)
    arguments = ["normalize", "--input", str(documents), "--output", str(tmp_path / "o"), "--runner", "local"]
    assert main(arguments) == exit_codes.ERROR
    assert "s3://bucket" in _err(capsys)


def test_a_run_step_that_fails_after_work_is_exit_1_not_2(tmp_path, capsys):
    """The `run` verb: an S3 server lost in the third step, after two did their work, is exit 1."""
    warc = _warc(tmp_path)

    def lost(ctx):
        raise StorageAccessError("s3://bucket: endpoint does not answer")

    steps = [STEPS[0], type(STEPS[0])("upload", lost)]
    config = load_config(None, [f"data_root={tmp_path}", f"pipeline.inputs=[{warc}]"])
    with pytest.raises(failures.StepFailed) as failed:
        run_pipeline(RunPlan.from_config(config, "local"), steps=steps, log=lambda line: None)
    assert exit_codes.exit_code(failed.value, work_started=False) == exit_codes.ERROR
    assert str(failed.value) == "step upload failed: s3://bucket: endpoint does not answer"


def test_the_executors_of_a_run_mark_the_work_of_its_verb_and_no_other(tmp_path):
    """A refusal after a run's tasks (the nightly's publish to a store lost meanwhile) is exit 1:
    the run's executors mark the Work its verb gave the plan; another verb's Work starts clean."""
    work = failures.Work()
    plan = RunPlan.from_config(load_config(None, [f"data_root={tmp_path}"]), "local", work=work)
    lost = StorageAccessError("s3://bucket: Connection refused")
    assert exit_codes.exit_code(lost, work.started) == exit_codes.USAGE
    assert RunContext(plan).executor.map_tasks(str, [1], "one task") == ["1"]
    assert work.started and exit_codes.exit_code(lost, work.started) == exit_codes.ERROR
    assert not RunPlan.from_config(plan.config, "local").work.started


def test_a_mix_target_naming_an_absent_group_is_refused_naming_it():
    import numpy as np

    from corpus_pipeline.mix.plan import Documents

    ones = np.ones(20, np.int64)
    docs = Documents(
        group=np.zeros(20, np.int32), groups=["web"], weight=ones, length=ones * 11, key=np.arange(20, dtype=np.uint64)
    )
    with pytest.raises(MixTargetsError, match="wikipedia: 0.0 % asked, no documents in this group"):
        plan_mix(MixConfig(targets={"web": 1.0, "wikipedia": 0.0}), docs, itemsize=2, shard_bytes=1_000)


@pytest.mark.parametrize("targets", ["{web: 1.5, wikipedia: -0.5}", "{web: .nan, wikipedia: 1.0}", "{web: .inf}"])
def test_mix_targets_outside_0_1_or_not_finite_are_refused(targets):
    with pytest.raises(ConfigError, match="mix.targets.web"):
        load_config(None, [f"mix.targets={targets}"])


def test_run_refuses_a_mix_target_naming_no_source_before_any_step(tmp_path, capsys):
    warc = _warc(tmp_path)
    sources = f"pipeline.sources=[{{name: web, kind: warc, paths: [{warc}]}}]"
    code = _run_locally(tmp_path, sources, "mix.targets={web: 1.0, wikipedia: 0.0}")
    assert code == exit_codes.USAGE
    assert "mix.targets: wikipedia (0) not a source of pipeline.sources (web)" in _err(capsys)
    assert not (tmp_path / "runs").exists()


def test_run_on_warc_inputs_refuses_mix_targets_of_other_sources_before_any_step(tmp_path, capsys):
    """configs/demo.yaml's targets on your own WARC files (pipeline.inputs: one source, `web`)."""
    inputs = f"pipeline.inputs=[{_warc(tmp_path)}]"
    code = _run_locally(tmp_path, inputs, "mix.targets={web: 0.4, wikipedia: 0.3, peoples_daily: 0.3}")
    assert code == exit_codes.USAGE
    named = "mix.targets: peoples_daily (0.3), wikipedia (0.3) not a source of this run"
    assert f"{named} (pipeline.inputs: extract.source) (web)" in _err(capsys)
    assert not (tmp_path / "runs").exists()


def test_run_refuses_a_bad_tokenizer_before_the_first_step(tmp_path, capsys):
    warc = _warc(tmp_path)
    (tmp_path / "tok.json").write_text("{not a tokenizer")
    for tokenizer, says in (
        (tmp_path / "tok.json", "is not a tokenizers tokenizer.json"),
        (tmp_path / "no.json", "not found"),
    ):
        code = _run_locally(tmp_path, f"pipeline.inputs=[{warc}]", f"pipeline.tokenizer={tokenizer}")
        assert code == exit_codes.USAGE
        err = _err(capsys)
        assert "pipeline.tokenizer" in err and str(tokenizer) in err and says in err
    assert not (tmp_path / "runs").exists()


def test_run_refuses_a_missing_source_path_before_any_source_runs(tmp_path, capsys):
    warc = _warc(tmp_path)
    sources = (
        f"pipeline.sources=[{{name: web, kind: warc, paths: [{warc}]}}, "
        f"{{name: wiki, kind: jsonl, paths: [{tmp_path / 'absent.jsonl'}]}}]"
    )
    code = _run_locally(tmp_path, sources)
    assert code == exit_codes.USAGE
    assert f"pipeline.sources[wiki].paths: input {tmp_path / 'absent.jsonl'} does not exist" in _err(capsys)
    assert not (tmp_path / "runs").exists()


def test_nightly_refuses_a_bad_tokenizer_before_the_index_repair(tmp_path, capsys):
    (tmp_path / "incoming").mkdir()
    code = main(
        [
            "nightly",
            "--runner",
            "local",
            "--set",
            f"data_root={tmp_path}",
            "--set",
            f"pipeline.tokenizer={tmp_path / 'no.json'}",
        ]
    )
    assert code == exit_codes.USAGE
    assert "pipeline.tokenizer" in capsys.readouterr().err


def test_the_readme_table_is_the_exit_codes_module():
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    for code in exit_codes.EXPLAINED:
        assert f"| {code} |" in readme
    assert "| 4 |" not in readme
