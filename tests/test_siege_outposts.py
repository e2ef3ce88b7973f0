"""Siege and Defense (rulebook 004): the outposts, catapults, counterattacks and attacks
(rules/siege.tess: SIEGE-OUTPOST-1..4, SIEGE-COUNTER-1, SIEGE-ADVANCE-1, SIEGE-ATTACK-1, SIEGE-END-1).

Expected numbers are worked out from the rulebook text (004, CLAUSES.md SIEGE-*), never copied
from the engine.  The row size is the rule file's stated assumption (4 plain slots, a dark "3"
and a dark "5+").  The tiles with siege symbols in tests/records/siege/fortress/siege_tiles.tess (st.K:
knights, st.M: monks, st.Q: "?", st.TK: travellers then knights) stand in for the expansion's.

Geometry: the records (tests/records/siege/fortress/) lay their tiles beside the Siege's start
landscape (the fortress on cells [0..5, 0..1], field all along its north side): a tile at
[x,-1] meets the fortress's field.
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import SHARED, shared_records

from tessera.replay.records import load_record
from tessera.replay.tiles import engine_for, replay
from tessera.replay.turns import draw  # chance's move: deal the tile a test names
from tessera.dsl.loader import load_rule_set

REPO = Path(__file__).resolve().parent.parent
RECORDS = REPO / "tests" / "records" / "siege"
TILES = str(RECORDS / "fortress" / "siege_tiles.tess")


def _rules(*names):
    rs, diags, _ = load_rule_set(list(names))
    assert rs is not None, [str(d) for d in diags]
    return rs


PLAYED = RECORDS / "fortress"  # the records, laid beside the landscape rules/siege.tess starts with
SHARED_PLAYED = SHARED / "siege"  # those `tessera verify` replays too (the rulebook's): one copy, there


def _played(name: str) -> Path:
    """A Siege record by name: the tests' own (tests/records/siege/fortress/) or a shared one."""
    here, shared = PLAYED / name, SHARED_PLAYED / name
    assert not (here.exists() and shared.exists()), f"{name} is in both {PLAYED} and {SHARED_PLAYED}"
    return here if here.exists() else shared
Y = -1  # the row of cells beside the start, on its field side
CITY_ROT, CITY_SIDE = 0, "N"  # tile E, its city facing away from the start


def test_the_records_geometry_is_the_siege_start():
    """SIEGE-SETUP-1: rules/siege.tess lays the fortress, which the records' geometry assumes."""
    assert any(t.name == "siege.fortress" for t in _rules("base", "siege").tiles)


def _replay(name):
    path = _played(name)
    return replay(load_record(path), path.parent)


