"""`tessera fmt`: canonical, idempotent, meaning-preserving, and keeping comments.

For every rule file under rules/ (globbed, so new files are covered) and for
synthetic snippets that use every statement kind of dsl/ast.py:
format(x) parses to the same AST as x (spans are not compared),
format(format(x)) == format(x), and every comment of x appears exactly once in
format(x), in the same order.  Random expression and statement trees check the
parenthesisation and the quoting of strings; random modules with comments (and
line breaks) sprinkled between their tokens check where comments go.
"""
from __future__ import annotations

import functools
import keyword
import random
import re
import typing
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from tessera.dsl import ast as A
from tessera.dsl.fmt import comments, format_expr, format_module, format_string
from tessera.dsl.parser import ParseFailure, _parser, make_parser, parse
from tessera.cli import app

REPO = Path(__file__).resolve().parent.parent
RULE_FILES = sorted((REPO / "rules").rglob("*.tess"))


def roundtrip(text: str) -> str:
    mod = parse(text, "x.tess")
    out = format_module(mod, text)
    assert parse(out, "x.tess") == mod, out
    assert comments(out) == comments(text), out
    assert format_module(parse(out, "x.tess"), out) == out, "fmt is not idempotent"
    return out


# ----------------------------------------------------------------- rule files
def test_there_are_rule_files() -> None:
    assert any(p.name == "base.tess" for p in RULE_FILES)


