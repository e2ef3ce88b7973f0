"""simulate --plot: the win-rate panel, each seat's rate of games won alone with its 95% Wilson interval."""
from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

from typer.testing import CliRunner

from tessera.cli import app
from tessera import engine_cmds  # noqa: F401  (registers the engine commands)

SVG = "{http://www.w3.org/2000/svg}"
BIG_CITIES = str(Path(__file__).resolve().parent.parent / "rules" / "variants" / "big_cities.tess")


def _heights(g) -> float:
    ys = [float(v) for p in g.iter(f"{SVG}path") for v in re.findall(r"-?\d+(?:\.\d+)?", p.get("d"))][1::2]
    return max(ys) - min(ys)


def test_plot_shows_win_rates_with_their_intervals(tmp_path):
    out = tmp_path / "plot.svg"
    r = CliRunner().invoke(app, ["simulate", "-n", "12", "-j", "1", "-r", BIG_CITIES, "--against", "base",
                                 "--json", "--plot", str(out)])
    assert r.exit_code == 0, r.output
    doc = json.loads(next(line for line in r.output.splitlines() if line.startswith("{")))
    root = ET.parse(out).getroot()
    ids = {g.get("id"): g for g in root.iter(f"{SVG}g") if g.get("id")}
    texts = {t.text for t in root.iter(f"{SVG}text")}
    assert "win rate by seat (95% interval)" in texts
    for key in ("rules", "against"):
        s = doc[key]
        name = "+".join(s["rules"])
        assert f"wins-interval-{name}" in ids
        rates = [x["wins"]["rate"] for x in s["by_seat"]]
        hs = [_heights(ids[f"wins-{name}-seat{p}"]) for p in (1, 2)]
        assert abs(hs[0] * rates[1] - hs[1] * rates[0]) < 0.01 * max(hs), (hs, rates)  # bars as high as the rates


def test_plot_shows_the_balance_measures(tmp_path):
    """The balance panel (issue 27): seat 1's wins, the tie rate and the share of the game played
    before the winner led for good, as bars as long as the summary's values."""
    out = tmp_path / "plot.svg"
    r = CliRunner().invoke(app, ["simulate", "-n", "12", "-j", "1", "-s", "2", "--json", "--plot", str(out)])
    assert r.exit_code == 0, r.output
    doc = json.loads(next(line for line in r.output.splitlines() if line.startswith("{")))
    root = ET.parse(out).getroot()
    ids = {g.get("id"): g for g in root.iter(f"{SVG}g") if g.get("id")}
    assert "balance (95% interval)" in {t.text for t in root.iter(f"{SVG}text")}

    def width(g) -> float:
        xs = [float(v) for p in g.iter(f"{SVG}path") for v in re.findall(r"-?\d+(?:\.\d+)?", p.get("d"))][0::2]
        return max(xs) - min(xs)

    wins = doc["balance"]["seat_advantage"]["wins"]["rate"]
    decided = doc["balance"]["decided_at"]["mean"]
    w1, w2 = width(ids["balance-base-seat-1-wins"]), width(ids["balance-base-decided-at"])
    assert abs(w1 * decided - w2 * wins) < 0.01 * max(w1, w2), (w1, w2, wins, decided)
