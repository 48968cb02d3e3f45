"""Dead unit area operations (companion.rules.game.dua), V4.01c L239-259, L1104-1175, L2525-2527."""

from __future__ import annotations

import pytest
from spell_support import add_die, new_game, units_at

from companion.rules.core.state import BUA, DUA, POOL
from companion.rules.game import IllegalAction, dua


def test_kill_moves_units_to_dua():
    """V4.01c L239-241: a killed unit goes to its owner's DUA."""
    g = new_game()
    uid = units_at(g, "p2", "home-p2")[0]
    dua.kill(g.state, [uid])
    assert g.state.location[uid] == DUA


@pytest.mark.parametrize(
    "kill",
    [lambda g, units: dua.kill(g.state, units), lambda g, units: _drive(g, dua.kill_flow(g, units))],
    ids=["kill", "kill_flow"],
)
def test_kill_refuses_a_dead_unit_and_changes_nothing(kill):
    """V4.01c L1125-1126: only units in play can be killed; a bad list moves no die (``dua.kill`` and the
    flow's death pipeline ``dua.kill_flow`` alike)."""
    g = new_game()
    a, b = units_at(g, "p2", "home-p2")[:2]
    g.state.location[b] = DUA
    with pytest.raises(IllegalAction):
        kill(g, [a, b])
    assert g.state.location[a] == "home-p2"


def test_killed_dragonkin_returns_to_the_summoning_pool_unless_buried():
    """V4.01c L2525-2527: Dragonkin never enter the DUA; an effect that kills and buries buries them."""
    g = new_game()
    k1 = add_die(g, "p1", "Dragonkin/Dragontroop (Death)", "home-p1")
    k2 = add_die(g, "p1", "Dragonkin/Dragontroop (Death)", "home-p1")
    dua.kill(g.state, [k1])
    dua.kill(g.state, [k2], bury_too=True)
    assert g.state.location[k1] == POOL
    assert g.state.location[k2] == BUA


def test_bury_only_from_the_dua():
    """V4.01c L243-245: buried units come from the DUA."""
    g = new_game()
    a, b = units_at(g, "p2", "home-p2")[:2]
    g.state.location[a] = DUA
    dua.bury(g.state, [a])
    assert g.state.location[a] == BUA
    with pytest.raises(IllegalAction):
        dua.bury(g.state, [b])


def test_recruit_small_unit_from_dua():
    """V4.01c L250-252: recruiting moves a small (1 health) unit from the DUA to the army."""
    g = new_game()
    small = add_die(g, "p1", "Undead/Zombie", DUA)
    big = add_die(g, "p1", "Undead/Wight", DUA)
    dua.recruit(g.state, [small], "p1", "home-p1")
    assert g.state.location[small] == "home-p1"
    with pytest.raises(IllegalAction, match="small"):
        dua.recruit(g.state, [big], "p1", "home-p1")
    assert g.state.location[big] == DUA


def test_recruit_needs_an_army_there():
    """V4.01c L250-252: units are recruited to an army."""
    g = new_game()
    small = add_die(g, "p1", "Undead/Zombie", DUA)
    for uid in units_at(g, "p1", "frontier"):
        g.state.location[uid] = BUA
    with pytest.raises(IllegalAction):
        dua.recruit(g.state, [small], "p1", "frontier")


def test_promote_one_health_larger_same_species():
    """V4.01c L1139-1141: exchange with a unit of the same species one health larger from the DUA."""
    g = new_game()
    old = units_at(g, "p1", "home-p1")[0]
    two = add_die(g, "p1", "Undead/Wight", DUA)
    three = add_die(g, "p1", "Undead/Mummy", DUA)
    other = add_die(g, "p1", "Treefolk/Oak", DUA)
    with pytest.raises(IllegalAction):
        dua.promote(g.state, [(old, three)])  # two steps without a budget
    with pytest.raises(IllegalAction):
        dua.promote(g.state, [(old, other)])  # another species
    dua.promote(g.state, [(old, two)])
    assert g.state.location[two] == "home-p1" and g.state.location[old] == DUA


def test_promote_health_worth_budget_may_combine_steps():
    """V4.01c L1153-1155: X health-worth may raise one unit several steps, within X."""
    g = new_game()
    a, b = units_at(g, "p1", "home-p1")[:2]
    three = add_die(g, "p1", "Undead/Mummy", DUA)
    two = add_die(g, "p1", "Undead/Wight", DUA)
    with pytest.raises(IllegalAction, match="more than"):
        dua.promote(g.state, [(a, three), (b, two)], budget=2)
    dua.promote(g.state, [(a, three)], budget=2)
    assert g.state.location[three] == "home-p1"


def test_dracolem_never_promoted_or_recruited():
    """V4.01c L1157: Dracolem can never be promoted or recruited."""
    from companion.rules.catalogue import load_catalogue

    g = new_game()
    dracolem = [d for d in load_catalogue().of_species("Dracolem") if d.is_unit]
    assert dracolem
    d = add_die(g, "p1", dracolem[0].name, "home-p1")
    assert not any(dua.can_promote(g.state, d, n) for n in g.state.units)
    small = [x for x in dracolem if x.health == 1]
    if small:
        s = add_die(g, "p1", small[0].name, DUA)
        with pytest.raises(IllegalAction, match="Dracolem"):
            dua.recruit(g.state, [s], "p1", "home-p1")