@pytest.mark.parametrize("path", RULE_FILES, ids=lambda p: str(p.relative_to(REPO)))
def test_rule_file_roundtrip(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    out = roundtrip(text)
    assert out.endswith("\n") and not out.endswith("\n\n")
    assert all(line == line.rstrip() for line in out.splitlines()), "trailing spaces"
    # every comment exactly once, in order (a plain scan: `#` outside strings)
    assert comments(out) == comments(text) == _scan_comments(text)


def _scan_comments(text: str) -> list[str]:
    """`#` to the end of the line, outside strings (strings do not span lines)."""
    out = []
    for line in text.split("\n"):
        for m in re.finditer(r'"(?:[^"\\]|\\.)*"|#.*', line):
            if m.group().startswith("#"):
                out.append(m.group().rstrip())
                break
    return out


# ----------------------------------------------------------- synthetic modules
EVERYTHING = r'''
module everything "All \"statements\"\n\tand é \\ ☃" [BASE-COMP-1, BASE-COMP-2]
requires base, river [BASE-COMP-1]
extends abbot
total 3 [BASE-COMP-1]
composition 18 [TOWER-COMP-1]
composition: A x2, river.source x1 [BASE-COMP-1]
composition 2: siege.fortress x2 [SIEGE-COMP-1]
players 2..5 [BASE-COMP-2]
edge R = field road field "a road" [BASE-ROAD-1]
edge C = city
feature city "walled" [BASE-CITY-1]
feature cloister centre
figure follower 7 per player on city, road when figures == 0 and not (open > 1 or tiles < 2) [BASE-COMP-2]
figure big 1 per player on city
tile river.source x3 [BASE-COMP-1] {
  edges C R F R
  city N shields 2
  road W E crosses N
  field Wn En -> N
  field -> N C
  variant garden x1 [BASE-COMP-3] { garden C }
  variant two x1 { garden C pond C }
  variant none x0 { }
}
tile Z { edges F F F F field Nw }
start D at -1 2 rotation 90 [BASE-SETUP-1]
deck river = tiles river.source, B last river.lake before land [RIVER-SETUP-1]
deck land = rest
deck other = rest last X
deck more = tiles A before land
box D [RIVER-SETUP-1]
placement adjacent
placement continues river [RIVER-PLACE-1]
complete road when open == 0 [BASE-ROAD-1]
score city complete = 2 * (tiles + shields) - -1 // 2 % (3 - 1) [BASE-CITY-2]
score city end = if tiles > 2 then max(tiles, 3) else min(1, -(2 + 1))
owners all
return follower when scored [BASE-SCORE-2]
state king = -1
on place of river where turn(river) != 0 [RIVER-PLACE-2] {
  require (not (turn(river) == 1)) == true "no \"U\" turns"
  require true
  set king = current
}
on complete { }
award king at end = completed(city)
recall abbot = 1 + neighbours
figure floor (if players == 2 then 10 else 5) per player on tower anywhere [TOWER-TURN-1]
capture 1 of follower, abbot [TOWER-FIGURES-1] in line within figures [TOWER-CAPTURE-2] after put floor [TOWER-CAPTURE-1]
exchange prisoners [TOWER-SWAP-1]
ransom follower = 3 when points >= 3 [TOWER-RANSOM-1]
figure barn 1 per player [BARN-PLACE-1] at corner on field [BARN-PLACE-1] when count(barn) == 0
figure pig 1 per player at corner on field
score field put barn = 3 * completed_cities [BARN-SCORE-1]
score field join barn = completed_cities
score field end by barn = 4 * completed_cities [BARN-END-1]
forbid follower on field when count(barn) > 0 [BARN-FOLLOW-1]
allow follower on tower, field
track knights for city row (if players == 3 or players >= 5 then 5 else 4) [SIEGE-OUTPOST-4] pool catapult 1 [SIEGE-OUTPOST-1]
track monks for cloister, garden row 4 catapult 2
on put follower, abbot of city, cloister [SIEGE-OUTPOST-2] { may put follower on row }
on put follower { may put follower on pool }
on full of knights, monks [SIEGE-COUNTER-1] {
  score each 3 * own
  return follower from outpost
  remove catapult from outpost
}
on overflow of knights { remove 1 of follower, abbot where own == 0 remove 1 of follower }
on end of knights { }
on draw [SIEGE-ADVANCE-1] { put catapult on symbols }
on draw of city, road { put catapult on symbols }
on round end [HOUSE-1] { release follower, abbot }
on round end where current == 0 and players > 2 { release follower release abbot }
override on round end [HOUSE-1] { release follower }
invariant nonneg: (if true then 1 else 2) >= 0 or false and true
example e1 [BASE-CITY-2] {
  tiles = 3
  who = red
  text = "a b"
  num = "12"
  neg = -4
  points = {red: 8, blue: -1}
  empty = {}
}
example empty { }
override score city complete = 1 [BASE-CITY-2]
override on place { set a = 1 }
override figure follower 8 per player on city
override owners most
override award king at end = 1
override recall abbot = 2
override capture 1 of follower in line within 1 after put floor
override ransom follower = 2
override track knights for city row 3 catapult 1
override on full of knights [SIEGE-COUNTER-1] { }
override on put follower of field [SIEGE-OUTPOST-3] { may put follower on pool }
override state king = 0
override players 1..6
override return follower when scored
override start D at 0 0
override deck land = rest
override complete city when true
override forbid follower on field when false [BARN-FOLLOW-1]
'''

SNIPPETS = {
    "everything": EVERYTHING,
    "minimal": "module m",
    "titled": 'module m "t"',
    "paragraphs": "module m\n\n\nfeature a [BASE-COMP-1]\n# kept\nfeature bb [BASE-COMP-2]\nfeature c [BASE-COMP-3]\n\n",
    "one line": "module m feature a feature b tile A x1 { edges F F F F field N E S W } total 1",
    "long figure": "module m figure f 1 per player on a, b, c, d, e, f, g, h, i, j, k when figures == 0 and open == 0 "
                   "[BASE-COMP-2, BASE-FOLLOW-1, BASE-FOLLOW-2]",
    "keywords as names": "module m score c complete = a or if\nscore c end = 1 - not",
    "params": "module m\nparam city_tile = 2 in 1..4 [BASE-CITY-2]\noverride param bonus = -1 in -3..3\n",
    "siege and refcard": """module s
requires base
tile siege.fortress x2 cells 3x2 [SIEGE-COMP-1, SIEGE-PLACE-1] {
  edges (F F F) (F I) (F F F) (I F)
  fortress C1 C2 C3 C4 C5 C6
  field N1w N1e N2w N2e -> C1
  road W E marks inn  marks wine 2
  symbols knights any
}
start siege.fortress at 0 0, siege.fortress at 3 0 rotation 0, river.source at -1 1 [SIEGE-SETUP-1]
# before the block
with river [SIEGE-SETUP-1] {
  # inside
  override start D at 0 0
  state first = 0  # trailing
  on place of river { set first = 1 }
}
without river { box siege.river }
assume drawing "the fortress \\"as drawn\\"" [SIEGE-COMP-1, SIEGE-SETUP-1]
assume two "short"
state wine of each player = 0
on complete of city { set wine of current = wine of (current) + marks(wine) }
award most wine at end = 10 [REF-SCORE-1]
""",
    "card game": """module c "cards" [CARD-COMP-1]
colour red "road" [CARD-COMP-1]
colour blue
card people x8 per colour value 1 [CARD-COMP-1]
card dragon x2 joker
card treasure x5 aside
cards 23
layout 2 [CARD-DEAL-1]
deal 2 players 6 cards 10 rounds, 3 players 5 cards 8 rounds, 4 players 5 cards 6 rounds, 5 players 4 cards 6 rounds
facedown first
dealer last_feudal
feudal big 1 per player
take dragon to removed
misplaced = 10 keep people
table pts = 0, 3, 6
score people on take = values(people) * taken(people) [CARD-SCORE-1]
score people at end = pts(min(colours(people) + chest(dragon), 4))
end when best >= 100 and round > 1
tie = held(people)
override card people x9 per colour value 1
override layout 3
override deal 2 players 1 cards 1 rounds
override facedown none
override dealer left
override feudal big 2 per player
override take dragon to pile
override misplaced = 5
override table pts = 1
override score people on take = values(people) * taken(people) + 1
override end when false
override tie = 0""",
    "house clause": 'module m\nclause HOUSE-1 "Cities score \\"3\\" per tile"\nscore city complete = 3 * tiles [HOUSE-1]',
}


@pytest.mark.parametrize("name", SNIPPETS)
def test_snippet_roundtrip(name: str) -> None:
    roundtrip(SNIPPETS[name])


def _kinds(mod: A.Module) -> set[type]:
    out = set()
    for item in mod.items:
        out.add(type(item))
        if isinstance(item, A.Override):
            out.add(type(item.decl))
    return out


def test_snippets_cover_every_statement_kind() -> None:
    """Every statement class of dsl/ast.py appears in the synthetic snippets, and every
    kind `override` accepts appears overridden."""
    mods = [parse(t) for t in SNIPPETS.values()]
    seen = set().union(*(_kinds(m) for m in mods))
    assert set(typing.get_args(A.Statement)) <= seen
    overridden = {type(i.decl) for m in mods for i in m.items if isinstance(i, A.Override)}
    assert overridden == {A.FigureDecl, A.CompleteDecl, A.ScoreDecl, A.OwnersDecl, A.OnDecl, A.AwardDecl,
                          A.RecallDecl, A.StateDecl, A.Players, A.ReturnDecl, A.StartDecl, A.DeckDecl,
                          A.CaptureDecl, A.RansomDecl, A.PermitDecl, A.TrackDecl, A.OnPutDecl, A.OnTrackDecl,
                          A.OnRoundDecl, A.CardDecl, A.LayoutDecl, A.DealDecl, A.FacedownDecl, A.DealerDecl, A.FeudalDecl, A.TakeDecl,
                          A.MisplacedDecl, A.TableDecl, A.CardScoreDecl, A.EndDecl, A.TieDecl, A.ParamDecl}


def test_everything_layout() -> None:
    out = roundtrip(EVERYTHING)
    assert out.startswith('module everything "All \\"statements\\"\\n\\tand é \\\\ ☃" [BASE-COMP-1, BASE-COMP-2]\n')
    assert "  variant garden x1 [BASE-COMP-3] { garden C }\n" in out
    assert "  variant two x1 {\n    garden C\n    pond C\n  }\n" in out
    assert "  variant none x0 {}\n" in out
    assert "tile Z x1 {\n  edges F F F F\n  field Nw\n}\n" in out
    assert "score city complete = 2 * (tiles + shields) - -1 // 2 % (3 - 1)" in out
    assert "score city end = if tiles > 2 then max(tiles, 3) else min(1, -(2 + 1))" in out
    assert '  require not turn(river) == 1 == true "no \\"U\\" turns"\n' not in out  # needs its parentheses
    assert '  require (not turn(river) == 1) == true "no \\"U\\" turns"\n' in out
    assert "invariant nonneg: (if true then 1 else 2) >= 0 or false and true" in out
    assert "  points = {red: 8, blue: -1}\n" in out  # the parser sorts mappings; fmt keeps the written order
    assert "  points = {blue: -1, red: 8}\n" in format_module(parse(EVERYTHING))  # (without the text: sorted)
    assert '  num = "12"\n' in out and "  who = red\n" in out and '  text = "a b"\n' in out
    assert "on complete {}\n" in out and "example empty {}\n" in out
    assert "start D at 0 0 rotation 0" in out
    assert "deck river = tiles river.source, B last river.lake before land" in out


def test_paragraphs_and_alignment() -> None:
    out = roundtrip(SNIPPETS["paragraphs"])
    assert out == "module m\n\nfeature a [BASE-COMP-1]\n# kept\nfeature bb  [BASE-COMP-2]\nfeature c   [BASE-COMP-3]\n"


def test_titles_and_on_heads_align_with_citations() -> None:
    out = roundtrip('module m\nedge C = city "wall" [BASE-CITY-1]\nedge R = field road field "road"\n'
                    'feature garden centre "no effect"\n\n'
                    "state s = 0 [KING-1]\non complete of city where tiles > s [KING-1] { set s = tiles }\n"
                    "award s at end = 1 [KING-1]\n")
    assert out == ('module m\nedge C = city              "wall" [BASE-CITY-1]\n'
                   'edge R = field road field  "road"\n'
                   'feature garden centre      "no effect"\n\n'
                   "state s = 0                          [KING-1]\n"
                   "on complete of city where tiles > s  [KING-1] {\n  set s = tiles\n}\n"
                   "award s at end = 1                   [KING-1]\n")


def test_long_figure_wraps_before_when() -> None:
    out = roundtrip(SNIPPETS["long figure"])
    first, second = out.splitlines()[1:3]
    assert first.startswith("figure f 1 per player on a, b")
    assert second.startswith("    when figures == 0 and open == 0 [BASE-COMP-2")


def test_comments_are_dropped_nowhere() -> None:
    out = roundtrip("# head\nmodule m # trailing\n# between\nfeature a\n")
    assert out == "# head\nmodule m  # trailing\n# between\nfeature a\n"


COMMENTED = """\
# The file's first comment.

#   Second paragraph, spaces kept: # not a new comment
module m "a # in a string" [BASE-COMP-1]   # the header's
requires base
# before the first tile
tile A x1 [BASE-COMP-1] {  # on the head
  # before edges
  edges F F F F
  field N E   # a feature's

  # a variant's
  variant garden x1 { garden C }   # after a one-line variant
  variant two x1 {
    # inside a variant
    garden C
    pond C
  }
  # at the end of the tile
}   # after the tile
score city complete = # inside a statement
    2 *         # another
    tiles       # the last one ends the line
    [BASE-CITY-2]
on complete { # an empty block's
}
on place {
  # alone in a block
}
example e {
  a = 1  b = "two"  # ends the first line of fields
  # before c
  c = {z: 1, a: 2}
  d = {y: 1, # inside a mapping
       x: 2}  e = 3
}

# the end of the file
# and its last line
"""

COMMENTED_FORMATTED = """\
# The file's first comment.

#   Second paragraph, spaces kept: # not a new comment
module m "a # in a string" [BASE-COMP-1]  # the header's
requires base
# before the first tile
tile A x1 [BASE-COMP-1] {  # on the head
  # before edges
  edges F F F F
  field N E  # a feature's

  # a variant's
  variant garden x1 { garden C }  # after a one-line variant
  variant two x1 {
    # inside a variant
    garden C
    pond C
  }
  # at the end of the tile
}  # after the tile
# inside a statement
# another
score city complete = 2 * tiles [BASE-CITY-2]  # the last one ends the line
on complete {}  # an empty block's
on place {
  # alone in a block
}
example e {
  a = 1  b = "two"  # ends the first line of fields
  # before c
  c = {z: 1, a: 2}
  d = {y: 1, x: 2}  e = 3  # inside a mapping
}

# the end of the file
# and its last line
"""


def test_comments_stay_where_they_were() -> None:
    assert roundtrip(COMMENTED) == COMMENTED_FORMATTED
    assert comments(COMMENTED)[1] == "#   Second paragraph, spaces kept: # not a new comment"
    assert len(comments(COMMENTED)) == 22


def test_comment_only_file_end_and_empty_module() -> None:
    assert roundtrip("module m # only\n") == "module m  # only\n"
    assert roundtrip("module m\n\n\n# tail") == "module m\n\n# tail\n"
    assert roundtrip("#a\n#b\nmodule m") == "#a\n#b\nmodule m\n"
    assert roundtrip("module m\r\n# crlf\r\n\r\nfeature a\r\n") == "module m\n# crlf\n\nfeature a\n"


def test_long_deck_wraps_its_tiles() -> None:
    tiles = ", ".join(f"river.tile_{i}" for i in range(12))
    out = roundtrip(f"module m deck river = tiles {tiles} last river.lake before land [RIVER-SETUP-1]")
    lines = out.splitlines()[1:]
    assert len(lines) > 2 and all(len(line) <= 88 for line in lines)
    assert lines[0].startswith("deck river = tiles river.tile_0, ") and lines[0].endswith(",")
    assert lines[-1].startswith("    river.tile_") and lines[-1].endswith(" last river.lake before land [RIVER-SETUP-1]")
    long_tail = roundtrip(f"module m deck river = tiles {tiles} last river.lake before land "
                          "[RIVER-SETUP-1, RIVER-TURN-1, BASE-COMP-1, BASE-COMP-2]").splitlines()
    assert long_tail[-1] == "    last river.lake before land [RIVER-SETUP-1, RIVER-TURN-1, BASE-COMP-1, BASE-COMP-2]"


# --------------------------------------------------------- random trees
KEYWORDS = {t.pattern.value for t in _parser().terminals if t.pattern.type == "str" and t.pattern.value.isalpha()}
NAMES = st.from_regex(r"[a-z_][a-z0-9_]{0,5}", fullmatch=True).filter(
    lambda n: n not in KEYWORDS and not keyword.iskeyword(n))
CLAUSE = st.from_regex(r"[A-Z]{1,5}-[A-Z0-9]{1,4}(-[0-9]{1,2})?", fullmatch=True).map(lambda c: A.Cite(c))
CITES = st.lists(CLAUSE, max_size=3).map(tuple)
TEXT = st.text(st.characters(blacklist_categories=()), max_size=12)  # surrogates, controls, quotes …

BIN_OPS = ["+", "-", "*", "//", "%", "==", "!=", "<", "<=", ">", ">=", "and", "or"]


def _extend(children):
    return st.one_of(
        st.builds(A.BinOp, st.sampled_from(BIN_OPS), children, children),
        st.builds(A.Not, children),
        st.builds(A.Neg, children),
        st.builds(A.Cond, children, children, children),
        st.builds(A.Call, NAMES, st.lists(children, max_size=3).map(tuple)),
    )


EXPR = st.recursive(
    st.one_of(st.builds(A.IntLit, st.integers(0, 10**12)), st.builds(A.BoolLit, st.booleans()),
              st.builds(A.Var, NAMES)),
    _extend, max_leaves=12)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(EXPR)
def test_random_expressions_roundtrip(e) -> None:
    text = f"module m state s = {format_expr(e)}"
    mod = parse(text)
    assert mod.items[0].init == e, text


@settings(max_examples=200, deadline=None)
@given(TEXT)
def test_strings_roundtrip(s: str) -> None:
    mod = parse(f"module m {format_string(s)}")
    assert mod.title == s


PLACES = st.sampled_from(["N", "E", "S", "W", "Nw", "Ne", "En", "Es", "Se", "Sw", "Ws", "Wn", "NW", "NE", "SE", "SW", "C"])
TILE_NAMES = st.from_regex(r"[A-Z][a-z0-9_]{0,3}(\.[a-z0-9_]{1,4})?", fullmatch=True)
FEATURE = st.builds(A.TileFeature, NAMES, st.lists(PLACES, max_size=3).map(tuple), st.integers(0, 3),
                    st.lists(PLACES, max_size=2).map(tuple), st.one_of(st.none(), PLACES))
FEATURES = st.lists(FEATURE, max_size=3).map(tuple)
SIGNED = st.integers(-20, 20)
VALUE = st.one_of(SIGNED, NAMES, TEXT,
                  st.dictionaries(NAMES, SIGNED, max_size=3).map(lambda d: tuple(sorted(d.items()))))
TITLE = st.one_of(st.none(), TEXT)
ACTIONS = st.lists(st.one_of(st.builds(A.Require, EXPR, st.one_of(st.none(), TEXT)),
                             st.builds(A.SetAction, NAMES, EXPR)), max_size=3).map(tuple)
OVERRIDABLE = [
    st.builds(lambda n, c, on, when, sc, oc, wc: A.FigureDecl(n, c, on, when, sc + oc + (wc if when else ()),
                                                            supply_cites=sc, on_cites=oc,
                                                            when_cites=wc if when else ()),
              NAMES, st.integers(0, 9), st.lists(NAMES, min_size=1, max_size=3).map(tuple),
              st.one_of(st.none(), EXPR), CITES, CITES, CITES),
    st.builds(A.CompleteDecl, NAMES, EXPR, CITES),
    st.builds(A.ScoreDecl, NAMES, st.sampled_from(["complete", "end"]), EXPR, CITES,
              by=st.one_of(st.none(), NAMES)),
    st.builds(A.OwnersDecl, st.sampled_from(["most", "all"]), CITES),
    st.builds(A.OnDecl, st.sampled_from(["place", "complete"]), st.one_of(st.none(), NAMES),
              st.one_of(st.none(), EXPR), ACTIONS, CITES),
    st.builds(A.AwardDecl, NAMES, EXPR, CITES),
    st.builds(A.RecallDecl, NAMES, EXPR, CITES),
    st.builds(A.StateDecl, NAMES, EXPR, CITES),
    st.builds(A.Players, st.integers(0, 9), st.integers(0, 9), CITES),
    st.builds(A.ReturnDecl, NAMES, CITES),
    st.builds(A.StartDecl, TILE_NAMES, SIGNED, SIGNED, st.integers(0, 360), CITES),
    # each part carries its own citations: the tiles, `last`, `before`
    st.builds(lambda n, tiles, last, before, sc, lc, bc: A.DeckDecl(
                  n, tiles, last, before, sc + (lc if last else ()) + (bc if before else ()),
                  last_cites=lc if last else (), before_cites=bc if before else ()),
              NAMES, st.lists(TILE_NAMES, max_size=3).map(tuple), st.one_of(st.none(), TILE_NAMES),
              st.one_of(st.none(), NAMES), CITES, CITES, CITES),
]
STATEMENT = st.one_of(
    *OVERRIDABLE,
    st.builds(A.Override, st.one_of(*OVERRIDABLE)),
    st.builds(A.Requires, st.lists(NAMES, min_size=1, max_size=3).map(tuple), CITES),
    st.builds(A.Extends, st.lists(NAMES, min_size=1, max_size=3).map(tuple), CITES),
    st.builds(A.Total, st.integers(0, 100), CITES),
    st.builds(A.CompositionDecl, st.one_of(st.none(), st.integers(0, 100)),
              st.lists(st.builds(A.CompositionCount, TILE_NAMES, st.integers(0, 9)), max_size=12).map(tuple), CITES),
    st.builds(A.EdgeDecl, st.from_regex(r"[A-Z][A-Za-z0-9_]{0,2}", fullmatch=True),
              st.one_of(st.tuples(NAMES), st.tuples(NAMES, NAMES, NAMES)), TITLE, CITES),
    st.builds(lambda k, at, title, cites: A.FeatureDecl(k, at == "centre", title, cites, halves=at == "halves"),
              NAMES, st.sampled_from([None, "centre", "halves"]), TITLE, CITES),
    st.builds(A.TileDecl, TILE_NAMES, st.integers(0, 9), st.tuples(NAMES, NAMES, NAMES, NAMES), FEATURES,
              st.lists(st.builds(A.TileVariant, NAMES, st.integers(0, 3), FEATURES, CITES), max_size=2).map(tuple),
              CITES),
    st.builds(A.BoxDecl, TILE_NAMES, CITES),
    st.builds(A.PlacementDecl, st.sampled_from(["adjacent", "matching", "continues", "discard"]),
              st.one_of(st.none(), NAMES), CITES),
    st.builds(A.InvariantDecl, NAMES, EXPR, CITES),
    st.builds(A.ExampleDecl, NAMES, st.lists(st.tuples(NAMES, VALUE), max_size=4).map(tuple), CITES),
)
MODULE = st.builds(A.Module, NAMES, TITLE, st.lists(STATEMENT, max_size=6).map(tuple), CITES)


@pytest.mark.slow
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(MODULE)
def test_random_modules_roundtrip(mod: A.Module) -> None:
    out = format_module(mod)
    try:
        again = parse(out)
    except ParseFailure as fail:  # pragma: no cover - shows the text on failure
        raise AssertionError(f"{fail}\n{out}") from None
    assert again == mod, out
    assert format_module(again) == out


# ------------------------------------------------- comments between tokens
_TOKENS: list = []


def _record(tok):
    if tok.type not in ("WS", "COMMENT"):
        _TOKENS.append(tok)
    return tok


@functools.cache
def _token_parser():
    """A parser that records each token (built when a test first needs it, not at every collection)."""
    return make_parser(lexer_callbacks={t.name: _record for t in _parser().terminals})


def token_ends(text: str) -> list[int]:
    """Where each token of `text` ends (places where a comment and a line break may go)."""
    _TOKENS.clear()
    _token_parser().parse(text)
    return sorted({t.end_pos for t in _TOKENS})


# `trail`: a comment at the end of a line (the statement goes on below it); `line`: a
# comment on a line of its own; `blank`: an empty line
KINDS = {"trail": "  {c}\n", "line": "\n{c}\n", "blank": "\n\n"}
COMMENT_TEXT = st.text(st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp")), max_size=8)


def sprinkle(text: str, picks: list[tuple[int, str, str]]) -> tuple[str, list[str]]:
    """Insert comments (`# <n> <text>`) and blank lines at token ends; return the text and its comments."""
    pieces, wanted, last = [], [], 0
    for n, (pos, kind, body) in sorted(enumerate(picks), key=lambda x: (x[1][0], x[0])):
        c = f"# {n} {body}".rstrip()
        pieces += [text[last:pos], KINDS[kind].format(c=c)]
        last = pos
        if kind != "blank":
            wanted.append(c)
    pieces.append(text[last:])
    return "".join(pieces), wanted


@pytest.mark.slow
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(MODULE, st.data())
def test_random_modules_with_comments(mod: A.Module, data) -> None:
    text = format_module(mod)
    ends = [0, *token_ends(text)]
    picks = data.draw(st.lists(st.tuples(st.sampled_from(ends), st.sampled_from(sorted(KINDS)), COMMENT_TEXT),
                               max_size=10))
    text, wanted = sprinkle(text, picks)
    assert parse(text) == mod, text
    assert comments(text) == wanted, text
    out = roundtrip(text)  # same rules, the same comments in the same order, idempotent
    assert comments(out) == wanted, out


@pytest.mark.slow
@pytest.mark.parametrize("path", RULE_FILES, ids=lambda p: str(p.relative_to(REPO)))
def test_rule_files_with_more_comments(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    rng = random.Random(path.name)
    ends = token_ends(text)
    for _ in range(5):
        picks = [(rng.choice(ends), rng.choice(sorted(KINDS)), "x{}") for _ in range(25)]
        more, wanted = sprinkle(text, picks)
        assert set(wanted) <= set(comments(roundtrip(more)))


# ---------------------------------------------------------------- the command
runner = CliRunner()


def test_fmt_command_stdout_check_and_write(tmp_path: Path) -> None:
    messy = "module m   # c\nfeature   city [BASE-CITY-1]\nscore city complete=2*(tiles)\n"
    f = tmp_path / "m.tess"
    f.write_text(messy, encoding="utf-8")
    r = runner.invoke(app, ["fmt", str(f)])
    assert r.exit_code == 0, r.output
    assert r.output == "module m  # c\nfeature city [BASE-CITY-1]\nscore city complete = 2 * tiles\n"
    r = runner.invoke(app, ["fmt", "--check", str(f)])
    assert r.exit_code == 1 and f"would reformat {f}" in r.output
    assert f.read_text(encoding="utf-8") == messy
    r = runner.invoke(app, ["fmt", "--write", str(f)])
    assert r.exit_code == 0, r.output
    assert r.output == f"reformatted {f}\n"
    assert f.read_text(encoding="utf-8") == "module m  # c\nfeature city [BASE-CITY-1]\nscore city complete = 2 * tiles\n"
    r = runner.invoke(app, ["fmt", "--check", str(tmp_path)])
    assert r.exit_code == 0, r.output
    assert [p.name for p in tmp_path.iterdir()] == ["m.tess"], "no temporary file is left behind"


def test_fmt_never_touches_a_file_that_does_not_parse(tmp_path: Path) -> None:
    bad = tmp_path / "bad.tess"
    bad.write_text("module bad\nscore city complete = 2 *\n", encoding="utf-8")
    good = tmp_path / "good.tess"
    good.write_text("module good  feature city\n", encoding="utf-8")
    r = runner.invoke(app, ["fmt", "--write", str(tmp_path)])
    assert r.exit_code == 1
    assert f"{bad}:2:25: error: an expression is missing or incomplete here (found end of file)  [syntax]" in r.output
    assert bad.read_text(encoding="utf-8") == "module bad\nscore city complete = 2 *\n"
    assert good.read_text(encoding="utf-8") == "module good\nfeature city\n"
    check = runner.invoke(app, ["check", str(bad)])
    assert check.exit_code == 1
    assert check.output == runner.invoke(app, ["fmt", str(bad)]).output  # diagnostics exactly as `check`


def test_fmt_usage_errors(tmp_path: Path) -> None:
    f = tmp_path / "m.tess"
    f.write_text("module m\n", encoding="utf-8")
    assert runner.invoke(app, ["fmt", "--write", "--check", str(f)]).exit_code == 2
    assert runner.invoke(app, ["fmt"]).exit_code == 2
    missing = runner.invoke(app, ["fmt", str(tmp_path / "nope.tess")])
    assert missing.exit_code == 2 and "no such file or folder" in missing.output  # a usage error


def test_fmt_help_says_comments_are_kept() -> None:
    r = runner.invoke(app, ["fmt", "--help"])
    assert r.exit_code == 0
    assert "Every # comment is kept" in r.output and "NOT KEPT" not in r.output


def test_fmt_write_leaves_a_file_edited_meanwhile_alone(tmp_path: Path, monkeypatch) -> None:
    import tessera.dsl.fmt

    f = tmp_path / "m.tess"
    f.write_text("module m   feature a\n", encoding="utf-8")
    real = tessera.dsl.fmt.format_module

    def edit_while_formatting(mod, text=None):
        f.write_text("module m   feature a\nfeature b  # someone's edit\n", encoding="utf-8")
        return real(mod, text)

    monkeypatch.setattr(tessera.dsl.fmt, "format_module", edit_while_formatting)
    r = runner.invoke(app, ["fmt", "--write", str(f)])
    assert r.exit_code == 1 and "changed while fmt read it" in r.output
    assert f.read_text(encoding="utf-8") == "module m   feature a\nfeature b  # someone's edit\n"


def test_shipped_rule_files_are_in_canonical_form() -> None:
    r = runner.invoke(app, ["fmt", "--check", str(REPO / "rules")])
    assert r.exit_code == 0, r.output + "run `tessera fmt --write rules/`"
