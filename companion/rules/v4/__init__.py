"""Edition V4.01c (SFR): the edition object and its roll plug-ins.

* :mod:`.edition` / :mod:`.registry` / :mod:`.core` - the edition as data, its plug-in registry
  and its core rules (eighth face, Dragonkin automatic saves);
* :mod:`.sai` - the 80 rows of the SAI table (L1178-2080): results per roll type, re-roll flag,
  modifiers created, effects reported;
* :mod:`.species` - the 27 species abilities (L771-998), with the "s" DUA caps;
* :mod:`.spells` - spells and lasting effects that change rolls (L2085-2446), cumulative castings;
* :mod:`.delayed` - step 2: delayed SAI effects on the defender's save roll (L1015-1016);
* :mod:`.plugins` - translates the tables into the engine's hooks (``register_all``, called once by
  :mod:`.edition`; the tables never import it);
* :mod:`.contributions` / :mod:`.situation` - the value types the tables speak.
"""
