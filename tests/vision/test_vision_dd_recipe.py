"""The Dragon Dice recipe's hard-negative stage: crops of what the die finder finds that is no die."""

from __future__ import annotations

import numpy as np

from companion.vision.dd_training import mine_negatives


def test_negatives_are_reader_sized_crops_of_boxes_away_from_dice(tmp_path):
    only_far = np.load(mine_negatives(tmp_path / "neg.npz", 4, 3003, limit=50, progress=False))["crops"]
    everything = np.load(mine_negatives(tmp_path / "all.npz", 4, 3003, limit=500, max_iou=1.01,
                                        progress=False))["crops"]
    assert only_far.shape[1:] == (80, 80, 3) and only_far.dtype == np.uint8  # the shipped reader's crop
    # the same boxes, less the ones on dice: keeping every box gives strictly more crops
    assert 0 < len(only_far) < len(everything)
    capped = np.load(mine_negatives(tmp_path / "cap.npz", 4, 3003, limit=2, max_iou=1.01, progress=False))["crops"]
    assert len(capped) == 2 and np.array_equal(capped, everything[:2])