def test_simultaneous_promotion_matches_all_then_swaps():
    """V4.01c L1145-1147: all promotions are matched first, then made at once: a unit just
    promoted away is never the partner of another promotion in the same batch."""
    g = new_game()
    ones = units_at(g, "p1", "home-p1")[:3]
    twos = [add_die(g, "p1", "Undead/Wight", DUA), add_die(g, "p1", "Undead/Ghast", DUA)]
    pairs = dua.match_promotions(g.state, ones)
    assert len(pairs) == 2  # two partners in the DUA: two promotions, not three
    dua.promote(g.state, pairs)
    assert sorted(g.state.location[t] for t in twos) == ["home-p1", "home-p1"]
    # the 1-health units that went to the DUA are not promoted again in this batch
    assert sum(1 for o in ones if g.state.location[o] == DUA) == 2


def test_promote_rejects_shared_partner_without_change():
    """V4.01c L1164-1165: each exchange has its own DUA partner, checked before anything moves."""
    g = new_game()
    a, b = units_at(g, "p1", "home-p1")[:2]
    two = add_die(g, "p1", "Undead/Wight", DUA)
    with pytest.raises(IllegalAction):
        dua.promote(g.state, [(a, two), (b, two)])
    assert g.state.location[a] == "home-p1" and g.state.location[two] == DUA


def test_exchange_whole_army_keeps_army_effects():
    """V4.01c L1167-1170: an army whose every unit is exchanged is never gone: its spells stay;
    L1172-1173: an individual effect on an exchanged unit ends; L1175: exchanged units are not killed."""
    g = new_game()
    st = g.state
    army = units_at(g, "p1", "frontier")
    for uid in army[1:]:
        st.location[uid] = BUA
    lone = army[0]
    partner = add_die(g, "p1", "Undead/Skeleton", DUA)
    g.add_effect("Stone Skin", "p1", "p1@frontier")
    g.add_effect("Hypnotic Glare", "p2", lone)
    dua.exchange(st, [(lone, partner)])
    g.cleanup()
    assert st.location[partner] == "frontier" and st.location[lone] == DUA
    names = [e.name for e in st.effects]
    assert "Stone Skin" in names and "Hypnotic Glare" not in names


def test_return_from_dua_to_casting_army():
    """V4.01c L2398-2404 (Resurrect Dead): dead units return to the casting army."""
    g = new_game()
    dead = add_die(g, "p1", "Undead/Zombie", DUA)
    dua.return_from_dua(g.state, [dead], "p1", "home-p1")
    assert g.state.location[dead] == "home-p1"
    with pytest.raises(IllegalAction):
        dua.return_from_dua(g.state, [dead], "p1", "home-p1")


def _drive(game, gen, answers=()):
    from spell_support import drive

    return drive(game, gen, answers)


def test_kill_flow_records_where_each_unit_went():
    """V4.01c L1104-1107, L2525-2527 through the flow's death pipeline: units to the DUA, a Dragonkin
    to the Summoning Pool; ``bury_too`` buries at once."""
    g = new_game(species=("Undead", "Dwarves"))
    a, b = units_at(g, "p2", "home-p2")[:2]
    kin = add_die(g, "p2", "Dragonkin/Dragontroop (Death)", "home-p2")
    deaths = _drive(g, dua.kill_flow(g, [a, kin]))
    assert {d.uid: d.dest for d in deaths} == {a: DUA, kin: POOL}
    assert g.state.location[kin] == POOL
    _drive(g, dua.kill_flow(g, [b], bury_too=True))
    assert g.state.location[b] == BUA


def test_exchanged_last_unit_keeps_the_army_and_its_spells():
    """V4.01c L1167-1170 through a kill: Accelerated Growth exchanges an army's only unit; the army is
    never gone, its spells stay."""
    g = new_game(species=("Treefolk", "Undead"))
    st = g.state
    for uid in units_at(g, "p1", "frontier"):
        st.location[uid] = BUA
    oak = add_die(g, "p1", "Treefolk/Oak", "frontier")
    small = add_die(g, "p1", "Treefolk/Pineling", DUA)
    g.add_effect("Accelerated Growth", "p1", "dua:p1")
    g.add_effect("Stone Skin", "p1", "p1@frontier")
    _drive(g, dua.kill_flow(g, [oak]), [{"type": "choose", "choice": small}])
    g.cleanup()
    assert st.location[small] == "frontier"
    assert any(e.name == "Stone Skin" for e in st.effects)


def test_exchanged_unit_is_not_killed_so_soiled_ground_does_not_roll():
    """V4.01c L1175 with L2247-2250: an exchanged unit is never killed: no Soiled Ground save roll."""
    g = new_game(species=("Treefolk", "Undead"))
    oak = add_die(g, "p1", "Treefolk/Oak", "home-p1")
    small = add_die(g, "p1", "Treefolk/Pineling", DUA)
    g.add_effect("Accelerated Growth", "p1", "dua:p1")
    g.add_effect("Soiled Ground", "p2", "home-p1")
    _drive(g, dua.kill_flow(g, [oak]), [{"type": "choose", "choice": small}])  # no roll asked after
    assert g.state.location[oak] == DUA and g.state.location[small] == "home-p1"


def test_open_grave_unit_triggers_no_when_killed_effect():
    """V4.01c L1128-1129: a unit Open Grave keeps out of the DUA triggers no effect on being killed
    (no Accelerated Growth choice)."""
    g = new_game(species=("Treefolk", "Undead"))
    oak = add_die(g, "p1", "Treefolk/Oak", "home-p1")
    add_die(g, "p1", "Treefolk/Pineling", DUA)
    g.add_effect("Accelerated Growth", "p1", "dua:p1")
    g.add_effect("Open Grave", "p1", "p1@home-p1")
    _drive(g, dua.kill_flow(g, [oak], save_roll=True))
    assert g.state.location[oak] == "reserve"
