"""Pictures (issue 14): the tile sheet, boards and the viewer, read as SVG/HTML structure.

What a person sees in a browser is tested in test_pictures_browser.py.
"""
from __future__ import annotations

import pytest

import json
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

from typer.testing import CliRunner
from conftest import record_file

from tessera.dsl.loader import require_rule_set
from tessera.pictures.tile import FALLBACK, KNOWN, SHIELD, Style
from tessera import engine_cmds, picture_cmds  # noqa: F401  (registers the commands)
from tessera.cli import app

ROOT = Path(__file__).resolve().parent.parent
RECORDS = ROOT / "tests" / "records"
SVG = "{http://www.w3.org/2000/svg}"
runner = CliRunner()


def svg(path: Path) -> ET.Element:
    return ET.parse(path).getroot()


def groups(root: ET.Element, cls: str) -> list[ET.Element]:
    return [g for g in root.iter(f"{SVG}g") if cls in (g.get("class") or "").split()]


def tile_cell(root: ET.Element, tile_id: str) -> ET.Element:
    [cell] = [g for g in groups(root, "tile") if g.get("data-tile") == tile_id]
    return cell


def features_of(cell: ET.Element) -> list[ET.Element]:
    return [g for g in cell.iter(f"{SVG}g") if "feature" in (g.get("class") or "").split()]


def fills(el: ET.Element) -> set[str]:
    return {e.get("fill") for e in el.iter() if e.get("fill")}


def strokes(el: ET.Element) -> set[str]:
    return {e.get("stroke") for e in el.iter() if e.get("stroke")}


def draw(tmp_path: Path, *args: str, name: str = "out.svg"):
    out = tmp_path / name
    res = runner.invoke(app, ["draw", *args, "-o", str(out)])
    return res, out


# ------------------------------------------------------------------ tile sheet
def test_sheet_has_every_tile_with_its_features_in_their_kind_colours(tmp_path):
    rs = require_rule_set(["base", "river", "abbot", "king_robber"])
    res, out = draw(tmp_path, "base", "river", "abbot", "king_robber")
    assert res.exit_code == 0, res.output
    root = svg(out)
    cells = groups(root, "tile")
    assert sorted(c.get("data-tile") for c in cells) == sorted(t.id for t in rs.tiles)
    style = Style.of(rs)
    for t in rs.tiles:
        cell = tile_cell(root, t.id)
        drawn = features_of(cell)
        # one drawn feature per declared feature, of the same kind
        assert Counter(g.get("data-kind") for g in drawn) == Counter(f.kind for f in t.features), t.id
        for g in drawn:
            kind = g.get("data-kind")
            colours = fills(g) | strokes(g)
            if style.category[kind] != "half":  # fields come in shades of green
                assert style.fill[kind] in colours or kind in {f.kind for f in t.features if f.crosses is not None}, (t.id, kind)
        caption = [e.text for e in cell.iter(f"{SVG}text") if e.get("class") == "caption"]
        assert caption and caption[0].startswith(t.name) and caption[0].endswith(f"×{t.count}")
        # shields: as many as the tile's cities print (BASE-CITY-2 counts them)
        assert len(groups(cell, "shield")) == sum(f.shields for f in t.features), t.id
    # the colours the kinds are drawn in are distinct, and the legend names every declared kind
    assert len({style.fill[k] for k in rs.features}) == len(rs.features)
    legend = {g.get("data-kind") for g in groups(root, "legend-item")}
    assert legend == set(rs.features)
    assert not groups(root, "problem")
    # one heading per module with its copies: 72 land tiles (BASE-COMP-1), 12 river tiles (RIVER-COMP-1:
    # the source and the lake in riverbed, which the Siege shares, the other 10 in river),
    # 5 King & Robber tiles (KING-COMP-1); abbot prints no tiles of its own
    headings = [e.text for e in root.iter(f"{SVG}text") if e.get("class") == "module"]
    assert [h.split(":")[0] + h[h.rindex(" ("):] for h in headings] == \
        ["base (72 tiles)", "riverbed (2 tiles)", "river (10 tiles)", "king_robber (5 tiles)"]


