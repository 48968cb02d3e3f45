"""Edition V4.01c (SFR) roll plug-ins: what SAIs, species abilities and spells add to a roll.

* :mod:`.sai` - the 80 rows of the SAI table (L1178-2080);
* :mod:`.species` - the 27 species abilities (L771-998);
* :mod:`.spells` - spells and lasting effects that change rolls (L2085-2446);
* :mod:`.contributions` / :mod:`.situation` - the value types they exchange with resolution.
"""
