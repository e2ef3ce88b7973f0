"""REF-SCORE-1: the reference card's Inns & Cathedrals and Traders & Builders scoring,
as `rules/refcard.tess` (printed marks, a state kept per player, `award most`).

Expected numbers come from the card's text (CLAUSES.md REF-SCORE-1): a road with an
inn scores 2 per tile complete and 0 incomplete; a city with a cathedral 3 per tile and
3 per shield complete and 0 incomplete; 10 points per goods type to the player(s) with
the most tokens.  Geometry (conventions.md): x grows east, y grows south; the start is
base tile D at [0,0]: city N, road W-E, field S.  A (cloister, road S) ends a road: at
rotation 90 its road is W, at 270 it is E.  E (city N) caps a city: at 180 the city is S,
at 90 E, at 270 W.  Players red (turns 0, 2, ...) and blue (turns 1, 3, ...).
"""
from __future__ import annotations

import pytest

from tessera.replay.tiles import replay
from tessera.dsl.loader import load_rule_set, require_rule_set


def _play(turns, end="final"):
    rec = {"format": "tessera-game/1", "rules": ["base", "refcard"], "players": ["red", "blue"],
           "turns": turns, "end": end}
    res = replay(rec)
    assert res.error is None, res.error
    return res


def _t(tile, x, y, rot=0, on=None):
    t = {"tile": tile, "at": [x, y], "rotation": rot}
    if on is not None:
        t["place"] = {"figure": "follower", "on": on}
    return t


def _points(res, feature):
    return [e for e in res.answer["events"] if e.get("feature") == feature]


# -- Inns & Cathedrals --------------------------------------------------------------------
def test_a_completed_road_with_an_inn_scores_2_per_tile():
    """REF-SCORE-1: A + D + inn + A, 4 tiles, complete: 2 x 4 = 8 (without the inn 4)."""
    res = _play([_t("refcard.inn", 1, 0, 0, "W"), _t("A", 2, 0, 90), _t("A", -1, 0, 270)], end="none")
    (ev,) = _points(res, "road")
    assert ev["when"] == "complete" and ev["points"] == {"red": 8} and ev["tiles"] == 4
    assert "REF-SCORE-1" in ev["clause"]
    plain = _play([_t("U", 1, 0, 0, "W"), _t("A", 2, 0, 90), _t("A", -1, 0, 270)], end="none")
    assert [e["points"] for e in _points(plain, "road")] == [{"red": 4}]


def test_an_unfinished_road_with_an_inn_scores_0():
    """REF-SCORE-1: D + inn, 2 tiles, open at the end: 0 (a plain road scores 1 per tile: 2)."""
    res = _play([_t("refcard.inn", 1, 0, 0, "W")])
    assert res.answer["scores"] == {"red": 0, "blue": 0}
    assert _points(res, "road") == []  # 0 points: nothing scored, the follower's road scores nothing
    plain = _play([_t("U", 1, 0, 0, "W")])
    assert plain.answer["scores"]["red"] == 2


def test_a_completed_city_with_a_cathedral_scores_3_per_tile():
    """REF-SCORE-1: D + cathedral + 3 E caps = 5 tiles, no shield: 3 x 5 = 15 (plain: 10)."""
    res = _play([_t("refcard.cathedral", 0, -1, 0, "N"), _t("E", 0, -2, 180), _t("E", -1, -1, 90),
                 _t("E", 1, -1, 270)], end="none")
    (ev,) = _points(res, "city")
    assert ev["when"] == "complete" and ev["points"] == {"red": 15} and ev["tiles"] == 5


def test_an_unfinished_city_with_a_cathedral_scores_0():
    """REF-SCORE-1: D + cathedral, open on three sides at the end: 0."""
    res = _play([_t("refcard.cathedral", 0, -1, 0, "N")])
    assert res.answer["scores"] == {"red": 0, "blue": 0}


