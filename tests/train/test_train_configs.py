"""The shipped training configs load, and the SLURM script is valid bash."""

from __future__ import annotations

import subprocess

import pytest
from conftest import PROJECT_ROOT

from corpus_pipeline.config import ConfigError
from corpus_pipeline.train.config import PRESETS, load_train_config


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_every_preset_has_a_config_that_loads(preset):
    config = load_train_config(PROJECT_ROOT / "configs" / f"train_{preset}.yaml")
    assert config.preset == preset
    assert config.model.n_layer == PRESETS[preset]["n_layer"]


def test_the_slurm_script_parses():
    subprocess.run(["bash", "-n", str(PROJECT_ROOT / "jobs" / "train_slurm.sbatch")], check=True)


@pytest.mark.parametrize(
    ("preset", "tokens_per_step"), [("gpt-124m", 524_288), ("gpt-350m", 524_288), ("gpt-1.3b", 1_048_576)]
)
@pytest.mark.parametrize("gpus", [8, 16, 32])
def test_a_gpu_preset_keeps_its_global_batch_on_one_node_or_four(preset, tokens_per_step, gpus):
    config = load_train_config(PROJECT_ROOT / "configs" / f"train_{preset}.yaml").for_world(gpus)
    assert config.tokens_per_step * gpus == tokens_per_step


def test_a_global_batch_the_ranks_cannot_split_is_a_config_error():
    config = load_train_config(PROJECT_ROOT / "configs" / "train_gpt-1.3b.yaml")
    with pytest.raises(ConfigError, match="global_batch_size 512 is not a multiple of micro_batch_size 4 x 3 ranks"):
        config.for_world(3)
    with pytest.raises(ConfigError, match="global_batch_size or grad_accum_steps, not both"):
        load_train_config(PROJECT_ROOT / "configs" / "train_gpt-1.3b.yaml", ["grad_accum_steps=2"])


def test_the_health_band_must_be_ordered():
    with pytest.raises(ConfigError, match="ratio_band"):
        load_train_config(None, ["health.ratio_band=[1e-2,1e-4]"])