def test_sheet_colours_per_kind_on_tile_D(tmp_path):
    """D: a city cap on N, a road W-E, two fields (BASE-COMP-1's start tile)."""
    res, out = draw(tmp_path, "base", "--tile", "D")
    assert res.exit_code == 0, res.output
    cell = tile_cell(svg(out), "D")
    by_kind = {}
    for g in features_of(cell):
        by_kind.setdefault(g.get("data-kind"), []).append(g)
    assert {k: len(v) for k, v in by_kind.items()} == {"city": 1, "road": 1, "field": 2}
    assert KNOWN["city"][0] in fills(by_kind["city"][0])
    assert KNOWN["road"][0] in strokes(by_kind["road"][0])  # a line: drawn as a stroke, not an area
    assert [p.get("fill") for p in by_kind["road"][0].iter(f"{SVG}path")] == ["none", "none"]
    assert "area" in by_kind["city"][0].get("class") and "line" in by_kind["road"][0].get("class")
    shades = {next(p.get("fill") for p in g.iter(f"{SVG}path")) for g in by_kind["field"]}
    assert len(shades) == 2  # two fields, two shades


def test_crossing_is_drawn_over_with_a_casing(tmp_path):
    """The River's bridge: the road crosses the river (`road W E crosses N`), drawn over it."""
    res, out = draw(tmp_path, "base", "river", "--tile", "river.bridge")
    assert res.exit_code == 0, res.output
    drawn = features_of(tile_cell(svg(out), "river.bridge"))
    kinds = [g.get("data-kind") for g in drawn if g.get("data-kind") in ("road", "river")]
    assert kinds == ["river", "road"]  # the road comes after: on top
    road = next(g for g in drawn if g.get("data-kind") == "road")
    river = next(g for g in drawn if g.get("data-kind") == "river")
    widths = lambda g: [float(p.get("stroke-width")) for p in g.iter(f"{SVG}path")]  # noqa: E731
    # casing wider than the line by 5 for a crossing, 2.5 otherwise
    assert widths(road)[0] - widths(road)[1] == 5 and widths(river)[0] - widths(river)[1] == 2.5


def test_places_labels_every_place_of_every_feature(tmp_path):
    rs = require_rule_set(["base"])
    res, out = draw(tmp_path, "base", "--places", "--tile", "D", "--tile", "L")
    assert res.exit_code == 0, res.output
    root = svg(out)
    for name in ("D", "L"):
        [t] = rs.tile_types(name)
        labels = Counter((e.get("data-kind"), e.text) for e in tile_cell(root, name).iter(f"{SVG}text")
                         if e.get("class") == "place")
        assert labels == Counter((f.kind, p) for f in t.features for p in f.places)
    # the declared field borders (BASE-FIELD-3's `-> N`) under each field's first place
    borders = lambda name: [e.text for e in tile_cell(root, name).iter(f"{SVG}text") if e.get("class") == "border"]  # noqa: E731
    assert borders("D") == ["→N"] and borders("L") == ["→N"]
    res, out = draw(tmp_path, "base", "--places", "--tile", "I", name="i.svg")
    assert [e.text for e in tile_cell(svg(out), "I").iter(f"{SVG}text") if e.get("class") == "border"] == ["→N W"]
    res, out = draw(tmp_path, "base", "--tile", "D", name="plain.svg")
    assert not [e for e in svg(out).iter(f"{SVG}text") if e.get("class") == "place"]


def test_a_new_feature_kind_shows_up_by_itself(tmp_path):
    """A kind no bundled rule declares gets its own colour, legend entry and emblem: nothing to program."""
    (tmp_path / "wells.tess").write_text(
        'module wells "Wells and canals"\nrequires base\nfeature well centre\n'
        'edge K = field canal field "a canal between two fields"\nfeature canal\n'
        "tile W.well x1 {\n  edges F F F F\n  well C\n  field Nw Ne En Es Se Sw Ws Wn\n}\n"
        "tile W.canal x1 {\n  edges F K F K\n  canal W E\n  field Wn Nw Ne En\n  field Es Se Sw Ws\n}\n",
        encoding="utf-8")
    res, out = draw(tmp_path, str(tmp_path / "wells.tess"), "--tile", "W.well", "--tile", "W.canal")
    assert res.exit_code == 0, res.output
    root = svg(out)
    assert {"well", "canal"} <= {g.get("data-kind") for g in groups(root, "legend-item")}
    # new kinds get the spare colours in the order of their names: canal, then well
    [canal] = [g for g in features_of(tile_cell(root, "W.canal")) if g.get("data-kind") == "canal"]
    assert "line" in canal.get("class").split() and FALLBACK[0][0] in strokes(canal)  # the middle of a 3-part edge
    [well] = [g for g in features_of(tile_cell(root, "W.well")) if g.get("data-kind") == "well"]
    assert "centre" in well.get("class").split() and FALLBACK[1][0] in fills(well)
    assert not {FALLBACK[0][0], FALLBACK[1][0]} & {c[0] for c in KNOWN.values()}


