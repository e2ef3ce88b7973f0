"""The Barn (rulebook 002) as game records: one or more per BARN clause.

Each record of `CASES` (in `rules/records/barn/`, or `tests/records/barn/` for the tests'
own) is replayed by the engine; `CASES` gives what the rulebook says must happen.  The expected numbers are worked out by hand from
the Barn's text (002) and CLAUSES.md -- never taken from the engine.

Geometry (conventions.md): x grows east, y grows SOUTH, rotation is clockwise, a
place or corner is named in the board frame.  The start is D at [0,0]: city N,
road W-E, a north field (Wn En, bordering the city) and a south field.  Players are
red (turns 0, 2, 4 ...) and blue (turns 1, 3, 5 ...).  Tiles used: E (city N, field
on the other three sides, bordering the city; at 180 the city is S and the field
W, N, E), A (cloister, road S: at 90 the road is W and one field runs all round),
B (cloister, field all round), U (road W-E between a north and a south field).
A barn stands on a corner where four tiles meet: at a cell's corner NW the
half-sides beside it are Wn and Nw, and the other three cells are W, NW and N of it.

The tied field used by several records (turns 0-6, `T` below):
  t0 red   E 180 [0,-1]  closes city 1 (D + E, 2 tiles, no knight); red farmer on E's field
  t1 blue  E 180 [0,1]   blue farmer on its field, which joins D's south field
  t2 red   E 0   [0,2]   closes city 2 (E + E)
  t3 blue  A 90  [1,0]   the road ends; A's one field joins D's north and south fields
  t4 red   B     [1,-1]  joins red's field (E [0,-1]) to it: one field, red 1 farmer, blue 1
  t5 blue  E 90  [2,0]   city E, its field joins A's
  t6 red   E 270 [3,0]   closes city 3
The field borders cities 1 (through D's north field and E [0,-1]), 2 (E [0,1]) and
3 (E [2,0]): 3 completed cities.  E [0,2] and E [3,0] keep fields of their own.
  t7 blue  B     [2,-1]  blue's barn on its SW corner: the point where B [1,-1] (SE),
                         B [2,-1] (SW), A [1,0] (NE) and E 90 [2,0] (NW) meet, all field.
"""
from __future__ import annotations

import pytest
from conftest import Expect, check_record, own_records, record_file, replay_record, shared_records


from tessera.replay.tiles import engine_for, load_record, replay

def _run(rel: str):
    return replay_record(f"barn/{rel}")


