"""The ``cocked`` call of face embedding networks, side by side: real flat d6 dice and calibration renders.

    nice -n 10 python bench/cocked.py models/face-embed /work/runs/cocked [--no-test] [--png sheet.png]

For each embedding folder (``model.json`` + ``embed.onnx``, read through the run time
``FaceEmbedder`` with the folder's ``turns`` and ``reading.cocked_threshold``), prints:

* real d6, **choice set**: flat dice called cocked on the d6-real photographs outside the held-out
  test half (the held-out choice half and one photo per source photo of the training split; crops of
  the labelled boxes, ``crop_die`` at its defaults).  ``cocked_head`` chose its settings here: not strict;
* real d6, **test half (strict)**: the same on the held-out test half (166 photos; the split of
  ``bench/d6.py`` / ``d6_prep.heldout_halves``).  Strict for a head chosen without reading it;
* calibration renders (``art.CALIBRATION_FAMILIES`` and the calibration standard-dice styles, the
  same renders as ``cocked_head`` chose on): cocked dice found and flat dice called cocked.  Not strict.

Every die of d6-real lies flat (pip d6 on a table or in a tray), so a real cocked die is never
measured here: the renders are the only cocked dice.  Figures are ratios; ``--json`` prints one object.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from companion.vision.embedding import FaceEmbedder  # noqa: E402
from companion.vision.enroll import embedding_model  # noqa: E402
from companion.vision.train import cocked_head  # noqa: E402


def rates(folder: str, sets: dict) -> dict:
    path, meta = embedding_model(folder)
    embedder = FaceEmbedder(path / meta.get("onnx", "embed.onnx"), turns=int(meta.get("turns", 4)))
    threshold = float(meta.get("reading", {}).get("cocked_threshold", 0.5))
    out = {"folder": str(folder), "threshold": threshold, "probs": {}}
    for name, (crops, cocked) in sets.items():
        _, p = embedder(crops)
        out["probs"][name] = p
        called = p >= threshold
        out[name] = {"flat_called_cocked": float(called[~cocked].mean()) if (~cocked).any() else None}
        if cocked.any():
            out[name]["cocked_found"] = float(called[cocked].mean())
        out[name]["flat"], out[name]["cocked"] = int((~cocked).sum()), int(cocked.sum())
    return out


def sheet(path: Path, result: dict, sets: dict) -> Path:
    """A contact sheet of one model's calls (rows of 16 crops, 2x): the real choice-set dice it finds
    most cocked, the flat calibration renders it finds most cocked, cocked renders found, cocked
    renders missed; each crop framed red where it is called cocked, green where not."""
    import cv2  # noqa: PLC0415

    t = result["threshold"]
    real, _ = sets["real d6, choice set"]
    pr = result["probs"]["real d6, choice set"]
    cal, cocked = sets["calibration renders"]
    pc = result["probs"]["calibration renders"]
    flat_i, cocked_i = np.flatnonzero(~cocked), np.flatnonzero(cocked)
    rows = [
        ("real flat dice, most cocked", real, np.argsort(-pr)[:16], pr),
        ("flat renders, most cocked", cal, flat_i[np.argsort(-pc[flat_i])][:16], pc),
        ("cocked renders found", cal, cocked_i[pc[cocked_i] >= t][:16], pc),
        ("cocked renders missed", cal, cocked_i[pc[cocked_i] < t][:16], pc),
    ]
    lines = []
    for title, crops, idx, p in rows:
        tiles = []
        for i in idx:
            tile = cv2.resize(crops[i], (128, 128), interpolation=cv2.INTER_NEAREST)
            colour = (0, 0, 230) if p[i] >= t else (0, 200, 0)
            tile = cv2.copyMakeBorder(tile, 3, 3, 3, 3, cv2.BORDER_CONSTANT, value=colour)
            cv2.putText(tile, f"{p[i]:.2f}", (6, 20), cv2.FONT_HERSHEY_SIMPLEX, 0.55, (255, 255, 255), 2)
            tiles.append(tile)
        tiles += [np.zeros((134, 134, 3), np.uint8)] * (16 - len(tiles))
        head = np.zeros((28, 134 * 16, 3), np.uint8)
        cv2.putText(
            head, f"{title} (threshold {t:.2f})", (6, 20), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (255, 255, 255), 1
        )
        lines += [head, np.concatenate(tiles, 1)]
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(path), np.concatenate(lines, 0))
    return path


def main(argv=None) -> int:
    from companion.vision.synth import art  # noqa: PLC0415
    from companion.vision.synth.standard_styles import CALIBRATION_STYLES  # noqa: PLC0415

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("models", nargs="+", help="embedding folders (model.json + embed.onnx)")
    ap.add_argument("--d6-real", default=str(cocked_head.D6_REAL))
    ap.add_argument("--calibration", type=int, default=2000, help="calibration renders (half cocked)")
    ap.add_argument("--seed", type=int, default=0, help="the seed cocked_head ran with (same renders)")
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--no-test", action="store_true", help="do not read the held-out test half")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--png", help="write a contact sheet of the last model's calls here (PNG)")
    a = ap.parse_args(argv)

    split = cocked_head.d6_real_split(Path(a.d6_real))
    sets = {}
    choice = cocked_head.photo_crops(split["choice"])
    sets["real d6, choice set"] = (choice, np.zeros(len(choice), bool))
    if not a.no_test:
        test = cocked_head.photo_crops(split["test"])
        sets["real d6, test half (strict)"] = (test, np.zeros(len(test), bool))
    cal = cocked_head.render_set(
        art.CALIBRATION_FAMILIES, CALIBRATION_STYLES, a.calibration, a.seed + 1, workers=a.workers
    )
    sets["calibration renders"] = cal
    results = [rates(m, sets) for m in a.models]
    if a.png:
        print(f"wrote {sheet(Path(a.png), results[-1], sets)}")
    for r in results:
        del r["probs"]
    if a.json:
        print(json.dumps(results))
        return 0
    print(
        f"d6-real: choice set {len(split['choice'])} photos, test half {len(split['test'])} photos; "
        f"calibration renders of families {art.CALIBRATION_FAMILIES[0]}..{art.CALIBRATION_FAMILIES[-1]}"
    )
    head = f"{'':52s}" + "".join(
        f"{Path(r['folder']).name + ' @' + format(r['threshold'], '.3f'):>26s}" for r in results
    )
    print(head)
    for name in sets:
        for key, label in (("flat_called_cocked", "flat called cocked"), ("cocked_found", "cocked found")):
            if key not in results[0][name]:
                continue
            n = results[0][name]["flat" if key == "flat_called_cocked" else "cocked"]
            row = f"{name + ': ' + label + f' (of {n})':52s}"
            row += "".join(f"{100 * r[name][key]:>24.2f} %" for r in results)
            print(row)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
