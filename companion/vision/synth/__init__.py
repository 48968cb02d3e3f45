"""Synthetic Dragon Dice tables (OpenCV compositing): scenes, face glyphs, dataset writer."""

from companion.vision.die_kinds import KIND_CLASSES
from companion.vision.synth.dataset import SceneSampler, face_vocabulary, write_crops, write_dataset
from companion.vision.synth.scene import DieSpec, Scene, die_spec, render_scene

__all__ = [
    "KIND_CLASSES",
    "DieSpec",
    "Scene",
    "SceneSampler",
    "die_spec",
    "face_vocabulary",
    "render_scene",
    "write_crops",
    "write_dataset",
]
