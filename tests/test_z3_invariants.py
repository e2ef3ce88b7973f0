"""Invariants proved rule by rule with z3 (verifier/invariants.py).

Clauses: BASE-COMP-2 (followers conserved), BASE-FOLLOW-3 (no negative supply),
BASE-SCORE-1 (tied leaders score in full), BASE-SCORE-2 (figures return),
BASE-SCORE-3 (scores never decrease, never below 0), BASE-CITY-2 / BASE-END-2
(formulas monotone), KING-1 / ROBBER-1 / RIVER-PLACE-2 (declared invariants).
"""
from __future__ import annotations

from pathlib import Path

import pytest

from tessera.dsl.diagnostics import SourceCache, render
from conftest import rule_set
from tessera.verifier import solver
from tessera.verifier.checks import load_checks, run_check
from tessera.verifier.invariants import check_invariants, summarize

ROOT = Path(__file__).resolve().parent.parent
BESIEGED = str(ROOT / "rules" / "variants" / "besieged_cities.tess")


def rules(*specs: str):
    return rule_set(*specs)  # loaded once per session (tests/conftest.py)


def variant(tmp_path: Path, text: str, name: str = "house"):
    p = tmp_path / f"{name}.tess"
    p.write_text(text, encoding="utf-8")
    return rules(str(p))


def by_invariant(checks):
    out: dict[str, list] = {}
    for c in checks:
        out.setdefault(c.invariant.id, []).append(c)
    return out


@pytest.mark.slow
def test_bundled_rules_prove_every_invariant():
    """BASE-COMP-2, BASE-FOLLOW-3, BASE-SCORE-1/2/3, KING-1, ROBBER-1, RIVER-PLACE-2: all proved."""
    checks = check_invariants(rules("base", "river", "abbot", "king_robber"))
    n = summarize(checks)
    assert n["refuted"] == 0 and n["inconclusive"] == 0, n
    inv = by_invariant(checks)
    for iid in ("conserved-follower", "conserved-abbot", "supply-nonnegative", "score-nonnegative",
                "score-never-decreases", "tie-rule", "returned-when-scored", "formula-monotone",
                "award-seat-king", "award-seat-robber", "king_held", "king_record", "robber_held",
                "robber_record", "river_turn_range"):
        assert iid in inv and all(c.result.proved for c in inv[iid]), iid
    # rule by rule: every scoring rule is an induction step of the score invariants
    rules_checked = {c.rule for c in inv["score-never-decreases"]}
    assert {"score city complete", "score city end", "score field end", "recall abbot from a garden",
            "award king at end", "place a follower"} <= rules_checked
    # the initial state is the base case of every state invariant
    assert any(c.rule == "initial state" for c in inv["king_held"])


def test_proofs_name_the_rule_lines_they_use():
    """BASE-SCORE-2: the proof that figures return uses `return follower when scored`."""
    checks = check_invariants(rules("base"))
    c = next(c for c in checks if c.invariant.id == "returned-when-scored" and c.rule == "score city complete")
    assert any("return follower when scored" in f.text for f in c.result.minimal_core())


@pytest.mark.slow
def test_besieged_cities_variant_is_caught_with_a_readable_counterexample():
    """BASE-SCORE-3 / BASE-END-2: a house rule that costs points for shields is refuted at its own line."""
    rs = rules(BESIEGED)
    checks = check_invariants(rs)
    bad = {(c.invariant.id, c.rule): c for c in checks if not c.result.proved}
    assert set(bad) == {("score-nonnegative", "score city end"), ("score-never-decreases", "score city end"),
                        ("formula-monotone", "score city end: more shields")}
    c = bad[("score-never-decreases", "score city end")]
    assert c.result.refuted
    m = c.result.model
    assert (m["tiles"], m["shields"], m["points"]) == (1, 1, -1)  # the smallest counterexample
    assert c.where.endswith("besieged_cities.tess:12")
    assert any("tiles - 2 * shields" in f.text for f in c.result.minimal_core())
    # through the registry: an error at the variant's line, with the counterexample and the lines involved
    res = run_check(load_checks()["invariants"], rs)
    assert not res.passed
    text = "\n".join(render(d, SourceCache()) for d in res.diagnostics)
    # refuted, with a game of the compiled engine that breaks it (verifier/witness.py)
    assert "besieged_cities.tess:12:10: error: invariant `score-never-decreases` [BASE-SCORE-3] is refuted" in text
    assert "witness of `score-never-decreases` at score city end: p1's score goes" in text and "replay it: tessera replay " in text
    # every input is shown: the open edges that keep the city incomplete too
    assert "counterexample: players=2" in text and "tiles=1, open=1, shields=1" in text and "score 0 -> -1" in text
    assert "involves rules/base.tess" in text and "owners most" in text


