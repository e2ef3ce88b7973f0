"""Printed symbols on tiles (issue 23, item 3): every tile's `symbols ...` line (SIEGE-COMP-1,
SIEGE-ADVANCE-1: the siege symbols, left to right; `any` is the "?") drawn on the tile sheet and
on boards, each symbol in the colour of what the rule set says it names, with a legend entry.

Read as SVG structure here; what a person sees in Chromium at the end."""
from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tessera.dsl.loader import load_rule_set, require_rule_set
from tessera.dsl.places import rotate
from tessera.pictures.tile import ANY_LOOK, BADGE, KNOWN
from tessera import picture_cmds  # noqa: F401  (registers the commands)
from tessera.cli import app

SVG = "{http://www.w3.org/2000/svg}"
runner = CliRunner()

BANDITS = """module bandits "House rule: a bandits' outpost by the fields"
requires siege
clause HOUSE-1 "Bandits camp by the fields: a tile with a bandit symbol brings a catapult to their outpost."
track bandits for field row 3 pool catapult 1 [HOUSE-1]
tile h.camp x2 [HOUSE-1] {
  edges F F R F
  road S
  field Nw Ne En Es Se Sw Ws Wn
  symbols bandits knights
}
"""

DRAGONS = """module dragons "House rule: printed symbols with no outposts"
requires base
tile h.lair x1 [BASE-COMP-1] {
  edges F F F F
  field Nw Ne En Es Se Sw Ws Wn
  symbols dreams dragons any
}
"""


def _classes(el: ET.Element) -> list[str]:
    return (el.get("class") or "").split()


def _groups(root: ET.Element, cls: str) -> list[ET.Element]:
    return [g for g in root.iter(f"{SVG}g") if cls in _classes(g)]


def _sheet(tmp_path: Path, *rules: str) -> ET.Element:
    out = tmp_path / "tiles.svg"
    res = runner.invoke(app, ["draw", *rules, "-o", str(out)])
    assert res.exit_code == 0, res.output
    return ET.parse(out).getroot()


def _badges(cell: ET.Element) -> list[tuple[str, str, float, float, str]]:
    """(symbol, fill, x, y, glyph) of each badge drawn on a tile, in document order."""
    out = []
    for g in _groups(cell, "symbol"):
        rect = next(g.iter(f"{SVG}rect"))
        text = next(g.iter(f"{SVG}text"))
        out.append((g.get("data-symbol"), rect.get("fill"), float(rect.get("x")), float(rect.get("y")), text.text))
    return out


def _tile_cell(root: ET.Element, tile_id: str) -> ET.Element:
    [cell] = [g for g in _groups(root, "tile") if g.get("data-tile") == tile_id]
    return cell


def test_the_siege_sheet_draws_every_tiles_symbols_as_its_symbols_line_says(tmp_path):
    """SIEGE-COMP-1: each of the 18 land tiles prints 1 or 2 siege symbols; rules/siege.tess says which
    (left to right).  Each is a badge on the tile, in that order, coloured as the kind its outpost is
    for (knights: city, travellers: road, monks: cloister), `any` a dark "?"; a tile with no
    symbols line (the fortress, base's tiles) shows none; the legend has one entry per symbol."""
    rs = require_rule_set(["base", "siege"])
    root = _sheet(tmp_path, "base", "siege")
    with_symbols = [t for t in rs.tiles if t.symbols]
    assert sum(t.count for t in with_symbols) == 18  # SIEGE-COMP-1: 17 land tiles and the river tile
    for t in rs.tiles:
        badges = _badges(_tile_cell(root, t.id))
        assert [b[0] for b in badges] == list(t.symbols), t.id
        xs = [b[2] for b in badges]
        assert xs == sorted(xs) and len(set(xs)) == len(xs), (t.id, xs)  # left to right, side by side
        assert all(b[3] < 50 and b[2] < 50 for b in badges), t.id  # at the tile's NW corner on the sheet
        for name, fill, _, _, glyph in badges:
            if name == "any":
                assert (fill, glyph) == (ANY_LOOK[0], "?")
            else:
                kind = rs.tracks[name].kinds[0]
                assert fill == KNOWN[kind][0], (t.id, name, fill)
                assert glyph == name[0].upper()
    # one legend entry per declared symbol, naming what it brings a catapult to
    legend = {g.get("data-symbol"): g for g in _groups(root, "legend-symbol")}
    assert sorted(legend) == rs.symbol_names() == ["any", "knights", "monks", "travellers"]
    for name in ("knights", "monks", "travellers"):
        words = " ".join(t.text or "" for t in legend[name].iter(f"{SVG}text"))
        assert f"the {name} outpost" in words and all(k in words for k in rs.tracks[name].kinds), words
    # a sheet without symbols has no symbols legend
    assert not _groups(_sheet(tmp_path, "base", "river"), "legend-symbols")