CASES: dict[str, Expect] = {
    # BARN-SCORE-1: "each field owner gets 3 points per completed city on the field" -- red
    # and blue tie with 1 farmer each, so both own it: 3 * 3 = 9 each. The barn's owner
    # (blue) gets nothing for the barn itself now. "Then the players take their farmers
    # back": both followers are home (7 each); blue's barn stays (0 left).
    "put_tied_farmers.json": Expect(
        "BARN-SCORE-1", "a barn on a field with two tied farmers and 3 completed cities: 9 each, farmers return",
        scores={"red": 9, "blue": 9},
        events=[(7, "field", "put", {"red": 9, "blue": 9}, "BARN-SCORE-1")],
        supply={"red": {"follower": 7, "barn": 1}, "blue": {"follower": 7, "barn": 0}}),
    # BARN-SCORE-1 with a city closed by the barn's own tile: "the farmers on this field score
    # at once, as in final scoring: 3 per completed city". The tile is placed before the barn
    # (BASE-TURN-1), so a city it closes is completed when the barn is put.
    # t0 red E 180 [0,1], a farmer on its field (D's south field); t1 blue U [1,0]; t2 red E 0
    # [0,2] closes city 1 (E + E); t3 blue E 0 [1,2]; t4 red E 180 [1,1] closes city 2 (E [1,1]
    # + E [1,2]), its field joins E [0,1]'s, and red's barn goes on its NW corner (D SE, U [1,0]
    # SW, E [0,1] NE, E [1,1] NW: all field). The field borders cities 1 and 2, both completed:
    # red, the only farmer, scores 3 * 2 = 6 (not 3) and the farmer goes home.
    "put_counts_city_closed_this_turn.json": Expect(
        "BARN-SCORE-1", "a city closed by the barn's own tile counts: 3 * 2 = 6",
        scores={"red": 6, "blue": 0},
        events=[(4, "field", "put", {"red": 6}, "BARN-SCORE-1")],
        supply={"red": {"follower": 7, "barn": 0}, "blue": {"follower": 7, "barn": 1}}),
    # BARN-SCORE-1 with Siege and Defense: the barn's farmers score "as in final scoring", and in
    # final scoring "the fortress counts as a completed city for farmers" (SIEGE-END-1). t0 red B
    # [1,-1] with a farmer, on the field along the fortress's north side; t1 blue B [2,-1]; t2 red
    # B [1,-2]; t3 blue B [2,-2], blue's barn on its SW corner (B [1,-2] SE, B [1,-1] NE, B [2,-1]
    # NW: all field). No city is completed, the fortress borders the field: red 3 * (0 + 1) = 3,
    # the farmer goes home (9 followers with Siege's 2 extra). At the end blue's barn: 4 * (0 + 1).
    "put_by_the_fortress.json": Expect(
        "BARN-SCORE-1", "with Siege, a barn's farmers count the fortress as a completed city: 3",
        scores={"red": 3, "blue": 4},
        events=[(3, "field", "put", {"red": 3}, "BARN-SCORE-1"),
                (4, "field", "end", {"blue": 4}, {"BARN-END-1", "SIEGE-END-1"})],
        supply={"red": {"follower": 9, "barn": 1}, "blue": {"follower": 9, "barn": 0}}),
    # BARN-SCORE-2 with Siege: t0-t3 as in put_by_the_fortress but no farmer (blue's barn, nothing
    # scores). t4 red U [1,-3] (road W-E): its south field joins the barn's, red's farmer goes on
    # its north field (no barn there). t5 blue A 90 [2,-3] ends the road at its cloister; its field
    # runs round and joins U's north and south fields and B [2,-2]'s: red's farmer joins the barn's
    # field, which borders the fortress and no completed city: 1 * (0 + 1) = 1, the farmer goes
    # home. At the end blue's barn: 4 * (0 + 1) = 4.
    "join_by_the_fortress.json": Expect(
        "BARN-SCORE-2", "with Siege, a farmed field joined to a barn's: the fortress counts, 1",
        scores={"red": 1, "blue": 4},
        events=[(5, "field", "join", {"red": 1}, "BARN-SCORE-2"),
                (6, "field", "end", {"blue": 4}, {"BARN-END-1", "SIEGE-END-1"})],
        supply={"red": {"follower": 9, "barn": 1}, "blue": {"follower": 9, "barn": 0}}),
    # BARN-PLACE-1: the barn goes where FOUR tiles meet. A 90 [1,0], then E 180 [0,1] with
    # the barn on its NE corner: D (SE), A (SW) and E (NE) are there, [1,1] is empty.
    "three_tiles.json": Expect(
        "BARN-PLACE-1", "a barn on a corner where only three tiles meet is refused",
        illegal=(1, "BARN-PLACE-1", ("barn", "four tiles", "[1,1]"))),
    # BARN-PLACE-1: all four must meet with field. E 180 [0,-1], A 90 [1,0], then B [1,-1]
    # with the barn on its SW corner: E [0,-1]'s SE corner has its city (Se) beside it, and
    # D's NE corner its city (Ne); the first of them is named.
    "corner_without_field.json": Expect(
        "BARN-PLACE-1", "a barn on a corner where one tile has no field is refused",
        illegal=(2, "BARN-PLACE-1", ("barn", "[0,-1]", "SE corner"))),
    # BARN-FOLLOW-1: after t7 the field has blue's barn (and no farmers: they went home);
    # t8 red B [0,-2] joins that field through E [0,-1] and puts a farmer on it.
    "farmer_on_barn_field.json": Expect(
        "BARN-FOLLOW-1", "a farmer on a field with a barn is refused",
        illegal=(8, "BARN-FOLLOW-1", ("follower", "field"))),
    # BARN-PLACE-1: "the barn may not be put on a field that already has a barn". t8 red U
    # [-1,0] (elsewhere), t9 blue B [0,-2], t10 red B [1,-2] with red's barn on its SW
    # corner (B [0,-2] SE, E [0,-1] NE, B [1,-1] NW: all field): the field has blue's barn.
    "second_barn_on_field.json": Expect(
        "BARN-PLACE-1", "a second barn on a field with a barn is refused",
        illegal=(10, "BARN-PLACE-1", ("barn", "count(barn) == 0"))),
    # BARN-PLACE-1 (the one barn each): blue put theirs on t7; t9 blue tries another.
    "no_barn_left.json": Expect(
        "BARN-PLACE-1", "a player with no barn left cannot put one",
        illegal=(9, "BARN-PLACE-1", ("no barn left",))),
    # BARN-SCORE-2: after t7, t8 red B [1,2] with a farmer: its field joins E [0,2]'s (which
    # borders city 2), not the barn's field. t9 blue B [1,1] joins the two (through A [1,0],
    # E [0,1] and B [1,2]). "Each owner of the resulting field gets only 1 point per completed
    # city": red owns it (1 farmer); it borders cities 1, 2 and 3 -> 1 * 3 = 3; the farmer
    # returns. Red: 9 (t7) + 3 = 12.
    "join_farmed_field.json": Expect(
        "BARN-SCORE-2", "a farmed field joined to a barn's field: 1 per completed city, then the farmer returns",
        scores={"red": 12, "blue": 9},
        events=[(7, "field", "put", {"red": 9, "blue": 9}, "BARN-SCORE-1"),
                (9, "field", "join", {"red": 3}, "BARN-SCORE-2")],
        supply={"red": {"follower": 7, "barn": 1}, "blue": {"follower": 7, "barn": 0}}),
    # BARN-END-1: t0 red E 180 [0,-1] closes city 1 (bordered by D's north field); t1 blue U
    # [-1,0]; t2 red E 180 [0,1] and t3 blue E 0 [0,2] close city 2 (bordered by E [0,1]'s
    # field, part of D's south field). t4 red B [-1,1], red's barn on its NE corner (D SW,
    # U [-1,0] SE, E [0,1] NW): on the south field. t5 blue U [-2,0]; t6 red B [-1,-1]; t7 blue
    # B [-2,-1], blue's barn on its SE corner (B [-1,-1] SW, U [-2,0] NE, U [-1,0] NW): on the
    # north field, which the road keeps apart. No farmers anywhere: nothing scores at put.
    # t8 red A 90 [1,0] ends the road and joins the two fields (no farmers: no join score).
    # At the end "the barn owner gets 4 points per completed city bordering the barn's
    # field; barns of different players on one field each score in full": 2 cities -> 8 each.
    "end_two_barns_joined.json": Expect(
        "BARN-END-1", "two barns on a field joined later, 2 completed cities: each owner 8",
        scores={"red": 8, "blue": 8},
        events=[(9, "field", "end", {"red": 8, "blue": 8}, "BARN-END-1")],
        supply={"red": {"follower": 7, "barn": 0}, "blue": {"follower": 7, "barn": 0}}),
    # BARN-PLACE-1 is about the barn: a follower stands on a feature, not on a corner.
    "follower_at_a_corner.json": Expect(
        "BARN-PLACE-1", "a follower on a corner is refused",
        illegal=(2, "BASE-FOLLOW-1", ("follower", "corner"))),
    "barn_on_a_side.json": Expect(
        "BARN-PLACE-1", "a barn on a half-side instead of a corner is refused",
        illegal=(0, "BARN-PLACE-1", ("barn", "corner"))),
}


