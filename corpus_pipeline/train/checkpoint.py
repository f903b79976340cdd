"""Checkpoints: everything `--resume` needs to continue exactly, in two files that nothing can execute.

`checkpoint.pt` holds tensors only (model and optimizer state, full and unsharded: written by rank 0,
loadable by any number of ranks and by either DDP or FSDP; the scaler; the torch and CUDA RNG states)
and is read with `torch.load(weights_only=True)`, whose unpickler builds tensors and plain containers
and refuses any other object: a planted pickle is an error, never code that runs. `checkpoint.json`
holds the rest (step, sampler position, python and numpy RNG states, config, the shards' manifest
sha256, the health monitor's state) and the sha256 and size of the `.pt` it belongs to.

Writing: the `.pt` under a hidden name, hashed as it streams out, fsynced; then the JSON under a hidden
name, fsynced; then the JSON renamed into place (the commit point), then the `.pt`, then the directory
fsynced. A kill between the two renames leaves the new JSON beside the old `.pt`: the loader sees the
hash differ and reads the complete hidden `.pt` the JSON names instead. Any other pairing is refused.
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import random
from pathlib import Path

import numpy as np
import torch

from corpus_pipeline.storage import local_files

CHECKPOINT_FILE = "checkpoint.pt"
CHECKPOINT_META = "checkpoint.json"
FORMAT = 2  # 1: one pickled file (unpickled whole), no longer read
TENSOR_KEYS = ("model", "optimizer", "scaler", "rng_torch", "rng_cuda")


class CheckpointError(Exception):
    """A checkpoint this trainer will not load: not its format, a mismatched pair, or a pickle."""


def _partial(directory: Path, name: str) -> Path:
    return directory / f".{name}.inprogress"


class _HashingWriter:
    """A binary stream that hashes what passes through it (one pass over a multi-GB file, not two)."""

    def __init__(self, stream):
        self.stream, self.sha256, self.size = stream, hashlib.sha256(), 0

    def write(self, data) -> int:
        self.sha256.update(data)
        self.size += len(data)
        return self.stream.write(data)

    def flush(self) -> None:
        self.stream.flush()


def _fsync_directory(directory: Path) -> None:
    directory_fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(directory_fd)  # a rename survives a power cut only once its directory is synced
    finally:
        os.close(directory_fd)


def save_checkpoint(directory: Path, tensors: dict, meta: dict) -> Path:
    """Write `tensors` (keys of TENSOR_KEYS) and the JSON-serialisable `meta` as one checkpoint."""
    unknown = set(tensors) - set(TENSOR_KEYS)
    if unknown:
        raise ValueError(f"not checkpoint tensors: {sorted(unknown)}")
    # Fixed hidden names (one writer: rank 0), which the loader knows: a kill between the two
    # commits leaves the new .pt there, matching the committed JSON.
    pt = local_files.WholeFile(directory / CHECKPOINT_FILE, _partial(directory, CHECKPOINT_FILE))
    meta_file = local_files.WholeFile(directory / CHECKPOINT_META, _partial(directory, CHECKPOINT_META))
    with open(pt.temporary, "wb") as stream:
        writer = _HashingWriter(stream)
        torch.save(tensors, writer)
        stream.flush()
        os.fsync(stream.fileno())
    record = {**meta, "format": FORMAT, "tensors": {"sha256": writer.sha256.hexdigest(), "bytes": writer.size}}
    with open(meta_file.temporary, "w", encoding="utf-8") as stream:
        json.dump(record, stream)
        stream.flush()
        os.fsync(stream.fileno())
    meta_file.commit()
    pt.commit()
    _fsync_directory(directory)
    return directory / CHECKPOINT_FILE


def has_checkpoint(directory: Path) -> bool:
    return (Path(directory) / CHECKPOINT_FILE).exists() or (Path(directory) / CHECKPOINT_META).exists()


def load_checkpoint_meta(directory: Path) -> dict:
    """The JSON half alone: step, config, manifest sha256... (cheap: no tensor is read)."""
    directory = Path(directory)
    path = directory / CHECKPOINT_META
    if not path.exists():
        if (directory / CHECKPOINT_FILE).exists():
            raise CheckpointError(
                f"{directory / CHECKPOINT_FILE} has no {CHECKPOINT_META} beside it: it is not a checkpoint of this "
                "trainer's format (an older trainer's pickle, or a file placed there), and is not loaded; "
                "train into another --out"
            )
        raise FileNotFoundError(f"--resume: no {CHECKPOINT_FILE} in {directory}")
    try:
        meta = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise CheckpointError(f"{path}: not JSON ({error})") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise CheckpointError(f"{path}: not a format-{FORMAT} checkpoint record")
    return meta


def _file_digest(path: Path) -> tuple[str, int]:
    digest = hashlib.sha256()
    with open(path, "rb") as stream:
        while block := stream.read(1 << 22):
            digest.update(block)
    return digest.hexdigest(), path.stat().st_size


def load_checkpoint(directory: Path) -> dict:
    """The checkpoint as one dict: the JSON's keys and the tensors'. Refuses a `.pt` that is not the
    one its JSON names, and any `.pt` holding more than tensors and plain containers."""
    directory = Path(directory)
    meta = load_checkpoint_meta(directory)
    expected = (meta["tensors"]["sha256"], meta["tensors"]["bytes"])
    path = directory / CHECKPOINT_FILE
    if not path.exists() or _file_digest(path) != expected:
        completed = _partial(directory, CHECKPOINT_FILE)  # killed between the two renames: the JSON's own .pt
        if not (completed.exists() and _file_digest(completed) == expected):
            raise CheckpointError(
                f"{path} is not the tensors {CHECKPOINT_META} records (sha256 {expected[0][:12]}, "
                f"{expected[1]:,} bytes): a mismatched or altered pair, not loaded"
            )
        path = completed
    try:
        tensors = torch.load(path, map_location="cpu", weights_only=True)
    except (pickle.UnpicklingError, RuntimeError, EOFError) as error:
        raise CheckpointError(f"{path} holds more than tensors and is not loaded: {_reason(error)}") from None
    if not isinstance(tensors, dict) or not set(tensors) <= set(TENSOR_KEYS):
        raise CheckpointError(f"{path}: not a checkpoint of this trainer (keys {sorted(tensors)[:5]})")
    return {**meta, **tensors}


def _reason(error: Exception) -> str:
    """The line of torch's long refusal that names what the file asked for ("Unsupported global: ...")."""
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    named = [line for line in lines if "Unsupported" in line or "WeightsUnpickler" in line]
    return (named or lines or [type(error).__name__])[0]