def test_tile_with_a_topology_problem_is_marked(tmp_path):
    """tests/fixtures/topology/split_field.tess: a road cuts a field in two (BASE-FIELD-1)."""
    res, out = draw(tmp_path, str(ROOT / "tests/fixtures/topology/split_field.tess"))
    assert res.exit_code == 1, res.output  # problems found
    assert "1 with topology problems" in res.output
    root = svg(out)
    bad = groups(root, "problem")
    assert [g.get("data-tile") for g in bad if "tile" in g.get("class").split()] == ["bad.U"]
    cell = tile_cell(root, "bad.U")
    marked = [g for g in features_of(cell) if "problem" in g.get("class").split()]
    # both fields (`Wn Nw Ne Es` and `En Se Sw Ws`) are cut by the road; the road itself is fine
    assert [(g.get("data-kind"), g.get("data-index")) for g in marked] == [("field", "1"), ("field", "2")]
    assert any(e.get("stroke") == "#e0201b" for e in marked[0].iter(f"{SVG}path"))
    texts = [e.text for e in cell.iter(f"{SVG}text") if e.get("class") == "problem-text"]
    assert texts == ["connected"]
    title = next(cell.iter(f"{SVG}title")).text
    assert "is not connected" in title and "split_field.tess:" in title
    assert not [g for g in groups(root, "tile") if g.get("data-tile") == "U" and "problem" in g.get("class")]


def test_sheet_of_an_unknown_module_is_a_usage_error(tmp_path):
    res, out = draw(tmp_path, "no_such_module")
    assert res.exit_code == 2 and not out.exists()


# ------------------------------------------------------------------ boards
def test_board_of_a_record_at_each_turn(tmp_path):
    """city_3_tiles_1_shield.json: D (start), M and E close a city of 3 tiles with 1 shield:
    red's follower scores 2*3 + 2*1 = 8 (BASE-CITY-2) and goes back to the supply (BASE-SCORE-2)."""
    rec = record_file("base/city_3_tiles_1_shield.json")
    seen = {}
    for turn in (0, 1, 2):
        res, out = draw(tmp_path, str(rec), "--turn", str(turn), name=f"b{turn}.svg")
        assert res.exit_code == 0, res.output
        root = svg(out)
        placed = groups(root, "placed")
        figures = groups(root, "figure")
        shaded = [e for e in root.iter() if e.get("class") == "done-shade"]
        score = {e.get("data-player"): int(e.get("data-score")) for e in root.iter(f"{SVG}text") if e.get("class") == "score"}
        seen[turn] = (len(placed), len(figures), len(shaded), score)
        if turn == 1:
            [f] = figures
            assert f.get("data-player") == "red" and f.get("data-place") == "S"
            assert "#d62728" in fills(f)  # red plays red
    assert seen[0] == (1, 0, 0, {"red": 0, "blue": 0})
    assert seen[1] == (2, 1, 0, {"red": 0, "blue": 0})
    assert seen[2] == (3, 0, 3, {"red": 8, "blue": 0})  # the city's three pieces hatched


def test_board_turn_past_the_end_is_a_usage_error(tmp_path):
    res, out = draw(tmp_path, str(record_file("base/city_3_tiles_1_shield.json")), "--turn", "3")
    assert res.exit_code == 2 and not out.exists()


def test_board_of_a_record_with_an_illegal_turn_stops_there(tmp_path):
    rec = record_file("base/place2_mismatch.json")
    res, out = draw(tmp_path, str(rec))
    assert res.exit_code == 1
    assert "BASE-PLACE-2" in res.output
    error = json.loads(runner.invoke(app, ["replay", str(rec), "--json"]).output)["error"]
    assert len(groups(svg(out), "placed")) == 1 + error["turn"]
    page = tmp_path / "game.html"
    res = runner.invoke(app, ["view", str(rec), "-o", str(page)])
    assert res.exit_code == 1 and page.exists()
    data = json.loads(page.read_text().split('id="game-data">')[1].split("</script>")[0])
    assert len(data["steps"]) == 1 + error["turn"] and error["message"] in data["error"] and "BASE-PLACE-2" in data["error"]