@pytest.mark.parametrize("rel", sorted(CASES), ids=[f"{CASES[r].clause}:{r}" for r in sorted(CASES)])
def test_barn_record(rel):
    check_record(CASES[rel], _run(rel), rel)


def test_every_barn_record_has_a_case():
    assert own_records("barn") <= set(CASES) <= own_records("barn") | shared_records("barn")


def test_every_barn_clause_has_a_record():
    clauses = {"BARN-PLACE-1", "BARN-SCORE-1", "BARN-FOLLOW-1", "BARN-SCORE-2", "BARN-END-1"}
    assert {c.clause for c in CASES.values()} == clauses


# == the engine's barn options against a from-scratch reading of the rule file ===============
def _expected_barn_options(rs, g, gi):
    """Every (cell, rotation, corner) where the current player may put a barn, computed without
    the engine's corner code: the rule file's features, rotated (tessera.dsl.places), and a networkx
    rebuild of the board with the tile placed (tessera.verifier.engine_check.BoardGraph)."""
    from tessera.dsl.places import CORNER_HALVES, CORNER_MEETS, corner_feature, unrotate
    from tessera.verifier.engine_check import BoardGraph

    if g.supply.left[g.current][gi] <= 0:
        return set()
    board = {cell: (o.tile.index, o.rot) for cell, (o, _) in g.board.tiles.items()}
    barns = [(cell, CORNER_HALVES[corner][0]) for (_, fg, _), (cell, corner) in g.board.corner_at.items() if fg == gi]
    tid = g.bag.drawn
    out = set()
    for cell, rot, fig in g.legal_actions():
        if fig is not None:
            continue
        b2 = dict(board)
        b2[cell] = (tid, rot)
        for corner in CORNER_HALVES:
            cells = [(cell, corner)] + [((cell[0] + dx, cell[1] + dy), c) for dx, dy, c in CORNER_MEETS[corner]]
            if not all(c in b2 for c, _ in cells):
                continue
            if any(corner_feature(rs.tiles[b2[c][0]].features, unrotate(k, b2[c][1]), {"field"}) is None for c, k in cells):
                continue
            bg = BoardGraph(rs, b2)
            comp = next(cc for cc in bg.components() if (cell, CORNER_HALVES[corner][0]) in cc)
            if any(b in comp for b in barns):
                continue  # `when count(barn) == 0` (BARN-PLACE-1)
            out.add((cell, rot, corner))
    return out