@pytest.mark.slow
def test_figures_left_on_a_completed_feature_are_caught(tmp_path):
    """BASE-SCORE-2: a figure that can stand on a city but is never returned stays on a scored city."""
    rs = variant(tmp_path, """module knights "knights that stay"
requires base
figure knight 2 per player on city when figures == 0   [BASE-FOLLOW-1]
""")
    bad = [c for c in check_invariants(rs) if not c.result.proved]
    assert [(c.invariant.id, c.rule) for c in bad] == [("returned-when-scored", "score city complete")]
    assert bad[0].result.model["on_feature[0].knight"] + bad[0].result.model.get("on_feature[1].knight", 0) >= 1


@pytest.mark.slow
def test_a_broken_declared_invariant_names_the_override(tmp_path):
    """KING-1: a King handed to the next seat may go to a seat that does not exist."""
    rs = variant(tmp_path, """module next_king "the King goes to the next seat"
requires king_robber
override on complete of city where tiles > king_city     [KING-1] {
  set king = current + 1
  set king_city = tiles
}
""", "next_king")
    bad = [c for c in check_invariants(rs) if not c.result.proved]
    assert {c.invariant.id for c in bad} == {"award-seat-king"}
    c = bad[0]
    assert c.rule == "on complete of city [KING-1]" and c.where.endswith("next_king.tess:3")
    assert c.result.model["king'"] == c.result.model["players"]  # the seat after the last one


def test_owners_all_still_gives_tied_leaders_the_same_points(tmp_path):
    """BASE-SCORE-1: with `owners all` every owner scores the feature in full."""
    rs = variant(tmp_path, """module everyone "every player with a figure scores"
requires base
override owners all   [BASE-SCORE-1]
""")
    checks = [c for c in check_invariants(rs) if c.invariant.id == "tie-rule"]
    assert checks and all(c.result.proved for c in checks)


def test_unknown_is_inconclusive_never_a_pass(monkeypatch):
    """z3's `unknown` (here: a resource limit of 1) is reported as inconclusive and fails the check."""
    monkeypatch.setattr(solver, "RLIMIT", 1)
    rs = rules("base")
    checks = check_invariants(rs)
    assert summarize(checks)["inconclusive"] > 0
    assert all(not c.result.proved for c in checks if c.result.verdict is solver.Verdict.INCONCLUSIVE)
    res = run_check(load_checks()["invariants"], rs)
    assert not res.passed
    assert any("inconclusive, not a pass" in d.message for d in res.diagnostics)


@pytest.mark.slow
def test_counterexamples_are_deterministic():
    """Fixed seed: the same rules give the same counterexample every time."""
    a = [c.result.model for c in check_invariants(rules(BESIEGED)) if c.result.refuted]
    b = [c.result.model for c in check_invariants(rules(BESIEGED)) if c.result.refuted]
    assert a == b and a


@pytest.mark.slow
@pytest.mark.parametrize("spec", [["base"], ["base", "abbot"], ["base", "king_robber"], ["base", "river"]])
def test_each_bundled_module_alone(spec):
    assert summarize(check_invariants(rules(*spec)))["proved"] > 0
    assert all(c.result.proved for c in check_invariants(rules(*spec)))
