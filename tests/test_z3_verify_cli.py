"""`tessera verify` with the z3 checks: exit codes and readable findings (its speed is a benchmark:
`/usr/bin/time tessera verify --no-engine`, bench/README.md, never a timed unit test).

The bundled rules verify clean (exit 0) while printing the two known misprints
(BASE-CITY-2, BASE-END-2); a house rule that breaks an invariant (BASE-SCORE-3)
and the weakened rivers (RIVER-PLACE-2) exit 1 with their counterexamples.
"""
from __future__ import annotations

import pytest

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def verify(*args: str) -> tuple[int, str]:
    """Exit code and output of `tessera verify ARGS`."""
    p = subprocess.run([sys.executable, "-m", "tessera", "verify", *args], cwd=ROOT, capture_output=True,
                       text=True, env={**os.environ, "COLUMNS": "200"}, timeout=600)
    return p.returncode, p.stdout + p.stderr


@pytest.mark.slow
def test_bundled_rules_verify_clean_and_report_the_known_misprints():
    rc, out = verify("--no-engine", "--verbose")  # the z3 and topology checks alone (the engine check: below)
    assert rc == 0, out
    assert "the known misprint of BASE-END-2" in out and "the known misprint of BASE-CITY-2" in out
    assert "nearest consistent inputs" in out
    assert "never runs into itself: proved" in out
    assert "engine-features" not in out


@pytest.mark.slow
def test_rules_folder_leaves_variants_out():
    """The engine check runs by default (`--games 8` in all: one game per rule set of the folder)."""
    rc, out = verify("rules/", "--games", "8", "--verbose")
    assert rc == 0, out
    assert "besieged_cities" not in out and "river_no_uturn" not in out
    assert out.count("✓ engine-features") == out.count("✓ tile-edge-places") >= 6  # every rule set with tiles


@pytest.mark.slow
def test_a_variant_that_breaks_an_invariant_exits_1_with_a_counterexample():
    rc, out = verify("--no-engine", "rules/", "rules/variants/besieged_cities.tess")
    assert rc == 1
    assert "besieged_cities.tess:12:10: error: invariant `score-never-decreases` [BASE-SCORE-3] is refuted" in out
    assert "witness of `" in out and "replay it: tessera replay " in out  # a game that breaks it (issue 22)
    assert "counterexample: players=2" in out and "involves rules/variants/besieged_cities.tess:12" in out


@pytest.mark.slow
def test_weakened_rivers_exit_1_with_a_map():
    for v in ("river_no_turn_rule", "river_no_uturn"):
        rc, out = verify("--no-engine", f"rules/variants/{v}.tess")
        assert rc == 1, out
        assert "never flows back: REFUTED" in out and "never runs into itself: REFUTED" in out
        assert "map (S source" in out