def test_view_page_is_self_contained(tmp_path):
    rec = record_file("river/whole_river.json")
    out = tmp_path / "game.html"
    res = runner.invoke(app, ["view", str(rec), "-o", str(out)])
    assert res.exit_code == 0, res.output
    page = out.read_text(encoding="utf-8")
    for ref in ("http://", "https://", "src=", "href=", "@import"):
        assert ref not in page.replace('xmlns="http://www.w3.org/2000/svg"', "").replace(
            'xmlns:xlink="http://www.w3.org/1999/xlink"', ""), ref
    data = json.loads(page.split('id="game-data">')[1].split("</script>")[0])
    answer = json.loads(runner.invoke(app, ["replay", str(rec), "--json"]).output)
    assert data["steps"][-1]["scores"] == answer["scores"]
    assert [e["clause"] for s in data["steps"] for e in s["events"] if e["clause"]] == \
        [e["clause"] for e in answer["events"]]


@pytest.mark.slow
def test_names_in_a_record_cannot_inject_markup(tmp_path):
    rec = json.loads((record_file("base/city_3_tiles_1_shield.json")).read_text())
    rec["players"] = ["</script><script>alert(1)</script>", '" onload="alert(2)']
    p = tmp_path / "evil.json"
    p.write_text(json.dumps(rec))
    out = tmp_path / "evil.html"
    res = runner.invoke(app, ["view", str(p), "-o", str(out)])
    assert res.exit_code == 0, res.output
    page = out.read_text()
    assert "<script>alert(1)" not in page and 'onload="alert' not in page
    assert page.count("<script") == 2  # the data and the viewer's own script
    res, out = draw(tmp_path, str(p), name="evil.svg")
    assert res.exit_code == 0, res.output
    root = svg(out)  # still well-formed XML
    assert {e.get("data-player") for e in root.iter() if e.get("data-player")} == set(rec["players"])


@pytest.mark.slow
def test_verify_svg_draws_the_river_counterexamples(tmp_path):
    """river_no_uturn.tess drops the U-turn ban: the river can run into itself (RIVER-PLACE-2);
    the SVG puts each tile where the printed counterexample says, the clash crossed out."""
    import re

    res = runner.invoke(app, ["verify", str(ROOT / "rules/variants/river_no_uturn.tess"), "--only", "river",
                              "--svg", str(tmp_path / "maps")])
    assert res.exit_code == 1, res.output
    written = sorted((tmp_path / "maps").glob("*.svg"))
    assert [p.name for p in written] == ["base+riverbed+river+river_no_uturn.river.flows-back.svg",
                                         "base+riverbed+river+river_no_uturn.river.runs-into-itself.svg"]
    for p in written:
        assert f"wrote {p}" in res.output
    text = res.output.split("runs into itself: REFUTED")[1]
    rows = re.findall(r"^\s+(\d+)\s+(\S+)\s+\S+\s+\((-?\d+), (-?\d+)\)", text, re.M)
    root = svg(written[1])
    tiles = groups(root, "river-tile")
    assert [(g.get("data-index"), g.get("data-tile"), g.get("data-cell")) for g in tiles] == \
        [(i, t, f"{x},{y}") for i, t, x, y in rows]
    clash = [g for g in tiles if "wrong" in g.get("class").split()]
    assert len(clash) == 1 and clash[0].get("data-cell") == "0,0"  # back onto the source
    assert [e for e in clash[0].iter() if e.get("class") == "clash"]
    # every laid tile is the real river tile, its river drawn in the river's colour
    for g in tiles[:-1]:
        assert KNOWN["river"][0] in strokes(g), g.get("data-tile")


@pytest.mark.slow
def test_verify_svg_draws_the_siege_landscape_under_a_river_counterexample(tmp_path):
    """SIEGE-SETUP-1 with the no-U-turn reading of RIVER-PLACE-2: the river runs into the fortress;
    the SVG draws the start landscape where siege.tess lays it (the two fortress tiles whole, the
    source), the river tiles at the printed cells, and the clash on a fortress cell."""
    import re

    res = runner.invoke(app, ["verify", f"base+river+siege+{ROOT / 'rules/variants/river_no_uturn.tess'}",
                              "--only", "river", "--svg", str(tmp_path)])
    assert res.exit_code == 1, res.output
    path = tmp_path / "base+riverbed+river+siege+river_no_uturn.river.runs-into-itself.svg"
    root = svg(path)
    land = groups(root, "start-landscape")
    assert sorted((g.get("data-tile"), g.get("data-cell")) for g in land) == [
        ("river.source", "-1,1"), ("siege.fortress", "0,0"), ("siege.fortress", "3,0")]
    assert all(g.get("data-cell") != "-1,1" or "S" in {t.text for t in g.iter(f"{SVG}text")} for g in land)
    text = res.output.split("runs into itself: REFUTED")[1]
    rows = re.findall(r"^\s+(\d+)\s+(\S+)\s+\S+\s+\((-?\d+), (-?\d+)\)", text, re.M)
    tiles = groups(root, "river-tile")
    assert [(g.get("data-index"), g.get("data-tile"), g.get("data-cell")) for g in tiles] == \
        [(i, t, f"{x},{y}") for i, t, x, y in rows]
    (clash,) = [g for g in tiles if "wrong" in g.get("class").split()]
    x, y = map(int, clash.get("data-cell").split(","))
    assert 0 <= x < 6 and 0 <= y < 2 and (x, y) != (5, 1)  # a fortress cell, not where the river left it


