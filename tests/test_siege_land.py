"""Siege and Defense's land (rulebook 004): the fortress, the start landscape, the 18 tiles,
farmers and the fortress -- SIEGE-COMP-1, SIEGE-SETUP-1, SIEGE-PLACE-1, SIEGE-TILE-1 and
SIEGE-END-1's second half -- and the language they need: tiles covering several cells
(X10), start landscapes (X12), `with` / `without` blocks (X13), `bordering(KIND)`.

rules/siege.tess's stated reading: each fortress tile covers 3 x 2 cells, laid side by
side with the NW cell at [0, 0]: cells x 0..5, y 0..1; the river runs along row 1 from
the source at [-1, 1] to the lake at [6, 1] (without the River).  Expected numbers come
from the text: a cloister scores 1 + its neighbours at the end (BASE-END-2), the fortress
cells count as placed tiles (SIEGE-PLACE-1); a farmer scores 3 per completed city and
the fortress counts as one (SIEGE-END-1).
"""
from __future__ import annotations

from pathlib import Path

import pytest

from tessera.replay.tiles import engine_for, replay
from tessera.dsl.loader import load_rule_set, require_rule_set

ROOT = Path(__file__).resolve().parent.parent
FORTRESS = {(x, y) for x in range(6) for y in range(2)}


def _play(rules, turns, end="final"):
    return replay({"format": "tessera-game/1", "rules": rules, "players": ["red", "blue"], "turns": turns, "end": end})


def _bag(g):
    """Every tile still to come, by name (the drawn one and the decks)."""
    return [g.tile_name(t) for d in g.bag.decks for t in d] + [g.tile_name()]


def _errors(tmp_path, text):
    p = tmp_path / "house.tess"
    p.write_text(text, encoding="utf-8")
    _, diags, _ = load_rule_set([str(p)])
    return {(d.span.line, d.code) for d in diags if d.severity == "error"}, [d.message for d in diags]


# -- the text's facts ---------------------------------------------------------------------
def test_the_box_holds_what_the_text_prints():
    """SIEGE-COMP-1: 18 land tiles with siege symbols, one of them a river tile; 2 fortress tiles;
    SIEGE-TILE-1's four special tiles are among them."""
    rs = require_rule_set(["siege"])
    land = [t for t in rs.tiles if t.module == "siege" and t.cells is None]
    assert sum(t.count for t in land) == 18
    assert all(1 <= len(t.symbols) <= 2 for t in land)
    assert [t.name for t in land if any(f.kind == "river" for f in t.features)] == ["siege.river"]
    (fortress,) = [t for t in rs.tiles if t.cells is not None]
    assert fortress.count == 2 and fortress.cells == (3, 2)
    special = {t.name for t in land if any(c.clause == "SIEGE-TILE-1" for c in t.decl.cites)}
    assert special == {"siege.crossroads", "siege.bridge", "siege.river", "siege.corner"}
    by = {t.name: t for t in land}
    (road,) = [f for f in by["siege.crossroads"].features if f.kind == "road"]  # (a) one road, four ends
    assert road.places == ("N", "E", "S", "W")
    (city,) = [f for f in by["siege.bridge"].features if f.kind == "city"]  # (b) the city stays one
    assert [f.crosses for f in by["siege.bridge"].features if f.kind == "road"] == [city.index]
    assert [f.kind for f in by["siege.corner"].features] == ["field", "field"]  # (d) two fields


def test_the_start_landscape_without_the_river():
    """SIEGE-SETUP-1: the fortress's two tiles side by side, the source at one river end and,
    without the River, the lake at the other: a closed river; the landscape replaces D."""
    eng = engine_for(["base", "siege"], [])
    g = eng.new_game(2, 0)
    assert set(g.board.tiles) == FORTRESS | {(-1, 1), (6, 1)}
    assert g.tile_name(g.board.tiles[(-1, 1)][0].tile.index) == "river.source"
    assert g.tile_name(g.board.tiles[(6, 1)][0].tile.index) == "river.lake"
    feats = g.features()
    (river,) = [f for f in feats if f["kind"] == "river"]
    assert river["open"] == 0
    assert len([f for f in feats if f["kind"] == "fortress"]) == 2
    left = _bag(g)
    assert "siege.river" not in left and left.count("D") == 3  # the Siege river tile stays boxed


