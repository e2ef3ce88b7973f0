"""The base tile set of rules/base.tess against ../shared/spec/tiles.md.

The expected data below is copied from tiles.md (the published composition of
the 72 base tiles, rotation 0), not from the rule file: BASE-COMP-1 (72 tiles,
counts per letter, one D the start tile), BASE-COMP-2 (7 playable followers per
player, 5 colours) and the Abbot's gardens printed on one copy each of E H I M
N R U V.
"""
from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from tessera.dsl.loader import load_rule_set
from tessera.dsl.model import RuleSet, TileType

REPO = Path(__file__).resolve().parent.parent

# BASE-COMP-1: letters and counts (002).
COUNTS = dict(A=2, B=4, C=1, D=4, E=5, F=2, G=1, H=3, I=2, J=3, K=3, L=3, M=2, N=3, O=2, P=3,
              Q=1, R=3, S=2, T=1, U=8, V=9, W=4, X=1)
GARDENS = set("EHIMNRUV")

# tiles.md: edges N E S W, then the features; "-> P Q" = borders the features lying on P and Q.
ALL_HALVES = "field Nw Ne En Es Se Sw Ws Wn"
TILES: dict[str, tuple[str, list[str]]] = {
    "A": ("F F R F", ["cloister C", "road S", ALL_HALVES]),
    "B": ("F F F F", ["cloister C", ALL_HALVES]),
    "C": ("C C C C", ["city N E S W shields 1"]),
    "D": ("C R F R", ["city N", "road W E", "field Wn En -> N", "field Es Se Sw Ws"]),
    "E": ("C F F F", ["city N", "field En Es Se Sw Ws Wn -> N"]),
    "F": ("F C F C", ["city E W shields 1", "field Nw Ne -> E", "field Se Sw -> E"]),
    "G": ("F C F C", ["city E W", "field Nw Ne -> E", "field Se Sw -> E"]),
    "H": ("C F C F", ["city N", "city S", "field En Es Ws Wn -> N S"]),
    "I": ("C F F C", ["city N", "city W", "field En Es Se Sw -> N W"]),
    "J": ("C R R F", ["city N", "road E S", "field En Sw Ws Wn -> N", "field Es Se"]),
    "K": ("C F R R", ["city N", "road S W", "field En Es Se Wn -> N", "field Sw Ws"]),
    "L": ("C R R R", ["city N", "road E", "road S", "road W", "field En Wn -> N", "field Es Se", "field Sw Ws"]),
    "M": ("C F F C", ["city N W shields 1", "field En Es Se Sw -> N"]),
    "N": ("C F F C", ["city N W", "field En Es Se Sw -> N"]),
    "O": ("C R R C", ["city N W shields 1", "road E S", "field En Sw -> N", "field Es Se"]),
    "P": ("C R R C", ["city N W", "road E S", "field En Sw -> N", "field Es Se"]),
    "Q": ("C C F C", ["city N E W shields 1", "field Se Sw -> N"]),
    "R": ("C C F C", ["city N E W", "field Se Sw -> N"]),
    "S": ("C C R C", ["city N E W shields 1", "road S", "field Se -> N", "field Sw -> N"]),
    "T": ("C C R C", ["city N E W", "road S", "field Se -> N", "field Sw -> N"]),
    "U": ("F R F R", ["road W E", "field Wn Nw Ne En", "field Es Se Sw Ws"]),
    "V": ("F F R R", ["road S W", "field Wn Nw Ne En Es Se", "field Sw Ws"]),
    "W": ("F R R R", ["road E", "road S", "road W", "field Wn Nw Ne En", "field Es Se", "field Sw Ws"]),
    "X": ("R R R R", ["road N", "road E", "road S", "road W", "field Wn Nw", "field Ne En", "field Es Se", "field Sw Ws"]),
}


@pytest.fixture(scope="module")
def rs() -> RuleSet:
    rules, diags, _ = load_rule_set([str(REPO / "rules" / "base.tess")])
    assert rules is not None, [d.header() for d in diags]
    assert not [d for d in diags if d.severity == "error"]
    return rules


def _expected(features: list[str]) -> Counter:
    """(kind, places, shields, {places of each bordered feature}) for each feature of the spec."""
    parsed = []
    for text in features:
        head, _, borders = text.partition(" -> ")
        words = head.split()
        shields = 0
        if "shields" in words:
            i = words.index("shields")
            shields = int(words[i + 1])
            words = words[:i]
        parsed.append((words[0], frozenset(words[1:]), shields, borders.split()))
    out = Counter()
    for kind, places, shields, refs in parsed:
        bordered = frozenset(next(p for _, p, _, _ in parsed if ref in p) for ref in refs)
        out[(kind, places, shields, bordered)] += 1
    return out