def _path_box(g: ET.Element) -> tuple[float, float, float, float]:
    import re

    nums = [float(v) for p in g.iter(f"{SVG}path") for v in re.findall(r"-?\d+(?:\.\d+)?", p.get("d"))]
    xs, ys = nums[0::2], nums[1::2]
    return min(xs), max(xs), min(ys), max(ys)


@pytest.mark.slow
def test_simulate_plot_draws_scores_by_seat_and_points_by_feature(tmp_path):
    """--plot with --against: a box per seat and a bar per feature for each rule set, bars as long
    as the mean points the summary (--json) reports."""
    out = tmp_path / "plot.svg"
    res = runner.invoke(app, ["simulate", "--games", "8", "--players", "3", "--rules", "rules/variants/big_cities.tess",
                              "--against", "base", "--json", "--plot", str(out)])
    assert res.exit_code == 0, res.output
    doc = json.loads(next(line for line in res.output.splitlines() if line.startswith("{")))
    root = svg(out)
    ids = {g.get("id"): g for g in root.iter(f"{SVG}g") if g.get("id")}
    for key, s in (("rules", doc["rules"]), ("against", doc["against"])):
        name = "+".join(s["rules"])
        assert all(f"scores-{name}-seat{p}" in ids for p in (1, 2, 3)), key
        # the summary's mean points per game by feature (a number, or a mean with its interval)
        pts = s.get("mean_points_by_feature") or {k: v["mean"] for k, v in s["points_by_feature"].items()}
        assert set(pts) <= {"city", "road", "cloister", "field"} and "city" in pts
        lengths = {k: _path_box(ids[f"points-{name}-{k}"])[1] - _path_box(ids[f"points-{name}-{k}"])[0] for k in pts}
        top = max(pts, key=pts.get)
        for k, v in pts.items():
            assert abs(lengths[k] / lengths[top] - v / pts[top]) < 0.01, (k, lengths, pts)
    texts = {t.text for t in root.iter(f"{SVG}text")}
    assert {"seat 1", "seat 2", "seat 3", "points by feature"} <= texts


def test_verify_svg_draws_the_best_river_laying_when_the_tiles_cannot_make_one_river(tmp_path):
    """tests/fixtures/topology/river_stuck.tess: the lake cannot continue the river laid so far."""
    import re

    res = runner.invoke(app, ["verify", str(ROOT / "tests/fixtures/topology/river_stuck.tess"), "--only", "set-river",
                              "--svg", str(tmp_path)])
    assert res.exit_code == 1, res.output
    [path] = tmp_path.glob("*.svg")
    assert path.name == "bad_river_stuck.set-river.svg" and f"wrote {path}" in res.output
    said = re.findall(r"([\w.]+) at \[(-?\d+),(-?\d+)\] rotation (\d+)", res.output)
    root = svg(path)
    tiles = groups(root, "river-tile")
    assert [(g.get("data-tile"), g.get("data-cell"), g.get("data-rotation")) for g in tiles] == \
        [(n, f"{x},{y}", r) for n, x, y, r in said]
    assert len(groups(root, "stuck")) >= 1
    assert "then lake cannot continue" in next(e.text for e in root.iter(f"{SVG}text") if e.get("class") == "headline")


