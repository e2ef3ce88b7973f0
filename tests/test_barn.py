"""The Barn (rulebook 002; BARN-PLACE-1, BARN-SCORE-1, BARN-FOLLOW-1, BARN-SCORE-2, BARN-END-1).

The language (`figure ... at corner`, `allow`/`forbid`, `score KIND put|join FIGURE`,
`by` for a corner figure, `count(FIGURE)`), `rules/barn.tess`, the z3 invariants over
the Barn's steps, and the topology check of corners.  The game records are in
tests/test_barn_records.py.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from tessera.dsl.loader import load_rule_set, require_rule_set
from tessera.verifier.checks import load_checks, run_check
from tessera.verifier.invariants import check_invariants, summarize

ROOT = Path(__file__).resolve().parent.parent


def _load(tmp_path: Path, text: str, name: str = "house"):
    p = tmp_path / f"{name}.tess"
    p.write_text(text, encoding="utf-8")
    return load_rule_set([str(p)])


# == the rule file ==============================================================================
def test_barn_tess_cites_every_barn_clause_and_holds_the_numbers():
    """Every BARN clause is cited by a statement that expresses it; the numbers are in the rule file."""
    rs = require_rule_set(["barn"])
    barn = rs.figures["barn"]
    assert barn.at == "corner" and barn.on == ("field",) and barn.count == 1
    assert [c.clause for c in barn.cites] == ["BARN-PLACE-1"] * 3
    put = rs.trigger_scores[("field", "put", "barn")]
    join = rs.trigger_scores[("field", "join", "barn")]
    end = rs.figure_scores[("field", "end", "barn")]
    (forbid,) = rs.permits
    assert (forbid.mode, forbid.figure, forbid.on) == ("forbid", "follower", ("field",))
    cited = {c.clause for d in (barn, put, join, end, forbid) for c in d.cites}
    assert cited == {"BARN-PLACE-1", "BARN-SCORE-1", "BARN-FOLLOW-1", "BARN-SCORE-2", "BARN-END-1"}
    from tessera.dsl.fmt import format_expr
    assert format_expr(put.value) == "3 * completed_cities"   # BARN-SCORE-1: 3 per completed city
    assert format_expr(join.value) == "completed_cities"      # BARN-SCORE-2: 1 per completed city
    assert format_expr(end.value) == "4 * completed_cities"   # BARN-END-1: 4 per completed city


def test_no_barn_number_in_python():
    """The engine and verifier know corners and scoring moments, never the Barn's numbers or clauses."""
    for folder in ("compiler", "verifier", "dsl"):
        for py in (ROOT / folder).rglob("*.py"):
            if py.name == "clauses.py":  # the table of clause IDs and their text
                continue
            text = py.read_text(encoding="utf-8")
            assert "BARN-" not in text, py
            assert "completed_cities * 3" not in text and "4 * completed_cities" not in text, py


# == diagnostics of the new statements ===========================================================
BAD = """module bad
requires barn
forbid farmer on field when count(barn) > 0 [BARN-FOLLOW-1]
forbid follower on river when true
allow barn on city when count(barnn) == 0
score field put abbot = 1
figure tower 1 per player at corner on city
forbid abbot on city
score field join barn = tiles
"""


def test_mistakes_in_the_new_statements_are_diagnostics(tmp_path):
    rs, diags, _ = _load(tmp_path, BAD, "bad")
    assert rs is None
    got = {(d.span.line, d.code) for d in diags}
    # `abbot`, no figure of these rules, is named on lines 6 and 8: one error, at the first (issue 25)
    assert got == {(3, "unknown-name"), (4, "unknown-name"), (5, "bad-place"), (5, "unknown-name"),
                   (6, "unknown-name"), (7, "bad-place"), (9, "duplicate")}, \
        [d.header() for d in diags]
    text = "\n".join(d.message for d in diags)
    assert "(`abbot` is unknown on line 8 too)" in text
    assert "no figure `farmer`" in text
    assert "`count` takes a figure, and `barnn` is not one; did you mean `barn`?" in text
    assert "a corner lies between two half-sides" in text
    assert "score field join barn is already defined" in text


def test_a_house_rule_switches_the_forbid_off_by_its_citation(tmp_path):
    """`allow`/`forbid` are identified by figure and citations: a house rule can replace BARN-FOLLOW-1."""
    rs, diags, _ = _load(tmp_path, "module h extends barn\n"
                                   "override forbid follower on field when false [BARN-FOLLOW-1]\n")
    assert rs is not None, [d.header() for d in diags]
    (forbid,) = rs.permits
    assert forbid.span.file.endswith("house.tess")
    rs, diags, _ = _load(tmp_path, "module h extends barn\noverride forbid follower on field when false [BARN-END-1]\n")
    assert rs is None and [d.code for d in diags] == ["override-missing"]


# == z3 ===============================================================================================
def _by_id(checks):
    out: dict[str, list] = {}
    for c in checks:
        out.setdefault(c.invariant.id, []).append(c)
    return out


@pytest.mark.parametrize("spec", [["base", "barn"], ["base", "river", "abbot", "king_robber", "barn"]],
                         ids=["base+barn", "all"])