def test_the_start_landscape_with_the_river_leaves_one_end_open():
    """SIEGE-SETUP-1 with the River: no lake at the start (it goes under the river stack), the
    Siege river tile joins the river deck, the river continues from the fortress's east end."""
    eng = engine_for(["base", "river", "siege"], [])
    g = eng.new_game(2, 0)
    assert set(g.board.tiles) == FORTRESS | {(-1, 1)}
    (river,) = [f for f in g.features() if f["kind"] == "river"]
    assert river["open"] == 1
    assert {a[0] for a in g.legal_actions()} == {(6, 1)}  # a river tile must continue it
    assert "siege.river" in _bag(g)


@pytest.mark.parametrize("rotation,legal", [(0, True), (90, False)])
def test_a_first_river_curve_must_lead_away_from_the_fortress(rotation, legal):
    """SIEGE-SETUP-1: the river leaves the fortress heading east at its SE end; the first curve
    at rotation 0 turns right (south, away), at 90 left (north, back along the fortress)."""
    res = _play(["base", "river", "siege"], [{"tile": "river.curve", "at": [6, 1], "rotation": rotation}], end="none")
    if legal:
        assert res.error is None, res.error
    else:
        assert res.error is not None and "SIEGE-SETUP-1" in res.error["clause"]
        assert "away from the fortress" in res.error["message"]


# SIEGE-TILE-1 in play.  A at [1,-1] turned 180 (road N, ending at its cloister) leads north from
# the fortress's field; blue puts a follower on the special tile laid on it at [1,-2].
ROAD_FROM_FORTRESS = {"tile": "A", "at": [1, -1], "rotation": 180}


def test_SIEGE_TILE_1a_the_four_way_road_is_complete_only_when_every_end_is_closed():
    """(a) "Жодна дорога не закінчується на цій плитці. Натомість дорога розділяється на 4 напрямки.
    Щоб завершити цю дорогу, треба закрити всі відкриті кінці."  S is closed by A's cloister, N by
    A at [1,-3], E by siege.A at [2,-2]: still open at W, so nothing scores; W's junction at [0,-2]
    closes the last end: 5 tiles, 1 each (BASE-ROAD-2) = 5 for blue."""
    turns = [ROAD_FROM_FORTRESS,
             {"tile": "siege.crossroads", "at": [1, -2], "rotation": 0, "place": {"figure": "follower", "on": "N"}},
             {"tile": "A", "at": [1, -3], "rotation": 0},
             {"tile": "siege.A", "at": [2, -2], "rotation": 90},
             {"tile": "W", "at": [0, -2], "rotation": 0}]
    three_closed = _play(["base", "siege"], turns[:4], end="none")
    assert three_closed.error is None and three_closed.answer["scores"] == {"red": 0, "blue": 0}
    res = _play(["base", "siege"], turns, end="none")
    assert res.error is None, res.error
    (ev,) = [e for e in res.answer["events"] if e["kind"] == "score"]
    assert (ev["feature"], ev["tiles"], ev["points"]) == ("road", 5, {"blue": 5})


def test_SIEGE_TILE_1b_the_road_over_the_bridge_does_not_split_the_city():
    """(b) "Дорога проходить через усе місто. Місто не розділене мостом."  Blue's knight on the
    bridge tile's city (E and W sides); an E tile caps each side: one city of 3 tiles, no
    shields, complete: 2 x 3 = 6 (BASE-CITY-2) -- two cities of 2 tiles would not be complete
    until both are capped, and would score 4 each."""
    turns = [ROAD_FROM_FORTRESS,
             {"tile": "siege.bridge", "at": [1, -2], "rotation": 0, "place": {"figure": "follower", "on": "E"}},
             {"tile": "E", "at": [2, -2], "rotation": 270},
             {"tile": "E", "at": [0, -2], "rotation": 90}]
    one_capped = _play(["base", "siege"], turns[:3], end="none")
    assert one_capped.error is None and one_capped.answer["scores"] == {"red": 0, "blue": 0}
    res = _play(["base", "siege"], turns, end="none")
    assert res.error is None, res.error
    (ev,) = [e for e in res.answer["events"] if e["kind"] == "score"]
    assert (ev["feature"], ev["tiles"], ev["points"]) == ("city", 3, {"blue": 6})


