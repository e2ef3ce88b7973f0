"""The river theorem (RIVER-PLACE-2) with z3, and the two weakened variants.

RIVER-PLACE-2: "the river may not turn twice in the same direction, because
the river must not flow back".  RIVER-PLACE-1: each river tile continues the
open end.  RIVER-COMP-1 / RIVER-SETUP-1: the deck and the source.
"""
from __future__ import annotations

import pytest

from pathlib import Path

from tessera.dsl import ast as A
from conftest import rule_set
from tessera.verifier.checks import load_checks, run_check
from tessera.verifier.river import check_river, river_deck

ROOT = Path(__file__).resolve().parent.parent
VARIANTS = ROOT / "rules" / "variants"


def rules(*specs: str):
    return rule_set(*specs)  # loaded once per session (tests/conftest.py)


def test_deck_is_read_from_the_rule_set():
    """RIVER-COMP-1: 10 tiles between the source and the lake: 6 straights (the bridge among them) and 4 curves."""
    d = river_deck(rules("river"))
    assert d is not None
    assert (d.source, d.lake, d.heading) == ("river.source", "river.lake", "E")
    assert sorted(d.curves) == ["river.city_curve", "river.curve", "river.curve", "river.road_curve"]
    assert len(d.straights) == 6 and "river.bridge" in d.straights
    assert [r.cites[0].clause for r in d.rules] == ["RIVER-PLACE-2"]


@pytest.mark.slow
def test_the_bundled_rule_proves_the_theorem():
    """RIVER-PLACE-2: never flows back, never runs into itself, and never blocks a drawn tile."""
    rep = check_river(rules("base", "river"))
    assert rep.ok, "\n".join(rep.lines())
    assert set(rep.results) == {"never flows back", "never runs into itself", "never blocked"}
    assert not rep.counterexamples


@pytest.mark.slow
def test_dropping_the_rule_lets_the_river_flow_back_and_collide():
    """RIVER-PLACE-2 dropped: two right curves flow back; three curves the same way hit the source."""
    rep = check_river(rules(str(VARIANTS / "river_no_turn_rule.tess")))
    assert rep.results["never flows back"].refuted and rep.results["never runs into itself"].refuted
    back = rep.counterexamples["never flows back"]
    assert back.step == 2  # the shortest: two curves the same way
    turns = [p.turn for p in back.placed[1:]]
    assert turns in ([1, 1], [-1, -1])
    assert back.placed[-1].heading == "W"
    hit = rep.counterexamples["never runs into itself"]
    assert hit.step == 4 and hit.cell == (0, 0)  # three curves the same way, then the source's cell
    text = "\n".join(rep.lines())
    assert "map (S source" in text and "X" in text and "!" in text
    assert "taken by tile 0 (river.source)" in text


@pytest.mark.slow
def test_forbidding_only_an_immediate_u_turn_is_not_enough():
    """RIVER-PLACE-2 read as "no two same-way curves in a row": a straight in between lets it flow back."""
    rep = check_river(rules(str(VARIANTS / "river_no_uturn.tess")))
    back = rep.counterexamples["never flows back"]
    turns = [p.turn for p in back.placed[1:]]
    assert back.step == 3 and turns[1] == 0 and turns[0] == turns[2] != 0  # curve, straight, same curve
    hit = rep.counterexamples["never runs into itself"]
    curves = [p.turn for p in hit.placed[1:hit.step] if p.turn]
    assert len(curves) == 3 and len(set(curves)) == 1  # the fewest: three curves the same way, never two in a row
    assert all(a == 0 or b == 0 for a, b in zip([p.turn for p in hit.placed[1:hit.step]],
                                                 [p.turn for p in hit.placed[2:hit.step]]))
    assert rep.results["never blocked"].proved


def test_the_literal_reading_blocks_draws(tmp_path):
    """RIVER-PLACE-2 read literally (one left and one right turn in all): a third curve cannot be laid."""
    p = tmp_path / "literal.tess"
    p.write_text("""module literal "at most one curve each way"
requires river
state lefts = 0    [RIVER-PLACE-2]
state rights = 0   [RIVER-PLACE-2]
override on place of river where turn(river) != 0 [RIVER-PLACE-2] {
  require (turn(river) == -1 and lefts == 0) or (turn(river) == 1 and rights == 0) "one curve each way"
  set lefts = lefts + (if turn(river) == -1 then 1 else 0)
  set rights = rights + (if turn(river) == 1 then 1 else 0)
}
""", encoding="utf-8")
    rep = check_river(rules(str(p)))
    assert rep.results["never flows back"].proved and rep.results["never runs into itself"].proved
    assert rep.results["never blocked"].refuted
    assert rep.blocked and "cannot be laid" in rep.blocked[0]


@pytest.mark.slow
def test_registry_check_fails_for_a_variant_and_passes_for_the_rules():
    check = load_checks()["river"]
    assert run_check(check, rules("base", "river")).passed
    res = run_check(check, rules(str(VARIANTS / "river_no_uturn.tess")))
    assert not res.passed
    assert "REFUTED" in res.diagnostics[0].message and "map (S source" in res.diagnostics[0].message


# -- the river leaving a start landscape (SIEGE-SETUP-1) -----------------------------------
# rules/siege.tess's reading: the two fortress tiles (3 x 2 cells each) at [0, 0] and [3, 0],
# the river along their south row from W1 to E2 of each, the source at the west end [-1, 1].
# So the river leaves the landscape at the second tile's E2, cell [5, 1], flowing east.
SIEGE = ("base", "river", "siege")
FORTRESS = {(x, y) for x in range(6) for y in range(2)}


