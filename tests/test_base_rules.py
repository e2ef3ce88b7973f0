"""The base game's rule scenarios: one game record per clause, replayed by the engine.

Each record in `tests/records/base/` is a plain `tessera-game/1` record (no
extra keys); what the rulebook says must happen is in the table `CASES` below,
keyed by record file.  The expected numbers were worked out by hand from the
rulebook (000) and `CLAUSES.md`, with the geometry built from
`/work/shared/spec/tiles.md` (start: D at [0,0] rotation 0, city N, road W-E);
the comment on each case gives the arithmetic.  Never update an expectation
from the engine's output: if the engine disagrees, the engine is wrong.

Cell notes: x grows east, y grows SOUTH, rotation is clockwise, and a place
(`"on"`) is named in the board frame after rotation.
"""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tessera.replay.tiles import replay
from conftest import SHARED, Expect, check_record, own_records, shared_records
from tessera.play.simulate import play_one

RECORDS = SHARED / "base"  # the rulebook's base records, which `tessera verify` replays too
SPEC_KEYS = {"format", "rules", "players", "turns", "end", "start"}


CASES: dict[str, Expect] = {
    # -- BASE-TURN-1 ------------------------------------------------------------------
    # red: E rot 180 at [0,-1] puts its city on S, closing the start city; the knight goes on
    # first and the city is scored at the end of the same turn: 2 tiles * 2 = 4; the knight
    # comes back (7).  blue moves second: U at [1,0] with a robber (6 left).
    "turn_order.json": Expect(
        "BASE-TURN-1", "place, then a follower, then score: a knight on the completing tile scores that turn",
        scores={"red": 4, "blue": 0},
        events=[(0, "city", "complete", {"red": 4}, "BASE-CITY-2")],
        supply={"red": {"follower": 7}, "blue": {"follower": 6}}, winners=["red"]),
    # L at [1,0] ends red's road W at its junction (3 tiles: W-junction [-1,0], D, L -> 3) and
    # closes blue's one-side city above it (E at [1,-1] + L: 2 tiles -> 4) in one turn.
    "turn_scores_every_completed_feature.json": Expect(
        "BASE-TURN-1", "every feature the tile completes is scored in that turn",
        scores={"red": 3, "blue": 4},
        events=[(4, "road", "complete", {"red": 3}, "BASE-ROAD-2"),
                (4, "city", "complete", {"blue": 4}, "BASE-CITY-2")],
        supply={"red": {"follower": 7}, "blue": {"follower": 7}}, winners=["blue"]),

    # -- BASE-PLACE-1/2/3 ------------------------------------------------------------------
    # B at [2,1] only touches U at [1,0] at a corner.
    "place1_not_touching.json": Expect(
        "BASE-PLACE-1", "a tile touching the board only at a corner is refused",
        illegal=(1, "BASE-PLACE-1", ["[2,1]"])),
    # E rot 0 at [1,0]: its W side is field, the start tile's E side is road.
    "place2_mismatch.json": Expect(
        "BASE-PLACE-2", "a field edge against a road edge is refused, naming both sides",
        illegal=(1, "BASE-PLACE-2", ["its W side (field)", "road on the E side of [0,0]"])),
    # E rot 270 at [1,0] has its city on W against the start's road, and asks for a knight on
    # N where it has no feature: the tile is placed first (BASE-TURN-1), so the edge is the fault.
    "place2_checked_before_follower.json": Expect(
        "BASE-PLACE-2", "a mismatched tile is reported before the follower it carries",
        illegal=(0, "BASE-PLACE-2", ["its W side (city)"])),
    # After E rot 180 at [0,-1] no open edge of the board is a lone city edge, so tile C (city on
    # all four sides) fits nowhere: blue discards it and draws again, and the next entry is still
    # blue's (blue's robber on U: blue 6, red 7).
    "place3_discard_unplaceable.json": Expect(
        "BASE-PLACE-3", "an unplaceable tile is discarded and the same player draws again",
        scores={"red": 0, "blue": 0}, events=[], supply={"red": {"follower": 7}, "blue": {"follower": 6}}),
    "place3_discard_placeable.json": Expect(
        "BASE-PLACE-3", "a tile that fits somewhere may not be discarded",
        illegal=(0, "BASE-PLACE-3", ["U"])),
    # The discarded C went back into the box: the bag holds no other C (C x1), so the
    # refusal cites the composition that provides only one (BASE-COMP-1).
    "place3_discarded_tile_is_gone.json": Expect(
        "BASE-PLACE-3", "a discarded tile is out of the game: it cannot be played later",
        illegal=(3, "BASE-COMP-1", ["C"])),

    # C x1 (BASE-COMP-1): the one C goes above the start D's city; a second C is refused,
    # citing the composition that provides a single copy.
    "comp1_copies_used.json": Expect(
        "BASE-COMP-1", "a tile whose copies are all used is refused, citing the composition",
        illegal=(1, "BASE-COMP-1", ["C", "already used"])),

    # -- BASE-FOLLOW-1/2/3, BASE-FIELD-2 ---------------------------------------------------
    "follow1_no_feature.json": Expect(
        "BASE-FOLLOW-1", "a follower on a place where the tile has no feature (C of D) is refused",
        illegal=(0, "BASE-FOLLOW-1", ["C"])),
    # E rot 180: the city lies on S in the board frame; N (its definition's S) holds nothing.
    "follow1_board_frame.json": Expect(
        "BASE-FOLLOW-1", "places are named in the board frame after rotation",
        illegal=(0, "BASE-FOLLOW-1", ["N"])),
    # The garden is printed on one U; without the Abbot no figure may stand on it.
    "follow1_garden_without_abbot.json": Expect(
        "BASE-FOLLOW-1", "a follower goes only on a road, city, cloister or field, not on a garden",
        illegal=(0, "BASE-FOLLOW-1", ["garden"])),
    "follow2_occupied_road.json": Expect(
        "BASE-FOLLOW-2", "a robber on a road that already has an opponent's robber is refused",
        illegal=(1, "BASE-FOLLOW-2", ["road"])),
    "follow2_own_city.json": Expect(
        "BASE-FOLLOW-2", "a knight on a city that already has one's own knight is refused",
        illegal=(2, "BASE-FOLLOW-2", ["city"])),
    # red: 4 monks on B, 2 on A, 1 farmer on U = 7; the 8th (turn 14) is refused ...
    "follow3_eighth_refused.json": Expect(
        "BASE-FOLLOW-3", "with an empty supply no follower can be placed",
        illegal=(14, "BASE-FOLLOW-3", ["supply"])),
    # ... but the tile itself goes down (it closes the start city: no owner, no points).
    "follow3_tile_without_follower.json": Expect(
        "BASE-FOLLOW-3", "a player with an empty supply still places the tile",
        scores={"red": 0, "blue": 0}, events=[], supply={"red": {"follower": 0}, "blue": {"follower": 7}},
        extra=("tile_at", (0, -1))),
    # red farmer on the north field; blue's farmer on the (separate) south field is legal; red's
    # farmer on the south field is not.  BASE-FOLLOW-2 names fields too ("road/city/field"), so
    # either clause states the refusal; the rule file cites BASE-FOLLOW-2 first.
    "field2_occupied_field.json": Expect(
        "BASE-FIELD-2", "a farmer on a field that already has a farmer is refused",
        illegal=(2, {"BASE-FIELD-2", "BASE-FOLLOW-2"}, ["field"])),

    # -- BASE-ROAD-1/2 ---------------------------------------------------------------------
    # EX-BASE-ROAD-2a: W-junction [1,0] (red robber), D, W-junction [-1,0] placed by blue:
    # 3 tiles -> 3 to red although blue completed it; blue's knight in the open city stays.
    "road_junctions.json": Expect(
        "BASE-ROAD-1", "a road between two junctions is complete; 3 tiles score 3 (EX-BASE-ROAD-2a)",
        scores={"red": 3, "blue": 0},
        events=[(3, "road", "complete", {"red": 3}, "BASE-ROAD-2")],
        supply={"red": {"follower": 7}, "blue": {"follower": 6}}),
    # A rot 270 at [-1,0]: its road runs E from the cloister; S rot 90 at [1,0]: its road runs W
    # into the city.  A, D, S: 3 tiles -> 3.
    "road_cloister_city.json": Expect(
        "BASE-ROAD-1", "a road ending at a cloister and at a city is complete",
        scores={"red": 3, "blue": 0},
        events=[(1, "road", "complete", {"red": 3}, "BASE-ROAD-2")],
        supply={"red": {"follower": 7}, "blue": {"follower": 7}}),
    # Four V curves in a 2x2 square under the start tile close a loop: 4 tiles -> 4.
    "road_loop.json": Expect(
        "BASE-ROAD-1", "a road that closes into a loop is complete",
        scores={"red": 4, "blue": 0},
        events=[(3, "road", "complete", {"red": 4}, "BASE-ROAD-2")],
        supply={"red": {"follower": 7}, "blue": {"follower": 7}}),

    # -- BASE-CITY-1/2 ---------------------------------------------------------------------
    # EX-BASE-CITY-2a: D (start), M rot 180 at [0,-1] (city S-E, shield), E rot 270 at [1,-1]
    # (city W): open after turn 0, closed by turn 1: 3*2 + 1*2 = 8.
    "city_3_tiles_1_shield.json": Expect(
        "BASE-CITY-1", "a city closed on every side is complete: 3 tiles + 1 shield = 8 (EX-BASE-CITY-2a)",
        scores={"red": 8, "blue": 0},
        events=[(1, "city", "complete", {"red": 8}, "BASE-CITY-2")],
        supply={"red": {"follower": 7}, "blue": {"follower": 7}}),

    # -- BASE-CLOISTER-1 -------------------------------------------------------------------
    # EX-BASE-CLOISTER-1a: B at [0,1]; the 8th surrounding tile arrives on turn 7: 1 + 8 = 9.
    "cloister_complete.json": Expect(
        "BASE-CLOISTER-1", "a cloister surrounded by 8 tiles scores 9 (EX-BASE-CLOISTER-1a)",
        scores={"red": 9, "blue": 0},
        events=[(7, "cloister", "complete", {"red": 9}, "BASE-CLOISTER-1")],
        supply={"red": {"follower": 7}, "blue": {"follower": 7}}),
    # The same ring built first; the cloister placed last into the hole completes at once.
    "cloister_placed_last.json": Expect(
        "BASE-CLOISTER-1", "a cloister placed into a surrounded hole is complete in that turn",
        scores={"red": 0, "blue": 9},
        events=[(7, "cloister", "complete", {"blue": 9}, "BASE-CLOISTER-1")],
        supply={"red": {"follower": 7}, "blue": {"follower": 7}}),

    # -- BASE-SCORE-1/2 --------------------------------------------------------------------
    # EX-BASE-SCORE-1a: red's robber on the junction road at [-1,0] (open at [0,0]'s E end),
    # yellow's robber on the junction road at [1,1] (open N); V at [1,0] joins them: 4 tiles,
    # 1 robber each -> 4 each.  Nothing else is owned at the end: a 4-4 tie shares the win.
    "score1_two_robbers.json": Expect(
        "BASE-SCORE-1", "two robbers of different players on a joined 4-tile road both score 4 (EX-BASE-SCORE-1a)",
        scores={"red": 4, "yellow": 4},
        events=[(4, "road", "complete", {"red": 4, "yellow": 4}, "BASE-ROAD-2")],
        supply={"red": {"follower": 7}, "yellow": {"follower": 7}}, winners=["red", "yellow"]),
    # EX-BASE-SCORE-1b: three city parts -- {D, N rot 180 at [0,-1]} (red knight), E at [2,-1]
    # (red knight), E at [1,-2] (yellow knight) -- joined by R at [1,-1]: 5 tiles, no shield:
    # 2*5 = 10, red (2 knights) alone; every knight goes back.
    "score1_city_three_parts.json": Expect(
        "BASE-SCORE-1", "the player with more knights alone scores 10 for a city joined from 3 parts (EX-BASE-SCORE-1b)",
        scores={"red": 10, "yellow": 0},
        events=[(6, "city", "complete", {"red": 10}, "BASE-CITY-2")],
        supply={"red": {"follower": 7}, "yellow": {"follower": 7}}, winners=["red"]),
    # red's farmer (north field, turn 0) and knight (E closing the start city, turn 2: 4 points):
    # the knight returns, the farmer stays: 6 in supply.
    "score2_returns.json": Expect(
        "BASE-SCORE-2", "after scoring the knight returns to supply, the farmer stays on its field",
        scores={"red": 4, "blue": 0},
        events=[(2, "city", "complete", {"red": 4}, "BASE-CITY-2")],
        supply={"red": {"follower": 6}, "blue": {"follower": 7}}, extra=("farmer_on_board", "red")),

    # -- BASE-END-1/2/3 --------------------------------------------------------------------
    # EX-BASE-END-2a/b/c in one game: red's robber on the 3-tile road U-D-U (3), yellow's monk on
    # B at [0,1] with 3 neighbours [-1,0] [0,0] [1,0] (1 + 3 = 4), blue's knight in the 2-tile
    # city D + M (shield) (2 + 1 = 3).  Yellow alone has the most points.
    "end_incomplete.json": Expect(
        "BASE-END-2", "final scoring: road 3 tiles 3; cloister with 3 neighbours 4; 2-tile city with a shield 3",
        scores={"red": 3, "yellow": 4, "blue": 3},
        events=[(None, "road", "end", {"red": 3}, "BASE-END-2"),
                (None, "cloister", "end", {"yellow": 4}, "BASE-END-2"),
                (None, "city", "end", {"blue": 3}, "BASE-END-2")],
        supply={"red": {"follower": 6}, "yellow": {"follower": 6}, "blue": {"follower": 6}}, winners=["yellow"]),
    # The same game with "end": "none": no final scoring; 0-0-0 and everyone shares the win.
    "end_none.json": Expect(
        "BASE-END-1", "a record ending with \"none\" (bag not empty) gets no final scoring",
        scores={"red": 0, "yellow": 0, "blue": 0}, events=[],
        winners=["red", "yellow", "blue"]),

    # -- BASE-FIELD-3 ----------------------------------------------------------------------
    # EX-BASE-FIELD-3a: the field north of the road along D[-1,0] D[0,0] D[1,0] D[2,0] borders
    # their four cities; three are closed by E rot 180 above them, D[2,0]'s is not.  red's
    # farmer (D[-1,0]) and blue's (D[2,0], placed while the field was apart) tie: 3*3 = 9 each.
    "field3_tied_farmers.json": Expect(
        "BASE-FIELD-3", "two tied farmers each score 9 for 3 completed cities; the incomplete one adds nothing (EX-BASE-FIELD-3a)",
        scores={"red": 9, "blue": 9},
        events=[(None, "field", "end", {"red": 9, "blue": 9}, "BASE-FIELD-3")],
        winners=["red", "blue"]),
    # EX-BASE-FIELD-3b: the same four D cities, all closed; yellow's farmers on two parts
    # (D[-1,0], U[4,0]), black's on a third (D[2,0]); joined: yellow 2 vs black 1: 4*3 = 12.
    "field3_majority.json": Expect(
        "BASE-FIELD-3", "the majority of farmers alone scores 12 for 4 completed cities (EX-BASE-FIELD-3b)",
        scores={"yellow": 12, "black": 0},
        events=[(None, "field", "end", {"yellow": 12}, "BASE-FIELD-3")],
        winners=["yellow"]),
    # EX-BASE-FIELD-3c: the field north of the road of D[0,0] and D[1,0], both cities closed: 2*3 = 6.
    "field3_small_field.json": Expect(
        "BASE-FIELD-3", "a small field bordering 2 completed cities scores 6 (EX-BASE-FIELD-3c)",
        scores={"black": 6, "red": 0},
        events=[(None, "field", "end", {"black": 6}, "BASE-FIELD-3")]),
    # The same field, but the two D cities are one city (closed by N rot 180 + N rot 270 above):
    # a city counts once per field however many tiles border it: 1*3 = 3.
    "field3_city_counted_once.json": Expect(
        "BASE-FIELD-3", "a completed city bordering the field along two tiles counts once: 3",
        scores={"black": 3, "red": 0},
        events=[(None, "field", "end", {"black": 3}, "BASE-FIELD-3")]),
    # The farmer lies south of D's road: that field does not border the cities north of it.
    "field3_road_separates.json": Expect(
        "BASE-FIELD-3", "a field across the road from completed cities scores nothing",
        scores={"black": 0, "red": 0}, events=[]),
}