# -- the fortress on the board ------------------------------------------------------------
def test_a_record_cannot_replace_the_landscape():
    """The landscape is the rule set's (SIEGE-SETUP-1): a record's `start` is refused, not half-laid."""
    from tessera.replay.records import RecordError

    with pytest.raises(RecordError, match="start landscape"):
        replay({"format": "tessera-game/1", "rules": ["base", "siege"], "players": ["red", "blue"],
                "start": {"tile": "D", "at": [0, 0], "rotation": 0}, "turns": []})


def test_the_start_tile_boxed_cites_the_most_specific_clause(tmp_path):
    """The start tile D goes back in the box: for the River's source (RIVER-SETUP-1) alone, for
    the Siege's landscape (SIEGE-SETUP-1) with or without the River, which restates the box with
    `override box D`; an `override box` of a tile nobody boxed is a diagnostic."""
    assert engine_for(["base", "river"], []).rules.BOX_CLAUSES == {"D": "RIVER-SETUP-1"}
    assert engine_for(["base", "siege"], []).rules.BOX_CLAUSES["D"] == "SIEGE-SETUP-1"
    assert engine_for(["base", "river", "siege"], []).rules.BOX_CLAUSES["D"] == "SIEGE-SETUP-1"
    errs, msgs = _errors(tmp_path, 'module house "h"\nrequires base\noverride box E\n')
    assert errs == {(3, "override-missing")}
    assert "`override` of box E, but no earlier module boxes it" in msgs[0]


def test_each_fortress_cell_counts_as_a_neighbour():
    """SIEGE-PLACE-1 (the reading taken: a fortress tile covers 6 cells): a cloister on [1,-1]
    has the fortress cells [0,0] [1,0] [2,0] as neighbours: 1 + 3 = 4 at the end."""
    res = _play(["base", "siege"], [{"tile": "B", "at": [1, -1], "rotation": 0,
                                     "place": {"figure": "follower", "on": "C"}}])
    assert res.error is None, res.error
    assert res.answer["scores"] == {"red": 4, "blue": 0}


def test_farmers_count_the_fortress_as_a_completed_city():
    """SIEGE-END-1: a farmer on a field bordering the fortress, no completed city: 3 x (0 + 1) = 3
    (once, though the field borders both fortress tiles); the base game's rule gives 0."""
    res = _play(["base", "siege"], [{"tile": "B", "at": [1, -1], "rotation": 0,
                                     "place": {"figure": "follower", "on": "Nw"}}])
    assert res.error is None, res.error
    (ev,) = [e for e in res.answer["events"] if e.get("feature") == "field"]
    assert ev["points"] == {"red": 3} and "SIEGE-END-1" in ev["clause"]


def test_with_the_barn_its_farmers_count_the_fortress_too():
    """SIEGE-END-1 with the Barn (`with barn`): a barn's field scores 4 x (0 + 1) = 4."""
    rs = require_rule_set(["base", "barn", "siege"])
    sc = rs.figure_scores[("field", "end", "barn")]
    assert "bordering(fortress)" in ROOT.joinpath("rules/siege.tess").read_text(encoding="utf-8")
    assert any(c.clause == "SIEGE-END-1" for c in sc.cites)
    assert not any(c.clause == "SIEGE-END-1" for c in require_rule_set(["base", "barn"]).figure_scores[
        ("field", "end", "barn")].cites)


