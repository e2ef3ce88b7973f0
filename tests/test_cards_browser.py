"""The card game's viewer as a person sees it: in headless Chromium (Debian's), driven by Playwright.

A simulated 2-player game of rules/card.tess played to the deck's end (CARD-END-1), viewed as its
author (`--seat all`), as a player and as a spectator.  Set TESSERA_SCREENSHOTS=docs to refresh
docs/viewer-cards.png.
"""
from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from browser import chromium_page
from tessera import engine_cmds, picture_cmds  # noqa: F401  (registers the commands)
from tessera.cli import app

runner = CliRunner()


def _ok(res):
    assert res.exit_code == 0, res.output
    return res


@pytest.fixture(scope="module")
def record(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("cards")
    _ok(runner.invoke(app, ["simulate", "--rules", "card", "--games", "1", "--players", "2", "--seed", "4",
                            "--record", str(out / "rec"), "--json"]))
    [rec] = sorted((out / "rec").glob("*.json"))
    return rec


@pytest.mark.slow
def test_the_author_sees_every_hand_steps_first_to_last_and_reads_why_the_game_ended(record, tmp_path):
    page_file = tmp_path / "all.html"
    _ok(runner.invoke(app, ["view", str(record), "--seat", "all", "-o", str(page_file)]))
    doc = json.loads(record.read_text())
    answer = json.loads(_ok(runner.invoke(app, ["replay", str(record), "--json"])).output)
    steps = len(doc["turns"])  # the set-up, then one step per turn (the game ended by itself: no final step)
    with chromium_page() as page:
        requests: list[str] = []
        page.on("request", lambda r: requests.append(r.url))
        page.context.set_offline(True)
        page.goto(page_file.as_uri())
        shown = "#table .step:not(.hidden)"
        assert page.inner_text("#step-no") == f"0 / {steps}"
        lays = [t for t in doc["turns"] if "lay" in t]  # this deck has a joker among the layout's 10 cards
        assert lays and doc["turns"][0] == lays[0]
        assert (f"set-up: the dealer, {doc['players'][-1]}, lays the joker {lays[0]['lay']}"
                in page.text_content(f"{shown} .heading"))  # drawn, and laid before the layout goes on (CARD-DEAL-1)
        for _ in lays:
            page.click("#next")
        hands = page.locator(f"{shown} g.hand")
        assert hands.count() == 2  # both players' hands, to the author
        assert [hands.nth(i).get_attribute("data-player") for i in range(2)] == doc["players"]
        assert page.locator(f"{shown} g.hand .card").count() == 12  # 6 cards each (CARD-DEAL-1, 2 players)
        legend = page.locator(f"{shown} g.legend")
        assert legend.locator(".legend-feudal").count() == 2
        assert f"{doc['players'][0]}'s big_feudal" in legend.text_content()
        page.click("#last")
        assert page.inner_text("#step-no") == f"{steps} / {steps}"
        head = page.text_content(f"{shown} .heading")
        assert head.startswith("game over after round 10: ")  # and on the next line why (CARD-END-1):
        assert "the deck's end: 0 cards are left and a round of 2 players needs 12" in head
        assert "to move" not in head
        winners = answer["winners"]
        assert (" and ".join(winners)) in head
        assert page.inner_text("#scores-title") == "Final scores"
        assert {p: int(page.inner_text(f'#scores td.num[data-player="{p}"]')) for p in doc["players"]} == answer["scores"]
        page.click("#prev")
        assert page.inner_text("#step-no") == f"{steps - 1} / {steps}"
        page.click("#first")
        assert page.inner_text("#step-no") == f"0 / {steps}"
        page.click("#next")
        page.click("#last")
        shot = tmp_path / "viewer-cards.png"
        page.screenshot(path=str(shot), full_page=True)
        assert shot.stat().st_size > 10_000
        page.click("#first")
        for _ in range(20):  # round 2 of this game: both hands, face-down cards, a layout joker
            page.click("#next")
        page.screenshot(path=str(tmp_path / "viewer-cards-20.png"), full_page=True)
        assert not page.errors, page.errors
        assert all(u.startswith(("file:", "data:", "about:")) for u in requests), requests
    if os.environ.get("TESSERA_SCREENSHOTS"):
        shutil.copy(tmp_path / "viewer-cards-20.png", Path(os.environ["TESSERA_SCREENSHOTS"]) / "viewer-cards.png")


@pytest.mark.slow
def test_a_player_sees_one_hand_and_a_spectator_none(record, tmp_path):
    doc = json.loads(record.read_text())
    me = doc["players"][0]
    for seat, want in ((me, [me]), (None, [])):
        page_file = tmp_path / f"{seat}.html"
        _ok(runner.invoke(app, ["view", str(record), "-o", str(page_file)] + (["--seat", seat] if seat else [])))
        with chromium_page() as page:
            page.goto(page_file.as_uri())
            hands = page.locator("#table .step:not(.hidden) g.hand")
            assert [hands.nth(i).get_attribute("data-player") for i in range(hands.count())] == want
            # the first play of round 1 goes face down (CARD-TURN-1): only its player sees its face
            lays = sum(1 for t in doc["turns"] if "lay" in t)
            first = doc["turns"][lays]
            assert first["face"] == "down"
            for _ in range(lays + 1):
                page.click("#next")
            row = page.locator(f'#table .step:not(.hidden) g.row[data-row="{first["row"]}"]')
            assert row.locator(".card.back").count() == (0 if seat else 1)
            assert row.locator(f'.card[stroke-dasharray][data-card="{first["play"]}"]').count() == (1 if seat else 0)
            assert not page.errors, page.errors
