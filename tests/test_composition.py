"""`composition`: the tile counts a rulebook prints, stated in the rule file (one source).

The verifier's `set-counts` (verifier/tile_set.py) knows no count: it holds the
tiles citing a composition clause to the `composition` a module states.  These
tests change a count on one side (the tiles, or the statement) and expect the
diagnostic at the rule-file line of what disagrees.  Counts are the rulebooks':
BASE-COMP-1 (002: 72 tiles, A 2x ... X 1x), TOWER-COMP-1 (003: 18 land tiles),
SIEGE-COMP-1 (004: 18 land tiles and, apart, 2 fortress tiles).
"""
from __future__ import annotations

from pathlib import Path

import pytest

from tessera.dsl.loader import load_rule_set
from tessera.verifier.checks import load_checks, run_check

REPO = Path(__file__).resolve().parent.parent
BASE = (REPO / "rules" / "base.tess").read_text(encoding="utf-8")
TOWER = str(REPO / "rules" / "tower.tess")
SIEGE = str(REPO / "rules" / "siege.tess")
PLAIN = "{\n  edges F F F F\n  field Nw Ne En Es Se Sw Ws Wn\n}\n"


def counts(*specs: str):
    rs, diags, _ = load_rule_set(list(specs))
    assert rs is not None, [d.header() for d in diags]
    return run_check(load_checks()["set-counts"], rs)


def found(r) -> list[tuple[str, int, str]]:
    return [(Path(d.span.file).name, d.span.line, d.message) for d in r.diagnostics]


def line_of(text: str, start: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if line.startswith(start))


def write(tmp_path: Path, name: str, text: str) -> str:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return str(p)


# ------------------------------------------------------------ shipped rules
def test_shipped_compositions_are_the_rulebooks():
    """BASE-COMP-1 (002's list), RIVER-COMP-1 (12, tiles.md's copies), KING-COMP-1 (GA-GE x1)."""
    rs, _, _ = load_rule_set(["base", "river", "king_robber"])
    got = {c.cites[0].clause: (c.tiles, {e.tile: e.count for e in c.counts}) for _, c in rs.compositions}
    assert got["BASE-COMP-1"] == (72, dict(A=2, B=4, C=1, D=4, E=5, F=2, G=1, H=3, I=2, J=3, K=3, L=3, M=2,
                                           N=3, O=2, P=3, Q=1, R=3, S=2, T=1, U=8, V=9, W=4, X=1))
    assert got["RIVER-COMP-1"][0] == 12
    assert got["RIVER-COMP-1"][1]["river.straight"] == 2 and got["RIVER-COMP-1"][1]["river.curve"] == 2
    assert got["KING-COMP-1"] == (5, {n: 1 for n in ("GA", "GB", "GC", "GD", "GE")})
    r = run_check(load_checks()["set-counts"], rs)
    assert r.passed and not r.diagnostics


# --------------------------------------------------- a wrong count is caught
def test_a_wrong_tile_count_is_caught_at_the_tile(tmp_path):
    """tile A x3 (and a total to match): the composition still says A x2 (BASE-COMP-1)."""
    text = BASE.replace("tile A x2 [BASE-COMP-1]", "tile A x3 [BASE-COMP-1]").replace("total 72 ", "total 73 ")
    r = counts(write(tmp_path, "base.tess", text))
    assert not r.passed
    assert found(r) == [
        ("base.tess", line_of(text, "tile A "), "tile A has 3 copies, but the rulebook counts 2"),
        ("base.tess", line_of(text, "composition"), "the tiles citing BASE-COMP-1 add up to 73, but the rulebook has 72"),
    ]


def test_a_wrong_count_in_the_composition_is_caught(tmp_path):
    """The statement is checked against the tiles too: a transcription slip shows on both lines."""
    text = BASE.replace("composition: A x2,", "composition: A x3,")
    r = counts(write(tmp_path, "base.tess", text))
    assert found(r) == [
        ("base.tess", line_of(text, "tile A "), "tile A has 2 copies, but the rulebook counts 3"),
        ("base.tess", line_of(text, "composition"), "the tiles citing BASE-COMP-1 add up to 72, but the rulebook has 73"),
    ]


