"""Topology verifier: tiles drawn as networkx graphs (verifier/topology.py), tile sets
(verifier/tile_set.py) and the river laid (verifier/river_layer.py).

The shipped rules are correct per ../shared/spec/tiles.md, so every topology
check must pass on every bundled combination and report nothing at all.  Each
bad fixture in tests/fixtures/topology/ breaks one thing and must be caught by
its check, with a message a designer understands, at its line.
"""
from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from tessera.dsl.loader import load_rule_set
from tessera.cli import VERIFY_DEFAULT, app
from tessera.verifier.checks import CheckResult, load_checks, register, run_check, run_checks, REGISTRY
from tessera.verifier.river_layer import RiverLayer
from tessera.verifier.topology import Kinds, TopologyGraph, analyse

REPO = Path(__file__).resolve().parent.parent
FIX = "tests/fixtures/topology"
TOPOLOGY = ["tile-edge-places", "tile-features-connected", "tile-crossings", "tile-field-borders",
            "tile-corners", "set-counts", "set-edge-kinds", "set-fit", "set-river"]
runner = CliRunner()


def rule_set(*specs: str):
    rs, diags, _ = load_rule_set(list(specs))
    assert rs is not None, diags
    return rs


def results(*specs: str) -> dict[str, CheckResult]:
    return {r.name: r for r in run_checks(rule_set(*specs), TOPOLOGY)}


# ------------------------------------------------------------ shipped rules
@pytest.mark.parametrize("combo", VERIFY_DEFAULT)
def test_shipped_rules_pass_and_report_nothing(combo):
    res = results(*combo.split("+"))
    for name in TOPOLOGY:
        r = res[name]
        assert r.passed, (name, [d.header() for d in r.diagnostics], r.messages)
        assert not r.diagnostics and not r.messages, (name, [d.header() for d in r.diagnostics])


def test_river_is_checked_only_where_there_is_a_river():
    assert results("base")["set-river"].skipped
    r = results("base", "river")["set-river"]
    assert not r.skipped and r.passed
    assert {"RIVER-PLACE-1", "RIVER-PLACE-2"} <= set(r.clauses)


def test_clauses_name_what_the_rule_set_holds():
    res = results("base", "river", "king_robber")
    assert res["set-counts"].clauses == ("BASE-COMP-1", "BASE-COMP-3", "RIVER-COMP-1", "KING-COMP-1")
    assert {"RIVER-COMP-1", "KING-COMP-1"} <= set(res["tile-crossings"].clauses)  # the bridge, GE
    assert res["tile-field-borders"].clauses == ("BASE-FIELD-3",)


# --------------------------------------------------------- the tile graph
def graph(rs, name: str) -> TopologyGraph:
    return TopologyGraph(next(t for t in rs.tiles if t.id == name), Kinds.of(rs))


def feats(g: TopologyGraph, idxs) -> set[str]:
    return {f"{g.feature(i).kind} {' '.join(g.feature(i).places)}" for i in idxs}


def test_derived_borders_of_base_tiles():
    rs = rule_set("base")
    kinds = Kinds.of(rs)
    expect = {  # tiles.md: field -> the cities it borders
        "D": {"field Wn En": {"city N"}, "field Es Se Sw Ws": set()},
        "L": {"field En Wn": {"city N"}, "field Es Se": set(), "field Sw Ws": set()},
        "H": {"field En Es Ws Wn": {"city N", "city S"}},
        "J": {"field En Sw Ws Wn": {"city N"}, "field Es Se": set()},
        "I": {"field En Es Se Sw": {"city N", "city W"}},
        "F": {"field Nw Ne": {"city E W"}, "field Se Sw": {"city E W"}},
    }
    for name, fields in expect.items():
        g = graph(rs, name)
        a = analyse(g.tile, kinds)
        for f, can in a.may:
            label = f"field {' '.join(g.feature(f).places)}"
            assert feats(g, can) == fields[label], (name, label)
        for f, beside in a.must:  # on these tiles "touches in every drawing" is exact too
            label = f"field {' '.join(g.feature(f).places)}"
            assert feats(g, {j for j, _, _ in beside if g.feature(j).kind == "city"}) == fields[label], (name, label)


def test_declared_crossings_are_real_crossings():
    rs = rule_set("base", "river", "king_robber")
    for name in ("river.bridge", "GE"):
        g = graph(rs, name)
        assert g.pairs, name
        assert not g.flat(g.drawn()), f"{name}: both layers together cannot be flat"
        assert all(g.flat(layer) for layer in g.layers()), name
        assert not analyse(g.tile, Kinds.of(rs)).needless


