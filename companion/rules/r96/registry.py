"""The r96 plug-in registry."""

from companion.rules.resolution.registry import Registry

REGISTRY = Registry("r96")