def test_a_listed_tile_that_is_missing_is_caught(tmp_path):
    f = write(tmp_path, "kings.tess", "module kings\nrequires base\ncomposition: GA x1, GB x1 [KING-COMP-1]\n"
                                      f"tile GA x1 [KING-COMP-1] {PLAIN}")
    assert found(counts(f)) == [
        ("kings.tess", 3, "the rulebook's kings tile GB (x1) is missing"),
        ("kings.tess", 3, "the tiles citing KING-COMP-1 add up to 1, but the rulebook has 2"),
    ]


# ----------------------------------------- Tower and Siege: counts in examples
def test_tower_tiles_are_held_to_TOWER_COMP_1(tmp_path):
    """003 prints 18 land tiles; the bundled Tower has them, and a house rule adding one more
    fails at the Tower's composition line."""
    assert found(counts(TOWER)) == []
    f = write(tmp_path, "more.tess", f"module more\nrequires base, tower\ntile tower.extra x1 [TOWER-COMP-1] {PLAIN}")
    r = counts(f)
    line = line_of(Path(TOWER).read_text(encoding="utf-8"), "composition")
    assert r.clauses == ("BASE-COMP-1", "BASE-COMP-3", "TOWER-COMP-1")  # BASE-COMP-3: the tiles with a garden
    assert found(r) == [("tower.tess", line, "the tiles citing TOWER-COMP-1 add up to 19, but the rulebook has 18")]
    f = write(tmp_path, "tower_alone.tess", f"module tower\nrequires base\ntile tower.a x1 [TOWER-COMP-1] {PLAIN}")
    assert "TOWER-COMP-1" not in counts(f).clauses  # no module states it: nothing to hold the tiles to


def test_siege_counts_its_fortress_tiles_apart(tmp_path):
    """004: 18 land tiles, and 2 fortress tiles counted apart (SIEGE-COMP-1), in rules/siege.tess."""
    r = counts(SIEGE)
    assert r.passed and not r.diagnostics, found(r)
    extra = write(tmp_path, "more.tess", f"module more\nrequires siege\ntile siege.extra x1 [SIEGE-COMP-1] {PLAIN}")
    text = Path(SIEGE).read_text(encoding="utf-8")
    assert found(counts(extra)) == [
        ("siege.tess", line_of(text, "composition 18"),
         "the tiles citing SIEGE-COMP-1 add up to 19 (besides siege.fortress, counted apart), but the rulebook has 18"),
    ]


# ------------------------------------------------- the statement itself
@pytest.mark.parametrize("text,message,code", [
    ("composition 3", "a composition states the counts of one composition clause, but this one cites none: "
                      "cite it, as in `composition 18 [TOWER-COMP-1]`", "composition"),
    ("composition 3 [BASE-COMP-1, RIVER-COMP-1]", "a composition states the counts of one composition clause, "
                                                  "but this one cites 2 clauses: cite it, as in `composition 18 [TOWER-COMP-1]`", "composition"),
    ("composition [BASE-COMP-1]", "a composition states how many tiles (`composition 18`), how many of each "
                                  "(`composition: A x2, B x4`), or both", "composition"),
    ("composition 3: A x1, B x1 [BASE-COMP-1]", "this composition of BASE-COMP-1 states 3 tiles, but its list adds up to 2",
     "composition"),
    ("composition: A x1, A x2 [BASE-COMP-1]", "tile `A` is already counted for BASE-COMP-1 at ", "duplicate"),
    ("composition: A x0 [BASE-COMP-1]", "`A x0`: a tile the rulebook prints is there at least once", "range"),
    ("composition 3 [BASE-COMP-1]\ncomposition 4 [BASE-COMP-1]",
     "BASE-COMP-1 already has a composition without a list at ", "composition"),
])
def test_a_malformed_composition_is_a_diagnostic(tmp_path, text, message, code):
    rs, diags, _ = load_rule_set([write(tmp_path, "m.tess", f"module m\n{text}\n")])
    assert rs is None
    assert [(d.code, d.message[:len(message)]) for d in diags] == [(code, message)]
    assert all(d.span.line >= 2 for d in diags)