def test_boundary_neighbours_skip_corners():
    g = graph(rule_set("base"), "S")  # city N E W, road S, field Se, field Sw
    se = next(f.index for f in g.features if f.places == ("Se",))
    assert {g.feature(j).kind: pq for j, pq in g.beside(se).items()} == {"city": ("Se", "E"), "road": ("Se", "S")}


def test_the_river_is_laid_from_source_to_lake_with_alternating_curves():
    rs = rule_set("base", "river")
    layer = RiverLayer(rs, "river", alternate=True)
    res = layer.lay()
    assert res.ok and len(res.laid) == 12
    assert res.laid[0][0] == "river.source" and res.laid[-1][0] == "river.lake"
    cells = [c for _, c, _ in res.laid]
    assert len(set(cells)) == 12
    assert all(abs(a[0] - b[0]) + abs(a[1] - b[1]) == 1 for a, b in zip(cells, cells[1:]))


def test_the_river_is_laid_on_from_where_it_leaves_the_siege_landscape():
    """SIEGE-SETUP-1 with the River (rules/siege.tess's reading: the fortress's two 3 x 2 tiles at
    [0, 0] and [3, 0], the river along their south row, the source at [-1, 1]): the river tiles
    are laid from the fortress's open east end, [5, 1] flowing east, so the first goes to [6, 1];
    the River's 12 tiles and the Siege river tile (SIEGE-COMP-1), none on the landscape."""
    rs = rule_set("base", "river", "siege")
    layer = RiverLayer(rs, "river", alternate=True)
    res = layer.lay()
    assert res.ok and res.total == 13 and len(res.laid) == 13, res
    assert res.laid[0] == ("river.source", (-1, 1), 0) and res.laid[-1][0] == "river.lake"
    assert "siege.fortress" not in {n for n, _, _ in res.laid} and "siege.river" in {n for n, _, _ in res.laid}
    cells = [c for _, c, _ in res.laid[1:]]
    assert cells[0] == (6, 1)
    fortress = {(x, y) for x in range(6) for y in range(2)}
    assert len(set(cells)) == 12 and not set(cells) & (fortress | {(-1, 1)})
    assert all(abs(a[0] - b[0]) + abs(a[1] - b[1]) == 1 for a, b in zip(cells, cells[1:]))
    r = results("base", "river", "siege")["set-river"]
    assert not r.skipped and r.passed and "SIEGE-SETUP-1" in r.clauses


def test_a_landscape_that_closes_the_river_is_reported(tmp_path):
    """SIEGE-SETUP-1 lays the lake at the start only without the River; a house rule that lays it
    with the River too leaves the River's tiles no open end to continue."""
    f = tmp_path / "closed.tess"
    f.write_text("""module closed "the lake laid at the start with the River too"
requires river
requires siege
override start siege.fortress at 0 0 rotation 0, siege.fortress at 3 0, river.source at -1 1,
    river.lake at 6 1 [SIEGE-SETUP-1]
""", encoding="utf-8")
    r = results("base", str(f))["set-river"]
    assert not r.passed
    assert [d.message for d in r.diagnostics] == [
        "the river tiles cannot be laid as one river: the river has no open end in the start landscape: "
        "no river side of its tiles faces an empty cell, so no river tile can continue it"]


# ------------------------------------------------------------- bad fixtures
BAD = [
    ("crossing.tess", "tile-crossings", 8,
     "city N S and road W E of tile bad.crossroads cross, which a flat tile cannot draw; "
     "if one passes over the other (a bridge), declare it on that one with `crosses`"),
    ("field_border.tess", "tile-field-borders", 11,
     "field Es Se of tile bad.J is declared to border the city on N, but touches none: road E S lies between them"),
    ("field_border.tess", "tile-field-borders", 19,
     "field Wn En of tile bad.D touches the city on N (En lies beside N) but is not declared to border it; write `-> N`"),
    ("split_field.tess", "tile-features-connected", 8,
     "field Wn Nw Ne Es of tile bad.U is not connected: road W E runs across it, with Wn on one side and Es on the other; "
     "split it into two fields"),
    ("river_two_ends.tess", "set-river", 36,
     "the river tiles cannot be laid as one river: the river has 2 ends besides its source (lake, pond), "
     "but one river from src ends once: it would end before every river tile is laid"),
    ("river_stuck.tess", "set-river", 38,
     "the river tiles cannot be laid as one river from src to lake: at best 3 of 4 tiles are laid "
     "(src at [0,0] rotation 0, ford at [1,0] rotation 0, falls at [2,0] rotation 180); then lake cannot continue it"),
    ("orphan_edge.tess", "set-edge-kinds", 5,
     "edge `Y` (field city field) can meet nothing: no other tile has an edge drawn field city field to lie against it, "
     "so these sides never touch a neighbour: bad.gate N"),
    ("orphan_edge.tess", "set-fit", 16,
     "tile bad.island fits beside no tile of the set: none of its edges (Z Z Z Z) can meet an edge of another tile, "
     "in any rotation"),
    ("count.tess", "set-counts", 5,
     "tile D2 cites BASE-COMP-1, but the rulebook's base tiles are the letters A-X"),
]


