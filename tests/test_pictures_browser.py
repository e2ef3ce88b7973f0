"""The pictures as a person sees them: in headless Chromium (Debian's), driven by Playwright.

Set TESSERA_SCREENSHOTS=docs to refresh the screenshot committed as docs/viewer.png.
"""
from __future__ import annotations

import pytest

import io
import json
import os
import shutil
from pathlib import Path

from PIL import Image
from typer.testing import CliRunner

from browser import chromium_page
from tessera.dsl.loader import require_rule_set
from tessera import engine_cmds, picture_cmds  # noqa: F401  (registers the commands)
from tessera.cli import app
from tessera.pictures.viewer import plural

ROOT = Path(__file__).resolve().parent.parent
runner = CliRunner()


def _ok(res):
    assert res.exit_code == 0, res.output
    return res


@pytest.mark.slow
def test_viewer_steps_to_the_end_with_the_keyboard_and_shows_the_replayed_scores(tmp_path):
    """A simulated game (base + abbot, two players), opened from disk with no network."""
    _ok(runner.invoke(app, ["simulate", "--games", "1", "--players", "2", "--seed", "7", "--rules", "base,abbot",
                            "--record", str(tmp_path / "rec"), "--json"]))
    [record] = sorted((tmp_path / "rec").glob("*.json"))
    page_file = tmp_path / "game.html"
    _ok(runner.invoke(app, ["view", str(record), "-o", str(page_file)]))
    answer = json.loads(_ok(runner.invoke(app, ["replay", str(record), "--json"])).output)
    turns = len(json.loads(record.read_text())["turns"])
    with chromium_page() as page:
        requests: list[str] = []
        page.on("request", lambda r: requests.append(r.url))
        page.context.set_offline(True)
        page.goto(page_file.as_uri())
        assert page.inner_text("#step-no") == f"0 / {turns}"
        visible = "#board g.placed:not(.hidden)"
        assert page.locator(visible).count() == 1  # the start tile
        assert page.inner_text("#drawn-name") == "start landscape"
        page.locator("body").click(position={"x": 5, "y": 5})
        for _ in range(turns):
            page.keyboard.press("ArrowRight")
        assert page.inner_text("#step-no") == f"{turns} / {turns}"
        page.keyboard.press("ArrowRight")  # past the end: stays there
        assert page.inner_text("#step-no") == f"{turns} / {turns}"
        shown = {p: int(page.inner_text(f'#scores td.num[data-player="{p}"]')) for p in answer["scores"]}
        assert shown == answer["scores"]
        for p, figs in answer["supply"].items():  # the figures each player has left, as replay reports them
            assert page.inner_text(f'#scores td.supply[data-player="{p}"]') == ", ".join(f"{n} {plural(f, n)}" for f, n in figs.items())
        assert page.inner_text("#scores-title") == "Final scores"
        placed = sum(1 for t in json.loads(record.read_text())["turns"] if not t.get("discard"))
        assert page.locator(visible).count() == 1 + placed
        # the events of the last step name their clauses, as replay does for the final scoring
        final_clauses = [e["clause"] for e in answer["events"] if e["turn"] >= turns - 1]
        shown_clauses = page.locator("#events .clause").all_inner_texts()
        assert shown_clauses == final_clauses and shown_clauses
        assert page.inner_text("#drawn-name") == json.loads(record.read_text())["turns"][-1]["tile"]
        page.keyboard.press("Home")
        assert page.inner_text("#step-no") == f"0 / {turns}"
        assert page.locator(visible).count() == 1
        page.click("#last")
        assert page.inner_text("#step-no") == f"{turns} / {turns}"
        page.click("#prev")
        assert page.inner_text("#step-no") == f"{turns - 1} / {turns}"
        page.keyboard.press("End")
        shot = tmp_path / "viewer.png"
        page.screenshot(path=str(shot))
        assert shot.stat().st_size > 10_000
        assert not page.errors, page.errors  # no script error
        assert all(u.startswith(("file:", "data:", "about:")) for u in requests), requests
    if os.environ.get("TESSERA_SCREENSHOTS"):
        shutil.copy(shot, Path(os.environ["TESSERA_SCREENSHOTS"]) / "viewer.png")


