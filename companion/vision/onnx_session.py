"""What every ONNX part of a model bundle shares: its error type and how its runtime session is opened.

Kept apart from ``reader`` so the parts a bundle may hold (``embedding``, ``table_reading``) import it
without importing the reader that loads them."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


class ModelError(ValueError):
    """A model name or bundle is unknown, incomplete or damaged."""


def read_model_json(bundle: Path) -> dict:
    """A bundle's ``model.json`` as a dict; ``ModelError`` naming the file when it is not one."""
    path = Path(bundle) / "model.json"
    try:
        meta = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ModelError(f"{path}: cannot read model description ({exc})") from None
    if not isinstance(meta, dict):
        raise ModelError(f"{path}: a model description is a JSON object, not {type(meta).__name__}")
    return meta


@contextmanager
def model_description(bundle: Path) -> Iterator[None]:
    """A key missing from a bundle's ``model.json`` or a value of the wrong kind, met while the bundle is
    loaded, as a ``ModelError`` naming the file."""
    try:
        yield
    except ModelError:
        raise
    except KeyError as exc:
        raise ModelError(f"{Path(bundle) / 'model.json'}: lacks the key {exc}") from None
    except (TypeError, AttributeError, ValueError) as exc:
        raise ModelError(f"{Path(bundle) / 'model.json'}: a value of the wrong kind ({exc})") from None


def onnx_session(path: Path, pinned: dict[str, int] | None = None):
    """A CPU onnxruntime session for ``path`` (``COMPANION_THREADS`` threads, 2 by default).

    ``pinned`` fixes free input dimensions by name (``{"height": 512, "width": 512}``): a network
    exported with a free input size then runs as fast as one exported at that size (onnxruntime plans
    for the fixed shape), and one file can serve two sizes through two sessions.

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
    for name, size in (pinned or {}).items():
        opts.add_free_dimension_override_by_name(name, int(size))
    try:
        return ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])
    except Exception as exc:  # a damaged or truncated file (onnxruntime's own error types)
        raise ModelError(f"{path} is not a readable ONNX network: {exc}") from None
