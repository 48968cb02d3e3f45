"""What every ONNX part of a model bundle shares: its error type and how its runtime session is opened.

Kept apart from ``reader`` so the parts a bundle may hold (``embedding``, ``table_reading``) import it
without importing the reader that loads them."""

from __future__ import annotations

import os
from pathlib import Path


class ModelError(ValueError):
    """A model name or bundle is unknown or incomplete."""


def onnx_session(path: Path):
    """A CPU onnxruntime session for ``path`` (``COMPANION_THREADS`` threads, 2 by default)."""
    import onnxruntime as ort  # noqa: PLC0415

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = int(os.environ.get("COMPANION_THREADS", "2"))
    opts.inter_op_num_threads = 1
    opts.log_severity_level = 3
    return ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])
