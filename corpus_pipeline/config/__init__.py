"""Pipeline configuration: YAML validated by pydantic, overridable with `--set key=value`.

Every model forbids unknown keys, so a typo such as `langid.min_scor` fails when the config is
loaded, not six hours into a run. Every option has a default that works for the demo. A stage's
model lives beside the stage (`extract/config.py`, `quality/config.py`...); this package holds the
run-wide sections (`storage`, `domains`, `pipeline`, `nightly`, `report`; `spark` and `engine`
live beside what they configure, engine/exec/spark_config.py and engine/config.py) and assembles
`PipelineConfig`: one section per registry stage, of the model its entry names
("module:Model", imported when the model is first built), and the run-wide sections.
"""

from __future__ import annotations

import functools
from pathlib import Path

import yaml
from pydantic import Field, ValidationError, create_model

from corpus_pipeline.config.domains import DomainClassifierConfig, DomainRule, DomainsConfig
from corpus_pipeline.config.pipeline import NightlyConfig, RunConfig
from corpus_pipeline.config.report import DiversityConfig, DriftBounds, ReportConfig
from corpus_pipeline.config.storage import StorageConfig
from corpus_pipeline.config_base import PathPart, Strict
from corpus_pipeline.engine.config import EngineConfig
from corpus_pipeline.engine.exec.spark_config import SparkConfig
from corpus_pipeline.engine.registry import STAGES, resolve

__all__ = [
    "ConfigError",
    "DiversityConfig",
    "DomainClassifierConfig",
    "DomainRule",
    "DomainsConfig",
    "DriftBounds",
    "EngineConfig",
    "NightlyConfig",
    "PipelineConfig",
    "ReportConfig",
    "RunConfig",
    "SparkConfig",
    "StorageConfig",
    "Strict",
    "apply_override",
    "load_config",
    "pipeline_config_model",
    "read_raw_config",
    "validate_config",
]


# Sections no one stage owns: where a run lives, how it runs, and what several stages read.
_RUN_WIDE = {
    "spark": SparkConfig,
    "engine": EngineConfig,
    "domains": DomainsConfig,
    "pipeline": RunConfig,
    "nightly": NightlyConfig,
    "report": ReportConfig,
    "storage": StorageConfig,
}


def pipeline_config_model(stages) -> type[Strict]:
    """The model of a run's config: a section per stage of `stages` (registry entries; stages that
    share a section share it), each of the model its entry names, and the run-wide sections."""
    by_stage: dict[str, type[Strict]] = {}
    for spec in stages:
        if spec.config:  # a stage that shares a section may leave its model to the entry that owns it
            by_stage.setdefault(spec.section, resolve(spec.config))
    missing = sorted({spec.section for spec in stages} - set(by_stage))
    if missing:
        raise ValueError(f"no config model for section {', '.join(missing)}: give its registry entry config=")
    sections = {name: (model, Field(default_factory=model)) for name, model in {**by_stage, **_RUN_WIDE}.items()}
    return create_model(
        "PipelineConfig",
        __base__=Strict,
        __module__=__name__,
        __doc__="Every section of a run's config: each registry stage's, and the run-wide ones.",
        data_root=(str, "data"),
        run_id=(PathPart, "demo"),
        **sections,
    )


@functools.cache
def _pipeline_config() -> type[Strict]:
    return pipeline_config_model(STAGES)


def __getattr__(name: str):
    """`PipelineConfig`, built on first use rather than when this package is imported: the stage
    packages whose config models it assembles (extract/config.py...) import this package from their
    other modules; built on import, it would ask for a stage's model half-way through that
    package's own import."""
    if name == "PipelineConfig":
        return _pipeline_config()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class ConfigError(ValueError):
    """A config file or override that does not validate; the message names the offending key."""


def apply_override(raw: dict, assignment: str) -> None:
    """Apply one `dotted.key=value` override in place; the value is parsed as YAML (`0.7`, `[en, zh]`)."""
    key, sep, value = assignment.partition("=")
    if not sep or not key.strip():
        raise ConfigError(f"--set expects key=value, got {assignment!r}")
    *parents, leaf = key.strip().split(".")
    node = raw
    for part in parents:
        node = node.setdefault(part, {})
        if not isinstance(node, dict):
            raise ConfigError(f"--set {key}: {part!r} is not a section")
    try:
        node[leaf] = yaml.safe_load(value)
    except yaml.YAMLError as error:
        raise ConfigError(f"--set {key.strip()}: {value!r} is not a YAML value: {_yaml_problem(error)}") from None


def _yaml_problem(error: yaml.YAMLError) -> str:
    """PyYAML's message on one line, with the line and column where it has them."""
    mark = getattr(error, "problem_mark", None)
    problem = getattr(error, "problem", None) or str(error).splitlines()[0]
    return f"{problem} (line {mark.line + 1}, column {mark.column + 1})" if mark is not None else problem


def read_raw_config(path: str | Path | None = None, overrides: list[str] | tuple[str, ...] = ()) -> dict:
    """The YAML mapping at `path` (empty without one) with `overrides` applied, not yet validated."""
    raw: dict = {}
    if path is not None:
        try:
            text = Path(path).read_text(encoding="utf-8")
        except UnicodeDecodeError as error:
            raise ConfigError(f"{path}: not UTF-8 text (byte {error.start}: {error.reason})") from None
        except OSError as error:
            raise ConfigError(f"{path}: {error.strerror or error}") from None
        try:
            raw = yaml.safe_load(text) or {}
        except yaml.YAMLError as error:
            raise ConfigError(f"{path}: not valid YAML: {_yaml_problem(error)}") from None
        if not isinstance(raw, dict):
            raise ConfigError(f"{path}: expected a mapping at the top level")
    for assignment in overrides:
        apply_override(raw, assignment)
    return raw


def validate_config(raw: dict, model: type[Strict], source: str | Path | None = None):
    """`raw` as `model`, or a ConfigError naming every offending key."""
    try:
        return model.model_validate(raw)
    except ValidationError as error:
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in error.errors())
        raise ConfigError(f"invalid config{f' {source}' if source else ''}: {problems}") from None


def load_config(path: str | Path | None = None, overrides: list[str] | tuple[str, ...] = ()) -> Strict:
    """The PipelineConfig of the YAML at `path` (defaults without one) with `overrides` applied."""
    return validate_config(read_raw_config(path, overrides), _pipeline_config(), path)