@pytest.mark.parametrize("seed", [1, 2])
def test_legal_actions_list_every_legal_barn_corner_and_no_other(seed):
    """BARN-PLACE-1: in random games of base+barn, the engine's barn actions are exactly the
    corners a from-scratch reading of the rules allows (four tiles, field at the corner on
    each, no barn on that field yet)."""
    import random

    from tessera.replay.tiles import engine_for
    from tessera.dsl.loader import require_rule_set

    rs = require_rule_set(["base", "barn"])
    eng = engine_for(["base", "barn"], [])
    gi = next(i for i, f in enumerate(eng.rules.FIGURES) if f.name == "barn")
    g = eng.new_game(2, seed)
    rng = random.Random(seed)
    seen = 0
    while not g.ended and len(g.board.tiles) < 45:
        acts = g.legal_actions()
        got = {(c, r, fig[2]) for c, r, fig in (a for a in acts if a[0] != "discard") if fig is not None and fig[0] == gi}
        want = _expected_barn_options(rs, g, gi)
        assert got == want, (len(g.board.tiles), got ^ want)
        seen += len(got)
        # play a barn when one is offered late enough that both kinds of turn are covered
        barn_acts = [a for a in acts if a[0] != "discard" and a[2] is not None and a[2][0] == gi]
        pick = barn_acts[0] if barn_acts and len(g.board.tiles) > 25 else acts[rng.randrange(len(acts))]
        g.apply_action(pick)
    assert seen > 0  # some barn corner was on offer


def test_a_barn_game_round_trips_as_engine_state():
    """`tessera-state/1` (docs/records.md) keeps a barn's corner: [figure, feature, corner]."""
    import json

    from tessera.replay.tiles import engine_for

    res = _run("join_farmed_field.json")
    text = res.game.to_json()
    hist = json.loads(text)["history"]
    assert hist[7]["figure"][2] == "SW"
    eng = engine_for(["base", "barn"], [])
    g2 = eng.Game.from_json(eng.rules, text)
    assert g2.scores == res.game.scores == [12, 9]
    assert sorted(g2.board.corner_at.values()) == [((2, -1), "SW")]


def test_engine_check_catches_a_barn_on_the_wrong_field():
    """`verify --engine` rebuilds each barn's field: a barn the engine holds elsewhere is reported."""
    from tessera.verifier.engine_check import compare, compile_complete_rules
    from tessera.dsl.loader import require_rule_set

    rs = require_rule_set(["base", "barn"])
    g = _run("put_tied_farmers.json").game
    assert compare(rs, g, compile_complete_rules(rs)) == []
    (key,) = g.board.corner_at
    g.board.corner_at[key] = ((2, -1), "NE")  # only [2,-1] is placed around that corner
    (problem,) = compare(rs, g, compile_complete_rules(rs))
    assert "NE corner of [2,-1]" in problem and "is empty" in problem