def test_the_river_leaves_the_siege_landscape_at_the_fortress_east_end():
    """SIEGE-SETUP-1 with the River: the river continues from the fortress's open east end; the
    deck is the River's 10 tiles and the Siege river tile (SIEGE-COMP-1: a straight, W E), the
    lake last; the rules are RIVER-PLACE-2's and the Siege's first curve."""
    d = river_deck(rules(*SIEGE))
    assert d is not None and d.landscape
    assert (d.source, d.source_cell) == ("river.source", (-1, 1))
    assert (d.origin, d.origin_tile, d.heading) == ((5, 1), "siege.fortress", "E")
    assert sorted(d.curves) == ["river.city_curve", "river.curve", "river.curve", "river.road_curve"]
    assert len(d.straights) == 7 and "siege.river" in d.straights and d.lake == "river.lake"
    assert {r.cites[0].clause for r in d.rules} == {"RIVER-PLACE-2", "SIEGE-SETUP-1"}
    assert set(d.start) == FORTRESS | {(-1, 1)}


@pytest.mark.slow
def test_siege_with_the_river_proves_the_theorem_and_is_checked():
    """RIVER-PLACE-2 from the Siege's landscape: the river never flows back, never runs into itself
    or the fortress, and a drawn tile is never blocked (the first curve must turn right,
    SIEGE-SETUP-1, and a right curve is always one way to lay it). `river` and `set-river` run."""
    rs = rules(*SIEGE)
    rep = check_river(rs)
    assert rep.ok, "\n".join(rep.lines())
    assert set(rep.results) == {"never flows back", "never runs into itself", "never blocked"}
    assert "leaving the start landscape at [5, 1] (siege.fortress) flowing E" in rep.lines()[0]
    checks = load_checks()
    for name in ("river", "set-river"):
        res = run_check(checks[name], rs)
        assert not res.skipped and res.passed, (name, [d.message for d in res.diagnostics])


@pytest.mark.slow
def test_forbidding_only_an_immediate_u_turn_fails_from_the_landscape_too():
    """RIVER-PLACE-2 read as "no two same-way curves in a row" (rules/variants/river_no_uturn.tess)
    with the Siege: right, straight, right flows back (the first curve may not turn left,
    SIEGE-SETUP-1); the shortest collision takes three curves one way, each after a straight, and
    its 7th tile needs a fortress cell that is not where the river left it."""
    rep = check_river(rules(*SIEGE, str(VARIANTS / "river_no_uturn.tess")))
    back = rep.counterexamples["never flows back"]
    assert back.step == 3 and [p.turn for p in back.placed[1:]] == [1, 0, 1]
    assert back.placed[-1].heading == "W" and back.placed[0].cell == (5, 1)
    hit = rep.counterexamples["never runs into itself"]
    turns = [p.turn for p in hit.placed[1:hit.step]]
    assert hit.step == 7 and len([t for t in turns if t]) == 3 and len({t for t in turns if t}) == 1
    assert all(a == 0 or b == 0 for a, b in zip(turns, turns[1:]))  # never two curves in a row
    assert hit.cell in FORTRESS - {(5, 1)}
    text = "\n".join(rep.lines())
    assert f"tile 7 would need cell {hit.cell}, taken by the start landscape (siege.fortress)" in text
    assert "#: the start landscape" in text and rep.results["never blocked"].proved
    res = run_check(load_checks()["river"], rules(*SIEGE, str(VARIANTS / "river_no_uturn.tess")))
    assert not res.passed and "REFUTED" in res.diagnostics[0].message


@pytest.mark.slow
def test_without_any_curve_rule_the_river_runs_into_the_fortress(tmp_path):
    """A house rule dropping RIVER-PLACE-2 and the Siege's first curve (SIEGE-SETUP-1): two left
    curves flow back at once (east, north, west), and the third tile needs the fortress's cell
    north of where the river left it, [5, 0]: the landscape's cells are taken too."""
    p = tmp_path / "free_river.tess"
    p.write_text("""module free_river "Siege with the River, no curve rule"
requires river
requires siege
override on place of river where false [RIVER-PLACE-2] {}
override on place of river where false [SIEGE-SETUP-1] {}
""", encoding="utf-8")
    rep = check_river(rules("base", str(p)))
    assert rep.deck is not None and rep.deck.rules and all(r.where == A.BoolLit(False) for r in rep.deck.rules)
    back = rep.counterexamples["never flows back"]
    assert back.step == 2 and [p.turn for p in back.placed[1:]] == [-1, -1]
    hit = rep.counterexamples["never runs into itself"]
    assert hit.step == 3 and [p.turn for p in hit.placed[1:3]] == [-1, -1] and hit.cell == (5, 0)
    assert "taken by the start landscape (siege.fortress)" in "\n".join(hit.lines())


@pytest.mark.slow
def test_the_first_curve_rule_is_not_what_keeps_the_siege_river_apart(tmp_path):
    """RIVER-PLACE-2 alone, without the Siege's first curve (SIEGE-SETUP-1), still proves the theorem
    from the landscape: a first left curve turns north beside the fortress (x = 6), never onto it,
    and the next curve must turn right (docs/verifier.md says so)."""
    p = tmp_path / "no_first_curve.tess"
    p.write_text("""module no_first_curve "Siege with the River, any first curve"
requires river
requires siege
override on place of river where false [SIEGE-SETUP-1] {}
""", encoding="utf-8")
    rep = check_river(rules("base", str(p)))
    assert [r.cites[0].clause for r in rep.deck.rules if r.where != A.BoolLit(False)] == ["RIVER-PLACE-2"]
    assert rep.ok, "\n".join(rep.lines())