def _load(name: str) -> dict:
    return json.loads((RECORDS / name).read_text(encoding="utf-8"))


def test_every_record_has_expectations_and_is_spec_pure():
    """Every base record is in the table, and carries only `tessera-game/1` keys (no `expect`)."""
    files = sorted(shared_records("base") | own_records("base"))
    assert set(CASES) <= set(files), "a case without its record"
    assert own_records("base") <= set(CASES), "a record of the tests' own without its case"
    for name in files:
        rec = _load(name)
        assert set(rec) <= SPEC_KEYS, (name, set(rec) - SPEC_KEYS)
        assert rec["format"] == "tessera-game/1" and rec["rules"] == ["base"]
        assert rec["end"] in ("final", "none")


@pytest.mark.parametrize("name", sorted(CASES), ids=lambda n: f"{CASES[n].clause}:{n[:-5]}")
def test_base_rule_scenario(name):
    """Replay one base-game scenario and compare with what the clause (named in the test id) says."""
    exp = CASES[name]
    res = replay(_load(name), RECORDS)
    check_record(exp, res, name, final_turn="none")
    if exp.illegal is not None:
        return
    if exp.extra:
        kind, arg = exp.extra
        g = res.game
        if kind == "tile_at":
            assert tuple(arg) in g.board.tiles, (exp.clause, "the tile was not placed")
        elif kind == "farmer_on_board":
            farmers = [f for f in g.features() if f["kind"] == "field" and (arg, "follower") in f["figures"]]
            assert farmers, (exp.clause, "the farmer left the field")


