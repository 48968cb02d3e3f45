"""Dice catalogue: contents, lookups, face parsing, and loud failure on bad edits."""

from __future__ import annotations

import copy
import json
from collections import Counter
from importlib import resources

import pytest

from companion.rules.catalogue import (
    SPECIES,
    CatalogueError,
    DieKind,
    Element,
    Face,
    FaceError,
    catalogue_from_document,
    load_catalogue,
    load_catalogue_text,
    parse_face,
)
from companion.rules.catalogue.build import build_records


@pytest.fixture(scope="module")
def cat():
    return load_catalogue()


@pytest.fixture(scope="module")
def packaged_doc():
    return json.loads(resources.files("companion.rules.catalogue").joinpath("dice.json").read_text("utf-8"))


def test_counts_per_kind(cat):
    counts = cat.counts_by_kind()
    assert counts == {
        "monster": 60,
        "unit": 511,
        "artifact": 25,
        "equipment": 75,
        "medallion": 3,
        "relic": 2,
        "dragon": 44,
        "minor_terrain": 28,
        "terrain": 48,
        "spell_card": 55,
    }
    assert sum(counts.values()) == 851


def test_twelve_species_have_fifteen_units_and_five_monsters(cat):
    twelve = [s for s in SPECIES if s not in ("Eldarim", "Dragonkin", "Dracolem")]
    assert len(twelve) == 12
    for species in twelve:
        kinds = Counter(d.kind for d in cat.of_species(species))
        assert kinds == {DieKind.UNIT: 15, DieKind.MONSTER: 5}, species
        sizes = Counter(d.size for d in cat.of_species(species))
        assert sizes == {"Small": 5, "Medium": 5, "Large": 5, "Monster": 5}, species


def test_mammoth_rider(cat):
    die = cat["Dwarves/Mammoth Rider"]
    assert (die.kind, die.size, die.health, die.species) == (DieKind.UNIT, "Large", 3, "Dwarves")
    assert die.elements == {Element.FIRE, Element.EARTH}
    assert die.faces[0] == Face("ID", 3)
    assert [f.sai for f in die.faces].count("Trample") == 2
    assert die.find_face("3 Trample") == Face("SAI", 3, "Trample")
    assert die.find_face("ID").count == 3


def test_lookup_ignores_case_punctuation_and_species_prefix(cat):
    assert cat["crack-shot"] is cat["Dwarves/Crack Shot"]
    assert cat.find("Dwarves/Nobody") is None
    with pytest.raises(CatalogueError, match="unknown die"):
        cat["Dwarves/Nobody"]
    # designs repeated per element carry the element
    assert cat["Dragonkin/Dragonmount (Death)"].elements == {Element.DEATH}
    assert cat.find("Dragonmount") is None  # ambiguous without the element


def test_monster_and_artifact_icons_are_worth_four(cat):
    for die in cat.of_kind("monster") + cat.of_kind("artifact"):
        assert die.id_face.count == 4
        assert all(f.count == 4 for f in die.faces if not f.is_sai), die.name


def test_every_unit_has_one_id_face_worth_its_health(cat):
    for die in cat.of_kind("unit") + cat.of_kind("monster"):
        ids = [f for f in die.faces if f.is_id]
        assert len(ids) == 1 and ids[0].count == die.health, die.name


def test_terrain_faces_are_numbered_and_eighth_shows_icon(cat):
    die = cat["Terrains/Highland Tower"]
    assert [f.count for f in die.faces] == list(range(1, 9))
    assert die.faces[7].icon == "Tower" and die.terrain_type == "Highland"
    assert die.elements == {Element.FIRE, Element.EARTH}
    assert cat["Terrains/Coastland Standing Stone"].eighth_face == "Standing Stones"


def test_dragon_tail_is_a_dragon_icon_but_an_sai_on_units(cat):
    assert cat["Dragons/Black Drake"].faces[1] == Face("Tail", 3)
    tail = [f for f in cat["Coral Elves/Leviathan"].faces if f.sai == "Tail"]
    assert tail and tail[0].icon == "SAI"


def test_parse_face():
    assert parse_face("2 Melee") == Face("Melee", 2)
    assert parse_face("4 Fire Breath").sai == "Firebreath"
    assert parse_face("4 Element Air") == Face("SAI", 4, "Elemental Relic", "Element Air")
    assert parse_face("ID", default_count=3) == Face("ID", 3)
    with pytest.raises(FaceError, match="unknown icon"):
        parse_face("2 Sword")
    with pytest.raises(FaceError, match="no count"):
        parse_face("Melee")
    with pytest.raises(FaceError, match="no count"):  # was int()'s ValueError: "²".isdigit() is true
        parse_face("\u00b2 Melee")
    with pytest.raises(CatalogueError, match="no count"):
        cat_die = load_catalogue()["Dwarves/Mammoth Rider"]
        cat_die.find_face("\u00b2 Melee")