# == random games with the other expansions ===============================================
COMBOS = [["base", "barn"], ["base", "river", "abbot", "king_robber", "barn"]]


@pytest.mark.slow
@pytest.mark.parametrize("rules", COMBOS, ids=["+".join(c) for c in COMBOS])
def test_simulated_barn_games_replay_and_match_the_rebuild(rules, tmp_path):
    """Random games: `simulate --record` writes barn corners that `replay` accepts with the same
    scores, and the engine's features (barns included) match the networkx rebuild after every move
    (`verify --engine`; 200 games per combination are measured in the report, 3 here)."""
    from tessera.replay.tiles import engine_for
    from tessera.play.simulate import play_one, simulate
    from tessera.dsl.loader import require_rule_set
    from tessera.verifier.engine_check import check_engine

    eng = engine_for(rules, [])
    simulate(eng, 3, 2, 11, rules, tmp_path)
    barns = 0
    for f in sorted(tmp_path.glob("*.json")):
        rec = load_record(f)
        barns += sum(1 for t in rec["turns"] if t.get("place", {}).get("figure") == "barn")
        res = replay(rec, f.parent)
        assert res.error is None, (f.name, res.error)
        g, _ = play_one(eng, 2, rec["seed"])
        assert res.answer["scores"] == {g.names[p]: g.scores[p] for p in range(2)}, f.name
    assert barns > 0
    mismatches, checked = check_engine(require_rule_set(rules), 3, 2, seed=0)
    assert mismatches == [] and checked > 100


def test_a_house_rule_changes_the_barn_in_text(tmp_path):
    """No Barn number or condition is in Python: a variant that lets farmers onto a barn's field
    (BARN-FOLLOW-1 switched off) and pays 4 per city when a barn is put (BARN-SCORE-1) changes
    what the engine does.  The farmer refused in farmer_on_barn_field.json is accepted, and the
    tied farmers of put_tied_farmers.json get 4 * 3 = 12 each."""
    import json

    house = tmp_path / "open_barns.tess"
    house.write_text("module open_barns extends barn\n"
                     "override forbid follower on field when false  [BARN-FOLLOW-1]\n"
                     "override score field put barn = 4 * completed_cities  [BARN-SCORE-1]\n", encoding="utf-8")
    for name, check in (("farmer_on_barn_field.json", lambda res: res.error is None),
                        ("put_tied_farmers.json", lambda res: res.answer["scores"] == {"red": 12, "blue": 12})):
        rec = json.loads(record_file(f"barn/{name}").read_text(encoding="utf-8"))
        rec["rules"] = [str(house)]
        res = replay(rec, tmp_path)
        assert check(res), (name, res.error, res.answer)


@pytest.mark.parametrize("place", [{"figure": "barn", "corner": "N"}, {"figure": "barn", "corner": ["NE"]},
                                   {"figure": "barn", "corner": "NE", "on": "Nw"}])
def test_a_malformed_corner_is_a_record_error(place):
    from tessera.replay.tiles import RecordError

    rec = {"format": "tessera-game/1", "rules": ["base", "barn"], "players": ["red", "blue"],
           "turns": [{"tile": "B", "at": [0, 1], "rotation": 0, "place": place}], "end": "none"}
    with pytest.raises(RecordError):
        replay(rec)


def test_allow_adds_a_placement_option_without_restating_the_figure(tmp_path):
    """`allow` (the other half of X3): a house rule lets a follower stand on a garden, which
    base's `figure follower ... on city, road, cloister, field` does not list.  The record of
    rules/records/base/follow1_garden_without_abbot.json (refused under BASE-FOLLOW-1) is then
    accepted, and the follower stands on the garden; `when` is the allow's own."""
    import json

    house = tmp_path / "garden_monks.tess"
    house.write_text("module garden_monks extends base\n"
                     "allow follower on garden when figures == 0  [BASE-FOLLOW-1]\n", encoding="utf-8")
    rec = json.loads(record_file("base/follow1_garden_without_abbot.json").read_text(encoding="utf-8"))
    assert replay(rec).error["clause"] == "BASE-FOLLOW-1"
    rec["rules"] = [str(house)]
    res = replay(rec, tmp_path)
    assert res.error is None, res.error
    (garden,) = [f for f in res.game.features() if f["kind"] == "garden"]
    assert garden["figures"] == [("red", "follower")]


