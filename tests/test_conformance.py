"""The verifier's model checked against the engine (issue 22, "the model checked against the
engine"): during the engine check every transition of every game is held against the z3 steps
of the rules that fired (verifier/conformance.py)."""
from __future__ import annotations

from pathlib import Path

import pytest

import tessera.verifier.conformance as C
import tessera.verifier.engine_check as ec
from tessera.dsl.loader import require_rule_set
from tessera.verifier.checks import load_checks, run_check
from tessera.verifier.engine_check import check_engine
from tessera.verifier.invariants import all_steps, check_invariants

ROOT = Path(__file__).resolve().parent.parent

# issue 22 item 3: a Siege house rule whose `on end` returns the outpost followers twice (SIEGE-END-1)
TWICE = """module siege_twice "House rule: at the end, outpost followers are returned twice"
extends siege
override on end of knights, travellers, monks [SIEGE-END-1] {
  score each 3 * own
  return follower from outpost
  return follower from outpost
  remove catapult from outpost
}
"""


@pytest.mark.slow
def test_returning_outpost_followers_twice_returns_nothing_the_second_time(tmp_path):
    """The model used to return the followers a second time (a figure duplicated: supply-nonnegative
    refuted); the compiled engine returns nothing the second time and keeps supply + board + outposts
    at 9 per seat.  The rulebook sides with the engine (SIEGE-END-1: the followers on the outpost go
    back; once back, none is left there), so the model was fixed: every invariant is proved, and the
    conformance check finds the model and the engine agree on every move of the games."""
    p = tmp_path / "siege_twice.tess"
    p.write_text(TWICE, encoding="utf-8")
    rs = require_rule_set([str(p)])
    checks = check_invariants(rs)
    end = [c for c in checks if c.rule == "on end of knights, travellers, monks"]
    assert end and all(c.result.proved for c in end), [(c.invariant.id, c.result.verdict) for c in end]
    mismatches, _ = check_engine(rs, 6, 2, 0, sample=8, conform=True)
    assert mismatches == []


def _wrong_road(g):
    """The model's steps with one deliberately wrong: a completed road keeps its followers on the board
    (the engine returns them, BASE-SCORE-2)."""
    steps = all_steps(g)
    for st in steps:
        if st.rule == "score road complete":
            for key in list(st.after.board):
                st.after.board[key] = g.before.board[key]
                st.after.supply[key] = g.before.supply[key]
    return steps


@pytest.mark.slow
def test_the_conformance_check_catches_a_deliberately_wrong_step(monkeypatch):
    rs = require_rule_set(["base"])
    monkeypatch.setitem(C._MODELS, (id(rs), 2), C.Model(rs, 2, build_steps=_wrong_road))
    monkeypatch.setattr(ec, "ENGINE_GAMES", 6)
    res = run_check(load_checks()["engine-features"], rs)  # the check `tessera verify` runs by default
    assert not res.passed
    errors = [m for m in res.messages if "model error" in m]
    assert errors, res.messages
    assert "the engine's move is impossible in the verifier's model: rules that fired: " in errors[0]
    assert "score road complete" in errors[0]
    assert "changes: score[" in errors[0]  # the values the engine showed
    # the right model accepts those very games
    monkeypatch.setitem(C._MODELS, (id(rs), 2), C.Model(rs, 2))
    assert run_check(load_checks()["engine-features"], rs).passed


def test_the_right_model_agrees_with_the_engine_on_base():
    rs = require_rule_set(["base"])
    C._MODELS.clear()
    mismatches, checked = check_engine(rs, 6, 2, 0, sample=8, conform=True)
    assert mismatches == [] and checked > 0
    m = C._MODELS[(id(rs), 2)]
    assert len(m.cache) > 10 and all(v is True for v in m.cache.values())  # distinct transitions, each possible


@pytest.mark.slow
@pytest.mark.parametrize("spec", [["base", "tower"], ["base", "siege"], ["base", "barn"]])
def test_the_model_agrees_with_the_engine_on_the_expansions(spec):
    """Captures, ransoms, outposts, attacks, barns: every transition of a few games is one the model's steps make."""
    rs = require_rule_set(spec)
    mismatches, _ = check_engine(rs, 4, 2, 0, sample=8, conform=True)
    assert mismatches == []


@pytest.mark.slow
def test_a_barn_join_that_sends_a_farmer_home_before_the_turns_figure_is_a_step_of_the_model():
    """BARN-SCORE-2 «сразу же»: the join scores (0 points here) and sends p0's farmer home as the tile
    is laid, then the turn's follower goes on a tower's top: supply and board end as they began.  The
    join must still be one of the transition's steps (seed 43 of the default all-modules engine check
    was once called a model error: `place a follower; changes: none`)."""
    rs = require_rule_set(["base", "river", "abbot", "king_robber", "barn", "tower", "siege"])
    mismatches, _ = check_engine(rs, 1, 2, 43, conform=True)
    assert mismatches == []


def test_a_completed_city_with_a_follower_passes_the_king_on():
    """KING-1: a city scored and its follower sent home (BASE-SCORE-2), then `on complete of city where
    tiles > king_city` gives the King to the player who completed it.  The model's completion step once
    bounded the city's followers again by the board after they went home, which made this move (the
    engine's, in every game where a first city takes the King) impossible."""
    rs = require_rule_set(["base", "king_robber"])
    m = C.Model(rs, 2)
    [k] = m.completions("city")
    before = {n: 0 for n in m.names}
    before.update({"supply[0].follower": 7, "supply[1].follower": 6, "board[1].follower": 1, "king": -1})
    after = dict(before)
    after.update({"supply[1].follower": 7, "board[1].follower": 0, "score[1]": 4, "king": 1, "king_city": 2,
                  "completed(city)": 1})
    assert m.possible([([k], False)], before, after, 2, 1) is True
    after_wrong = dict(after, king=0)  # the King to a player who did not complete it: not a move of the rules
    assert m.possible([([k], False)], before, after_wrong, 2, 1) is False