# -- the records: the rulebook's examples and the refusals -----------------------------------------
# file -> (scores, outposts {name: (row, pool, catapults)}, follower supply) or (clause, turn)
EMPTY = ([], [], 0)
RECORD_CASES = {
    # EX-SIEGE-COUNTER-1a (004 p. 5): "Синій гравець набирає 2 х 3 = 6 очок. Ви набираєте 4 х 3 = 12
    # очок. Жовтий гравець набирає 1 х 3 = 3 очки."  You fill the 5th (last, 3 players) slot of the
    # monks' row: you 3 in the row + 1 in the pool, blue 1 + 1, yellow 1.  All 7 return; the
    # followers standing on the board stay: you 3 monks + 1 farmer (9 - 4 = 5 in supply), blue a
    # monk and a farmer (7), yellow a monk (8).
    "counterattack_monks.json": ({"you": 12, "blue": 6, "yellow": 3},
                                 {"knights": EMPTY, "travellers": EMPTY, "monks": EMPTY}, {"you": 5, "blue": 7, "yellow": 8}),
    # SIEGE-OUTPOST-4 (004 p. 5): two players, "темна комірка має значення лише у грі втрьох": the
    # 4th knight's follower fills the row of 4; red 2 x 3 = 6, blue 2 x 3 = 6.
    "two_player_dark_slot.json": ({"red": 6, "blue": 6}, {"knights": EMPTY, "travellers": EMPTY, "monks": EMPTY},
                                  {"red": 7, "blue": 7}),
    # EX-SIEGE-ATTACK-1a (004 p. 7): "?" -> monks, whose slot holds a catapult: "Ви і синій гравець
    # набираєте по 1 х 3 = 3 очки кожен. Жовтий гравець ... повинен вилучити 1 зі своїх ченців";
    # then the two scored followers and the catapult go.  Yellow's monk is back in supply (9).
    "attack_question_mark.json": ({"you": 3, "blue": 3, "yellow": 0},
                                  {"knights": EMPTY, "travellers": EMPTY, "monks": EMPTY}, {"you": 8, "blue": 8, "yellow": 9}),
    # EX-SIEGE-ADVANCE-1a (004 p. 6): two symbols, travellers then knights; knights already has a
    # catapult, so it is attacked: red (1 follower there) scores 3; blue, with none, removes its
    # knight; the travellers' catapult stays.
    "two_symbols.json": ({"red": 3, "blue": 0}, {"knights": EMPTY, "travellers": ([], [], 1), "monks": EMPTY},
                         {"red": 8, "blue": 9}),
    # EX-SIEGE-OUTPOST-2b (004 p. 3): the abbot in a garden brings a follower to the monks' row.
    "abbot_in_garden.json": ({"red": 0, "blue": 0}, {"knights": EMPTY, "travellers": EMPTY, "monks": (["red"], [], 0)},
                             {"red": 8, "blue": 9}),
    # EX-SIEGE-OUTPOST-3a (004 p. 4): a farmer, and a follower in the travellers' follower slot.
    "farmer_to_travellers_pool.json": ({"red": 0, "blue": 0},
                                       {"knights": EMPTY, "travellers": ([], ["red"], 0), "monks": EMPTY},
                                       {"red": 7, "blue": 9}),
    # EX-SIEGE-OUTPOST-3b (004 p. 4): "Там уже є підданці, тому ви кладете свого підданця на них":
    # red's farmer (the fortress's field) and blue's (the field north of the roads) each bring a
    # follower to the monks' follower slot, where blue's stands on red's; no row slot is taken.
    "farmers_stack_in_the_monks_pool.json": ({"red": 0, "blue": 0},
                                             {"knights": EMPTY, "travellers": EMPTY, "monks": ([], ["red", "blue"], 0)},
                                             {"red": 7, "blue": 7}),
    # SIEGE-END-1 (004 p. 5): "на всіх 3 аванпостах розігрують 3 фінальні контратаки ... по 3 очки за
    # підданця": red 1 follower on knights (3), blue 1 on monks (3); each is a counterattack, so the
    # catapults the two tiles brought (knights, monks) are removed too (SIEGE-COUNTER-1).  Then the
    # normal final scoring: red's knight, a 1-tile city, 1 (BASE-END-2); blue's monk at [1,-1]:
    # 1 + st.K + 3 fortress cells = 5 (SIEGE-PLACE-1).  The figures on the board stay there.
    "end_counterattacks.json": ({"red": 3 + 1, "blue": 3 + 5},
                                {"knights": EMPTY, "travellers": EMPTY, "monks": EMPTY}, {"red": 8, "blue": 8}),
    # SIEGE-END-1 with the Barn: "При підрахунку очок за селян фортецю вважають завершеним містом".
    # Blue's barn on the corner where [2,-1], [3,-1] and both fortress tiles meet: red's farmer on
    # that field scores at once "as in final scoring" (BARN-SCORE-1): 3 x (0 cities + the fortress)
    # = 3, and goes home; at the end the barn scores 4 x (0 + 1) = 4 (BARN-END-1).
    "barn_put_at_the_fortress.json": ({"red": 3, "blue": 4},
                                      {"knights": EMPTY, "travellers": EMPTY, "monks": EMPTY}, {"red": 9, "blue": 9}),
    # ... and BARN-SCORE-2: the barn on the fields south of the roads of [2,-1] [3,-1], red's farmer
    # on the field north of them; tile A at [4,-1] (its road ends at the cloister) joins the two:
    # red scores 1 x (0 cities + the fortress) = 1 and the farmer goes home.
    "barn_join_at_the_fortress.json": ({"red": 1, "blue": 0},
                                       {"knights": EMPTY, "travellers": EMPTY, "monks": EMPTY}, {"red": 9, "blue": 9}),
    # refusals, each with its clause
    # SIEGE-SETUP-1: «Отриманий початковий ландшафт замінює початкову плитку» -- the start tile D
    # goes back in the box, so base's 4 D leave 3 in the bag; a fourth D is refused citing the
    # Siege's landscape (the most specific clause), not RIVER-SETUP-1 (no River is played).
    "fourth_d_start_tile_boxed.json": ("SIEGE-SETUP-1", 3),
    "catapult_against_symbol.json": ("SIEGE-ADVANCE-1", 0),  # st.M shows monks; the record says knights
    "removal_by_a_defender.json": ("SIEGE-ATTACK-1", 3),  # blue had a follower on the monks outpost
    "overfull_row.json": ("SIEGE-OUTPOST-4", 4),  # a 5th follower for a row of 4 (no counterattack: house rule)
    "knight_to_the_monks_row.json": ("SIEGE-OUTPOST-2", 0),  # a knight's follower goes to the knights' row
}


