"""The v4 plug-in registry.  Plug-in modules do ``from companion.rules.v4.registry import REGISTRY``
and decorate their hooks (see ``companion.rules.resolution`` for the contract)."""

from companion.rules.resolution.registry import Registry

REGISTRY = Registry("v4")

#: Document citation prefix for this edition.
DOC = "V4.01c"