def test_search(cat):
    names = {d.name for d in cat.search("mammoth")}
    assert names == {"Dwarves/Mammoth Rider"}
    assert all(
        "Rend" in [f.name for f in d.faces] for d in cat.search("rend") if "rend" not in d.name.lower()
    )


@pytest.mark.needs_shared
def test_build_from_shared_reproduces_packaged_file(shared_dir, packaged_doc):
    source = json.loads((shared_dir / "data/dragon-dice/normalized_all_sets.json").read_text("utf-8"))
    assert build_records(source) == packaged_doc


def _find(doc, name):
    return next(r for r in doc["dice"] if r["name"] == name)


@pytest.mark.parametrize(
    ("edit", "match"),
    [
        (
            lambda d: _find(d, "Dwarves/Footman")["faces"].__setitem__(0, "2 ID"),
            r"Dwarves/Footman.*'2 ID'.*health 1",
        ),
        (
            lambda d: _find(d, "Dwarves/Footman")["faces"].__setitem__(0, "1 Melee"),
            r"Dwarves/Footman.*exactly one ID",
        ),
        (lambda d: _find(d, "Dwarves/Footman")["faces"].pop(), r"Dwarves/Footman.*6 faces"),
        (
            lambda d: _find(d, "Dwarves/Footman")["faces"].__setitem__(2, "1 Sword"),
            r"Dwarves/Footman.*'1 Sword'.*unknown icon",
        ),
        (
            lambda d: _find(d, "Dwarves/Roc")["faces"].__setitem__(2, "3 Melee"),
            r"Dwarves/Roc.*'3 Melee'.*worth 4",
        ),
        (lambda d: _find(d, "Dwarves/Footman").__setitem__("species", "Elves"), r"unknown species"),
        (lambda d: _find(d, "Dwarves/Footman").__setitem__("elements", ["Air"]), r"differ from the species"),
        (
            lambda d: _find(d, "Terrains/Highland Tower")["faces"].__setitem__(7, "8 City"),
            r"Highland Tower.*eighth face",
        ),
        (
            lambda d: _find(d, "Items/Air Eyebiter")["faces"].__setitem__(0, "1 ID"),
            r"Air Eyebiter.*not allowed",
        ),
        (lambda d: d["dice"].append(dict(_find(d, "Dwarves/Footman"))), r"duplicate name"),
    ],
)
def test_bad_edit_fails_loudly(packaged_doc, edit, match):
    doc = copy.deepcopy(packaged_doc)
    edit(doc)
    with pytest.raises(CatalogueError, match=match):
        catalogue_from_document(doc)


def test_mutated_file_on_disk_is_refused(tmp_path, packaged_doc):
    doc = copy.deepcopy(packaged_doc)
    _find(doc, "Goblins/Leopard Rider")["faces"][1] = "9 Rend"
    path = tmp_path / "dice.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    assert (
        load_catalogue_text(path.read_text("utf-8"))["Goblins/Leopard Rider"].find_face("9 Rend").count == 9
    )
    _find(doc, "Goblins/Leopard Rider")["faces"][0] = "3 Save"
    path.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(CatalogueError, match="Leopard Rider"):
        load_catalogue_text(path.read_text("utf-8"))
    path.write_text("{not json", encoding="utf-8")
    with pytest.raises(CatalogueError, match="not valid JSON"):
        load_catalogue_text(path.read_text("utf-8"))


def _cli(*args):
    import subprocess
    import sys

    return subprocess.run(
        [sys.executable, "-m", "companion", "catalogue", *args], capture_output=True, text=True, timeout=60
    )


def test_catalogue_cli_show_and_search():
    proc = _cli("show", "Dwarves/Mammoth Rider")
    assert proc.returncode == 0
    assert (
        "health 3" in proc.stdout and proc.stdout.count("3 Trample") == 2 and "face  1: 3 ID" in proc.stdout
    )
    proc = _cli("search", "trample")
    assert proc.returncode == 0 and "Dwarves/Mammoth Rider" in proc.stdout
    hits = load_catalogue().search("trample")
    assert len(proc.stdout.splitlines()) == len(hits) and all(d.name in proc.stdout for d in hits)
    assert _cli("show", "Spells/Stone Skin").stdout.startswith("Spells/Stone Skin: cost 2")
    bad = _cli("show", "Dwarves/Nobody")
    assert bad.returncode == 2 and "unknown die" in bad.stderr
    assert _cli("search", "zzzz").returncode == 1


def test_cli_search_refuses_empty_text(capsys):
    """``catalogue search ""`` listed all 851 dice and cards, ``"   "`` 796 of them."""
    from companion.cli import main

    for text in ("", "   "):
        assert main(["catalogue", "search", text]) == 2
        out = capsys.readouterr()
        assert out.out == "" and "TEXT is empty" in out.err
    assert main(["catalogue", "search", "Mammoth"]) == 0
    assert "Dwarves/Mammoth Rider" in capsys.readouterr().out
