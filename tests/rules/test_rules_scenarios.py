"""Roll scenarios and the ``companion resolve`` command: scenario files written for the tests
(``tests/fixtures/scenarios``), and the public conformance scenarios of ../shared where it is present."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import yaml

from companion.rules.catalogue import load_catalogue
from companion.rules.resolution import resolve
from companion.rules.resolution.scenario import ScenarioError, read_scenario

BASE = """\
id: t
edition: v4
terrains:
  - {name: flat, type: Flatland, face: 6}
armies:
  red: {player: 1, at: flat, units: [Dwarves/Footman, Dwarves/Mammoth Rider]}
  blue: {player: 2, at: flat, units: [Goblins/Thug]}
roll:
  army: red
  for: melee
  faces: [2 Melee, 3 Trample]
"""


SCENARIO_DIR = Path(__file__).resolve().parents[1] / "fixtures" / "scenarios"
FIXTURE_SCENARIOS = sorted(SCENARIO_DIR.glob("*.yaml"))


def scenario_files(folder=None):
    """The public conformance scenarios in ``folder`` (../shared), else the fixture scenarios."""
    if folder is None:
        return FIXTURE_SCENARIOS
    return sorted((folder / "conformance" / "scenarios").glob("*.yaml"))


def test_there_are_fixture_scenarios():
    assert len(FIXTURE_SCENARIOS) >= 3


def test_every_fixture_scenario_passes():
    cat = load_catalogue()
    for path in FIXTURE_SCENARIOS:
        scenario = read_scenario(yaml.safe_load(path.read_text("utf-8")), cat)
        assert scenario.expect, path.name
        totals = resolve(scenario.request).totals
        for key, want in scenario.expect.items():
            assert totals[key] == want, (path.name, key, totals)


@pytest.mark.needs_shared
def test_every_conformance_scenario_passes(shared_dir):
    """Among them: v4-wind-walk-combined (V4-21), r96-dwarf-eighth-face-highland (R96-16),
    r96-ids-count-health (R96-01), v4-rend-rolls-again (the Rend re-roll list)."""
    cat = load_catalogue()
    assert len(scenario_files(shared_dir)) >= 4
    for path in scenario_files(shared_dir):
        scenario = read_scenario(yaml.safe_load(path.read_text("utf-8")), cat)
        assert scenario.expect, path.name
        totals = resolve(scenario.request).totals
        for key, want in scenario.expect.items():
            assert totals[key] == want, (path.name, key, totals)


def run_cli(*args, cwd=None):
    return subprocess.run(
        [sys.executable, "-m", "companion", "resolve", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=60,
    )


def test_cli_json_for_every_scenario():
    for path in scenario_files():
        proc = run_cli(str(path), "--json")
        assert proc.returncode == 0, proc.stderr
        out = json.loads(proc.stdout)
        assert out["matches_expect"] is True
        for key, want in out["expect"].items():
            assert out["totals"][key] == want
        assert out["steps"] and all("citation" in s and "rule" in s for s in out["steps"])


def test_cli_text_explains_steps():
    proc = run_cli(str(SCENARIO_DIR / "r96-eighth-face-and-highland-dwarf.yaml"))
    assert proc.returncode == 0
    assert "maneuver: 2 -> 4" in proc.stdout and "R96 L622" in proc.stdout
    assert "totals: maneuver 8" in proc.stdout


def test_cli_reports_mismatch_with_status_1(tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text(BASE + "expect: {melee: 99}\n", encoding="utf-8")
    proc = run_cli(str(path))
    assert proc.returncode == 1
    assert "expected melee 99, got 5" in proc.stdout


@pytest.mark.parametrize(
    ("old", "new", "key"),
    [
        (
            "Dwarves/Footman, Dwarves/Mammoth Rider",
            "Dwarves/Footman, Dwarves/Mammoth Driver",
            "armies.red.units[1]",
        ),
        ("faces: [2 Melee, 3 Trample]", "faces: [2 Melee, 4 Trample]", "roll.faces[1]"),
        ("faces: [2 Melee, 3 Trample]", "faces: [2 Melee]", "roll.faces"),
        ("faces: [2 Melee, 3 Trample]", "faces: [[2 Melee, 1 Save], 3 Trample]", "roll.faces[0][1]"),
        ("roll:", "effects:\n  - {spell: Stone Wall, target: red, castings: 1}\nroll:", "effects[0].spell"),
        (
            "roll:",
            "effects:\n  - {spell: Stone Skin, target: red, castings: 0}\nroll:",
            "effects[0].castings",
        ),
        (
            "roll:",
            "effects:\n  - {spell: Stone Skin, target: green, castings: 1}\nroll:",
            "effects[0].target",
        ),
        ("{player: 2, at: flat,", "{at: flat,", "armies.blue.player"),
        ("at: flat, units: [Dwarves/Footman", "at: hill, units: [Dwarves/Footman", "armies.red.at"),
        ("type: Flatland", "type: Moonland", "terrains[0].type"),
        ("for: melee", "for: dancing", "roll.for"),
        ("edition: v4", "edition: v9", "edition"),
    ],
)
def test_bad_files_exit_2_naming_the_key(tmp_path, old, new, key):
    assert old in BASE
    path = tmp_path / "bad.yaml"
    path.write_text(BASE.replace(old, new), encoding="utf-8")
    proc = run_cli(str(path))
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and f": {key}:" in lines[0], proc.stderr
    assert proc.stdout == ""


def test_unreadable_and_garbled_files_exit_2(tmp_path):
    assert run_cli(str(tmp_path / "missing.yaml")).returncode == 2
    path = tmp_path / "g.yaml"
    path.write_text("id: [unclosed\n", encoding="utf-8")
    proc = run_cli(str(path))
    assert proc.returncode == 2 and "not valid YAML" in proc.stderr


def test_a_binary_file_exits_2_naming_it(tmp_path):
    path = tmp_path / "photo.yaml"
    path.write_bytes(b"\xff\xd8\xff\xe0\x00\x10JFIF\x00")
    proc = run_cli(str(path))
    assert proc.returncode == 2, proc.stderr
    assert f"{path}: not a UTF-8 text file" in proc.stderr and "Traceback" not in proc.stderr
    assert proc.stdout == ""


def test_reroll_list_and_effects_on_other_armies(tmp_path):
    cat = load_catalogue()
    doc = yaml.safe_load(
        BASE.replace("Dwarves/Mammoth Rider", "Goblins/Leopard Rider").replace(
            "3 Trample]", "[3 Rend, 3 Rend, 4 Melee]]"
        )
    )
    doc["effects"] = [{"spell": "Stone Skin", "target": "blue", "castings": 2}]
    scenario = read_scenario(doc, cat)
    assert scenario.request.effects == ()  # a spell on another army does not touch this roll
    assert resolve(scenario.request).totals["melee"] == 2 + 3 + 3 + 4


def test_read_scenario_errors_carry_key():
    doc = yaml.safe_load(BASE)
    doc["roll"]["army"] = "green"
    with pytest.raises(ScenarioError) as err:
        read_scenario(doc, load_catalogue())
    assert err.value.key == "roll.army"


def test_resolve_command_imports_no_vision_torch_flask_or_serial(tmp_path):
    script = textwrap.dedent(f"""
        import sys
        from companion.cli import main
        rc = main(["resolve", {str(scenario_files()[0])!r}, "--json"])
        heavy = sorted(m for m in sys.modules
                       if m.split(".")[0] in ("torch", "flask", "serial", "cv2", "onnxruntime", "ultralytics")
                       or m.startswith("companion.vision") or m == "web" or m.startswith("web."))
        print("HEAVY", heavy, "RC", rc, file=sys.stderr)
        sys.exit(1 if heavy or rc else 0)
    """)
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr[-2000:]


def test_export_reads_back_to_the_same_roll():
    from companion.rules.resolution.scenario import scenario_document

    cat = load_catalogue()
    for path in scenario_files():
        scenario = read_scenario(yaml.safe_load(path.read_text("utf-8")), cat)
        doc = scenario_document(scenario.request, id=scenario.id, expect=resolve(scenario.request).totals)
        again = read_scenario(yaml.safe_load(yaml.safe_dump(doc)), cat)
        assert [u.faces for u in again.request.units] == [u.faces for u in scenario.request.units]
        assert resolve(again.request).totals == resolve(scenario.request).totals == dict(again.expect)


def test_cli_reads_standard_input():
    path = scenario_files()[0]
    proc = subprocess.run(
        [sys.executable, "-m", "companion", "resolve", "-", "--json"],
        input=path.read_text("utf-8"),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0 and json.loads(proc.stdout)["matches_expect"] is True
