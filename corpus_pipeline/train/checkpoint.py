"""Checkpoints: one file with everything `--resume` needs to continue exactly, written atomically.

Contents: model and optimizer state (full, unsharded: written by rank 0, loadable by any number of
ranks and by either DDP or FSDP), the step, the sampler's position, every RNG state, the config and
the sha256 of the shards' manifest. The file is written under a hidden name, fsynced and renamed, so
a kill at any moment leaves either the previous checkpoint or the new one, never half of one.
"""

from __future__ import annotations

import os
import random
from pathlib import Path

import numpy as np
import torch

CHECKPOINT_FILE = "checkpoint.pt"


def save_checkpoint(directory: Path, payload: dict) -> Path:
    path = directory / CHECKPOINT_FILE
    partial = directory / f".{CHECKPOINT_FILE}.inprogress"
    with open(partial, "wb") as stream:
        torch.save(payload, stream)
        stream.flush()
        os.fsync(stream.fileno())
    os.replace(partial, path)
    directory_fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(directory_fd)  # the rename itself survives a power cut only once the directory is synced
    finally:
        os.close(directory_fd)
    return path


def load_checkpoint(directory: Path) -> dict:
    path = directory / CHECKPOINT_FILE
    if not path.exists():
        raise FileNotFoundError(f"--resume: no {CHECKPOINT_FILE} in {directory}")
    # weights_only=False: the payload holds numpy RNG state and plain dicts that the safe unpickler
    # refuses; the file is this trainer's own output, never a download.
    return torch.load(path, map_location="cpu", weights_only=False)


def rng_states() -> dict:
    states = {"python": random.getstate(), "numpy": np.random.get_state(), "torch": torch.get_rng_state()}
    if torch.cuda.is_available():
        states["cuda"] = torch.cuda.get_rng_state_all()
    return states


def restore_rng_states(states: dict) -> None:
    random.setstate(states["python"])
    np.random.set_state(states["numpy"])
    torch.set_rng_state(states["torch"])
    if "cuda" in states and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(states["cuda"])


def check_model_shape(saved: dict, current: dict) -> None:
    """Refuse a checkpoint of another model shape, naming every dimension that differs."""
    differences = [
        f"{key}: checkpoint {saved.get(key)!r}, config {current.get(key)!r}"
        for key in sorted(set(saved) | set(current))
        if saved.get(key) != current.get(key)
    ]
    if differences:
        raise ValueError("the checkpoint is of another model shape: " + "; ".join(differences))
