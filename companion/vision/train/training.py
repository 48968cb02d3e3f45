"""Training and export of the detectors with ultralytics (the ``[train]`` extra).

Models are built from ``yolo11n.yaml`` (no pretrained weights can be fetched here) and trained
on CPU.  ``train_detector`` is the one code path used by the CLI, the smoke test and the
training runs that produced the shipped models.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from companion.vision import offline


def _yolo(threads: int = 2):
    offline.prepare(threads=threads)
    from ultralytics import YOLO  # noqa: PLC0415

    return YOLO


def train_detector(
    data_yaml: Path,
    project: Path,
    name: str,
    *,
    imgsz: int = 320,
    epochs: int = 20,
    hours: float | None = None,
    batch: int = 16,
    resume: Path | None = None,
    finetune: Path | None = None,
    model_yaml: str = "yolo11n.yaml",
    cache: bool | str = False,
    val: bool = True,
    mosaic: float = 1.0,
    seed: int = 0,
    threads: int = 2,
) -> Path:
    """Train a detector; returns the path of the best checkpoint.

    ``resume`` continues an interrupted run from its ``last.pt`` (same data and settings);
    ``finetune`` starts from trained weights on new data (for example exported corrections).
    """
    YOLO = _yolo(threads)
    if resume is not None:
        model = YOLO(str(resume))
        results = model.train(resume=True, device="cpu", workers=0)
    else:
        # a fine-tune starts from the checkpoint itself: ultralytics keeps every layer whose shape fits
        # the new data's classes (pretrained=False would make it rebuild the network and drop them)
        model = YOLO(str(finetune) if finetune is not None else model_yaml)
        kwargs = dict(
            data=str(data_yaml),
            imgsz=imgsz,
            epochs=epochs,
            batch=batch,
            device="cpu",
            workers=0,
            project=str(Path(project).resolve()),
            name=name,
            exist_ok=True,
            pretrained=finetune is not None,
            amp=False,
            plots=False,
            cache=cache,
            val=val,
            mosaic=mosaic,
            seed=seed,
            deterministic=False,
            close_mosaic=max(1, epochs // 5),
            patience=1000,
            verbose=False,
        )
        if hours:
            kwargs["time"] = hours
        if finetune is not None:
            kwargs["lr0"] = 0.002
            kwargs["warmup_epochs"] = 0
        results = model.train(**kwargs)
    save_dir = Path(getattr(results, "save_dir", None) or model.trainer.save_dir)
    best = save_dir / "weights" / "best.pt"
    return best if best.exists() else save_dir / "weights" / "last.pt"


def export_onnx(weights: Path, out: Path, imgsz: int = 320, free_size: bool = False) -> Path:
    """Export a checkpoint to ONNX (simplified) at ``out``: at ``imgsz`` x ``imgsz``, or with ``free_size``
    an input of any size, which the reader pins to ``imgsz`` (as fast as a fixed-size export) and to the
    small-die windows' size or a frame's own shape where the bundle asks for them (``OnnxDetector``)."""
    import tempfile  # noqa: PLC0415

    YOLO = _yolo()
    out = Path(out)
    # export from a copy: ultralytics writes the .onnx beside the .pt it was given
    tmp = Path(tempfile.mkdtemp(prefix="companion-export-"))
    shutil.copyfile(weights, tmp / "weights.pt")
    model = YOLO(str(tmp / "weights.pt"))
    produced = Path(model.export(format="onnx", imgsz=imgsz, simplify=True, dynamic=free_size, opset=17))
    out.parent.mkdir(parents=True, exist_ok=True)
    if produced.resolve() != out.resolve():
        shutil.copyfile(produced, out)
    return out
