"""The river theorem (RIVER-PLACE-2) with z3, and the two weakened variants.

RIVER-PLACE-2: "the river may not turn twice in the same direction, because
the river must not flow back".  RIVER-PLACE-1: each river tile continues the
open end.  RIVER-COMP-1 / RIVER-SETUP-1: the deck and the source.
"""
from __future__ import annotations

from pathlib import Path

from dsl.loader import require_rule_set
from verifier.checks import load_checks, run_check
from verifier.river import check_river, river_deck

ROOT = Path(__file__).resolve().parent.parent
VARIANTS = ROOT / "rules" / "variants"


def rules(*specs: str):
    return require_rule_set(list(specs))


def test_deck_is_read_from_the_rule_set():
    """RIVER-COMP-1: 10 tiles between the source and the lake: 6 straights (the bridge among them) and 4 curves."""
    d = river_deck(rules("river"))
    assert d is not None
    assert (d.source, d.lake, d.heading) == ("river.source", "river.lake", "E")
    assert sorted(d.curves) == ["river.city_curve", "river.curve", "river.curve", "river.road_curve"]
    assert len(d.straights) == 6 and "river.bridge" in d.straights
    assert [r.cites[0].clause for r in d.rules] == ["RIVER-PLACE-2"]


def test_the_bundled_rule_proves_the_theorem():
    """RIVER-PLACE-2: never flows back, never runs into itself, and never blocks a drawn tile."""
    rep = check_river(rules("base", "river"))
    assert rep.ok, "\n".join(rep.lines())
    assert set(rep.results) == {"never flows back", "never runs into itself", "never blocked"}
    assert not rep.counterexamples


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


def test_registry_check_fails_for_a_variant_and_passes_for_the_rules():
    check = load_checks()["river"]
    assert run_check(check, rules("base", "river")).passed
    res = run_check(check, rules(str(VARIANTS / "river_no_uturn.tess")))
    assert not res.passed
    assert "REFUTED" in res.diagnostics[0].message and "map (S source" in res.diagnostics[0].message
