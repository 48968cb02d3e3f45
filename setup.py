"""The package list: everything pyproject.toml describes, plus the model bundles.

pyproject.toml cannot both find packages and add one whose folder has another name, so the list is
made here: the packages found under ``companion``, ``firmware_bridge`` and ``web``, and the top-level
``models/`` folder installed as ``companion_models`` (mapped in pyproject's ``package-dir``).
"""

from setuptools import find_namespace_packages, setup

setup(
    packages=find_namespace_packages(include=["companion*", "firmware_bridge*", "web*"])
    + ["companion_models"]
)