@pytest.mark.parametrize("fixture,check,line,message", BAD, ids=[f"{b[0]}:{b[2]}" for b in BAD])
def test_bad_fixture_is_caught(fixture, check, line, message):
    res = results(str(REPO / FIX / fixture))
    r = res[check]
    assert not r.passed
    got = [(Path(d.span.file).name, d.span.line, d.message) for d in r.diagnostics]
    assert (fixture, line, message) in got, got
    others = [n for n, x in res.items() if not x.passed and n != check]
    assert others in ([], ["set-fit"], ["set-edge-kinds"]), others  # each fixture breaks one thing


def test_count_against_the_rulebook():
    r = results(str(REPO / FIX / "count.tess"))["set-counts"]
    assert "the tiles citing BASE-COMP-1 add up to 73, but the rulebook has 72" in [d.message for d in r.diagnostics]


def test_needless_crossing_is_a_warning(tmp_path):
    f = tmp_path / "needless.tess"
    f.write_text("module needless\nrequires base\n"
                 "tile bad.V x1 {\n  edges F F R R\n  road S W crosses Wn\n  field Wn Nw Ne En Es Se\n  field Sw Ws\n}\n")
    r = results(str(f))["tile-crossings"]
    assert r.passed
    assert [(d.severity, d.message) for d in r.diagnostics] == [
        ("warning", "road S W of tile bad.V is declared to cross field Wn Nw Ne En Es Se, but they do not meet")]


def test_inner_field_named_by_a_corner_is_accepted_as_declared(tmp_path):
    f = tmp_path / "inner.tess"
    f.write_text("module inner\nrequires base\n"  # the Tower's tile with an inner field (tiles.md)
                 "tile tower.inner x1 {\n  edges C C C C\n  city N E W shields 1\n  city S\n  field NE -> N S\n}\n")
    res = results(str(f))
    assert all(res[n].passed and not res[n].diagnostics for n in TOPOLOGY if n.startswith("tile-")), res


# ------------------------------------------------------------------ registry
def test_registry_runs_a_plugged_in_check():
    @register("test-plug", ["BASE-END-1"])
    def plug(rs):
        """A check from another module."""
        return ["something is wrong"]

    try:
        r = run_check(load_checks()["test-plug"], rule_set("base"))
        assert not r.passed and r.messages == ["something is wrong"] and r.clauses == ("BASE-END-1",)
        assert r.title == "A check from another module"
    finally:
        del REGISTRY["test-plug"]


# ----------------------------------------------------------------------- cli
def test_cli_prints_one_line_per_check_and_fails_on_a_bad_fixture(monkeypatch):
    monkeypatch.chdir(REPO)
    res = runner.invoke(app, ["verify", "--only", "tile-", "--only", "set-", f"{FIX}/crossing.tess"])
    assert res.exit_code == 1, res.output
    lines = res.output.splitlines()
    assert lines[0] == "base + bad_crossing"
    assert any(line.startswith("  ✗ tile-crossings") and line.endswith("BASE-FIELD-1") for line in lines)
    assert sum(1 for line in lines if line.startswith(("  ✓", "  ✗", "  –"))) == len(TOPOLOGY)
    assert f"{FIX}/crossing.tess:8:3: error: city N S and road W E of tile bad.crossroads cross" in res.output
    assert "      city N S\n      ^~~~~~~~" in res.output
    assert lines[-1] == "Failed: 1 of 9 checks, in 1 of 1 rule set"


def test_cli_passes_on_shipped_combinations(monkeypatch):
    monkeypatch.chdir(REPO)
    res = runner.invoke(app, ["verify", "--only", "tile-", "--only", "set-", "base+river", "king_robber"])
    assert res.exit_code == 0, res.output
    assert "rule sets: 1 base+river; 2 king_robber" in res.output  # a table of checks by rule set
    assert res.output.splitlines()[-1] == "Success: 18 checks passed in 2 rule sets"


@pytest.mark.parametrize("args", [["verify", "nosuch"], ["verify", "missing.tess"], ["verify", "--only", "zzz", "base"]])
def test_cli_usage_errors_exit_2(args, monkeypatch):
    monkeypatch.chdir(REPO)
    assert runner.invoke(app, args).exit_code == 2
