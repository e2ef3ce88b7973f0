"""Measures that hold (issue 40): state-only rules counted in rule usage, an override counted once, intervals
within their bounds, the plot showing what the table shows, no discards for the card game."""
from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from tessera.cli import app
from tessera.play import stats, usage
from tessera.compiler.build import load_engine
from tessera.play.simulate import Summary, compare, simulate
from tessera.dsl.loader import load_rule_set

runner = CliRunner()
RULES = Path(__file__).resolve().parent.parent / "rules"


def _row(i, decided, moves, lead_changes, scores=(10, 8)):
    return {"game": i, "seed": i, "scores": list(scores), "points": {}, "sources": {}, "turns": 71, "discards": 0,
            "captures": 0, "ransoms": 0, "fired": {}, "decided_at": decided, "moves": moves,
            "lead_changes": lead_changes}


def test_intervals_of_shares_and_counts_stay_within_their_bounds_at_three_games():
    """The issue's case: at n=3 a t interval of `decided_at` (a share in [0, 1]) and of lead changes (a count)
    leaves their bounds; the bootstrap interval stays within the values seen."""
    rows = [_row(0, 1, 100, 0), _row(1, 95, 100, 4), _row(2, 2, 100, 0)]
    s = Summary(["base"], 2, 0, ["random", "random"], rows)
    shares = [x for x in s.decided() if x is not None]
    t = stats.mean_ci(shares)
    assert t["low"] < 0 or t["high"] > 1  # the t interval the issue saw leave [0, 1]
    b = s.balance()
    assert 0 <= b["decided_at"]["low"] <= b["decided_at"]["mean"] <= b["decided_at"]["high"] <= 1
    assert stats.mean_ci([0, 4, 0])["low"] < 0
    assert 0 <= b["lead_changes"]["low"] <= b["lead_changes"]["high"] <= 4
    again = Summary(["base"], 2, 0, ["random", "random"], rows).balance()
    assert again["decided_at"] == b["decided_at"]  # a fixed generator: the same games, the same interval
    assert stats.bootstrap_mean_ci([1, 1, 1]) == {"mean": 1.0, "low": 1.0, "high": 1.0, "n": 3}


def test_usage_counts_of_a_rule_fired_rarely_stay_at_zero_or_above():
    cat = usage.Catalogue([])
    rows = [{"fired": {"discard||BASE-PLACE-3": 1}}] + [{"fired": {}}] * 99
    (u,) = usage.usage(cat, rows)
    assert u["per_game"]["low"] >= 0 and u["games"]["low"] >= 0


@pytest.mark.slow
def test_a_rule_that_only_changes_state_is_counted_and_warned_about():
    """RIVER-PLACE-2's `on place of river { set river_turn = ... }` and KING-1's `on complete of city { set king
    = current ... }` change only state: each fires a `state` event and is counted; a state-only rule that never
    applies is warned about."""
    rs, _, _ = load_rule_set(["base", "river", "king_robber"])
    s = simulate(load_engine(rs), 3, 2, 1, ["base", "river", "king_robber"], rule_set=rs)
    got = {(u["clause"], u["what"].split(":")[0]): u for u in s.rule_usage()}
    assert got[("RIVER-PLACE-2", "on place of river")]["total"] > 0
    assert got[("KING-1", "on complete of city")]["total"] > 0


@pytest.mark.slow
def test_a_state_rule_that_never_applies_gets_its_warning(tmp_path):
    p = tmp_path / "never.tess"
    p.write_text("module never\nextends base\nclause HOUSE-NEVER-1 \"A city of 500 tiles crowns a king\"\n"
                 "state giant = 0 [HOUSE-NEVER-1]\n"
                 "on complete of city where tiles > 500 [HOUSE-NEVER-1] {\n  set giant = 1\n}\n")
    rs, diags, _ = load_rule_set(["base", str(p)])
    assert rs is not None, diags
    s = simulate(load_engine(rs), 2, 2, 0, ["base", str(p)], rule_set=rs)
    warns = s.never_fired()
    assert any(w.startswith(f"{p.name}:5: HOUSE-NEVER-1 never fired in 2 games: it never came into play "
                            f"(on complete of city: set giant)") for w in warns), warns


@pytest.mark.slow
def test_an_override_and_the_rule_it_replaces_are_one_row():
    """big_cities overrides BASE-CITY-2: the comparison has one `fires` row for it, at the house rule's line."""
    big, _, _ = load_rule_set([str(RULES / "variants" / "big_cities.tess")])
    base, _, _ = load_rule_set(["base"])
    a = simulate(load_engine(big), 4, 2, 3, ["big_cities"], rule_set=big)
    b = simulate(load_engine(base), 4, 2, 3, ["base"], rule_set=base)
    rows = [r["measure"] for r in compare(a, b) if r["measure"].startswith("fires: BASE-CITY-2")]
    assert rows == ["fires: BASE-CITY-2 (rules/variants/big_cities.tess:5)"], rows


@pytest.mark.slow
def test_the_card_game_has_no_discards_and_counts_its_deal():
    rs, _, _ = load_rule_set(["card"])
    s = simulate(load_engine(rs), 2, 3, 0, ["card"], rule_set=rs)
    assert not s.discards_apply
    assert not any(r["measure"] == "discards" for r in compare(s, s))
    deal = next(u for u in s.rule_usage() if u["clause"] == "CARD-DEAL-1")
    assert deal["total"] >= 2 and deal["games"]["rate"] == 1.0
    r = runner.invoke(app, ["simulate", "-r", "card", "-n", "2", "-p", "3", "-j", "1"])
    assert r.exit_code == 0 and "game length" in r.output and "discards" not in r.output


@pytest.mark.slow
def test_the_plot_shows_what_the_table_shows(tmp_path):
    """Points with intervals; seat advantage, lead changes and game length with intervals; rule usage with a
    never-fired rule in red; the fair-share line across seat 1's wins only."""
    from tessera.pictures.plot import plot_figure

    rs, _, _ = load_rule_set(["base"])
    s = simulate(load_engine(rs), 6, 2, 4, ["base"], rule_set=rs)
    fig = plot_figure(s)
    gids = {a.get_gid() for ax in fig.axes for a in [*ax.patches, *ax.lines, *ax.texts, *ax.collections]}
    assert "points-interval-base" in gids
    assert {"measure-base-seat-advantage", "measure-base-lead-changes", "measure-base-turns"} <= gids
    assert any(g and g.startswith("usage-interval-base-BASE-ROAD-2") for g in gids)
    never = [t for ax in fig.axes for t in ax.texts if t.get_text() == "never fired"]
    assert len(never) == len(s.never_fired()) > 0 and all(t.get_color() == "#c62828" for t in never)
    fair = next(ln for ax in fig.axes for ln in ax.lines if ln.get_gid() == "fair-share")
    assert list(fair.get_xdata()) == [0.5, 0.5] and list(fair.get_ydata()) == [-0.45, 0.45]