def test_every_siege_record_has_a_case():
    own = {p.name for p in PLAYED.glob("*.json")}
    assert own <= set(RECORD_CASES) <= own | shared_records("siege")


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(RECORD_CASES))
def test_siege_record(name):
    res = _replay(name)
    case = RECORD_CASES[name]
    if len(case) == 2:
        clause, turn = case
        assert res.error is not None and (res.error["clause"], res.error["turn"]) == (clause, turn), res.error
        return
    assert res.error is None, res.error
    scores, outposts, supply = case
    ans = res.answer
    assert ans["scores"] == scores
    assert {k: (v["row"], v["pool"], v["catapults"]) for k, v in ans["outposts"].items()} == outposts
    assert {p: s["follower"] for p, s in ans["supply"].items()} == supply


def test_the_refusals_say_why():
    assert "goes on the monks outpost, not on the knights outpost" in _replay("catapult_against_symbol.json").error["message"]
    assert "blue has a follower on the monks outpost, so blue removes nothing" in \
        _replay("removal_by_a_defender.json").error["message"]
    assert "the knights row is full (4 slots with 2 players)" in _replay("overfull_row.json").error["message"]


@pytest.mark.slow
def test_the_replay_answer_names_the_outpost_events_and_their_clauses():
    out = subprocess.run([sys.executable, "-m", "tessera", "replay", "--json", str(PLAYED / "two_symbols.json")],
                         cwd=REPO, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    ev = [(e["kind"], e.get("outpost"), e["clause"]) for e in json.loads(out.stdout)["events"]]
    assert ev == [("catapult", "knights", "SIEGE-ADVANCE-1"), ("outpost", "knights", "SIEGE-OUTPOST-2"),
                  ("catapult", "travellers", "SIEGE-ADVANCE-1"), ("attack", "knights", "SIEGE-ATTACK-1"),
                  ("score", "knights", "SIEGE-ATTACK-1"), ("remove", "knights", "SIEGE-ATTACK-1")]


# -- SIEGE-OUTPOST-4: the row's size by the number of players (the stated assumption) --------------
@pytest.mark.parametrize("players,slots", [(2, 4), (3, 5), (4, 4), (5, 5)])
def test_SIEGE_OUTPOST_4_row_size(players, slots):
    # "Якщо ви граєте втрьох, темну комірку з числом «3» також вважають вільною коміркою. Якщо ви
    # граєте вп'ятьох чи з більшою кількістю гравців, то комірку з «5+» вважають вільною коміркою.
    # У грі вдвох і вчотирьох ігноруйте темні комірки."  4 plain slots (the assumption).
    rs = _rules("base", "siege")
    for name in ("knights", "travellers", "monks"):
        assert rs.track_rows(name)[players] == slots
    g = engine_for(["base", "siege"], []).new_game(players=players)
    assert [v["slots"] for v in g.outposts_by_name().values()] == [slots] * 3


def test_SIEGE_OUTPOST_4_three_players_count_the_dark_slot():
    # the two-player record's four knights, with three players: the row has 5 slots, no counterattack
    rec = load_record(_played("two_player_dark_slot.json"))
    rec["players"] = ["red", "blue", "green"]
    res = replay(rec, SHARED_PLAYED)
    assert res.error is None
    assert res.answer["scores"] == {"red": 0, "blue": 0, "green": 0}
    assert res.answer["outposts"]["knights"]["row"] == ["red", "blue", "green", "red"]


def test_SIEGE_COMP_1_two_more_followers_and_three_catapults():
    # "Дайте кожному гравцеві 2 додаткових звичайних підданців"; "3 катапульти": one slot each
    rs = _rules("base", "siege")
    assert rs.figure_counts("follower")[2] == 7 + 2
    assert sum(t.catapult for t in rs.tracks.values()) == 3
    assert {n: t.kinds for n, t in rs.tracks.items()} == {
        "knights": ("city",), "travellers": ("road",), "monks": ("cloister", "garden")}


# -- decisions: "?", removals by players who are not the current one, the extra figure ---------------
def _game(turns, players, rules=("base", TILES)):
    res = replay({"format": "tessera-game/1", "rules": list(rules), "players": list(players), "turns": turns,
                  "end": "none"})
    assert res.error is None, res.error
    g = res.game
    g.turn = len(turns)
    return g


def test_SIEGE_ADVANCE_1_the_question_mark_is_the_current_players_choice():
    g = _game([], ["you", "blue", "yellow"])
    draw(g, "st.Q")
    assert g.current_player() == 0
    assert g.legal_actions() == [("catapult", 0), ("catapult", 1), ("catapult", 2)]  # knights, travellers, monks
    g.apply_action(("catapult", 2))
    assert g.outposts_by_name()["monks"]["catapults"] == 1
    assert all(len(a) == 3 and isinstance(a[0], tuple) for a in g.legal_actions())  # now the tile is placed


def test_SIEGE_ATTACK_1_removals_are_other_players_decisions_clockwise_from_the_active_player():
    # you (seat 0) and yellow (seat 2) have monks on the board, blue (seat 1) none; yellow is the
    # active player of turn 5 and draws a "?" onto the monks' catapult: nobody has a follower on the
    # outpost, so clockwise from yellow: yellow removes, then you; blue cannot and is skipped.
    T = lambda tile, x, fig=None: {"tile": tile, "at": [x, Y], "rotation": 0,
                                   **({"place": {"figure": "follower", "on": "C"}} if fig else {})}
    g = _game([T("st.M", 0, True), T("B", 1), T("B", -1, True), T("B", 2), T("B", -2)], ["you", "blue", "yellow"])
    assert g.current == 2
    draw(g, "st.Q")
    g.apply_action(("catapult", 2))
    deciders = []
    while g.current_player() != g.current or g.outposts.decision is not None:
        p = g.current_player()
        acts = g.legal_actions()
        assert acts and all(a[0] == "remove" for a in acts)
        assert all(g.board.seg_cell[a[3]] == {0: (0, Y), 2: (-1, Y)}[p] for a in acts)  # only their own monk
        deciders.append(g.names[p])
        g.apply_action(acts[0])
    assert deciders == ["yellow", "you"]
    assert g.current_player() == 2 and g.outposts_by_name()["monks"]["catapults"] == 0
    assert [e["player"] for e in g.events if e["kind"] == "remove"] == ["yellow", "you"]
    assert g.supply_by_name()["you"]["follower"] == 9 and g.supply_by_name()["yellow"]["follower"] == 9


def test_a_clone_keeps_outposts_of_its_own():
    """Game.outposts is a component (runtime/outposts.py) with its own clone: the "?" decided in a
    clone (SIEGE-ADVANCE-1: a catapult on the monks' outpost) and an extra figure on the knights'
    row after the turn's follower (SIEGE-OUTPOST-2) leave the original's outposts and decision as
    they were."""
    g = _game([], ["you", "blue", "yellow"])
    draw(g, "st.Q")
    assert g.current_player() == 0 and g.outposts.decision.moment == "catapult"
    before = g.outposts_by_name()
    c = g.clone()
    assert c.outposts is not g.outposts and c.outposts.catapults is not g.outposts.catapults
    c.apply_action(("catapult", 2))
    assert c.outposts_by_name()["monks"]["catapults"] == 1 and c.outposts.decision is None
    assert g.outposts_by_name() == before and g.outposts.decision.moment == "catapult"
    h = _game([], ["red", "blue"], ("base", "siege"))
    draw(h, "E")
    h.apply_action(((0, Y), CITY_ROT, (0, h.orientation(CITY_ROT).feature_at(CITY_SIDE))))
    c = h.clone()
    c.apply_action(("outpost", 0, "row"))
    assert c.outposts_by_name()["knights"]["row"] == ["red"] and c.outposts.decision is None
    assert h.outposts_by_name()["knights"]["row"] == [] and h.outposts.decision.moment == "outpost"
    assert h.legal_actions() == [("outpost", 0, "row"), ("pass",)]

def test_SIEGE_OUTPOST_2_is_optional_and_a_decision_of_its_own():
    g = _game([], ["red", "blue"], ("base", "siege"))
    draw(g, "E")
    o = g.orientation(CITY_ROT)
    fi = o.feature_at(CITY_SIDE)
    g.apply_action(((0, Y), CITY_ROT, (0, fi)))
    assert g.current_player() == 0 and g.legal_actions() == [("outpost", 0, "row"), ("pass",)]
    g.apply_action(("pass",))
    assert g.current == 1 and g.outposts_by_name()["knights"]["row"] == []


def test_state_round_trip_keeps_the_outposts():
    eng = engine_for(["base", "abbot", TILES], [])
    g = eng.new_game(players=3, seed=4)
    from tessera.compiler.runtime.play import random_moves
    random_moves(g, 4, after=lambda h: h.turn >= 40)
    h = type(g).from_json(eng.rules, g.to_json())
    assert h.scores == g.scores and h.outposts_by_name() == g.outposts_by_name() and h.supply.left == g.supply.left


def test_SIEGE_ADVANCE_1_a_tile_named_after_the_draw_was_asked_about_puts_its_own_catapult():
    # OpenSpiel's chance node names the tile after the engine drew one of its own: siege.E shows the
    # knights symbol, so "після того, як ви взяли плитку з 1 або 2 символами облоги" a catapult goes
    # on the knights outpost, even though the tile drawn first (a base tile, no symbol) was asked about
    g = engine_for(["base", "siege"], []).new_game(players=2, seed=0)
    assert g.tile_name() == "U"  # base U: no siege symbol, so asking about the turn plays nothing
    assert g.current_player() == 0 and g.outposts_by_name()["knights"]["catapults"] == 0
    draw(g, "siege.E")
    assert g.current_player() == 0 and g.outposts_by_name()["knights"]["catapults"] == 1


def test_state_round_trip_of_named_tiles_keeps_the_siege_decisions():
    # tessera-state/1 replays from the seed; a "?" catapult decided for a named tile (not the seed's
    # own draw) names its tile, so the replay decides it for the same tile (SIEGE-ADVANCE-1)
    eng = engine_for(["base", "siege"], [])
    g = eng.new_game(players=2, seed=0)
    draw(g, "siege.H")  # "?": the current player chooses the outpost
    g.apply_action(("catapult", 1))
    mid = type(g).from_json(eng.rules, g.to_json())  # the tile not placed yet
    assert mid.tile_name() == "siege.H" and mid.outposts_by_name() == g.outposts_by_name()
    assert mid.legal_actions() == g.legal_actions()
    place = g.legal_actions()[0]
    for h in (g, mid):
        h.apply_action(place)
        draw(h, "siege.E")  # knights: a catapult by itself
        h.current_player()
    end = type(g).from_json(eng.rules, g.to_json())  # moves only: the drawn tile is named again
    draw(end, "siege.E")
    end.current_player()
    assert g.outposts_by_name()["travellers"]["catapults"] == 1 and g.outposts_by_name()["knights"]["catapults"] == 1
    for h in (mid, end):
        assert h.outposts_by_name() == g.outposts_by_name() and h.scores == g.scores and h.tile_name() == "siege.E"


# -- simulate: the summary counts; records replay to the same game -----------------------------------
COMBOS = [["base", "siege"], ["base", "river", "siege"],
          ["base", "river", "abbot", "barn", "tower", "king_robber", "siege"]]


@pytest.mark.parametrize("rules", COMBOS, ids=["+".join(c) for c in COMBOS])
def test_simulate_runs_with_siege(rules, tmp_path):
    from tessera.play.simulate import simulate

    summ = simulate(engine_for(rules, []), 3, 3, 7, rules, None)
    d = summ.to_dict(per_game=False)
    assert d["games"] == 3 and {"mean_counterattacks", "mean_attacks", "mean_removals"} <= set(d)
    assert d["points_by_feature"]["outpost"]["mean"] > 0  # at least the end's counterattacks score


def test_simulated_siege_records_replay_to_the_same_game(tmp_path):
    """`simulate --record` writes the catapult choices, removals and extra figures so that `replay`
    gives the same scores and outposts."""
    from tessera.play.simulate import play_one, simulate

    rules = ["base", "abbot", TILES]
    eng = engine_for(rules, [])
    summ = simulate(eng, 4, 3, 11, rules, tmp_path)
    assert summ.mean_of("attacks") > 0 and summ.mean_of("removals") > 0
    for f in sorted(tmp_path.glob("*.json")):
        rec = load_record(f)
        res = replay(rec, f.parent)
        assert res.error is None, (f.name, res.error)
        g, _ = play_one(eng, 3, rec["seed"])
        assert res.answer["scores"] == {g.names[p]: g.scores[p] for p in range(3)}, f.name
        assert res.answer["outposts"] == g.outposts_by_name()


@pytest.mark.slow
def test_the_simulate_command_prints_the_outpost_counts():
    out = subprocess.run([sys.executable, "-m", "tessera", "simulate", "--rules", f"base,{TILES}", "--games", "2",
                          "--players", "3"], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "outposts, mean per game: counterattacks" in out.stdout and "attacks" in out.stdout


def test_the_action_codec_numbers_every_outpost_decision():
    """The stable action numbers cover the extra figure, the pass, a "?" catapult's outpost and an
    attack's removals: every legal move of random games has one number, and it decodes to the move."""
    import random

    from tessera.replay.actions import ActionCodec

    eng = engine_for(["base", "abbot", TILES], [])
    codec = ActionCodec(eng)
    kinds = set()
    for seed in (0, 1):
        g, rng = eng.new_game(3, seed), random.Random(seed)
        while not g.is_terminal():
            legal = codec.legal(g)
            acts = g.legal_actions()
            if not acts:
                break
            assert len(legal) == len(acts)  # one number per move, none shared
            a = rng.choice(acts)
            assert codec.decode(g, codec.encode(g, a)) == a
            kinds.add(a[0] if isinstance(a[0], str) else "place")
            g.apply_action(a)
    assert {"outpost", "pass", "catapult", "remove"} <= kinds
    assert "the \"?\" catapult goes on monks" == codec.describe(codec.catapult_base + 2)



# -- the checker -------------------------------------------------------------------------------------
@pytest.mark.parametrize("text,code,words", [
    ("track knights for city row 4 catapult 1\non full of kinghts { score each 3 * own }", "unknown-name", "kinghts"),
    ("track knights for city row 4 catapult 1\non full of knights { remove 1 of follower }", "unsupported", "on overflow"),
    ("track knights for city row (players - 3) catapult 1", "range", "-1 slots for 2 players"),
    ("track knights for city row 4 catapult 1\non put follower of field { may put follower on row }", "unknown-name",
     "no track's row is for `field`"),
    ("track knights for city row 4 catapult 1\non full of knights { score each 3 * tiles }", "context", "tiles"),
    ("track knights for city row 4 catapult 1\non full of knights { score each own > 0 }", "type", "a number"),
])
def test_outpost_mistakes_are_diagnostics(tmp_path, text, code, words):
    p = tmp_path / "bad.tess"
    p.write_text(f"module bad\nrequires base\n{text}\n", encoding="utf-8")
    rs, diags, _ = load_rule_set([str(p)])
    errs = [d for d in diags if d.severity == "error"]
    assert errs and errs[0].code == code and words in errs[0].message, [str(d) for d in errs]


# -- the verifier: conservation with outposts, and a house rule it refutes ---------------------------
@pytest.mark.slow
def test_z3_proves_the_builtin_invariants_over_the_outpost_steps_and_refutes_negative_counterattacks():
    from tessera.verifier.invariants import check_invariants

    checks = check_invariants(_rules("base", "siege"))
    steps = {c.rule for c in checks}
    assert {"put a follower on an outpost's row", "put a follower on an outpost's pool",
            "on full of knights, travellers, monks", "on overflow of knights, travellers, monks",
            "on end of knights, travellers, monks"} <= steps
    assert all(c.result.proved for c in checks), [c.rule for c in checks if not c.result.proved]
    conserved = [c for c in checks if c.invariant.id == "conserved-follower"]
    assert "supply + board + outposts == 9" in conserved[0].invariant.title
    bad = check_invariants(_rules("base", str(REPO / "rules" / "variants" / "siege_shirkers_pay.tess")))
    refuted = {(c.invariant.id, c.rule) for c in bad if c.result.refuted}
    assert refuted == {("score-nonnegative", "on full of knights, travellers, monks"),
                       ("score-never-decreases", "on full of knights, travellers, monks")}
    # the counterexample names only the seats it has: "involves" lines for seats nobody sits in are left out
    from tessera.verifier.invariants import _detail

    for c in bad:
        if c.result.refuted:
            n = c.result.model["players"]
            lines = _detail(c)
            seats = {int(x.split("(seat ")[1].split(")")[0].split(":")[0]) for x in lines if "(seat " in x}
            assert seats and max(seats) < n, lines


def test_the_worked_examples_agree_with_the_rules():
    from tessera.verifier.examples import check_examples

    res = {r.ref: r for r in check_examples(_rules("base", "siege"))}
    for ref in ("EX-SIEGE-COUNTER-1a", "EX-SIEGE-ATTACK-1a"):  # z3 on the rules, then the compiled engine
        assert res[ref].status == "ok" and "the compiled engine gives the same" in res[ref].message


def test_SIEGE_COUNTER_1_fires_when_the_row_is_filled_not_while_it_stays_full(tmp_path):
    # a house rule whose counterattack leaves the followers where they are: the row stays full, and
    # the next turns score nothing more ("Якщо ви ... займаєте останню вільну комірку в ряді, то
    # активуєте контратаку": it is the filling that triggers it)
    house = tmp_path / "stay.tess"
    house.write_text("module stay\nextends siege\n"
                     "override on full of knights, travellers, monks [SIEGE-COUNTER-1] { score each 3 * own }\n",
                     encoding="utf-8")
    rec = load_record(_played("two_player_dark_slot.json"))
    rec["rules"] = ["base", str(house)]
    rec["turns"] += [{"tile": "E", "at": [-2, Y], "rotation": CITY_ROT}, {"tile": "B", "at": [3, Y], "rotation": 0}]
    res = replay(rec, tmp_path)  # the record's folder is where its house rule lies
    assert res.error is None, res.error
    assert res.answer["scores"] == {"red": 6, "blue": 6}
    assert res.answer["outposts"]["knights"]["row"] == ["red", "blue", "red", "blue"]


@pytest.mark.slow
def test_every_agent_plays_the_outposts_decisions():
    """greedy and mcts choose catapults, removals (for whichever seat decides) and extra figures too."""
    from tessera.play.simulate import simulate

    rules = ["base", "abbot", TILES]
    summ = simulate(engine_for(rules, []), 1, 3, 2, rules, None, ["greedy", "mcts:2", "random"])
    row = summ.rows[0]
    assert row["attacks"] > 0 and row["turns"] > 60


def test_the_engine_check_holds_with_attacks_and_removals():
    """verify --engine's rebuild agrees with the engine, and each player's followers add up
    (supply + board + outposts == 9), through catapults, attacks, removals and counterattacks."""
    from tessera.verifier.engine_check import check_engine

    mismatches, checked = check_engine(_rules("base", "abbot", TILES), 2, players=3, seed=3)
    assert checked > 100 and not mismatches, mismatches[:3]


def test_SIEGE_COUNTER_1_scores_before_the_features_of_the_same_turn():
    """"Контратаку розігрують під час кроку 3 ... перед звичайним підрахунком очок" (SIEGE-COUNTER-1),
    and SIEGE-OUTPOST-2 holds for a knight whose city the same tile completes.  Two players, rows of
    4 (the stated assumption): red and blue put three knights with a row follower each; blue lays a
    city cap at [2,-1] with no figure; red caps it from [2,-2], puts the knight there and the 4th row
    follower: the knights counterattack first (red 3 x 3 = 9, blue 1 x 3 = 3), then the 2-tile city
    scores 2 x 2 = 4 for red (BASE-CITY-2), whose knight goes home.  Supply: red 9 - 2 knights
    still standing = 7, blue 9 - 1 = 8."""
    def E(x, y=-1, rot=0, on="N", fig=True):
        t = {"tile": "E", "at": [x, y], "rotation": rot}
        if fig:
            t.update(place={"figure": "follower", "on": on}, outpost={"name": "knights", "slot": "row"})
        return t

    res = replay({"format": "tessera-game/1", "rules": ["base", "siege"], "players": ["red", "blue"],
                  "turns": [E(0), E(1), E(-1), E(2, fig=False), E(2, -2, 180, "S")], "end": "none"})
    assert res.error is None, res.error
    last = [(e["kind"], e.get("feature"), e.get("points")) for e in res.answer["events"] if e["turn"] == 4]
    assert last == [("outpost", None, None), ("counterattack", None, None),
                    ("score", "outpost", {"red": 9, "blue": 3}), ("score", "city", {"red": 4})]
    assert res.answer["scores"] == {"red": 13, "blue": 3}
    assert {p: s["follower"] for p, s in res.answer["supply"].items()} == {"red": 7, "blue": 8}
    assert res.answer["outposts"]["knights"]["row"] == []


def test_SIEGE_ADVANCE_1_a_drawn_tile_brings_its_catapult_even_if_it_is_then_discarded():
    """"Після того як ви візьмете плитку з 1 або 2 символами облоги ... Перед викладанням своєї
    плитки ... ви повинні розмістити 1 катапульту" (the assumption `advance_before_discard`):
    the four-way road (all sides road, the travellers' symbol) fits nowhere beside the start
    landscape, whose open sides are all field; its catapult still comes, then it is discarded."""
    g = engine_for(["base", "siege"], []).new_game(players=2, seed=1)
    draw(g, "siege.crossroads")
    assert g.legal_actions() == [("discard",)]
    assert g.outposts_by_name()["travellers"]["catapults"] == 1
    g.apply_action(("discard",))
    assert [e["kind"] for e in g.events] == ["catapult", "discard"] and g.current == 0