def test_BASE_SCORE_2_farmers_stay_after_final_scoring_examples():
    """BASE-SCORE-2 / BASE-FIELD-2: farmers are never returned during play (they stay to the end)."""
    res = replay(_load("field3_majority.json"), RECORDS)
    on_fields = sorted(p for f in res.game.features() if f["kind"] == "field" for p, _ in f["figures"])
    assert on_fields == ["black", "yellow", "yellow"]


def _full_game(seed: int = 11, players: int = 3):
    from tessera.replay.tiles import engine_for

    eng = engine_for(["base"], [])
    g, turns = play_one(eng, players, seed)
    return g, {"format": "tessera-game/1", "rules": ["base"], "players": list(g.names), "turns": turns}


def test_BASE_END_1_emptying_the_bag_ends_the_game_with_final_scoring():
    """BASE-END-1: the game ends with the last tile; final scoring happens even if the record says "none"."""
    g, rec = _full_game()
    assert g.ended
    placed = sum(1 for t in rec["turns"] if not t.get("discard"))
    assert placed + 1 == len(g.board.tiles) and len(g.board.tiles) + g.discards == 72  # BASE-COMP-1: 72 with the start
    final = replay({**rec, "end": "final"})
    none = replay({**rec, "end": "none"})
    assert final.error is None and none.error is None
    assert final.answer == none.answer
    assert any(ev["when"] == "end" for ev in none.answer["events"])


def test_BASE_END_1_no_turn_after_the_last_tile():
    """BASE-END-1: a turn recorded after the bag is empty is refused."""
    g, rec = _full_game()
    extra = dict(rec, turns=rec["turns"] + [{"tile": "U", "at": [99, 99], "rotation": 0}], end="final")
    res = replay(extra)
    assert res.error is not None
    assert res.error["turn"] == len(rec["turns"]) and res.error["clause"] == "BASE-END-1"


@pytest.mark.slow
def test_BASE_END_3_winners_by_cli():
    """BASE-END-3 through `tessera replay --json`: a tie shares the victory; an illegal turn exits 1."""
    cmd = [sys.executable, "-m", "tessera", "replay", "--json"]
    ok = subprocess.run(cmd + [str(RECORDS / "field3_tied_farmers.json")], capture_output=True, text=True)
    assert ok.returncode == 0, ok.stderr
    assert json.loads(ok.stdout)["winners"] == ["red", "blue"]
    bad = subprocess.run(cmd + [str(RECORDS / "place2_mismatch.json")], capture_output=True, text=True)
    assert bad.returncode == 1
    assert json.loads(bad.stdout)["error"]["clause"] == "BASE-PLACE-2"
