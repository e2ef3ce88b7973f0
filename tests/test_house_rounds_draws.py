"""Issue 26 item 4: the two house rules designers could not write, and the constructs they use.

- `on round end { release FIGURE, ... }` (docs/language.md 2.28): "every prisoner goes back to
  its owner at the end of the round" -- rules/variants/prisoners_freed_each_round.tess, its clause
  HOUSE-FREED-1; a released prisoner returns to its owner's supply as a ransomed one does
  (TOWER-RANSOM-1), taken by a capture (TOWER-CAPTURE-1).
- `on draw of KIND, ... { put catapult on symbols }` (2.27): "only a drawn tile that shows a city
  brings catapults" -- rules/variants/city_tiles_bring_catapults.tess, overriding the Siege's
  SIEGE-ADVANCE-1 rule.

Geometry of the records (tests/records/house/prisoners_freed/): the base start tile D at [0,0];
red puts a follower on the cloister B at [0,1]; blue lays tower.B at [1,1], builds a floor and
captures red's follower (range 1 at height 1); green (if seated) lays B at [-1,1].
"""
from __future__ import annotations

import random

import pytest

from conftest import RECORDS, engine, replay_record, rule_set
from tessera.replay.tiles import load_record, replay
from tessera.replay.turns import draw  # chance's move: deal the tile a test names

PF = "rules/variants/prisoners_freed_each_round.tess"
CT = "rules/variants/city_tiles_bring_catapults.tess"


def _releases(ans):
    return [e for e in ans["events"] if e["kind"] == "release"]


# -- the end of a round and `release` (HOUSE-FREED-1 over TOWER-CAPTURE-1 / TOWER-RANSOM-1) ----------
def test_HOUSE_FREED_1_prisoner_held_until_the_round_ends():
    # 3 players: after blue's capture (turn 1) green has not played, so the round goes on
    res = replay_record("house/prisoners_freed/held_until_the_round_ends.json")
    assert res.error is None, res.error
    ans = res.answer
    assert ans["prisoners"] == {"blue": {"red": {"follower": 1}}}
    assert ans["supply"]["red"]["follower"] == 6
    assert _releases(ans) == []


def test_HOUSE_FREED_1_prisoner_home_at_the_round_end():
    # green's turn (turn 2) ends the round: red's follower goes back to red's supply, free
    res = replay_record("house/prisoners_freed/home_at_the_round_end.json")
    assert res.error is None, res.error
    ans = res.answer
    assert ans["prisoners"] == {}
    assert ans["supply"]["red"]["follower"] == 7  # all 7 again: none on the board, none held
    assert ans["scores"] == {"red": 0, "blue": 0, "green": 0}  # nobody paid a ransom
    assert _releases(ans) == [{"turn": 2, "kind": "release", "player": "red", "holder": "blue",
                               "figure": "follower", "clause": "HOUSE-FREED-1"}]


def test_HOUSE_FREED_1_two_players_the_capturer_ends_the_round():
    # 2 players: blue is the last seat, so the round ends with blue's own capturing turn
    res = replay_record("house/prisoners_freed/two_players_home_at_once.json")
    assert res.error is None, res.error
    assert res.answer["prisoners"] == {}
    assert res.answer["supply"]["red"]["follower"] == 7
    assert [e["turn"] for e in _releases(res.answer)] == [1]


def test_HOUSE_FREED_1_the_games_end_closes_a_partial_round():
    # `"end": "final"` after blue's turn: green never played in this round, yet the game's end
    # closes it (language.md 2.28), before final scoring
    res = replay_record("house/prisoners_freed/home_at_a_partial_last_round.json")
    assert res.error is None, res.error
    assert res.answer["prisoners"] == {}
    assert res.answer["supply"]["red"]["follower"] == 7
    # at the game's end the event carries the turn index final scoring carries: the number of turns
    assert [(e["turn"], e["player"], e["holder"]) for e in _releases(res.answer)] == [(2, "red", "blue")]


