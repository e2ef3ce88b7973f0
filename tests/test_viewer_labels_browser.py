"""Pictures round 2 (issue 39, items 9 and 10), as a person sees them in headless Chromium.

The Siege viewer's outposts panel: no label or box overlaps another and no text runs out of its box,
at 1280, 1400 and 1920 px wide, at every step where something came to an outpost (the "catapult
arrives" label used to be drawn inside a catapult slot's 22-px box, since both carried the class
`catapult`).  The Tower viewer: a legend entry for every mark a tile shows (the purple "T" of the
tower), height badges as large as a printed symbol's, the floor put this step framed, and plurals
("1 follower, 8 floors").  Records: tests/records/{siege,tower}/games/three_players.json."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from browser import chromium_page
from tessera import engine_cmds, picture_cmds  # noqa: F401  (registers the commands)
from tessera.cli import app

pytestmark = pytest.mark.slow  # Chromium

ROOT = Path(__file__).resolve().parent.parent
TOWER = ROOT / "tests" / "records" / "tower" / "games" / "three_players.json"
SIEGE = ROOT / "tests" / "records" / "siege" / "games" / "three_players.json"

# every pair of the panel's labels and boxes that overlap, and every one whose text runs out of its box
OVERLAPS = """() => {
  const els = Array.from(document.querySelectorAll(
    '#outposts .name, #outposts .slot, #outposts .pool, #outposts .catapult, #outposts .news, #outposts .returned'));
  const boxes = els.map(e => [e, e.getBoundingClientRect()]);
  const out = [];
  for (const [e, r] of boxes) {
    if (e.scrollWidth > e.clientWidth + 1 || e.scrollHeight > e.clientHeight + 1)
      out.push(['runs out of its box', e.className, e.textContent]);
  }
  for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
    const [a, ra] = boxes[i], [b, rb] = boxes[j];
    if (a.contains(b) || b.contains(a) || !ra.width || !rb.width) continue;
    const ox = Math.min(ra.right, rb.right) - Math.max(ra.left, rb.left);
    const oy = Math.min(ra.bottom, rb.bottom) - Math.max(ra.top, rb.top);
    if (ox > 0.5 && oy > 0.5) out.push(['overlap', a.className + ' ' + a.textContent, b.className + ' ' + b.textContent]);
  }
  const panel = document.getElementById('outposts').getBoundingClientRect();
  for (const [e, r] of boxes)
    if (r.width && (r.left < panel.left - 0.5 || r.right > panel.right + 0.5)) out.push(['outside the panel', e.className]);
  return out;
}"""


def _view(record: Path, tmp_path: Path) -> Path:
    out = tmp_path / (record.parent.parent.name + ".html")
    res = CliRunner().invoke(app, ["view", str(record), "-o", str(out)])
    assert res.exit_code == 0, res.output
    return out


@pytest.mark.parametrize("width", [1280, 1400, 1920])
def test_siege_outpost_labels_never_overlap(tmp_path, width):
    page_file = _view(SIEGE, tmp_path)
    with chromium_page(width=width, height=900) as page:
        page.goto(page_file.as_uri())
        page.locator("body").click(position={"x": 5, "y": 5})
        page.keyboard.press("Home")
        steps = int(page.inner_text("#step-no").split(" / ")[1])
        checked = kinds = 0
        for k in range(steps + 1):
            news = page.locator("#outposts .news, #outposts .returned").count()
            if news or k % 10 == 0:
                bad = page.evaluate(OVERLAPS)
                assert bad == [], (width, k, bad)
                checked += 1
                kinds += page.locator("#outposts .news.catapult").count()
            page.keyboard.press("ArrowRight")
        assert kinds > 0 and checked > 10  # steps where a catapult arrived were among those checked
        assert not page.errors, page.errors


def test_tower_legend_badges_new_floor_and_plurals(tmp_path):
    rec = json.loads(TOWER.read_text())
    k = next(i for i, t in enumerate(rec["turns"]) if t.get("place", {}).get("figure") == "floor") + 1
    page_file = _view(TOWER, tmp_path)
    with chromium_page(width=1400, height=900) as page:
        page.goto(page_file.as_uri())
        page.locator("body").click(position={"x": 5, "y": 5})
        page.keyboard.press("Home")
        for _ in range(k):
            page.keyboard.press("ArrowRight")
        # every centre emblem a tile shows has its legend entry: the tower's purple "T" among them
        legend = page.inner_text("#legend")
        assert "tower (a tower: floors stand on it)" in legend and "a floor put this step" in legend
        assert page.locator('#legend li[data-legend="kind-tower"] svg').count() == 1
        # the height badge: about 20 px across on the board at this size (was 7), its number 1 or more
        badge = page.locator("#board g.stack:not(.hidden) circle.height-badge").first.bounding_box()
        assert badge["width"] >= 16 and badge["height"] >= 16
        # the floor put this step is framed, at the tower the step's sentence names
        label = page.inner_text("#step-label")
        at = re.search(r"puts a floor on the tower at \[(-?\d+),(-?\d+)\]", label)
        frames = page.locator("#board g.new-floor:not(.hidden)")
        assert at and frames.count() == 1 and frames.first.get_attribute("data-cell") == f"{at[1]},{at[2]}"
        page.keyboard.press("ArrowRight")  # the next step: that frame is gone (another may come)
        assert page.locator(f'#board g.new-floor:not(.hidden)[data-step="{k}"]').count() == 0
        # plurals in the supply column: "1 follower", "3 followers", never "3 follower" or "5 floor,"
        supply = " | ".join(page.locator("td.supply").all_inner_texts())
        assert re.search(r"\b(?:[02-9]|\d\d+) followers\b", supply) and not re.search(r"\b(?:[02-9]|\d\d+) (follower|floor)\b(?!s)", supply)
        assert not page.errors, page.errors