@pytest.mark.slow
def test_tile_sheet_in_the_browser_shows_every_tile(tmp_path):
    rs = require_rule_set(["base", "river", "abbot", "king_robber"])
    out = tmp_path / "tiles.svg"
    _ok(runner.invoke(app, ["draw", "base", "river", "abbot", "king_robber", "-o", str(out)]))
    with chromium_page(width=1000, height=1000) as page:
        page.goto(out.as_uri())
        for t in rs.tiles:
            cell = page.locator(f'g.tile[data-tile="{t.id}"]')
            assert cell.count() == 1, t.id
            box = cell.bounding_box()
            assert box is not None and box["width"] >= 100 and box["height"] >= 100, (t.id, box)
            caption = cell.locator("text.caption").text_content()
            label = t.name if t.variant is None else f"{t.name} + {t.variant}"
            assert caption == f"{label}  ×{t.count}"
        # the tiles do not overlap: every tile's box is its own
        boxes = [page.locator(f'g.tile[data-tile="{t.id}"] rect.tile-ground').bounding_box() for t in rs.tiles]
        corners = {(round(b["x"]), round(b["y"])) for b in boxes}
        assert len(corners) == len(rs.tiles)
        assert not page.errors


def test_a_missing_or_broken_browser_fails_the_test_with_the_reason(tmp_path, monkeypatch):
    """No browser test is skipped silently."""
    import pytest

    monkeypatch.setenv("TESSERA_CHROMIUM", str(tmp_path / "no-chromium"))
    with pytest.raises(pytest.fail.Exception, match="Chromium is not installed at .*no-chromium"):
        with chromium_page():
            pass
    fake = tmp_path / "chromium"
    fake.write_text("#!/bin/sh\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setenv("TESSERA_CHROMIUM", str(fake))
    with pytest.raises(pytest.fail.Exception, match="cannot be started"):
        with chromium_page():
            pass


FEATURE_AT = """([x, y]) => {
  let e = document.elementFromPoint(x, y);
  while (e && !(e.classList && e.classList.contains('feature'))) e = e.parentElement;
  return e ? [e.dataset.kind, +e.dataset.index] : null;
}"""


GEOMETRY = """(sel) => Array.from(document.querySelectorAll(sel)).map(e => {
  const b = e.getBBox(), m = e.getScreenCTM();
  return {kind: e.dataset.kind, x: b.x * m.a + m.e, y: b.y * m.d + m.f, width: b.width * m.a, height: b.height * m.d};
})"""


def _feature_at(page, box, x, y):
    """The feature a person sees at (x, y) of a tile picture whose box is `box` (tile units = px)."""
    return page.evaluate(FEATURE_AT, [box["x"] + x, box["y"] + y])


def _inside(inner, outer, slack=1.5):
    return (inner["x"] >= outer["x"] - slack and inner["y"] >= outer["y"] - slack
            and inner["x"] + inner["width"] <= outer["x"] + outer["width"] + slack
            and inner["y"] + inner["height"] <= outer["y"] + outer["height"] + slack)


def _overlap(a, b):
    return (a["x"] < b["x"] + b["width"] - 1 and b["x"] < a["x"] + a["width"] - 1
            and a["y"] < b["y"] + b["height"] - 1 and b["y"] < a["y"] + a["height"] - 1)


@pytest.mark.slow
def test_the_fortress_spans_3x2_tile_boxes_on_the_sheet_as_the_rule_file_draws_it(tmp_path):
    """rules/siege.tess `cells 3x2` and assume fortress_drawing: the fortress inside, the river along
    the south row from W1 to E2, a field north of it and one south.  siege.crossroads (SIEGE-TILE-1
    (a)) is one road through the middle; the base crossroads X shows the junction its roads end at."""
    rs = require_rule_set(["base", "siege"])
    out = tmp_path / "tiles.svg"
    _ok(runner.invoke(app, ["draw", "base", "siege", "-o", str(out)]))
    with chromium_page(width=1100, height=2600) as page:
        page.goto(out.as_uri())
        ground = lambda tid: page.locator(f'g.tile[data-tile="{tid}"] rect.tile-ground').bounding_box()  # noqa: E731
        one, fort = ground("X"), ground("siege.fortress")
        assert abs(fort["width"] - 3 * one["width"]) <= 1 and abs(fort["height"] - 2 * one["height"]) <= 1, (fort, one)
        # every feature of the fortress lies on its own picture, and no other tile's picture overlaps it
        feats = page.evaluate(GEOMETRY, 'g.tile[data-tile="siege.fortress"] g.feature')
        assert sorted(f["kind"] for f in feats) == ["field", "field", "fortress", "river"]
        for f in feats:
            assert _inside(f, fort, slack=0.5), f
        others = [ground(t.id) for t in rs.tiles if t.id != "siege.fortress"]
        assert not [b for b in others if _overlap(b, fort)]
        caption = page.locator('g.tile[data-tile="siege.fortress"] text.caption').bounding_box()
        assert caption["y"] >= fort["y"] + fort["height"] and not [b for b in others if _overlap(b, caption)]
        # what a person sees where: the river across the south row, the fortress north of it, fields outside
        at = lambda x, y: _feature_at(page, fort, x, y)  # noqa: E731
        for x in (5, 50, 150, 250, 295):
            assert at(x, 150)[0] == "river", x
        for x, y in ((50, 50), (150, 90), (250, 50), (60, 120)):
            assert at(x, y)[0] == "fortress", (x, y)
        north, south = at(150, 8), at(150, 192)
        assert north[0] == south[0] == "field" and north != south
        assert at(5, 100) == at(295, 100) == at(150, 8) and at(5, 190) == at(295, 190) == south
        # crossroads: one road seen in the middle of siege.crossroads, the junction in the middle of X
        cross = ground("siege.crossroads")
        seen = _feature_at(page, cross, 50, 50)  # None: something that is no feature (a junction) is on top
        assert seen is not None and seen[0] == "road", seen
        assert page.locator('g.tile[data-tile="siege.crossroads"] .junction').count() == 0
        centre = page.evaluate("([x, y]) => document.elementFromPoint(x, y).getAttribute('class')",
                               [one["x"] + 50, one["y"] + 50])
        assert centre == "junction"
        # nothing of the fortress shows past its edges of it shows past its edges: a ring of pixels just outside it is the sheet's white
        shot = Image.open(io.BytesIO(page.screenshot(clip={"x": fort["x"] - 4, "y": fort["y"] - 4,
                                                           "width": fort["width"] + 8, "height": fort["height"] + 8})))
        w, h = shot.size
        ring = [(x, y) for x in range(w) for y in (0, 1, h - 2, h - 1)] + \
               [(x, y) for y in range(h) for x in (0, 1, w - 2, w - 1)]
        assert {shot.getpixel(p)[:3] for p in ring} == {(255, 255, 255)}
        if os.environ.get("TESSERA_SCREENSHOTS"):
            page.screenshot(path=str(Path(os.environ["TESSERA_SCREENSHOTS"]) / "siege-tiles.png"),
                            clip={"x": 0, "y": fort["y"] - 40, "width": 1000, "height": 560})
        assert not page.errors


@pytest.mark.slow
def test_a_siege_board_shows_the_fortress_across_its_cells_and_figures_where_they_stand(tmp_path):
    """The start landscape (SIEGE-SETUP-1, rules/siege.tess): the two fortress tiles side by side, 3x2
    cells each, the source at the west river end and the lake at the east one; a farmer on the tile
    north of the fortress's NW cell (rules/records/siege/farmer_to_travellers_pool.json).
    Then `tessera simulate --rules base,siege --record DIR -n 1` and `tessera draw` of the record:
    every figure is drawn inside the picture of the cell it stands on, the fortress cells included."""
    rec = ROOT / "rules" / "records" / "siege" / "farmer_to_travellers_pool.json"
    out = tmp_path / "board.svg"
    _ok(runner.invoke(app, ["draw", str(rec), "-o", str(out)]))
    _ok(runner.invoke(app, ["simulate", "-n", "1", "-j", "1", "--seed", "3", "--rules", "base,siege", "--record",
                            str(tmp_path / "rec"), "--json"]))
    [record] = sorted((tmp_path / "rec").glob("*.json"))
    game = json.loads(record.read_text())
    (tmp_path / "first30.json").write_text(json.dumps(dict(game, turns=game["turns"][:30], end="none")))
    sim = tmp_path / "sim.svg"  # the first 30 turns only: a board replays every prefix
    _ok(runner.invoke(app, ["draw", str(tmp_path / "first30.json"), "-o", str(sim)]))
    with chromium_page(width=2400, height=2400) as page:
        page.goto(out.as_uri())
        cell = lambda c: page.locator(f'g.placed[data-cell="{c}"] rect.tile-ground').bounding_box()  # noqa: E731
        forts = page.locator("g.placed.multicell")
        assert forts.count() == 2
        a, b = cell("0,0"), cell("3,0")
        src, lake, u = cell("-1,1"), cell("6,1"), cell("0,-1")
        for f in (a, b):
            assert abs(f["width"] - 3 * src["width"]) <= 1 and abs(f["height"] - 2 * src["height"]) <= 1
        side = src["width"]
        assert abs(b["x"] - (a["x"] + 3 * side)) <= 1 and abs(b["y"] - a["y"]) <= 1  # side by side
        assert abs(src["x"] + side - a["x"]) <= 1 and abs(src["y"] - (a["y"] + side)) <= 1  # at W1
        assert abs(lake["x"] - (b["x"] + 3 * side)) <= 1 and abs(lake["y"] - (a["y"] + side)) <= 1  # at E2
        assert abs(u["x"] - a["x"]) <= 1 and abs(u["y"] + side - a["y"]) <= 1  # north of the NW cell
        # one river from the source through both fortress tiles into the lake
        for x in (src["x"] + 75, a["x"] + 150, b["x"] - 2, b["x"] + 2, b["x"] + 150, lake["x"] + 25):
            kind = page.evaluate(FEATURE_AT, [x, a["y"] + 150])
            assert kind and kind[0] == "river", x
        [farmer] = page.locator("g.figure").all()
        assert farmer.get_attribute("data-cell") == "0,-1"  # on U's north field (Wn Nw Ne En)
        assert farmer.get_attribute("data-place") in ("Wn", "Nw", "Ne", "En")
        fb = farmer.bounding_box()
        assert _inside(fb, u) and not _overlap(fb, a)
        # a simulated game: every figure is drawn inside the picture of the cell it stands on
        page.goto(sim.as_uri())
        seen = page.evaluate("""() => {
          const box = e => { const r = e.getBoundingClientRect(); return {x: r.x, y: r.y, width: r.width, height: r.height}; };
          return {
            tiles: Array.from(document.querySelectorAll('g.placed')).map(g => [g.dataset.cell, g.dataset.cells || '1x1',
                                                                               box(g.querySelector('rect.tile-ground'))]),
            figures: Array.from(document.querySelectorAll('g.figure')).map(f => [f.dataset.cell, f.dataset.place, box(f)]),
          };
        }""")
        boxes = {}
        for at, cells, box in seen["tiles"]:
            x, y = map(int, at.split(","))
            w, h = map(int, cells.split("x"))
            for i in range(w):
                for j in range(h):
                    boxes[(x + i, y + j)] = {"x": box["x"] + i * box["width"] / w, "y": box["y"] + j * box["height"] / h,
                                             "width": box["width"] / w, "height": box["height"] / h}
        assert sum(1 for _, cells, _ in seen["tiles"] if cells == "3x2") == 2
        assert sum(1 for c in boxes if 0 <= c[0] <= 5 and 0 <= c[1] <= 1) == 12
        assert seen["figures"]
        for at, place, fb in seen["figures"]:
            c = tuple(map(int, at.split(",")))
            assert _inside(fb, boxes[c], slack=3), (c, place)
        assert not page.errors


@pytest.mark.slow  # starts Chromium: not in the fast subset (README)
def test_a_card_game_as_one_player_sees_it(tmp_path):
    """The card game (rulebook 001) viewed as blue: blue's hand, red's face-down card as a card back
    (CARD-TURN-1), stepping to the end shows the replayed scores; as red, that card shows its face."""
    record = ROOT / "rules" / "records" / "card" / "misplaced.json"
    answer = json.loads(_ok(runner.invoke(app, ["replay", str(record), "--json"])).output)
    pages = {}
    for seat in ("blue", "red"):
        pages[seat] = tmp_path / f"{seat}.html"
        _ok(runner.invoke(app, ["view", str(record), "--seat", seat, "-o", str(pages[seat])]))
    turns = len(json.loads(record.read_text())["turns"])
    with chromium_page() as page:
        page.context.set_offline(True)
        page.goto(pages["blue"].as_uri())
        assert page.inner_text("#step-no") == f"0 / {turns + 1}"  # set-up, every move, final scoring
        hand = '.step:not(.hidden) g.hand[data-player="blue"] rect.card'
        assert page.locator(hand).count() == 6
        assert {page.locator(hand).nth(i).get_attribute("data-card") for i in range(6)} == {"green.people.1"}
        page.locator("body").click(position={"x": 5, "y": 5})
        page.keyboard.press("ArrowRight")  # red lays yellow.people.3 face down into the red row
        red_row = '.step:not(.hidden) g.row[data-row="red"]'
        assert page.locator(f"{red_row} rect.back").count() == 1
        assert page.locator(f'{red_row} rect[data-card="yellow.people.3"]').count() == 0
        assert "a card face down" in page.inner_text("#step-label")
        page.keyboard.press("End")
        shown = {p: int(page.inner_text(f'#scores td.num[data-player="{p}"]')) for p in answer["scores"]}
        assert shown == answer["scores"] and page.inner_text("#scores-title") == "Final scores"
        page.goto(pages["red"].as_uri())
        page.locator("body").click(position={"x": 5, "y": 5})
        page.keyboard.press("ArrowRight")
        assert page.locator(f'{red_row} rect[data-card="yellow.people.3"]').count() == 1
        assert not page.errors
