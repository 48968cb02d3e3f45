"""What every ONNX part of a model bundle shares: its error type and how its runtime session is opened.

Kept apart from ``reader`` so the parts a bundle may hold (``embedding``, ``table_reading``) import it
without importing the reader that loads them."""

from __future__ import annotations

import os
from pathlib import Path


class ModelError(ValueError):
    """A model name or bundle is unknown or incomplete."""


def onnx_session(path: Path):
    """A CPU onnxruntime session for ``path`` (``COMPANION_THREADS`` threads, 2 by default).

    The worker threads sleep between operators instead of spinning (``COMPANION_SPIN=1`` lets them spin):
    on the 2 shared cores of a table companion, which also serve the pages, spinning threads take cores
    from each other and from the server: on a busy machine (load ~16 on 2 cores) a whole 1280 px frame
    took 120 ms CPU / 343 ms wall with them and 55 / 126 ms without (``COMPANION_SPIN=1 python
    bench/enroll.py --timings-only`` against the same without it).  It changes no result, only how
    threads wait."""
    import onnxruntime as ort  # noqa: PLC0415

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = int(os.environ.get("COMPANION_THREADS", "2"))
    opts.inter_op_num_threads = 1
    opts.log_severity_level = 3
    spin = "1" if os.environ.get("COMPANION_SPIN") == "1" else "0"
    opts.add_session_config_entry("session.intra_op.allow_spinning", spin)
    opts.add_session_config_entry("session.inter_op.allow_spinning", spin)
    return ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])
