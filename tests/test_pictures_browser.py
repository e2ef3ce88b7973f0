"""The pictures as a person sees them: in headless Chromium (Debian's), driven by Playwright.

Set TESSERA_SCREENSHOTS=docs to refresh the screenshot committed as docs/viewer.png.
"""
from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from typer.testing import CliRunner

from browser import chromium_page
from dsl.loader import require_rule_set
from tessera import engine_cmds, picture_cmds  # noqa: F401  (registers the commands)
from tessera.cli import app

ROOT = Path(__file__).resolve().parent.parent
runner = CliRunner()


def _ok(res):
    assert res.exit_code == 0, res.output
    return res


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
            assert page.inner_text(f'#scores td.supply[data-player="{p}"]') == ", ".join(f"{n} {f}" for f, n in figs.items())
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
