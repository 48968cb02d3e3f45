"""Where the shipped model folders are, and the embedding network among them (no ONNX is loaded here).

Every reader, the enrolment and the table reading find shipped files through this one place, so that
none of them has to import another to learn where ``models/`` is.
"""

from __future__ import annotations

import importlib.resources
import json
import os
from pathlib import Path

from companion.vision.onnx_session import ModelError

MODELS_DIR = Path(__file__).resolve().parents[2] / "models"
MODELS_PACKAGE = "companion_models"
#: The face embedding network a Dragon Dice table profile is enrolled with by default.
EMBED_MODEL = "face-embed"


def models_dir() -> Path:
    """The folder of the shipped bundles: ``COMPANION_MODELS`` when set (and not empty), else the installed package
    ``companion_models`` (a wheel, or an editable install that maps it to the checkout's ``models/``),
    else the checkout's ``models/`` folder (a plain checkout run without an install)."""
    if os.environ.get("COMPANION_MODELS"):  # set and not empty
        return Path(os.environ["COMPANION_MODELS"])
    try:
        shipped = importlib.resources.files(MODELS_PACKAGE)
    except ModuleNotFoundError:
        return MODELS_DIR
    # onnxruntime opens files by path: a package on disk (how pip installs a wheel) gives a real one
    return shipped if isinstance(shipped, Path) else MODELS_DIR


def embedding_model(name_or_path=EMBED_MODEL) -> tuple[Path, dict]:
    """The embedding network's folder and its ``model.json`` (``models/face-embed`` by default)."""
    p = Path(name_or_path)
    folder = p if (p / "model.json").is_file() else models_dir() / str(name_or_path)
    try:
        meta = json.loads((folder / "model.json").read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise ModelError(f"no embedding network {str(name_or_path)!r} ({exc})") from exc
    if meta.get("form") != "face-embedding" or not (folder / meta.get("onnx", "embed.onnx")).is_file():
        raise ModelError(
            f"{folder} is not a face embedding network (model.json form 'face-embedding' + embed.onnx)"
        )
    return folder, meta
