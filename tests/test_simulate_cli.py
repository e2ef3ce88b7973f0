"""`tessera simulate`: summary, JSON, determinism and the --against comparison of a house rule."""
from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from tessera.cli import app
from tessera import engine_cmds  # noqa: F401  (registers the engine commands)

runner = CliRunner()
VARIANTS = Path(__file__).resolve().parent.parent / "rules" / "variants"


def _json(args):
    r = runner.invoke(app, ["simulate", *args, "--json"])
    assert r.exit_code == 0, r.output
    return json.loads(r.output)


def test_same_seed_same_summary():
    a = _json(["-n", "30", "-p", "3", "-s", "7"])
    b = _json(["-n", "30", "-p", "3", "-s", "7"])
    a.pop("seconds"), b.pop("seconds")
    assert a == b
    assert a["mean_turns"] == 71.0 - a["mean_discards"]  # every land tile but the start is placed or discarded


def test_against_plays_the_same_games_under_both_rules():
    """big_cities changes only a number (BASE-CITY-2): same seeds, same moves, more city points."""
    doc = _json(["-n", "40", "-r", str(VARIANTS / "big_cities.tess"), "--against", "base"])
    ours, ref = doc["rules"], doc["against"]
    assert ours["mean_turns"] == ref["mean_turns"]
    assert ours["mean_points_by_feature"]["road"] == ref["mean_points_by_feature"]["road"]
    assert ours["mean_points_by_feature"]["city"] > ref["mean_points_by_feature"]["city"]


def test_comparison_table_names_both_rule_sets():
    r = runner.invoke(app, ["simulate", "-n", "10", "-r", str(VARIANTS / "rich_farms.tess"), "--against", "base"])
    assert r.exit_code == 0, r.output
    assert "rich_farms" in r.output and "points from field" in r.output


def test_too_many_players_is_a_usage_error():
    r = runner.invoke(app, ["simulate", "-n", "1", "-p", "6"])
    assert r.exit_code == 2