def rng_states() -> tuple[dict, dict]:
    """(tensors, JSON): torch's and CUDA's generator states are byte tensors; python's Mersenne Twister
    state is a tuple of ints and numpy's a uint32 array with three numbers."""
    version, internal, gauss = random.getstate()
    kind, keys, position, has_gauss, cached = np.random.get_state()
    json_states = {
        "python": [version, list(internal), gauss],
        "numpy": [kind, keys.tolist(), int(position), int(has_gauss), float(cached)],
    }
    tensors = {"rng_torch": torch.get_rng_state()}
    if torch.cuda.is_available():
        tensors["rng_cuda"] = torch.cuda.get_rng_state_all()
    return tensors, json_states


def restore_rng_states(state: dict) -> None:
    version, internal, gauss = state["rng"]["python"]
    random.setstate((version, tuple(internal), gauss))
    kind, keys, position, has_gauss, cached = state["rng"]["numpy"]
    np.random.set_state((kind, np.asarray(keys, dtype=np.uint32), position, has_gauss, cached))
    torch.set_rng_state(state["rng_torch"])
    if "rng_cuda" in state and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(state["rng_cuda"])


def check_model_shape(saved: dict, current: dict) -> None:
    """Refuse a checkpoint of another model shape, naming every dimension that differs."""
    differences = [
        f"{key}: checkpoint {saved.get(key)!r}, config {current.get(key)!r}"
        for key in sorted(set(saved) | set(current))
        if saved.get(key) != current.get(key)
    ]
    if differences:
        raise ValueError("the checkpoint is of another model shape: " + "; ".join(differences))