@pytest.mark.slow
def test_barn_rule_sets_prove_every_invariant(spec):
    """Barns conserved and never returned, scores never decrease nor go below 0, ties, over put/join/end."""
    checks = check_invariants(require_rule_set(spec))
    n = summarize(checks)
    assert n["refuted"] == 0 and n["inconclusive"] == 0, n
    inv = _by_id(checks)
    for iid in ("conserved-barn", "stays-barn", "supply-nonnegative", "score-nonnegative",
                "score-never-decreases", "tie-rule", "returned-when-scored"):
        assert all(c.result.proved for c in inv[iid]), iid
    rules = {c.rule for c in inv["score-never-decreases"]}
    assert {"score field put barn", "score field join barn", "score field end", "place a barn"} <= rules
    # the put and join scorings are checked for ties and for sending the farmers home
    assert {"score field put barn", "score field join barn"} <= {c.rule for c in inv["tie-rule"]}
    assert {"score field put barn", "score field join barn"} <= {c.rule for c in inv["returned-when-scored"]}


@pytest.mark.slow
def test_a_barn_that_scores_negative_is_refuted_with_a_counterexample():
    """rules/variants/barn_debt.tess: a barn on a field with no completed city scores 4 * 0 - 2 = -2."""
    rs = require_rule_set([str(ROOT / "rules" / "variants" / "barn_debt.tess")])
    bad = {(c.invariant.id, c.rule): c for c in check_invariants(rs) if not c.result.proved}
    assert set(bad) == {("score-nonnegative", "score field end"), ("score-never-decreases", "score field end")}
    c = bad[("score-never-decreases", "score field end")]
    assert c.result.refuted and c.where.endswith("barn_debt.tess:10")
    m = c.result.model
    assert m["completed_cities"] == 0 and m["points"] == -2
    assert any(m.get(f"score'[{p}]", 0) - m.get(f"score[{p}]", 0) == -2 for p in range(6))


@pytest.mark.slow
def test_a_barn_sent_home_is_refuted(tmp_path):
    """A house rule that returns barns when their field scores breaks `stays-barn` (BARN-PLACE-1)."""
    rs, diags, _ = _load(tmp_path, "module h extends barn\nreturn barn when scored [BARN-SCORE-1]\n")
    assert rs is not None, diags
    bad = {(c.invariant.id, c.rule) for c in check_invariants(rs) if not c.result.proved}
    assert bad == {("stays-barn", "score field put barn"), ("stays-barn", "score field join barn")}


@pytest.mark.slow
def test_farmers_kept_after_a_put_are_refuted(tmp_path):
    """Without `return follower when scored`, farmers would stay on the barn's field (BARN-SCORE-1)."""
    rs, diags, _ = _load(tmp_path, "module h extends barn\nfigure serf 2 per player on field when figures == 0 [BASE-FOLLOW-1]\n")
    assert rs is not None, diags
    bad = {(c.invariant.id, c.rule) for c in check_invariants(rs) if not c.result.proved}
    assert ("returned-when-scored", "score field put barn") in bad
    assert ("returned-when-scored", "score field join barn") in bad


# == topology ==========================================================================================
def test_tile_corners_passes_on_the_barn_and_names_its_clause():
    res = run_check(load_checks()["tile-corners"], require_rule_set(["base", "barn"]))
    assert res.passed and not res.diagnostics and res.clauses == ("BARN-PLACE-1",)
    assert run_check(load_checks()["tile-corners"], require_rule_set(["base"])).skipped


def test_tile_corners_catches_a_corner_figure_that_can_never_stand(tmp_path):
    rs, diags, _ = _load(tmp_path, """module h requires barn
feature meadow halves
figure scarecrow 1 per player at corner on meadow [BARN-PLACE-1]
""")
    assert rs is not None, diags
    res = run_check(load_checks()["tile-corners"], rs)
    assert not res.passed
    (d,) = res.diagnostics
    assert d.span.line == 3 and "no tile has meadow on both half-sides of a corner" in d.message


def test_two_fields_at_one_corner_are_no_barn_corner():
    """King & Robber's GD has fields Es and Se, separate (tiles.md), meeting at its SE corner:
    the four tiles would not meet in one field there, so the engine never offers that corner."""
    from tessera.replay.tiles import engine_for

    eng = engine_for(["base", "king_robber", "barn"], [])
    gd = eng.rules.TILE_IDS["GD"][0]
    # its other corners have city on a half-side, so GD offers no barn corner at all, at any rotation
    assert all(o.corners == {} for o in eng.rules.ORIENT[gd])
    b = eng.rules.TILE_IDS["B"][0]  # field all round: every corner, at every rotation
    assert all(sorted(o.corners) == ["NE", "NW", "SE", "SW"] for o in eng.rules.ORIENT[b])


@pytest.mark.parametrize("combo", ["base+barn", "base+river+abbot+king_robber+barn"])
def test_every_tile_and_set_check_passes_on_the_barn_combinations(combo):
    """`tessera verify` runs `rules/barn.tess` as base+barn (rules/); the 5-module set is named."""
    from tessera.verifier.checks import run_checks

    rs = require_rule_set(combo.split("+"))
    for r in run_checks(rs, [n for n in load_checks() if n.startswith(("tile-", "set-"))]):
        assert r.passed and not r.diagnostics, (r.name, [d.header() for d in r.diagnostics])