# == the Barn's scorings against an independent reading, over whole random games =============
def _owners(farmers):
    """The field's owners by the base rule: the players with the most farmers on it."""
    from collections import Counter

    c = Counter(farmers)
    top = max(c.values(), default=0)
    return sorted(p for p, n in c.items() if n == top)


def _independent_barn(rules, seed):
    """BARN-SCORE-1, BARN-SCORE-2 and BARN-END-1 read from the text alone, on the networkx rebuild of
    the board (tessera.verifier.engine_check.BoardGraph, from the rule files' tiles, never the engine's
    union-find): a barn put on a field with farmers gives the field's owners 3 per completed city
    bordering it; a tile that joins farmers to a barn's field gives the joined field's owners 1 per
    completed city; at the end each barn gives its owner 4 per completed city bordering its field.
    Where the farmers stand is read from the engine before each move (`tessera.verifier.engine_check`
    compares each engine feature, its figure count included, with the rebuild). Returns (what the
    text gives, what the engine did)."""
    import random
    from collections import Counter

    from tessera.dsl.loader import require_rule_set
    from tessera.dsl.places import CORNER_HALVES
    from tessera.verifier.engine_check import BoardGraph, _sync

    g = engine_for(rules, []).new_game(2, seed)
    bg = BoardGraph(require_rule_set(rules), {})
    _sync(bg, g)
    barn = g.figure_index("barn")
    rng = random.Random(seed)
    barns, want, got = [], [], []

    def state():
        comps = bg.components()
        index = {n: i for i, c in enumerate(comps) for n in c}

        def kind(c):
            return bg.g.nodes[next(iter(c))]["kind"]

        def cities(c):
            return sum(1 for b in bg.borders(c, index) if kind(comps[b]) == "city" and bg.open_edges(comps[b]) == 0)
        return [c for c in comps if kind(c) == "field"], cities

    while not g.ended:
        a = rng.choice(g.legal_actions())
        mover, turn = g.names[g.current], g.turn
        farmers = [(p, (cell, place)) for f in g.features() if f["kind"] == "field"
                   for p, fig, cell, place in f["figure_places"] if fig == "follower"]
        seen = len(g.events)
        g.apply_action(a)
        _sync(bg, g)
        put = None
        if isinstance(a[0], tuple) and a[2] is not None and a[2][0] == barn:
            put = (a[0], CORNER_HALVES[a[2][2]][0])  # the barn joins the field on its corner
            barns.append((mover, put))
        fields, cities = state()
        for c in fields:
            on = [p for p, n in farmers if n in c]
            if not on or not cities(c):
                continue
            if put is not None and put in c:
                want.append((turn, "put", {p: 3 * cities(c) for p in _owners(on)}))
            elif any(n in c for _, n in barns):
                want.append((turn, "join", {p: cities(c) for p in _owners(on)}))
        got.extend((turn, e["when"], e["points"]) for e in g.events[seen:]
                   if e.get("when") in ("put", "join") and e["points"])
    fields, cities = state()
    end_want, end_got = Counter(), Counter()
    for p, n in barns:
        end_want[p] += 4 * cities(next(c for c in fields if n in c))
    for e in g.events:
        if e.get("when") == "end" and e.get("clause") == "BARN-END-1":
            end_got.update(e["points"])
    return (sorted(want), +end_want), (sorted(got), +end_got)


# seeds whose games have barn scorings: 7 two puts, 10 a join, 24 a put and a join
@pytest.mark.parametrize("seed", [7, 10, 24])
def test_barn_scorings_match_an_independent_reading_over_random_games(seed):
    text, engine = _independent_barn(["base", "barn"], seed)
    assert text[0] and text[1], "no barn scoring in this game: pick another seed"
    assert engine == text