@pytest.mark.parametrize("rules", [["base", "siege"], ["base", "river", "siege"]])
def test_games_play_and_the_engine_matches_the_networkx_rebuild(rules):
    """Whole random games (every tile: 71 + 17 land, + 12 river tiles with the River), and the
    engine's features against the from-scratch rebuild that lays the fortress from its
    numbered places (verifier/engine_check.py)."""
    from tessera.verifier.engine_check import check_engine

    rs = require_rule_set(rules)
    mism, checked = check_engine(rs, games=2, seed=5)
    assert not mism, [str(m) for m in mism]
    assert checked >= 2
    eng = engine_for(rules, [])
    g = eng.play_random(2, 3)
    # every tile drawn is placed or discarded; the outposts' decisions (an extra follower, a "?"
    # catapult, an attack's removals) are moves of their own, with no tile
    tiles = sum(1 for tid, _ in g.history if tid is not None)
    assert g.is_terminal() and tiles == (88 if rules == ["base", "siege"] else 100)  # discards are moves too


@pytest.mark.slow
def test_verify_passes_on_siege_with_and_without_the_river(monkeypatch):
    from tessera.verifier import engine_check
    from tessera.verifier.checks import run_checks

    # every check, the engine's included, on a fixed number of games (the README's `tessera verify`
    # plays its own share of base+siege's and of every module's together)
    monkeypatch.setattr(engine_check, "ENGINE_GAMES", 20)
    for rules in (["base", "siege"], ["base", "river", "siege"]):
        rs = require_rule_set(rules)
        bad = [(r.name, [d.message for d in r.diagnostics]) for r in run_checks(rs) if not r.passed]
        assert not bad, (rules, bad)


# -- the language -------------------------------------------------------------------------
TWO = """module house
requires base
feature keep centre
tile big x1 cells 2x1 [BASE-COMP-1] {
  edges (F F) (F) (F F) (F)
  keep C1 C2
  field N1w N1e N2w N2e E1n E1s S1e S1w S2e S2w W1s W1n -> C1
}
override start big at 0 0, D at 0 1 rotation 180 [BASE-SETUP-1]
"""


def test_mistakes_with_tiles_covering_several_cells_are_diagnostics(tmp_path):
    errs, _ = _errors(tmp_path, TWO.replace("(F F) (F) (F F) (F)", "(F F) (F F) (F F) (F)"))
    assert (5, "syntax") in errs  # a group of the wrong size
    errs, msgs = _errors(tmp_path, TWO.replace("N2e E1n", "N3e E1n"))
    assert (7, "bad-place") in errs and any("`N3e` is none of its places" in m for m in msgs)
    errs, _ = _errors(tmp_path, TWO.replace("big at 0 0,", "big at 0 0 rotation 90,"))
    assert (9, "unsupported") in errs
    errs, _ = _errors(tmp_path, TWO.replace("D at 0 1", "D at 1 0"))
    assert (9, "place-overlap") in errs
    errs, _ = _errors(tmp_path, TWO.replace("big x1", "big x2"))
    assert (4, "unsupported") in errs  # a copy would go in the deck


def test_a_landscape_whose_pictures_do_not_match_is_reported(tmp_path):
    """SIEGE-SETUP-1 "so that their pictures match": D's city faces the big tile's field."""
    from tessera.verifier.checks import load_checks, run_check

    p = tmp_path / "house.tess"
    p.write_text(TWO.replace("D at 0 1 rotation 180", "D at 0 1"), encoding="utf-8")
    rs = require_rule_set([str(p)])
    res = run_check(load_checks()["start-landscape"], rs)
    assert not res.passed and "shows `F` on its S side, against `C` of D" in res.diagnostics[0].message
    p.write_text(TWO, encoding="utf-8")
    assert run_check(load_checks()["start-landscape"], require_rule_set([str(p)])).passed


def test_with_and_without_blocks(tmp_path):
    """X13: a block applies only with (or without) a module, as if written after both modules."""
    text = TWO + "with abbot { override score road complete = 5 }\nwithout abbot { override score city complete = 7 }\n"
    p = tmp_path / "house.tess"
    p.write_text(text, encoding="utf-8")
    alone = require_rule_set([str(p)])
    value = lambda rs, k: getattr(rs.scores[(k, "complete")].value, "value", None)  # noqa: E731
    assert value(alone, "city") == 7 and value(alone, "road") is None
    both = require_rule_set([str(p), "abbot"])  # abbot is read after the house rule: the block waits for it
    assert value(both, "road") == 5 and value(both, "city") is None
    errs, _ = _errors(tmp_path, TWO + "with rivre { box D }\nwith river { requires abbot }\n")
    assert errs == {(10, "unknown-name")}  # river is not in the rule set: its block is not read
    from tessera.dsl.loader import check_paths

    p.write_text(TWO + "with abbot { override score road complete = tilez }\n", encoding="utf-8")
    diags, _ = check_paths([str(p)])  # `tessera check` reads the block with the module it names
    assert [(d.span.line, d.code) for d in diags if d.severity == "error"] == [(10, "unknown-name")]


