"""What a designer measures (issue 27): rule usage by clause and rule-file line, the balance
measures, and the warning for a rule of the rules under study that never fired."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tessera.play import usage
from tessera.compiler.build import load_engine
from tessera.replay.turns import draw  # chance's move: deal the tile a test names
from tessera.play.simulate import lead, play_one, simulate
from tessera.dsl.loader import load_rule_set
from tessera import engine_cmds  # noqa: F401  (registers the engine commands)
from tessera.cli import app

runner = CliRunner()
FIXTURES = Path(__file__).resolve().parent / "fixtures"
OUTPOST4 = FIXTURES / "house_outpost4.tess"  # the house rule: a fourth outpost, for farmers


def _json(args):
    r = runner.invoke(app, ["simulate", *args, "--json"])
    assert r.exit_code == 0, r.output
    return json.loads(r.output)


def _line_of(path: Path, text: str) -> int:
    return next(i for i, line in enumerate(path.read_text().splitlines(), 1) if text in line)


def test_fourth_outpost_usage_in_against():
    """HOUSE-OUTPOST-4 (the house rule's `on put follower of field { may put follower on row }`):
    random players choose it; `--against siege` shows how often it fired, at its rule-file line,
    beside SIEGE-OUTPOST-3 (a farmer's follower to an outpost's pool), which fires under both."""
    doc = _json(["--rules", str(OUTPOST4), "--against", "siege", "-n", "12", "-j", "1"])
    line = _line_of(OUTPOST4, "on put follower of field")
    ours = {(u["clause"], u["where"].rsplit(":", 1)[-1]): u for u in doc["rules"]["rule_usage"]}
    house = ours[("HOUSE-OUTPOST-4", str(line))]
    assert house["chosen"] and house["total"] > 0 and house["games"]["n"] == 12
    assert house["total"] == sum(r["fired"].get("outpost|row|HOUSE-OUTPOST-4", 0) for r in doc["rules"]["per_game"])
    assert not any(u["clause"] == "HOUSE-OUTPOST-4" for u in doc["against"]["rule_usage"])
    diffs = {d["measure"]: d for d in doc["differences"]}
    row = next(d for m, d in diffs.items() if m.startswith("fires: HOUSE-OUTPOST-4 (") and m.endswith(f":{line})"))
    assert row["ref"] == 0 and row["ours"] == pytest.approx(house["total"] / 12, abs=1e-4) and row["low"] is not None
    pool = next(d for m, d in diffs.items() if m.startswith("fires: SIEGE-OUTPOST-3 (rules/siege.tess:"))
    assert pool["ref"] > 0  # the Siege's own farmer rule fired under both


def test_never_fired_warning_names_the_rule():
    """A rule of the rules under study that fired in none of the games gets a warning naming its
    clause and line; a player's decision (a ransom, TOWER-RANSOM-1) says no player chose it."""
    rs, _, _ = load_rule_set(["base", "tower"])
    cat = usage.catalogue(rs)
    ransom = next(r for r in cat.rules if r.clause == "TOWER-RANSOM-1")
    assert ransom.where == f"rules/tower.tess:{_line_of(Path('rules/tower.tess'), 'ransom follower')}"
    rows = [{"fired": {"score|city complete|BASE-CITY-2": 2}}, {"fired": {}}]
    warns = usage.never_fired(cat, rows)
    assert f"{ransom.where}: TOWER-RANSOM-1 never fired in 2 games: no player chose it (ransom follower, abbot)" in warns
    assert not any("BASE-CITY-2" in w for w in warns)  # it fired
    assert any("BASE-ROAD-2 never fired in 2 games: it never came into play" in w for w in warns)


def test_warning_printed_for_the_house_rule(tmp_path):
    """The summary's warning goes to stderr after the table: a house rule whose ransom needs more
    points than anyone has (TOWER-RANSOM-1) never fires."""
    house = tmp_path / "dear_ransom.tess"
    house.write_text('module dear_ransom "House rule: a ransom nobody can pay"\nrequires tower\n'
                     "override ransom follower, abbot = 3 when points >= 100000 [TOWER-RANSOM-1]\n")
    r = runner.invoke(app, ["simulate", "--rules", f"base,{house}", "-n", "3", "-j", "1"])
    assert r.exit_code == 0, r.output
    assert "dear_ransom.tess:3: TOWER-RANSOM-1 never fired in 3 games: no player chose it" in r.output


class _Game:
    def __init__(self, names, events, turn):
        self.names, self.events, self.turn = names, events, turn
        self.scores = [0] * len(names)
        for ev in events:
            for n, v in ev["points"].items():
                self.scores[names.index(n)] += v

    def returns(self):
        return list(self.scores)


def test_lead_changes_and_decided_at():
    """Lead changes count a new player alone on top (a tie on top ends no lead); the game is decided
    from the turn the winner leads alone for good."""
    ev = lambda t, **p: {"turn": t, "kind": "score", "points": p}  # noqa: E731
    g = _Game(["a", "b"], [ev(3, a=4), ev(5, b=6), ev(8, a=2), ev(9, a=1), ev(20, b=1)], 20)
    # a leads after 3, b after 5 (change 1), tie 6-6 after 8, a after 9 (change 2), tie 7-7 at the end
    assert lead(g) == {"lead_changes": 2, "decided_at": None, "moves": 20}
    g = _Game(["a", "b"], [ev(3, a=4), ev(5, b=6), ev(8, a=2), ev(9, a=1), ev(20, a=1)], 20)
    assert lead(g) == {"lead_changes": 2, "decided_at": 9, "moves": 20}  # a alone on top from turn 9 on
    g = _Game(["a", "b"], [ev(20, b=3)], 20)  # only the final scoring decides
    assert lead(g)["decided_at"] == 20


@pytest.mark.parametrize("spec", ["base", "base+tower", "base+siege", "base+river+abbot+king_robber", "base+barn", "card"])
def test_events_sum_to_the_scores(spec):
    """The lead is read from the scoring events: on every bundled module they add up to the final scores."""
    rs, _, _ = load_rule_set(spec.split("+"))
    eng = load_engine(rs)
    s = simulate(eng, 3, 3, 5, spec.split("+"), agents=["random", "greedy", "random"], rule_set=rs)
    for r in s.rows:
        assert r["moves"] >= r["turns"] and (r["decided_at"] is None or 0 <= r["decided_at"] <= r["moves"])
    for i in range(3):
        g, _ = play_one(eng, 3, 1000 + i, ["random", "greedy", "random"], False)
        total = [0, 0, 0]
        for ev in g.events:
            for n, v in (ev.get("points") or {}).items():
                total[g.names.index(n)] += v
        assert total == list(g.returns())


def test_balance_in_summary_json():
    doc = _json(["-n", "40", "-p", "2", "-s", "3", "-j", "1", "--agents", "greedy,random"])
    b, rows = doc["balance"], doc["per_game"]
    shared = sum(max(r["scores"]) == min(r["scores"]) for r in rows)
    assert b["tie_rate"]["count"] == shared and b["tie_rate"]["n"] == 40
    assert b["lowest_score"]["min"] == min(min(r["scores"]) for r in rows)
    assert b["score_spread"]["mean"] == pytest.approx(sum(max(r["scores"]) - min(r["scores"]) for r in rows) / 40, abs=1e-4)
    edge = [r["scores"][0] - r["scores"][1] for r in rows]
    assert b["seat_advantage"]["score"]["mean"] == pytest.approx(sum(edge) / 40, abs=1e-4)
    assert b["seat_advantage"]["score"]["mean"] > 0  # greedy in seat 1 against random
    assert b["seat_advantage"]["fair_share"] == 0.5
    assert b["lead_changes"]["mean"] == pytest.approx(sum(r["lead_changes"] for r in rows) / 40, abs=1e-4)
    assert 0 <= b["decided_at"]["mean"] <= 1 and b["length_spread"]["n"] == 40
    assert any(u["clause"] == "BASE-CITY-2" and u["where"].startswith("rules/base.tess:") for u in doc["rule_usage"])


def test_expansion_counts_compared():
    """Captures (TOWER-CAPTURE-1) are compared under --against, with the points they move."""
    doc = _json(["--rules", "base,tower", "--against", "base", "-n", "6", "-j", "1"])
    diffs = {d["measure"]: d for d in doc["differences"]}
    assert diffs["captures"]["ref"] == 0 and diffs["captures"]["ours"] > 0
    for m in ("lowest score", "score spread (top - bottom)", "lead changes", "decided at (share of the game)",
              "length spread (turns from the median length)", "seat advantage (seat 1's score - the others' mean)"):
        assert diffs[m]["n"] >= 1
    assert doc["rules"]["expansion_counts"]["captures"]["mean"] == diffs["captures"]["ours"]


# -- greedy values what a move sets up (issue 27): standing_points, by the rules' own terms ----------
def test_SIEGE_END_1_a_follower_on_an_outpost_stands_for_what_the_end_pays():
    """A follower sent to the knights' row (SIEGE-OUTPOST-2) stands for 3 points: what the
    outposts' `on end` rule (SIEGE-END-1: `score each 3 * own`) would pay were the game to end now."""
    from test_siege_outposts import CITY_ROT, CITY_SIDE, Y, _game

    g = _game([], ["red", "blue"], ("base", "siege"))
    draw(g, "E")
    assert g.standing_points() == [0, 0]
    fi = g.orientation(CITY_ROT).feature_at(CITY_SIDE)
    g.apply_action(((0, Y), CITY_ROT, (0, fi)))
    opts = g.legal_actions()
    assert opts == [("outpost", 0, "row"), ("pass",)]
    h = g.clone()
    h.apply_action(("outpost", 0, "row"))
    assert h.standing_points() == [3, 0] and h.returns() == g.returns()
    from tessera.play.agents import GreedyAgent

    assert GreedyAgent().choose(g, opts) == ("outpost", 0, "row")


def test_TOWER_RANSOM_1_a_prisoner_stands_for_its_ransom_price():
    """Blue's capture of red's monk (TOWER-CAPTURE-1) holds a prisoner red may buy back for 3
    (TOWER-RANSOM-1: `ransom follower, abbot = 3`): 3 to blue, -3 to red; the capture's own score
    change is 0, so greedy sees it only through what it sets up."""
    from test_tower import FLOOR, MONK, _play, _t

    r = _play([_t("B", 0, 1, place=MONK),
               _t("tower.B", 1, 1, place=FLOOR, capture={"figure": "follower", "of": "red", "at": [0, 1], "on": "C"})])
    assert r.error is None, r.error
    assert r.game.standing_points() == [-3, 3]


def test_greedy_uses_the_towers_and_the_sieges_rules():
    """Greedy players capture (TOWER-CAPTURE-1) and pay ransoms (TOWER-RANSOM-1) on the Tower, and
    send followers to outposts from a city, road or cloister (SIEGE-OUTPOST-2) and from a field
    (SIEGE-OUTPOST-3) on the Siege: no bundled rule of theirs that a player chooses is left unused."""
    fired = {}
    for names in (["base", "tower"], ["base", "siege"]):
        rs, _, _ = load_rule_set(names)
        s = simulate(load_engine(rs), 6, 2, 0, names, agents=["greedy", "greedy"], rule_set=rs)
        for u in s.rule_usage():
            if u["chosen"]:
                fired[u["clause"]] = u["total"]
    assert fired["TOWER-CAPTURE-1"] > 0 and fired["SIEGE-OUTPOST-2"] > 0 and fired["SIEGE-OUTPOST-3"] > 0
    assert fired["TOWER-RANSOM-1"] > 0, fired