def test_a_round_end_condition_reads_the_rounds_last_seat(tmp_path):
    # `where current == 1`: the rule acts only when seat 1's turn was the round's last -- at the game's
    # end right after blue's (seat 1) turn, a partial round, though the turn has already passed on;
    # not at the end of a whole 3-player round, which green (seat 2) ends
    text = ("module m\nextends tower\nclause HOUSE-X-1 \"seat 1 ends the round\"\n"
            "on round end where current == 1 [HOUSE-X-1] { release follower }\n")
    (tmp_path / "m.tess").write_text(text, encoding="utf-8")
    data = load_record(RECORDS / "house/prisoners_freed/home_at_a_partial_last_round.json")
    data["rules"] = ["m.tess"]
    res = replay(data, tmp_path)  # 3 players, the game's end after seat 1's turn: seat 1 was the last
    assert res.error is None, res.error
    assert res.answer["prisoners"] == {}
    data = load_record(RECORDS / "house/prisoners_freed/home_at_the_round_end.json")
    data["rules"] = ["m.tess"]
    res = replay(data, tmp_path)  # seat 2 (green) ends the round: the condition does not hold
    assert res.error is None, res.error
    assert res.answer["prisoners"] == {"blue": {"red": {"follower": 1}}}


def test_without_the_house_rule_the_prisoner_stays():
    # the same record under the Tower alone: no round-end rule, the prisoner is still held
    data = load_record(RECORDS / "house/prisoners_freed/home_at_the_round_end.json")
    data["rules"] = ["base", "tower"]
    res = replay(data, RECORDS / "house/prisoners_freed")
    assert res.error is None, res.error
    assert res.answer["prisoners"] == {"blue": {"red": {"follower": 1}}}
    assert _releases(res.answer) == []


