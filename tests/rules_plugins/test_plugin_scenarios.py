"""Roll scenario files (conformance FORMAT.md) for SAI, species and spell rules: each file cites
its rule lines in ``source`` and states the totals the rules demand."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from companion.rules.resolution import resolve
from companion.rules.resolution.scenario import read_scenario

SCENARIOS = sorted((Path(__file__).parent / "scenarios").glob("*.yaml"))


@pytest.mark.parametrize("path", SCENARIOS, ids=[p.stem for p in SCENARIOS])
def test_plugin_scenario(path, cat):
    doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert "001_3528b96406ab467a.txt L" in doc["source"]
    scenario = read_scenario(doc, cat)
    resolution = resolve(scenario.request)
    assert scenario.expect
    got = {k: resolution.totals.get(k, 0) for k in scenario.expect}
    assert got == dict(scenario.expect), [s.as_dict() for s in resolution.steps]


@pytest.mark.needs_shared
def test_shared_conformance_scenarios_pass(shared_dir, cat):
    """The shared conformance scenarios (two of them exercise Rend and Wind Walk)."""
    files = sorted((shared_dir / "conformance" / "scenarios").glob("*.yaml"))
    assert files
    for path in files:
        scenario = read_scenario(yaml.safe_load(path.read_text(encoding="utf-8")), cat)
        resolution = resolve(scenario.request)
        assert {k: resolution.totals.get(k, 0) for k in scenario.expect} == dict(scenario.expect), path.name
