"""Edition ``r96``: Dragon Dice Revised Rules (TSR, 1996), document 000_a97340edc096aa95.txt.

Small rule modules on the shared engine: ``core`` (eighth face, charge), ``racial`` (the four
racial abilities), ``sai`` (the seven SAIs), ``spells`` (spells that change rolls) and
``edition.EDITION`` (the four-step modifier order as data).
"""