def test_a_house_rules_symbols_line_shows_its_own_symbols(tmp_path):
    """A house rule's own track and symbols line: its tile shows its own symbols, the new one in the
    colour of the kind its track is for (field); a symbols line naming nothing declared (no track)
    gets badges told apart by the shortest distinct prefix, and the legend lists them."""
    f = tmp_path / "bandits.tess"
    f.write_text(BANDITS, encoding="utf-8")
    rs = require_rule_set(["base", "siege", str(f)])
    root = _sheet(tmp_path, "base", "siege", str(f))
    camp = _badges(_tile_cell(root, "h.camp"))
    assert [(b[0], b[4]) for b in camp] == [("bandits", "B"), ("knights", "K")]
    assert camp[0][1] == KNOWN["field"][0] and camp[1][1] == KNOWN["city"][0]
    assert sorted(g.get("data-symbol") for g in _groups(root, "legend-symbol")) == rs.symbol_names()
    assert "bandits" in rs.symbol_names()

    g = tmp_path / "dragons.tess"
    g.write_text(DRAGONS, encoding="utf-8")
    rs2, diags, _ = load_rule_set(["base", str(g)])
    assert rs2 is not None, [d.message for d in diags]
    root2 = _sheet(tmp_path, "base", str(g))
    lair = _badges(_tile_cell(root2, "h.lair"))
    assert [(b[0], b[4]) for b in lair] == [("dreams", "Dre"), ("dragons", "Dra"), ("any", "?")]
    assert len({b[1] for b in lair}) == 3  # three colours
    assert sorted(x.get("data-symbol") for x in _groups(root2, "legend-symbol")) == ["any", "dragons", "dreams"]


ROTATED = {"format": "tessera-game/1", "rules": ["base", "siege"], "players": ["red", "blue"],
           "turns": [{"tile": "siege.B", "at": [0, -1], "rotation": 90},
                     {"tile": "siege.corner", "at": [1, -1], "rotation": 180},
                     {"tile": "siege.A", "at": [2, -1], "rotation": 180},
                     {"tile": "siege.bridge", "at": [2, -2], "rotation": 0}],
           "end": "none"}


def test_a_board_draws_the_symbols_of_each_tile_at_its_turned_corner(tmp_path):
    """On a board the same renderer draws a tile's symbols where its NW corner lies once turned
    (siege.B at 90: the NE corner), still left to right and upright."""
    rec = tmp_path / "game.json"
    rec.write_text(json.dumps(ROTATED), encoding="utf-8")
    out = tmp_path / "board.svg"
    res = runner.invoke(app, ["draw", str(rec), "-o", str(out)])
    assert res.exit_code == 0, res.output
    root = ET.parse(out).getroot()
    rs = require_rule_set(["base", "siege"])
    placed = {g.get("data-cell"): g for g in _groups(root, "placed")}
    for turn in ROTATED["turns"]:
        cell = placed[f"{turn['at'][0]},{turn['at'][1]}"]
        (t,) = rs.tile_types(turn["tile"])
        badges = _badges(cell)
        assert [b[0] for b in badges] == list(t.symbols), turn
        corner = rotate("NW", turn["rotation"])
        for _, _, x, y, _ in badges:
            assert (x < 50) == ("W" in corner) and (y < 50) == ("N" in corner), (turn, corner, x, y)
        assert [b[2] for b in badges] == sorted(b[2] for b in badges)
    assert not _groups(next(g for g in _groups(root, "multicell")), "symbol")  # the fortress prints none


@pytest.mark.slow
def test_symbols_are_legible_where_a_person_looks(tmp_path):
    """In Chromium: every badge of the Siege sheet is at least BADGE pixels across and is what is seen
    at its centre (nothing drawn over it), and its glyph is inside it."""
    from browser import chromium_page

    out = tmp_path / "tiles.svg"
    assert runner.invoke(app, ["draw", "base", "siege", "-o", str(out)]).exit_code == 0
    with chromium_page(width=1600, height=1700) as page:
        page.goto(out.as_uri())
        seen = page.evaluate("""() => [...document.querySelectorAll('g.tile g.symbol')].map(g => {
            const r = g.querySelector('rect').getBoundingClientRect();
            const t = g.querySelector('text').getBoundingClientRect();
            const top = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
            return {tile: g.closest('g.tile').dataset.tile, w: r.width, h: r.height,
                    mine: g.contains(top), inside: t.x >= r.x && t.right <= r.right && t.y >= r.y - 1 && t.bottom <= r.bottom + 1};
        })""")
        assert len(seen) == sum(len(t.symbols) for t in require_rule_set(["base", "siege"]).tiles)
        for s in seen:
            assert s["w"] >= BADGE - 0.5 and s["h"] >= BADGE - 0.5 and s["mine"] and s["inside"], s
        assert not page.errors


def test_a_tile_covering_several_cells_prints_its_symbols_at_its_nw_corner():
    """The same badges on a tile drawn whole across its cells (pictures/tile.py's one drawing, a box of cells): the Siege's
    fortress prints none, so here it is given a symbols line as a house rule could."""
    import dataclasses

    import drawsvg as dw

    from tessera.pictures.sheet import drawn_features
    from tessera.pictures.tile import Style, box_of, draw_tile

    rs = require_rule_set(["base", "siege"])
    (fort,) = rs.tile_types("siege.fortress")
    marked = dataclasses.replace(fort, decl=dataclasses.replace(fort.decl, symbols=("knights", "any")))
    d = dw.Drawing(300, 200)
    d.append(draw_tile(drawn_features(marked), Style.of(rs), box=box_of(marked), symbols=marked.symbols))
    badges = _badges(ET.fromstring(d.as_svg()))
    assert [(b[0], b[4]) for b in badges] == [("knights", "K"), ("any", "?")]
    assert all(x < 100 and y < 100 for _, _, x, y, _ in badges)  # on its NW cell