@pytest.mark.parametrize("players", [2, 3, 4])
def test_HOUSE_FREED_1_no_prisoner_survives_a_round_end_in_simulated_games(players):
    # seeded games that capture whenever they can: at every round's end nobody holds a prisoner,
    # a round ends once per `players` turns, and the game's end closes a last partial round
    eng = engine(PF)
    released = 0
    for seed in range(3):
        g = eng.new_game(players=players, seed=seed)
        rng = random.Random(seed)
        turns_seen = 0
        while not g.is_terminal():
            acts = g.legal_actions()
            caps = [a for a in acts if a.KIND == "capture"]
            r0, t0, c0 = g.rounds.ended, g.turn, g.current
            g.apply_action(rng.choice(caps) if caps else rng.choice(acts))
            if g.current != c0 or g.ended:
                turns_seen += 1
            if g.rounds.ended != r0:
                assert all(not figs for row in g.prisoners.held for figs in row), (seed, g.turn, g.prisoners.held)
                assert c0 == players - 1 or g.ended, (seed, c0)
        released += sum(1 for e in g.events if e["kind"] == "release")
        assert g.rounds.ended == -(-turns_seen // players), (seed, g.rounds.ended, turns_seen)
    assert released > 0  # the games did capture, and the rule did send prisoners home


def test_HOUSE_FREED_1_is_a_z3_step_and_conservation_is_proved_with_it():
    from tessera.verifier.invariants import SymGame, all_steps, check_invariants

    rs = rule_set(PF)
    steps = [s for s in all_steps(SymGame.make(rs)) if s.rule.startswith("on round end")]
    assert [s.rule for s in steps] == ["on round end [HOUSE-FREED-1]"]
    assert steps[0].clauses == ("HOUSE-FREED-1",)
    # the step moves every held follower back to supply; a floor is never a prisoner
    moved = {str(v) for v in list(steps[0].after.supply.values()) + list(steps[0].after.held.values())}
    assert {"supply'[0].follower", "held'[0].follower"} <= moved, moved  # (no abbot: base + tower)
    assert not any(str(v).startswith("supply'") for (p, f), v in steps[0].after.supply.items() if f == "floor")
    checks = [c for c in check_invariants(rs) if c.rule.startswith("on round end")]
    names = {c.invariant.id for c in checks}
    for name in ("conserved-follower", "supply-nonnegative", "score-nonnegative"):
        assert name in names, (name, names)
    for c in checks:
        assert c.result.proved, (c.invariant.id, c.result.verdict, c.result.model)


def _wrong_release(g):
    """The model's steps with the round's end deliberately wrong: the prisoners leave their holders
    but never reach their owners' supply."""
    from tessera.verifier.invariants import all_steps

    steps = all_steps(g)
    for st in steps:
        if st.rule.startswith("on round end"):
            for key in list(st.after.supply):
                st.after.supply[key] = g.before.supply[key]
    return steps


@pytest.mark.slow
def test_HOUSE_FREED_1_the_conformance_check_holds_releases_to_the_round_step(monkeypatch):
    import tessera.verifier.conformance as C
    from tessera.verifier.engine_check import check_engine

    rs = rule_set(PF)
    monkeypatch.setitem(C._MODELS, (id(rs), 2), C.Model(rs, 2, build_steps=_wrong_release))
    wrong, _ = check_engine(rs, 6, 2, 0, sample=8, conform=True)
    errors = [str(m) for m in wrong if "model error" in str(m)]
    assert errors and "on round end [HOUSE-FREED-1]" in errors[0], wrong
    monkeypatch.setitem(C._MODELS, (id(rs), 2), C.Model(rs, 2))
    right, checked = check_engine(rs, 6, 2, 0, sample=8, conform=True)
    assert right == [], right


# -- `on draw of city` (the Siege's SIEGE-ADVANCE-1 narrowed by a house rule) ---------------------------
def _catapults_by_tile(rules, seeds, players=2):
    """Seeded random games: for each catapult or attack event, whether the tile drawn then shows a city."""
    eng = engine(rules)
    out = []
    for seed in seeds:
        g = eng.new_game(players=players, seed=seed)
        city = next(i for i, k in enumerate(g.R.KINDS) if k.name == "city")
        rng = random.Random(seed)
        while not g.is_terminal():
            n0, tid = len(g.events), g.bag.drawn  # the drawn tile's catapults come when it is first asked about
            g.apply_action(rng.choice(g.legal_actions()))
            for e in g.events[n0:]:
                if e["kind"] in ("catapult", "attack"):
                    out.append(any(f.kind == city for f in g.R.TILES[tid].feats))
    return out


@pytest.mark.slow
def test_SIEGE_ADVANCE_1_house_rule_catapults_arrive_only_on_city_tiles():
    seeds = range(6)
    house = _catapults_by_tile(CT, seeds)
    assert house and all(house), house.count(False)  # some came, every one with a city tile
    siege = _catapults_by_tile("siege", seeds)
    assert not all(siege)  # the rulebook's rule: tiles without a city bring catapults too


def test_SIEGE_ADVANCE_1_house_rule_a_tile_without_a_city_brings_none():
    # siege.corner (fields only, the monks symbol) and siege.E (a city, the knights symbol)
    for rules, tile, want in ((CT, "siege.corner", []), ("siege", "siege.corner", ["monks"]),
                              (CT, "siege.E", ["knights"])):
        g = engine(rules).new_game(players=2, seed=1)
        draw(g, tile)
        n0 = len(g.events)
        g.legal_actions()
        got = [e["outpost"] for e in g.events[n0:] if e["kind"] == "catapult"]
        assert got == want, (rules, tile, got)
        assert [s for s, _ in g.draw_symbols()] == want


def test_SIEGE_ADVANCE_1_house_rule_refuses_a_record_naming_a_catapult_that_never_came():
    res = replay({"format": "tessera-game/1", "rules": ["city_tiles_bring_catapults"], "players": ["red", "blue"],
                  "turns": [{"tile": "siege.corner", "at": [9, 9], "rotation": 0, "catapult": ["monks"]}],
                  "end": "none"}, RECORDS)
    assert res.error is not None
    assert res.error["clause"] == "SIEGE-ADVANCE-1"
    assert "brings no catapults for it" in res.error["message"], res.error


def test_on_draw_of_is_a_z3_step_with_the_tile_sets_answer():
    from tessera.verifier.invariants import SymGame, all_steps

    steps = [s for s in all_steps(SymGame.make(rule_set(CT))) if s.rule.startswith("on draw")]
    assert [s.rule for s in steps] == ["on draw of city"]
    texts = [f.text for f in steps[0].facts if "siege symbols" in f.text]
    assert texts and "that shows city" in texts[0] and "siege.E" in texts[0], texts
    assert "siege.corner" not in texts[0]  # no city: it brings no catapult under the house rule


CHECKS = {
    "release outside a round's end": ("module m\nextends tower\non place { release follower }\n",
                                      "3:12: error: `release` frees prisoners at the end of a round", "unsupported"),
    "release without captures": ("module m\nextends base\non round end { release follower }\n",
                                 "3:16: error: `release` without a `capture` rule: nobody is ever taken prisoner", "unused"),
    "release of a figure no capture takes": ("module m\nextends tower\non round end { release floor }\n",
                                             "3:24: error: `release floor`: no `capture` rule takes a floor",
                                             "unused"),
    "an empty round end": ("module m\nextends tower\non round end { }\n",
                           "3:1: error: `on round end { }` does nothing", "unused"),
    "set at a round's end": ("module m\nextends tower\nstate s = 0\non round end { set s = 1 }\n",
                             "4:16: error: `set` has no meaning in `on round end`", "unsupported"),
    "a number as the condition": ("module m\nextends tower\non round end where players { release follower }\n",
                                  "3:20: error: expected a condition here", "type"),
    "unknown kind after on draw of": ("module m\nextends siege\noverride on draw of citty [SIEGE-ADVANCE-1] "
                                      "{ put catapult on symbols }\n",
                                      "3:21: error: unknown feature kind `citty`; did you mean `city`?", "unknown-name"),
}


@pytest.mark.parametrize("name", sorted(CHECKS))
def test_misuse_is_a_diagnostic(name, tmp_path):
    from tessera.dsl.loader import load_rule_set

    text, message, code = CHECKS[name]
    p = tmp_path / "m.tess"
    p.write_text(text, encoding="utf-8")
    rs, diags, _ = load_rule_set([str(p)])
    # as `tessera check` prints it: FILE:LINE:COL: error: MESSAGE  [CODE]
    got = [f"{d.span.line}:{d.span.column}: {d.severity}: {d.message}  [{d.code}]" for d in diags]
    assert any(g.startswith(message) and g.endswith(f"  [{code}]") for g in got), got


def test_simulate_counts_each_release_under_the_round_end_rule():
    from tessera.play.usage import catalogue, count_events

    cat = catalogue(rule_set(PF))
    ev = {"turn": 2, "kind": "release", "player": "red", "holder": "blue", "figure": "follower",
          "clause": "HOUSE-FREED-1"}
    (key, n), = count_events([ev, dict(ev, turn=5)]).items()
    assert n == 2
    rule = cat.rule_of(key)
    assert rule.clause == "HOUSE-FREED-1" and rule.where.endswith("prisoners_freed_each_round.tess:13"), rule
    assert rule.what == "on round end: release follower, abbot (a prisoner home)"


@pytest.mark.slow
@pytest.mark.parametrize("rules", [PF, CT])
def test_the_greedy_players_move_classes_hold_under_the_house_rules(rules):
    """runtime/classes.py's `score_classes` (what the greedy player need not try): None only for a move
    that changes no score and nothing that stands (a round's end sends prisoners home, so a pass that
    ends the round is not quiet while prisoners are held; a drawn tile without a city brings no
    catapult under `on draw of city`); moves with one key change the scores alike."""
    from test_lookahead import _positions, classes_hold

    for g, acts in _positions([rules]):
        classes_hold(g, acts, rules)


def test_a_clone_keeps_rounds_of_its_own():
    # Game.rounds is a component (runtime/rounds.py) with its own clone: a round that ends in a clone
    # (HOUSE-FREED-1's round end, as the turn passes from the last seat) leaves the original's rounds as they were
    eng = engine(PF)
    g = eng.new_game(players=2, seed=1)
    c = g.clone()
    assert c.rounds is not g.rounds and c.rounds.rules is g.rounds.rules
    while c.rounds.ended == 0:
        c.apply_action(c.legal_actions()[0])
    assert c.rounds.ended == 1 and (g.rounds.ended, g.rounds.open) == (0, False)
