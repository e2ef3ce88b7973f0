"""The Tower's and the Siege's state in the viewer, as a person sees it in headless Chromium.

Two recorded games (`tessera simulate --record`, three players, players renamed red, blue, green):
tests/records/tower/games/three_players.json (captures, exchanges, ransoms) and
tests/records/siege/games/three_players.json (catapults, attacks, two removals in one turn, outposts).
Every expectation is computed from the engine's own state after that many turns (the record's
prefix replayed, `replay/tiles.py`): its prisoners, its outposts, the floors on each tower, its
events -- never copied from a screenshot.

Set TESSERA_SCREENSHOTS=docs to refresh docs/viewer-tower.png and docs/viewer-siege.png.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from browser import chromium_page
from tessera.replay.tiles import replay
from tessera import engine_cmds, picture_cmds  # noqa: F401  (registers the commands)
from tessera.cli import app

ROOT = Path(__file__).resolve().parent.parent
TOWER = ROOT / "tests" / "records" / "tower" / "games" / "three_players.json"
SIEGE = ROOT / "tests" / "records" / "siege" / "games" / "three_players.json"
runner = CliRunner()


def _view(record: Path, tmp_path: Path) -> Path:
    out = tmp_path / (record.parent.parent.name + ".html")
    res = runner.invoke(app, ["view", str(record), "-o", str(out)])
    assert res.exit_code == 0, res.output
    return out


def _after(record: Path, k: int):
    """The engine after the record's first k turns (no final scoring): (replay answer, game)."""
    rec = json.loads(record.read_text())
    res = replay(dict(rec, turns=rec["turns"][:k], end="none"), record.parent)
    assert res.error is None
    return res.answer, res.game


def _events_of_turn(record: Path, i: int) -> list[dict]:
    """The events record turn i caused (the whole record replayed)."""
    answer = replay(json.loads(record.read_text()), record.parent).answer
    return [e for e in answer["events"] if e["turn"] == i]


def _go(page, k: int) -> None:
    page.keyboard.press("Home")
    for _ in range(k):
        page.keyboard.press("ArrowRight")
    assert page.inner_text("#step-no").split(" / ")[0] == str(k)


def _inside(inner, outer, slack=1.0) -> bool:
    return (inner["x"] >= outer["x"] - slack and inner["y"] >= outer["y"] - slack
            and inner["x"] + inner["width"] <= outer["x"] + outer["width"] + slack
            and inner["y"] + inner["height"] <= outer["y"] + outer["height"] + slack)


def _last_tile_in_view(page, steps: int) -> None:
    """After End: the frame of the tile laid last lies inside the board's panel, whole."""
    page.keyboard.press("End")
    assert page.inner_text("#step-no") == f"{steps} / {steps}"
    panel = page.locator("#board").bounding_box()
    last = page.locator(f'#board .last-placed[data-step="{steps}"]')
    assert last.count() == 1
    box = last.bounding_box()
    assert box is not None and box["width"] >= 40, box  # drawn at a size one can see (50 px a tile or more)
    assert _inside(box, panel), (box, panel)


def _tower_heights(g) -> dict[str, int]:
    """The engine's floors per tower: "x,y" of the tower's tile -> how many floors stand there."""
    out = {}
    for f in g.features():
        floors = [c for _, fig, c, _ in f["figure_places"] if fig == "floor"]
        for c in floors:
            key = f"{c[0]},{c[1]}"
            out[key] = out.get(key, 0) + 1
    return out


def _shown_heights(page) -> dict[str, int]:
    seen = {}
    for el in page.locator("#board g.stack:not(.hidden)").all():
        h = int(el.get_attribute("data-height"))
        assert el.locator("text.height").text_content() == str(h)  # the number one reads on the tower
        seen[el.get_attribute("data-cell")] = h
    return seen


