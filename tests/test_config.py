from pathlib import Path

import pytest

from corpus_pipeline.config import ConfigError, PipelineConfig, load_config

ROOT = Path(__file__).resolve().parents[1]


def test_defaults_work_without_a_file():
    config = load_config()
    assert config == PipelineConfig()
    assert config.langid.min_score == 0.5


def test_demo_config_loads():
    config = load_config(ROOT / "configs" / "demo.yaml")
    assert config.langid.allowed_languages == ["en", "zh"]


def test_the_config_for_your_own_data_keeps_every_language_and_names_no_source():
    """configs/default.yaml, every make target's but the demo's: nothing in it is the demo's."""
    config = load_config(ROOT / "configs" / "default.yaml")
    demo = load_config(ROOT / "configs" / "demo.yaml")
    assert config.langid.allowed_languages == [] and config.mix.targets == {} and config.mix.phases == []
    assert config.pipeline.train_config is None and config.run_id == "first"
    assert config.spark == demo.spark  # one JVM class archive serves both (keyed by the JVM's settings)


def test_a_typo_fails_naming_the_key(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text("langid:\n  min_scor: 0.7\n")
    with pytest.raises(ConfigError, match="langid.min_scor"):
        load_config(path)


def test_set_overrides_parse_values_as_yaml():
    config = load_config(
        None,
        [
            "langid.min_score=0.7",
            "langid.allowed_languages=[en, zh]",
            "normalize.unicode_form=NFKC",
            "spark.conf={spark.x: '1'}",
        ],
    )
    assert config.langid.min_score == 0.7
    assert config.langid.allowed_languages == ["en", "zh"]
    assert config.normalize.unicode_form == "NFKC"
    assert config.spark.conf == {"spark.x": "1"}


@pytest.mark.parametrize("bad", ["langid.min_score", "=1", "langid.min_score=2.0", "nosuch.key=1"])
def test_bad_overrides_fail(bad):
    with pytest.raises(ConfigError):
        load_config(None, [bad])


@pytest.mark.parametrize("value", ["inf", "-inf", ".nan", "0", "-1"])
def test_an_interval_that_is_not_a_finite_positive_number_is_a_config_error(value):
    with pytest.raises(ConfigError, match="progress_seconds"):
        load_config(None, [f"engine.progress_seconds={value}"])


@pytest.mark.parametrize("run_id", ["../../escaped", "/abs", "a/b", "..", ".", ""])
def test_a_run_id_that_is_not_one_path_part_is_a_config_error(run_id):
    with pytest.raises(ConfigError, match="run_id"):
        load_config(None, [f"run_id='{run_id}'"])


def test_the_config_has_a_section_per_registry_stage_of_the_model_its_entry_names():
    from corpus_pipeline.config import pipeline_config_model
    from corpus_pipeline.engine.registry import STAGES, StageSpec, resolve

    for spec in STAGES:
        assert type(getattr(PipelineConfig(), spec.section)) is resolve(spec.config), spec.name
    nameless = StageSpec("tag", "document", "tag", "tagging", "tests:TagStage", "tag every document")
    with pytest.raises(ValueError, match="no config model for section tagging"):
        pipeline_config_model((*STAGES, nameless))
    shared = pipeline_config_model((*STAGES, StageSpec("tag", "document", "tag", "normalize", "tests:T", "tag")))
    assert list(shared.model_fields) == list(PipelineConfig.model_fields)


# Each stage config module imported first, into a project not yet imported (the modules of the
# project are dropped from sys.modules before each), then PipelineConfig built from all of them.
_IMPORT_FIRST = """
import importlib, sys
for name in sys.argv[1:]:
    for loaded in [m for m in sys.modules if m.split(".")[0] == "corpus_pipeline"]:
        del sys.modules[loaded]
    importlib.import_module(name)
    importlib.import_module("corpus_pipeline.config").PipelineConfig()
"""


def test_a_stage_config_module_imports_first_and_then_the_whole_config_builds():
    """A stage's model lives in its package, whose other modules import `corpus_pipeline.config`:
    PipelineConfig, built there from every stage's model, must wait until it is asked for."""
    import subprocess
    import sys

    from corpus_pipeline.engine.registry import STAGES

    modules = sorted({spec.config.partition(":")[0] for spec in STAGES if spec.config})
    assert len(modules) >= 10, modules
    done = subprocess.run([sys.executable, "-c", _IMPORT_FIRST, *modules], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-2000:]