# ------------------------------------------------------------------ tiles covering several cells
def test_the_fortress_is_drawn_whole_from_its_numbered_places(tmp_path):
    """siege.fortress `cells 3x2` (rules/siege.tess, assume fortress_drawing): one picture of 3 x 2
    tile boxes, one drawn feature per declared feature, its place labels the numbered names."""
    rs = require_rule_set(["base", "siege"])
    [t] = rs.tile_types("siege.fortress")
    res, out = draw(tmp_path, "base", "siege", "--places", "--tile", "siege.fortress")
    assert res.exit_code == 0, res.output
    cell = tile_cell(svg(out), "siege.fortress")
    [ground] = [e for e in cell.iter(f"{SVG}rect") if e.get("class") == "tile-ground"]
    assert (float(ground.get("width")), float(ground.get("height"))) == (300, 200)
    assert Counter(g.get("data-kind") for g in features_of(cell)) == Counter(f.kind for f in t.features)
    labels = Counter(e.text for e in cell.iter(f"{SVG}text") if e.get("class") == "place")
    assert labels == Counter(p for f in t.features for p in f.places)
    assert {"N1w", "E2", "W1", "C6"} <= set(labels)
    caption = next(e.text for e in cell.iter(f"{SVG}text") if e.get("class") == "caption")
    assert caption == "siege.fortress  ×2, 3x2 cells"


def test_one_road_to_four_sides_has_no_junction_but_four_roads_do(tmp_path):
    """SIEGE-TILE-1 (a): no road ends on siege.crossroads; the base crossroads X has four roads
    ending at a junction (BASE-ROAD-1)."""
    res, out = draw(tmp_path, "base", "siege", "--tile", "siege.crossroads", "--tile", "X")
    assert res.exit_code == 0, res.output
    root = svg(out)
    junctions = lambda name: [e for e in tile_cell(root, name).iter() if e.get("class") == "junction"]  # noqa: E731
    assert len(junctions("X")) == 1 and junctions("siege.crossroads") == []
    roads = lambda name: [g for g in features_of(tile_cell(root, name)) if g.get("data-kind") == "road"]  # noqa: E731
    assert len(roads("X")) == 4 and len(roads("siege.crossroads")) == 1


BIG = """module big "tiles covering several cells"
requires base
tile big.square x1 cells 2x2 {
  edges (C F) (F R) (R F) (F C)
  city N1 W2 shields 2
  road E2 S1
  cloister C4
  field N2w N2e E1n E1s E2n S1w -> N1
  field E2s S1e
  field S2e S2w W1s W1n -> N1
}
tile big.long x1 cells 3x1 {
  edges (R F R) (C) (F F F) (R)
  road W1 N1 N3
  city E1 shields 1
  field N1e N2w N2e N3w -> E1
  field N3e -> E1
  field S1e S1w S2e S2w S3e S3w W1s N1w
  field W1n
}
override start D at 0 0 rotation 0, big.square at 1 0, big.long at -3 -1
"""


def test_any_tile_covering_several_cells_is_drawn_within_its_cells(tmp_path):
    """A designer's own `cells WxH` tiles (language.md 2.6): every declared feature drawn once, in
    its kind's colour, every shield and every drawn point inside the tile's W x H boxes."""
    (tmp_path / "big.tess").write_text(BIG, encoding="utf-8")
    rs = require_rule_set(["base", str(tmp_path / "big.tess")])
    res, out = draw(tmp_path, "base", str(tmp_path / "big.tess"), "--places", "--tile", "big.square", "--tile", "big.long")
    assert res.exit_code == 0, res.output
    root = svg(out)
    style = Style.of(rs)
    for name, (w, h) in (("big.square", (2, 2)), ("big.long", (3, 1))):
        [t] = rs.tile_types(name)
        cell = tile_cell(root, name)
        drawn = features_of(cell)
        assert Counter(g.get("data-kind") for g in drawn) == Counter(f.kind for f in t.features), name
        for g in drawn:
            if style.category[g.get("data-kind")] != "half":
                assert style.fill[g.get("data-kind")] in fills(g) | strokes(g), (name, g.get("data-kind"))
            x0, x1, y0, y1 = _path_box(g)
            assert 0 <= x0 and x1 <= 100 * w and 0 <= y0 and y1 <= 100 * h, (name, g.get("data-kind"), (x0, x1, y0, y1))
        shields = groups(cell, "shield")
        assert len(shields) == sum(f.shields for f in t.features)
        for s in shields:
            x0, x1, y0, y1 = _path_box(s)
            assert 0 <= x0 and x1 <= 100 * w and 0 <= y0 and y1 <= 100 * h, (name, (x0, x1, y0, y1))
        labels = Counter(e.text for e in cell.iter(f"{SVG}text") if e.get("class") == "place")
        assert labels == Counter(p for f in t.features for p in f.places)


