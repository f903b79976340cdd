"""An encoder without a model, for the fast tests: a text's vector is its topic's direction (the
first word names the topic) plus a little seeded noise, unit length. Same interface as
embeddings/encoder.py's Encoder (name, device, dim, encode)."""

from __future__ import annotations

import zlib

import numpy as np

DIM = 16


class FakeEncoder:
    name = "all-MiniLM-L6-v2"
    device = "cpu"
    dim = DIM

    def __init__(self, noise: float = 0.15):
        self.noise = noise
        self.calls: list[list[str]] = []

    def vector(self, text: str) -> np.ndarray:
        words = text.split()
        topic = np.random.default_rng(zlib.crc32((words[0] if words else "").encode())).normal(size=DIM)
        jitter = np.random.default_rng(zlib.crc32(text.encode())).normal(size=DIM)
        v = topic / np.linalg.norm(topic) + self.noise * jitter / np.sqrt(DIM)
        return v / np.linalg.norm(v)

    def encode(self, texts: list[str], batch_size: int = 64) -> np.ndarray:
        self.calls.append(list(texts))
        return np.array([self.vector(t) for t in texts], np.float32).reshape(len(texts), DIM)
