"""The shipped training configs load, and the SLURM script is valid bash."""

from __future__ import annotations

import subprocess

import pytest
from conftest import PROJECT_ROOT

from corpus_pipeline.train.config import PRESETS, load_train_config


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_every_preset_has_a_config_that_loads(preset):
    config = load_train_config(PROJECT_ROOT / "configs" / f"train_{preset}.yaml")
    assert config.preset == preset
    assert config.model.n_layer == PRESETS[preset]["n_layer"]


def test_the_slurm_script_parses():
    subprocess.run(["bash", "-n", str(PROJECT_ROOT / "jobs" / "train_slurm.sbatch")], check=True)