# -- Traders & Builders -------------------------------------------------------------------
def test_the_most_goods_score_10_and_a_tie_gives_each_10():
    """REF-SCORE-1: red closes a wine city (D + wine), blue closes another (wine + E) without
    owning it: 1 wine each, a tie, each scores 10; nobody has grain or cloth: no award."""
    res = _play([_t("refcard.wine", 0, -1, 180), _t("refcard.wine", 0, 1, 180), _t("U", 1, 0, 0),
                 _t("E", 0, 2, 0)])
    awards = [e for e in res.answer["events"] if e.get("feature") == "wine"]
    assert [e["points"] for e in awards] == [{"red": 10, "blue": 10}]
    assert all(e.get("feature") not in ("grain", "cloth") for e in res.answer["events"])
    assert res.answer["scores"] == {"red": 10, "blue": 10}
    alone = _play([_t("refcard.wine", 0, -1, 180), _t("U", 1, 0, 0)])
    assert alone.answer["scores"] == {"red": 10, "blue": 0}
    g = alone.game
    wine = list(g.R.STATES).index(next(s for s in g.R.STATES if s[0] == "wine"))
    assert g.st[wine] == (1, 0)  # the completer took the token


# -- the verifier -------------------------------------------------------------------------
@pytest.mark.slow
def test_refcard_checks_clean_and_its_examples_and_invariants_hold():
    """The card's numbers are `example`s in the rule file; z3 proves every invariant over the
    per-player states and the `award most` steps."""
    from tessera.verifier.checks import load_checks, run_check

    rs = require_rule_set(["refcard"])
    checks = load_checks()
    for name in ("examples", "invariants"):
        res = run_check(checks[name], rs)
        assert res.passed, (name, [d.message for d in res.diagnostics])
    refs = {str(e.get("ref")) for e in rs.examples if any(c.clause == "REF-SCORE-1" for c in e.cites)}
    # the card's 5, and a road and a city without the mark (issue 35: `marks(inn) > 0` made `>= 0` survived)
    assert len(refs) == 8
    assert {"REF-SCORE-1 road without an inn, complete", "REF-SCORE-1 road without an inn, incomplete",
            "REF-SCORE-1 city without a cathedral, incomplete"} <= refs


def test_a_negative_goods_award_is_refuted(tmp_path):
    """An `award most` that takes points breaks "scores never decrease" (a lean rule set: one
    per-player state, two seats, so z3's counterexample is quick to find)."""
    from tessera.verifier.invariants import check_invariants

    p = tmp_path / "house.tess"
    p.write_text("module house\nrequires base\noverride players 2..2\nstate gold of each player = 0\n"
                 "on complete of city { set gold of current = gold of current + 1 }\n"
                 "award most gold at end = -10\n", encoding="utf-8")
    rs, diags, _ = load_rule_set([str(p)])
    assert rs is not None, [d.message for d in diags]
    refuted = [c for c in check_invariants(rs) if c.result.verdict.name == "REFUTED"]
    assert {(c.invariant.id, c.rule) for c in refuted} == {("score-never-decreases", "award most gold at end"),
                                                           ("score-nonnegative", "award most gold at end")}
    (c,) = [c for c in refuted if c.invariant.id == "score-never-decreases"]
    m = c.result.model
    assert m["points"] == -10 and m["most(gold)"] > 0


def test_per_player_state_mistakes_are_diagnostics(tmp_path):
    p = tmp_path / "house.tess"
    p.write_text("module house\nrequires base\nstate gold of each player = 0\nstate king2 = -1\n"
                 "on complete of city { set gold = 1 }\n"
                 "on complete of road { set king2 of current = 1 }\n"
                 "award gold at end = 1\naward most king2 at end = 1\n"
                 "invariant i: gold >= 0\n", encoding="utf-8")
    _, diags, _ = load_rule_set([str(p)])
    got = {(d.span.line, d.code) for d in diags if d.severity == "error"}
    assert got == {(5, "context"), (6, "context"), (7, "context"), (8, "context"), (9, "context")}
