"""Make ultralytics safe to import on a machine with no internet.

ultralytics tries to download fonts, weights and packages on first use.  ``prepare()`` sets
the variables that switch that off, points its settings and matplotlib's cache at writable
folders, and puts a TrueType font where ultralytics looks for ``Arial.ttf``, so nothing is
fetched.  Call it before the first ``import ultralytics``.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

FONT_CANDIDATES = (
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/dejavu/DejaVuSans.ttf",
)


def _bundled_font() -> Path | None:
    for candidate in FONT_CANDIDATES:
        if Path(candidate).is_file():
            return Path(candidate)
    try:
        import matplotlib  # noqa: PLC0415

        path = Path(matplotlib.get_data_path()) / "fonts" / "ttf" / "DejaVuSans.ttf"
        return path if path.is_file() else None
    except ImportError:
        return None


def prepare(config_dir: str | os.PathLike | None = None, threads: int = 2) -> Path:
    """Set the offline environment for ultralytics; returns the settings folder used."""
    os.environ["YOLO_OFFLINE"] = "1"
    os.environ["YOLO_AUTOINSTALL"] = "0"
    base = Path(
        config_dir or os.environ.get("YOLO_CONFIG_DIR") or Path(tempfile.gettempdir()) / "companion-yolo"
    )
    base.mkdir(parents=True, exist_ok=True)
    os.environ["YOLO_CONFIG_DIR"] = str(base)
    mpl = Path(os.environ.get("MPLCONFIGDIR") or base / "matplotlib")
    mpl.mkdir(parents=True, exist_ok=True)
    os.environ["MPLCONFIGDIR"] = str(mpl)
    font_dir = base / "Ultralytics"
    font_dir.mkdir(parents=True, exist_ok=True)
    for name in ("Arial.ttf", "Arial.Unicode.ttf"):
        target = font_dir / name
        if not target.exists():
            src = _bundled_font()
            if src is not None:
                shutil.copyfile(src, target)
    import ultralytics.utils.torch_utils as torch_utils  # noqa: PLC0415

    torch_utils.NUM_THREADS = threads
    try:
        import torch  # noqa: PLC0415

        torch.set_num_threads(threads)
    except ImportError:
        pass
    return base
