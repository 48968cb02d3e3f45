"""The standard-dice model of ``companion serve`` and ``companion watch`` (``--standard-model``).

Standard dice (Battle Dice: d4, d6, d8, d10, d12, d20) are read by a *numeral* bundle
(``companion.vision.numerals``): a shipped one (``polyhedral-oblique``, the default: ``numerals.DEFAULT_STANDARD_MODEL``; ``polyhedral``)
or one made by ``companion vision enroll --corrections DIR --model polyhedral-oblique --out BUNDLE``.
The name is checked before anything starts, so a typo stops the command at once with its name,
never at the first roll.
"""

from __future__ import annotations

from companion.vision import DEFAULT_STANDARD_MODEL as DEFAULT  # noqa: F401 (serve reads it here)


def shipped_standard_models() -> list[str]:
    """The shipped numeral bundles (``models/NAME`` whose model.json form is ``numerals``)."""
    from companion.vision.numerals import numeral_bundle
    from companion.vision.reader import models_dir

    root = models_dir()
    return sorted(p.name for p in root.iterdir() if p.is_dir() and numeral_bundle(p) is not None)


def check_standard_model(name: str, load: bool = True):
    """The loaded numeral bundle ``name`` (a shipped name or a bundle folder); with ``load`` false, only
    that it is one.  ``ModelError`` naming ``name`` when it is unknown, another kind of model, or broken."""
    import json

    from companion.vision.numerals import NUMERAL_FORM, load_numeral_model, numeral_bundle
    from companion.vision.reader import ModelError, resolve_model

    if numeral_bundle(name) is None:
        names = ", ".join(shipped_standard_models())
        try:
            bundle = resolve_model(name)
        except ModelError:
            raise ModelError(
                f"unknown standard-dice model {str(name)!r}: give a bundle folder (with model.json) made "
                f"by `companion vision enroll --model polyhedral-oblique`, or a shipped one ({names})"
            ) from None
        try:
            form = json.loads((bundle / "model.json").read_text()).get("form", "dice")
        except (OSError, ValueError, AttributeError):
            form = "unreadable"
        raise ModelError(
            f"{str(name)!r} ({bundle}) is not a standard-dice model: its model.json form is {form!r}, "
            f"not {NUMERAL_FORM!r} (shipped standard-dice models: {names})"
        )
    return load_numeral_model(name) if load else None