def test_bordering_counts_each_bordered_feature_once(tmp_path):
    """`bordering(KIND)`: the fortress's fields border both fortress tiles: 2."""
    eng = engine_for(["base", "siege"], [])
    g = eng.new_game(2, 0)
    R = eng.rules
    fortress = next(i for i, k in enumerate(R.KINDS) if k.name == "fortress")
    (field,) = [f for f in g.features() if f["kind"] == "field"]
    assert g.board.bordering(field["root"], fortress) == 2


def test_check_lists_the_stated_assumptions():
    """Every reconstruction of the lost pictures is an `assume` statement that `tessera check`
    lists, with the clauses it fills in."""
    from typer.testing import CliRunner

    from tessera.cli import app

    res = CliRunner().invoke(app, ["check", "--verbose", str(ROOT / "rules" / "siege.tess")])
    assert res.exit_code == 0, res.output
    assert "stated assumptions" in res.output
    for name in ("fortress_cells [SIEGE-PLACE-1]", "fortress_drawing", "source_west", "river_tile_boxed",
                 "first_curve_right", "land_tiles", "fortress_once [SIEGE-END-1]"):
        assert name in res.output, name
    res = CliRunner().invoke(app, ["check", str(ROOT / "rules" / "base.tess")])
    assert "assumption" not in res.output and res.exit_code == 0


@pytest.mark.parametrize("rules,length", [("base,siege", "88.0"), ("base,river,siege", "100.0")])
def test_simulate_plays_siege_with_and_without_the_river(rules, length):
    """`tessera simulate --rules base,siege` (71 + 17 land tiles, the river tile boxed) and
    `--rules base,river,siege` (+ 10 River tiles, the lake and the Siege river tile)."""
    from typer.testing import CliRunner

    from tessera.cli import app

    res = CliRunner().invoke(app, ["simulate", "-n", "2", "--rules", rules, "--seed", "1"])
    assert res.exit_code == 0, res.output
    import re

    got = float(re.search(r"game length: ([0-9.]+)", res.output).group(1))
    assert "2 games" in res.output and float(length) - 3 <= got <= float(length)  # a discarded tile is no turn


def test_every_move_around_the_landscape_has_a_number():
    """The action codec's cells reach past the landscape (it spans 8 cells before the first tile):
    a whole random base+siege game encodes and decodes every move."""
    import random

    from tessera.replay.actions import ActionCodec

    eng = engine_for(["base", "siege"], [])
    codec = ActionCodec(eng)
    assert codec.radius == 88 + 7  # the tiles to place, and the lake 7 steps from the source's cell
    g = eng.new_game(2, 4)
    rng = random.Random(4)
    while not g.is_terminal():
        a = rng.choice(g.legal_actions())
        assert codec.decode(g, codec.encode(g, a)) == a
        g.apply_action(a)


def test_engine_check_judges_a_barn_at_the_fortress_by_the_cells_own_places():
    """BARN-PLACE-1 with SIEGE-PLACE-1: a barn where a fortress cell meets three land tiles stands on the
    field along the fortress's side.  The rebuild holds a fortress cell's pieces under the cell's own
    place names, so the independent check must read them there (it once called such barns illegal:
    in random game seed 4 of every module together a barn goes to the fortress's SW corner)."""
    from tessera.verifier.engine_check import check_engine

    rs = require_rule_set(["base", "river", "abbot", "king_robber", "barn", "tower", "siege"])
    mismatches, checked = check_engine(rs, 1, players=2, seed=4, every=200)
    assert checked >= 1
    assert mismatches == [], [str(m) for m in mismatches]
