"""The rules' shared core, used by every edition's flow (V4.01c in ``companion.rules.game``, the 1996 rules
in ``companion.rules.r96.game``): typed errors (``errors``), decisions as data (``decisions``), ids as
value types (``ids``), the game state's value types (``state``), terrains (``terrains``) and damage
allocation (``damage``).  Nothing here knows an edition's turn sequence.
"""