def _actual(tt: TileType) -> Counter:
    return Counter((f.kind, frozenset(f.places), f.shields,
                    frozenset(frozenset(tt.features[i].places) for i in f.borders)) for f in tt.features)


def test_BASE_COMP_1_letters_and_total(rs: RuleSet) -> None:
    """BASE-COMP-1: 72 land tiles, A2 B4 C1 D4 E5 F2 G1 H3 I2 J3 K3 L3 M2 N3 O2 P3 Q1 R3 S2 T1 U8 V9 W4 X1."""
    per_letter = Counter()
    for tt in rs.tiles:
        per_letter[tt.name] += tt.count
    assert dict(per_letter) == COUNTS
    assert sum(COUNTS.values()) == 72
    assert sum(tt.count for tt in rs.tiles) == 72
    assert [t.count for _, t in rs.totals] == [72]


@pytest.mark.parametrize("letter", sorted(TILES))
def test_BASE_COMP_1_tile_composition(rs: RuleSet, letter: str) -> None:
    """BASE-COMP-1 (tiles.md): edges per side, shields, every feature's places and the cities each field borders."""
    edges, features = TILES[letter]
    types = rs.tile_types(letter)
    assert types, f"no tile {letter}"
    plain = [t for t in types if t.variant is None]
    assert len(plain) == 1
    tt = plain[0]
    assert tt.edges == tuple(edges.split())
    assert _actual(tt) == _expected(features)
    for f in tt.features:
        assert f.crosses is None  # nothing crosses in the base game


def test_BASE_COMP_1_edge_codes(rs: RuleSet) -> None:
    """BASE-COMP-1: C is city across the side, R a road between two field halves, F field."""
    assert {code: e.parts for code, e in rs.edges.items()} == {
        "C": ("city",), "R": ("field", "road", "field"), "F": ("field",)}


def test_BASE_COMP_1_shields(rs: RuleSet) -> None:
    """BASE-COMP-1 (tiles.md): one shield each on C, F, M, O, Q, S and nowhere else."""
    with_shields = {tt.name: sum(f.shields for f in tt.features) for tt in rs.tiles if tt.variant is None}
    assert {k for k, v in with_shields.items() if v} == set("CFMOQS")
    assert all(v in (0, 1) for v in with_shields.values())


@pytest.mark.parametrize("letter", sorted(TILES))
def test_gardens_on_E_H_I_M_N_R_U_V(rs: RuleSet, letter: str) -> None:
    """BASE-COMP-1 with the current edition's gardens (ABBOT-COMP-1): one copy each of
    E H I M N R U V prints a garden at C; counts per letter are unchanged."""
    types = {t.variant: t for t in rs.tile_types(letter)}
    if letter not in GARDENS:
        assert set(types) == {None}
        return
    assert set(types) == {None, "garden"}
    garden, plain = types["garden"], types[None]
    assert garden.count == 1 and plain.count == COUNTS[letter] - 1
    assert garden.id == f"{letter}+garden"
    assert garden.edges == plain.edges
    extra = _actual(garden) - _actual(plain)
    assert extra == Counter({("garden", frozenset({"C"}), 0, frozenset()): 1})
    assert _actual(plain) + extra == _actual(garden)


def test_eight_garden_copies(rs: RuleSet) -> None:
    """ABBOT-COMP-1 / tiles.md: 8 garden copies in all."""
    assert sum(t.count for t in rs.tiles if t.variant == "garden") == 8
    assert rs.features["garden"].centre


def test_BASE_COMP_1_D_is_the_start_tile(rs: RuleSet) -> None:
    """BASE-COMP-1 / BASE-SETUP-1: one D is the start tile, face up at [0, 0], rotation 0; the rest are shuffled."""
    assert rs.start is not None
    assert (rs.start.tile, rs.start.x, rs.start.y, rs.start.rotation) == ("D", 0, 0, 0)
    assert sum(t.count for t in rs.tile_types("D")) == 4  # the start tile is one of the four
    assert [(d.name, d.tiles) for d in rs.decks] == [("land", ())]


def test_BASE_COMP_2_seven_followers_per_player(rs: RuleSet) -> None:
    """BASE-COMP-2: 5 colours, 8 followers each, the 8th marks the score: 7 playable followers per player."""
    fig = rs.figures["follower"]
    assert fig.count == 7
    assert set(fig.on) == {"city", "road", "cloister", "field"}  # BASE-FOLLOW-1
    assert rs.players is not None and (rs.players.low, rs.players.high) == (2, 5)