def _shown_prisoners(page, players) -> dict:
    out = {}
    for p in players:
        td = page.locator(f'#scores td.prisoners[data-player="{p}"]')
        held = {}
        for span in td.locator(".held").all():
            owner, fig, n = span.get_attribute("data-owner"), span.get_attribute("data-figure"), int(span.get_attribute("data-count"))
            assert f"{n} {owner} {fig}" in span.inner_text()  # said in words too
            held.setdefault(owner, {})[fig] = n
        if held:
            out[p] = held
        assert int(td.get_attribute("data-count")) == sum(sum(f.values()) for f in held.values())
    return out


@pytest.mark.slow
def test_a_tower_game_shows_prisoners_tower_heights_and_names_each_capture(tmp_path):
    rec = json.loads(TOWER.read_text())
    turns, players = rec["turns"], rec["players"]
    full = replay(rec, TOWER.parent).answer
    captures = [e for e in full["events"] if e["kind"] == "capture" and e["to"] == "prisoner"]
    ransoms = [e for e in full["events"] if e["kind"] == "ransom"]
    assert captures and ransoms  # the record is one that shows them
    page_file = _view(TOWER, tmp_path)
    with chromium_page() as page:
        page.goto(page_file.as_uri())
        page.locator("body").click(position={"x": 5, "y": 5})
        # the step of a capture, and of a ransom, and a few others: what the engine holds then
        checks = sorted({captures[len(captures) // 2]["turn"] + 1, ransoms[0]["turn"] + 1, len(turns) // 3,
                         2 * len(turns) // 3})
        for k in checks:
            _go(page, k)
            answer, g = _after(TOWER, k)
            assert _shown_prisoners(page, players) == answer.get("prisoners", {}), k
            heights = _tower_heights(g)
            assert heights and _shown_heights(page) == heights, k
            # a floor is never drawn as a player's figure
            assert page.locator('#board g.figure-floor:not(.hidden)').count() == 0
        # the capture's step names it, with its clause, in the step's sentence and in its events
        cap = captures[len(captures) // 2]
        _go(page, cap["turn"] + 1)
        label = page.inner_text("#step-label")
        at = f"[{cap['at'][0]},{cap['at'][1]}]"
        assert f"captures {cap['victim']}'s {cap['figure']} at {at} [{cap['clause']}]" in label, label
        put = turns[cap["turn"]]["place"]
        assert f"puts a {put['figure']} on the tower" in label and "(height " in label, label
        li = page.locator('#events li[data-kind="capture"]')
        assert li.count() == 1 and cap["victim"] in li.inner_text() and at in li.inner_text()
        assert li.locator(".clause").inner_text() == cap["clause"]
        assert "nothing scored" not in page.inner_text("#events")
        mark = page.locator("#board g.mark-capture:not(.hidden)")  # where the captured figure stood
        assert mark.count() == 1 and mark.get_attribute("data-cell") == f"{cap['at'][0]},{cap['at'][1]}"
        # a ransom's step says who bought back what from whom, with its clause
        rn = ransoms[0]
        _go(page, rn["turn"] + 1)
        assert f"buys back their {rn['figure']} from {rn['holder']} [{rn['clause']}]" in page.inner_text("#step-label")
        # the legend names every figure of the rule set
        legend = page.inner_text("#legend")
        assert "floors stacked" in legend and "follower" in legend and "on top of a stack" in legend
        _last_tile_in_view(page, len(turns))
        assert not page.errors, page.errors
        if os.environ.get("TESSERA_SCREENSHOTS"):
            _go(page, cap["turn"] + 1)
            page.screenshot(path=str(Path(os.environ["TESSERA_SCREENSHOTS"]) / "viewer-tower.png"))


def _shown_outposts(page) -> dict:
    out = {}
    for div in page.locator("#outposts .outpost").all():
        name = div.get_attribute("data-outpost")
        row = [s.get_attribute("data-player") for s in div.locator(".slot.filled").all()]
        assert div.locator(".slot").count() == int(div.get_attribute("data-slots"))
        pool = [d.get_attribute("data-player") for d in div.locator(".pool .disc").all()]
        out[name] = {"row": row, "pool": pool, "catapults": div.locator(".catapult.filled").count(),
                     "slots": div.locator(".slot").count()}
    return out


@pytest.mark.slow
def test_a_siege_game_shows_outposts_filling_attacks_and_who_removed_what(tmp_path):
    rec = json.loads(SIEGE.read_text())
    turns = rec["turns"]
    full = replay(rec, SIEGE.parent).answer
    by_turn: dict[int, list] = {}
    for e in full["events"]:
        by_turn.setdefault(e["turn"], []).append(e)
    # a turn with two removals and an extra figure on an outpost (the "no scoring this step")
    twice = [i for i, evs in sorted(by_turn.items())
             if sum(e["kind"] == "remove" for e in evs) >= 2 and any(e["kind"] == "outpost" for e in evs)]
    arrivals = [i for i, evs in sorted(by_turn.items()) if any(e["kind"] == "catapult" for e in evs)]
    assert twice and arrivals
    page_file = _view(SIEGE, tmp_path)
    with chromium_page() as page:
        page.goto(page_file.as_uri())
        page.locator("body").click(position={"x": 5, "y": 5})
        # the outposts fill over the game as the engine says, step by step
        for k in sorted({*range(0, len(turns), 7), twice[0] + 1, arrivals[0] + 1}):
            _go(page, k)
            answer, _ = _after(SIEGE, k)
            assert _shown_outposts(page) == answer["outposts"], k
            for e in by_turn.get(k - 1, []) if k else []:  # what came to an outpost this step is marked on it
                if e["kind"] in ("catapult", "attack"):
                    news = page.locator(f'#outposts .outpost[data-outpost="{e["outpost"]}"] .news.{e["kind"]}')
                    assert news.count() >= 1, (k, e)
        # the turn of two removals: who removed what, each with its clause, and marks where they stood
        i = twice[0]
        _go(page, i + 1)
        label, events = page.inner_text("#step-label"), page.inner_text("#events")
        removals = [e for e in by_turn[i] if e["kind"] == "remove"]
        for e in removals:
            said = f"{e['player']} removes their {e['figure']} from {e['on']} of [{e['at'][0]},{e['at'][1]}]"
            assert f"{said} [{e['clause']}]" in label, label
            assert said in events
        lis = page.locator('#events li[data-kind="remove"]')
        assert lis.count() == len(removals)
        assert {lis.nth(j).locator(".clause").inner_text() for j in range(lis.count())} == {e["clause"] for e in removals}
        post = next(e for e in by_turn[i] if e["kind"] == "outpost")
        assert f"puts a {post['figure']} on the {post['outpost']} outpost's {post['slot']}" in label
        assert "no scoring" not in events and "nothing scored" not in events
        marks = page.locator("#board g.mark-remove:not(.hidden)")
        assert sorted(marks.nth(j).get_attribute("data-cell") for j in range(marks.count())) == \
            sorted(f"{e['at'][0]},{e['at'][1]}" for e in removals)
        legend = page.inner_text("#legend")
        assert "removed" in legend and "catapult slot" in legend and "outpost pool" in legend
        from tessera.dsl.loader import require_rule_set

        symbols = require_rule_set(rec["rules"]).symbol_names()  # every symbol a tile prints has an entry
        assert symbols and sorted(e.get_attribute("data-legend") for e in page.locator("#legend li[data-legend^=symbol-]").all()) \
            == sorted(f"symbol-{n}" for n in symbols)
        _last_tile_in_view(page, len(turns))
        assert not page.errors, page.errors
        if os.environ.get("TESSERA_SCREENSHOTS"):
            _go(page, i + 1)
            page.screenshot(path=str(Path(os.environ["TESSERA_SCREENSHOTS"]) / "viewer-siege.png"))
