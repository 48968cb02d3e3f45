"""Run time of the face embedding network (onnxruntime only; trained by ``embed_training``).

``FaceEmbedder(path)(crops)`` maps uint8 BGR crops (N, 64, 64, 3), cut by ``crop_die`` at its
defaults, to L2-normalised embeddings (N, dim) and the probability that each die is cocked (N,).
With ``turns`` = 4 the crop is also read turned by 90, 180 and 270 degrees (a face has no up):
the embeddings are averaged and normalised again, the cocked logits averaged.  A pooled export
(``embed_training.PooledEmbed``, ``model.json`` ``pool``: the shipped ``face-embed`` since
2026-11-26) turns the crop 4 times inside its own graph, its pooling map turned along: it is
read with ``turns`` = 1.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from companion.vision.onnx_session import onnx_session

EMBED_INPUT = 64


class EmbeddingError(ValueError):
    """The embedding network is missing or does not fit its input."""


class FaceEmbedder:
    def __init__(self, path: str | os.PathLike, turns: int = 4, batch: int = 256):
        path = Path(path)
        if not path.is_file():
            raise EmbeddingError(f"no embedding network at {path}")
        if turns not in (1, 2, 4):
            raise EmbeddingError(f"turns must be 1, 2 or 4, not {turns!r}")
        self.path, self.turns, self.batch = path, turns, batch
        self.session = onnx_session(path)
        shape = self.session.get_inputs()[0].shape
        self.size = shape[2] if isinstance(shape[2], int) else EMBED_INPUT
        self.dim = int(self.session.get_outputs()[0].shape[1])

    def __call__(self, crops: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        crops = np.asarray(crops)
        if crops.ndim != 4 or crops.shape[1:] != (self.size, self.size, 3):
            raise EmbeddingError(f"expected crops (N, {self.size}, {self.size}, 3), not {crops.shape}")
        n = len(crops)
        if n == 0:
            return np.zeros((0, self.dim), np.float32), np.zeros(0)
        embs, logits = [], []
        for i in range(0, n, self.batch):
            x = crops[i : i + self.batch].transpose(0, 3, 1, 2).astype(np.float32) / 255
            m = len(x)
            ks = (0,) if self.turns == 1 else (0, 2) if self.turns == 2 else (0, 1, 2, 3)
            views = np.ascontiguousarray(np.concatenate([np.rot90(x, k, (2, 3)) for k in ks]))
            e, c = self.session.run(["embedding", "cocked"], {"crops": views})
            embs.append(e.reshape(len(ks), m, -1).mean(0))
            logits.append(c.reshape(len(ks), m).mean(0))
        emb = np.concatenate(embs).astype(np.float32)
        emb /= np.maximum(np.linalg.norm(emb, axis=1, keepdims=True), 1e-12)
        return emb, 1.0 / (1.0 + np.exp(-np.concatenate(logits)))