def _labels(rec):
    from tessera.pictures.board import timeline
    from tessera.pictures.steps import event_text, step_label

    tl = timeline(json.loads(rec.read_text()), rec.parent)
    return [(step_label(s.index, s.player, s.moves, s.events, s.final), [event_text(e) for e in s.events])
            for s in tl.steps], tl


def test_step_text_says_each_move_and_event_with_its_clause():
    """Read from the engine's typed moves and events (pictures/steps.py): a floor on another tile's
    tower with the height it reaches, a follower on top, a capture and a ransom, each with its clause."""
    steps, tl = _labels(record_file("tower/top_captured_then_higher.json"))
    assert [label for label, _ in steps] == [
        "Start: the start landscape is laid.",
        "Turn 1: red lays tower.B at [0,1] (rotation 0), puts a floor on the tower (C, height 1).",
        "Turn 2: blue lays B at [0,2] (rotation 0), puts a follower on top of the tower at [0,1] (height 1).",
        "Turn 3: red lays tower.A at [1,1] (rotation 0), puts a floor on the tower (C, height 1), captures blue's "
        "follower at [0,1] [TOWER-CAPTURE-1].",
        "Turn 4: blue lays B at [0,3] (rotation 0), puts a floor on the tower at [0,1] (height 2)."]
    assert steps[3][1] == ["red captures blue's follower on C of [0,1], who becomes red's prisoner"]
    assert tl.steps[3].prisoners == {"red": {"blue": {"follower": 1}}}
    # the tower at [0,1]: height 1 from step 1, the follower on top from step 2 to its capture at 3, height 2 at 4
    assert tl.stack_spans[((0, 1), "C")] == [(1, {"red": 1}, 1, 4), (2, {"blue": 1, "red": 1}, 4, None)]
    assert [(k0, k1) for (who, fig, cell, _), k0, k1 in tl.figure_spans if cell == (0, 1)] == [(2, 3)]
    steps, _ = _labels(record_file("tower/ransom.json"))
    assert "red buys back their follower from blue [TOWER-RANSOM-1], lays B at [2,2]" in steps[7][0]
    assert steps[7][1] == ["red buys back their follower from blue for 3 points"]


def test_step_text_names_an_attack_and_who_removed_what():
    """attack_question_mark.json: the "?" tile's catapult, sent to the monks outpost whose slot is
    taken: an attack (SIEGE-ATTACK-1); yellow, with no follower there, removes a monk."""
    steps, tl = _labels(RECORDS / "siege" / "fortress" / "attack_question_mark.json")
    label, events = steps[-1]
    assert label.startswith("Turn 4: you draws st.Q: a catapult comes to the full catapult slot of the monks outpost "
                            "(chosen by you): an attack [SIEGE-ATTACK-1]; yellow removes their follower from C of "
                            "[-1,-1] [SIEGE-ATTACK-1]. you lays st.Q at [2,-1]"), label
    assert "yellow removes their follower from C of [-1,-1] (the monks outpost is attacked)" in events
    assert "the monks outpost scores at the attack: you +3, blue +3" in events
    assert tl.steps[-1].outposts["monks"]["catapults"] == 0  # the attack took the catapults away


def test_a_tower_board_draws_floors_as_a_stack_with_its_height_and_the_prisoners(tmp_path):
    """top_captured_then_higher.json after 4 turns: the tower at [0,1] has 2 floors (red's, then
    blue's once red captured blue's follower on top of it): one stack of height 2, no floor drawn
    as a figure; red holds 1 of blue's followers (TOWER-CAPTURE-1)."""
    rec = record_file("tower/top_captured_then_higher.json")
    for turn, expect in ((2, {"0,1": "1", "1,1": None}), (4, {"0,1": "2", "1,1": "1"})):
        res, out = draw(tmp_path, str(rec), "--turn", str(turn), name=f"t{turn}.svg")
        assert res.exit_code == 0, res.output
        root = svg(out)
        stacks = {g.get("data-cell"): g.get("data-height") for g in groups(root, "stack")}
        assert stacks == {c: h for c, h in expect.items() if h is not None}
        for g in groups(root, "stack"):  # the number drawn is the height
            assert [t.text for t in g.iter(f"{SVG}text")] == [g.get("data-height")]
        assert not groups(root, "figure-floor")
        on_top = groups(root, "on-top")
        assert [(g.get("data-player"), g.get("data-cell")) for g in on_top] == ([("blue", "0,1")] if turn == 2 else [])
        held = [(t.get("data-player"), t.get("data-owner"), t.get("data-count")) for t in root.iter(f"{SVG}text")
                if t.get("class") == "held"]
        assert held == ([] if turn == 2 else [("red", "blue", "1")])
        marks = groups(root, "mark-capture")
        assert [m.get("data-cell") for m in marks] == ([] if turn == 2 else [])  # the capture was at turn 3
    res, out = draw(tmp_path, str(rec), "--turn", "3", name="t3.svg")
    assert [m.get("data-cell") for m in groups(svg(out), "mark-capture")] == ["0,1"]


