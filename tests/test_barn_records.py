"""The Barn (rulebook 002) as game records: one or more per BARN clause.

Each record in `tests/records/barn/` is replayed by the engine; `CASES` gives what
the rulebook says must happen.  The expected numbers are worked out by hand from
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

from pathlib import Path

import pytest

from dataclasses import dataclass

from compiler.replay import load_record, replay

RECORDS = Path(__file__).parent / "records" / "barn"


@dataclass(frozen=True)
class Expect:
    """What the rulebook says a record gives (as in test_expansions.py): events are
    (turn, feature, when, points, clause), compared completely; illegal is (turn, clause,
    substrings of the message)."""

    clause: str
    doc: str
    scores: dict | None = None
    events: list | None = None
    supply: dict | None = None
    illegal: tuple | None = None


def _clause_ok(got: str, want) -> bool:
    return got in want if isinstance(want, (set, frozenset)) else got == want


def _event_key(ev):
    return (ev["turn"], ev["feature"], ev["when"], tuple(sorted(ev["points"].items())))

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


def _run(rel: str):
    path = RECORDS / rel
    return replay(load_record(path), path.parent)


@pytest.mark.parametrize("rel", sorted(CASES), ids=[f"{CASES[r].clause}:{r}" for r in sorted(CASES)])
def test_barn_record(rel):
    exp = CASES[rel]
    res = _run(rel)
    if exp.illegal is not None:
        turn, clause, words = exp.illegal
        assert res.error is not None, f"{rel}: {exp.doc}: the engine accepted it: {res.answer}"
        assert res.error["turn"] == turn, res.error
        assert _clause_ok(res.error["clause"], clause), f"{exp.clause}: {res.error}"
        for w in words:
            assert w in res.error["message"], res.error
        return
    assert res.error is None, f"{rel}: {exp.doc}: {res.error}"
    ans = res.answer
    assert ans["scores"] == exp.scores, f"{exp.clause}: {exp.doc}: {ans}"
    got = sorted(ans["events"], key=_event_key)
    want = sorted(exp.events, key=lambda e: (e[0], e[1], e[2], tuple(sorted(e[3].items()))))
    assert [_event_key(e) for e in got] == [(t, f, w, tuple(sorted(p.items()))) for t, f, w, p, _ in want], ans["events"]
    for ev, (*_, clause) in zip(got, want):
        assert _clause_ok(ev["clause"], clause), ev
    for player, figs in exp.supply.items():
        for fig, n in figs.items():
            assert ans["supply"][player][fig] == n, (player, fig, ans["supply"])


def test_every_barn_record_has_a_case():
    assert {p.name for p in RECORDS.glob("*.json")} == set(CASES)


def test_every_barn_clause_has_a_record():
    clauses = {"BARN-PLACE-1", "BARN-SCORE-1", "BARN-FOLLOW-1", "BARN-SCORE-2", "BARN-END-1"}
    assert {c.clause for c in CASES.values()} == clauses
