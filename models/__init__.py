"""The shipped model bundles, installed as the package ``companion_models``.

The repository keeps them in the top-level ``models/`` folder (one folder per bundle: ONNX networks,
``model.json``, model card, changelog); pyproject.toml maps that folder to this package so that an
installed wheel carries the bundles.  ``companion.vision.reader.models_dir`` finds them through
``importlib.resources``.  Training checkpoints (``*.pt``) stay in the repository only.
"""