@pytest.mark.slow
def test_names_in_a_tower_record_cannot_inject_markup_through_prisoners(tmp_path):
    evil = {"red": "</script><b>red", "blue": '" onload="alert(2)'}
    rec = json.loads((record_file("tower/exchange.json")).read_text())

    def rename(x):
        if isinstance(x, dict):
            return {k: evil.get(v, v) if k in ("player", "of", "from") else rename(v) for k, v in x.items()}
        return [rename(v) for v in x] if isinstance(x, list) else x

    rec = dict(rec, players=[evil[p] for p in rec["players"]], turns=rename(rec["turns"]))
    p = tmp_path / "evil.json"
    p.write_text(json.dumps(rec))
    out = tmp_path / "evil.html"
    res = runner.invoke(app, ["view", str(p), "-o", str(out)])
    assert res.exit_code == 0, res.output
    page = out.read_text()
    from html.parser import HTMLParser

    class Tags(HTMLParser):
        seen: list = []

        def handle_starttag(self, tag, attrs):
            self.seen.append((tag, [a for a, _ in attrs]))  # (the viewer's own <b> has an id)

    parser = Tags()
    parser.feed(page)
    assert not [t for t, attrs in parser.seen if t == "b" and "id" not in attrs]  # the name's markup is no element
    assert not [t for t, attrs in parser.seen if "onload" in attrs]  # nor its quote an attribute
    assert "</script><b>" not in page
    data = json.loads(page.split('id="game-data">')[1].split("</script>")[0])
    assert data["steps"][2]["prisoners"] == {evil["blue"]: {evil["red"]: {"follower": 1}}}
    for turn in (2, 5):
        res, out = draw(tmp_path, str(p), "--turn", str(turn), name=f"evil{turn}.svg")
        assert res.exit_code == 0, res.output
        svg(out)  # still well-formed XML


def test_the_followers_a_counterattack_sends_home_are_shown_on_their_outpost(tmp_path):
    """counterattack_monks.json (EX-SIEGE-COUNTER-1a, 004 p. 5): "Синій гравець набирає 2 х 3 = 6 очок. Ви
    набираєте 4 х 3 = 12 очок. Жовтий гравець набирає 1 х 3 = 3 очки." The step of the counterattack
    shows the monks outpost empty and the 7 followers it sent home: blue's 2, yours 4, yellow's 1."""
    rec = record_file("siege/counterattack_monks.json")
    out = tmp_path / "ca.html"
    res = runner.invoke(app, ["view", str(rec), "-o", str(out)])
    assert res.exit_code == 0, res.output
    page = out.read_text()
    data = json.loads(page.split('id="game-data">')[1].split("</script>")[0])
    last = data["steps"][-1]
    assert last["outposts"]["monks"]["row"] == [] and last["outposts"]["monks"]["pool"] == []
    home = last["returned"]["monks"]
    assert {p: home.count(p) for p in set(home)} == {"blue": 2, "you": 4, "yellow": 1}
    assert set(last["returned"]) == {"monks"}
    assert not any(s["returned"] for s in data["steps"][:-1])  # nobody left an outpost before


def test_step_text_says_a_round_end_release_and_the_prisoners_column_empties():
    """prisoners_freed_each_round (rules/variants): blue captures red's follower at turn 2, the last
    seat's turn; the round ends and HOUSE-FREED-1's `release` sends it home at once, so the step says
    so with its clause and nobody is left holding a prisoner."""
    steps, tl = _labels(RECORDS / "house" / "prisoners_freed" / "two_players_home_at_once.json")
    label, events = steps[2]
    assert label.endswith("captures red's follower at [0,1] [TOWER-CAPTURE-1]. The round ends: red's follower "
                          "from blue goes home [HOUSE-FREED-1]."), label
    assert "blue releases red's follower at the round's end: back to red's supply" in events
    assert tl.steps[2].prisoners == {}
