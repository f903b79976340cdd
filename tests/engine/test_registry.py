"""Every stage is declared once: its CLI verb, jobs/stage.py entry, make target, pipeline step and
report entry all come from the registry."""

from __future__ import annotations

import subprocess
import sys

import pytest
from conftest import PROJECT_ROOT
from stage_fixtures import real_documents, stage_dir, write_stage

from corpus_pipeline.cli import build_parser, main
from corpus_pipeline.engine.registry import STAGES, stage_spec
from corpus_pipeline.engine.stage_order import fused_run, previous_documents_stage
from corpus_pipeline.pipeline.steps import pipeline_steps
from corpus_pipeline.report.run_dir import STAGES as REPORT_STAGES

NAMES = [spec.name for spec in STAGES]


def test_every_stage_is_a_verb_with_the_same_options():
    parser = build_parser()
    verbs = next(a for a in parser._actions if a.dest == "verb").choices
    for spec in STAGES:
        options = {o for action in verbs[spec.name]._actions for o in action.option_strings}
        assert {"--input", "--output", "--run-dir", "--config", "--set", "--runner"} <= options, spec.name
        assert {option.flag for option in spec.options} <= options, spec.name


def test_every_stage_is_a_make_target_reading_its_run_directory():
    listed = subprocess.run(["make", "-s", "help"], cwd=PROJECT_ROOT, capture_output=True, text=True, check=True).stdout
    for name in NAMES:
        assert f"make {name} " in listed, name
        dry = subprocess.run(
            ["make", "-n", name, "RUN_ID=r", "VENV=.venv"], cwd=PROJECT_ROOT, capture_output=True, text=True
        ).stdout
        assert f"corpus-pipeline {name} --run-dir data/runs/r" in dry, dry


def test_jobs_stage_py_takes_any_stage_and_refuses_others():
    job = PROJECT_ROOT / "jobs" / "stage.py"
    refused = subprocess.run([sys.executable, str(job), "nosuch"], capture_output=True, text=True)
    assert refused.returncode == 2 and "langid" in refused.stderr
    shown = subprocess.run([sys.executable, str(job), "dedup", "--help"], capture_output=True, text=True)
    assert shown.returncode == 0 and "--index" in shown.stdout


def test_the_pipeline_runs_the_registry_in_order_with_the_gates_before_the_corpus_is_used():
    steps = [step.name for step in pipeline_steps()]
    assert [name for name in steps if name in NAMES] == NAMES
    assert steps.index("gates") == steps.index("train-tokenizer") - 1
    assert steps[-2:] == ["train", "report"]
    # embed, opt-in, is fused after normalize when a run enables it (RunPlan.skip leaves it out otherwise).
    assert [s.name for s in fused_run("extract")] == ["extract", "langid", "normalize", "embed"]
    assert [s.name for s in fused_run("ingest")] == ["ingest", "langid", "normalize", "embed"]
    # A document stage added after decontaminate joins its pass.
    assert [s.name for s in fused_run("pii")][:3] == ["pii", "quality", "decontaminate"]
    assert [s.name for s in fused_run("dedup")] == ["dedup"]


def test_the_report_lists_the_stages_that_count_documents():
    """Every registry stage that writes documents or token shards, in order: not crawl's WARC files,
    not train-tokenizer's tokenizer."""
    counted = [spec.name for spec in STAGES if spec.output in ("documents", "tokens")]
    assert [name for _, name in REPORT_STAGES] == counted
    assert counted[0] == "extract" and counted[-2:] == ["tokenize", "mix"] and "decontaminate" in counted
    assert "crawl" not in counted and "train-tokenizer" not in counted


def test_the_stages_after_the_source_stages_read_the_one_that_ran():
    assert previous_documents_stage("langid").name == "extract"
    assert (
        previous_documents_stage("langid", lambda directory: directory == stage_spec("ingest").directory).name
        == "ingest"
    )
    assert previous_documents_stage("langid", lambda directory: False).name == "extract"
    assert previous_documents_stage("normalize", lambda directory: True).name == "langid"
    # An opt-in stage is read only when it ran.
    assert previous_documents_stage("dedup").name == "normalize"
    assert previous_documents_stage("dedup", lambda directory: directory == "03b_embed").name == "embed"
    assert previous_documents_stage("dedup", lambda directory: directory != "03b_embed").name == "normalize"
    sources = f"{stage_spec('extract').directory}, {stage_spec('ingest').directory}"
    with pytest.raises(ValueError, match=sources):
        previous_documents_stage("langid", lambda directory: True)
    assert previous_documents_stage("ingest") is None and previous_documents_stage("extract") is None


def test_run_dir_mode_reads_the_previous_stage_and_writes_its_own(tmp_path, capsys):
    run = tmp_path / "runs" / "r1"
    write_stage(stage_dir(run, "dedup"), real_documents(english=5, chinese=5), parts=1)
    assert previous_documents_stage("pii").name == "dedup"
    assert main(["pii", "--run-dir", str(run), "--runner", "local"]) == 0
    assert (stage_dir(run, "pii") / "_SUCCESS").exists() and "pii: " in capsys.readouterr().out
    assert main(["pii", "--runner", "local"]) == 2
    assert "--input and --output are required" in capsys.readouterr().err
