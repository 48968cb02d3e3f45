"""Die kinds and materials as the camera tells dice apart: the facts reading and rendering share.

``KIND_CLASSES``: the die kinds the die finder names (d4..d12); ``FACES_TO_KIND``: a catalogue die's
kind by its number of faces; ``die_materials``: a catalogue die's colour or elements (what the colour
estimate is matched against when a die is assigned to its unit).  Run time and the renderer
(``companion.vision.synth``) both import them from here, so reading a roll never loads the renderer.
"""

from __future__ import annotations

KIND_CLASSES = ("d4", "d6", "d8", "d10", "d12")
FACES_TO_KIND = {4: "d4", 6: "d6", 8: "d8", 10: "d10", 12: "d12"}


def die_materials(die) -> tuple[str, ...]:
    """Materials of a catalogue die: its colour (Ivory/White/alloy) or its one or two elements."""
    if getattr(die, "color", None):
        return (die.color,)
    els = tuple(sorted(str(e.value if hasattr(e, "value") else e) for e in die.elements))
    return els[:2] or ("Ivory",)
