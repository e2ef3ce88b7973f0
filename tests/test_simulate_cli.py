"""`tessera simulate`: summary with intervals, JSON and CSV rows, seeds, --against statistics, --jobs."""
from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tessera.play import stats
from tessera.play.simulate import Summary, compare, game_seed, run
from tessera.cli import app
from tessera import engine_cmds  # noqa: F401  (registers the engine commands)

runner = CliRunner()
VARIANTS = Path(__file__).resolve().parent.parent / "rules" / "variants"


def _run(args):
    r = runner.invoke(app, ["simulate", *args])
    assert r.exit_code == 0, r.output
    return r.output


def _json(args):
    return json.loads(_run([*args, "--json"]))


def test_same_seed_same_summary():
    a = _json(["-n", "30", "-p", "3", "-s", "7", "--jobs", "1"])
    b = _json(["-n", "30", "-p", "3", "-s", "7", "--jobs", "1"])
    assert a == b
    assert a["mean_turns"] == pytest.approx(71.0 - a["mean_discards"])  # every land tile but the start is placed or discarded
    assert len(a["per_game"]) == 30 and [r["game"] for r in a["per_game"]] == list(range(30))
    # every mean comes with its interval and n
    s = a["by_seat"][0]["score"]
    assert s["n"] == 30 and s["low"] < s["mean"] < s["high"]
    assert a["points_by_feature"]["city"]["low"] < a["points_by_feature"]["city"]["mean"]


@pytest.mark.slow
def test_different_run_seeds_share_no_game():
    """Game i of run S has a seed split from (S, i): seeds 7 and 8 play different games (they shared 199 of 200)."""
    a = _json(["-n", "50", "-s", "7", "--jobs", "1"])
    b = _json(["-n", "50", "-s", "8", "--jobs", "1"])
    sa = {r["seed"] for r in a["per_game"]}
    sb = {r["seed"] for r in b["per_game"]}
    assert len(sa) == 50 and not sa & sb
    assert [r["seed"] for r in a["per_game"]] == [game_seed(7, i) for i in range(50)]


def test_wins_and_ties_are_counted_apart():
    """A shared top score is a tie, not half a win: 3 games [10,5], [5,5], [3,8]."""
    rows = [{"game": i, "seed": i, "scores": s, "points": {}, "turns": 1, "discards": 0}
            for i, s in enumerate([[10, 5], [5, 5], [3, 8]])]
    d = Summary(["base"], 2, 0, ["random", "random"], rows).to_dict()
    for seat in d["by_seat"]:
        assert seat["wins"]["count"] == 1 and seat["ties"]["count"] == 1 and seat["wins"]["n"] == 3
    # Wilson score interval of 1 in 3 at 95%: 0.0615 .. 0.7923 (textbook value)
    w = d["by_seat"][0]["wins"]
    assert (w["low"], w["high"]) == (pytest.approx(0.0615, abs=1e-4), pytest.approx(0.7923, abs=1e-4))


def test_paired_differences():
    base = [{"game": i, "seed": i, "scores": [10 + i % 7, 9], "points": {"city": 4 + i % 3, "road": i % 5},
             "turns": 70, "discards": 0} for i in range(40)]
    more = [{**r, "scores": [r["scores"][0] + 1, 9], "points": {"city": r["points"]["city"] + 2, "road": r["points"]["road"]}}
            for r in base]
    diffs = {d["measure"]: d for d in compare(Summary(["x"], 2, 0, ["random"] * 2, more),
                                              Summary(["base"], 2, 0, ["random"] * 2, base))}
    city = diffs["points from city"]
    assert city["diff"] == 2 and city["significant"]
    road = diffs["points from road"]
    assert road["diff"] == 0 and road["p"] == 1.0 and not road["significant"]
    assert diffs["score, seat 1 (random)"]["diff"] == 1 and diffs["score, seat 1 (random)"]["significant"]


def test_paired_t_interval_matches_scipy():
    """The difference of a measure that varies is scipy's paired t-test: its interval and p-value."""
    from scipy import stats as ss

    a = [3, 5, 4, 8, 6, 7, 5, 9]
    b = [2, 5, 3, 6, 6, 5, 4, 7]
    r = stats.paired(a, b)
    t = ss.ttest_rel(a, b)
    ci = t.confidence_interval(0.95)
    assert r["diff"] == pytest.approx(9 / 8) and r["p"] == pytest.approx(t.pvalue)
    assert (r["low"], r["high"]) == (pytest.approx(ci.low, abs=1e-4), pytest.approx(ci.high, abs=1e-4))


def test_against_plays_the_same_games_under_both_rules():
    """big_cities changes only a number (BASE-CITY-2): same seeds, same moves, more city points -- significant."""
    doc = _json(["-n", "40", "-r", str(VARIANTS / "big_cities.tess"), "--against", "base", "--jobs", "1"])
    ours, ref = doc["rules"], doc["against"]
    assert [r["seed"] for r in ours["per_game"]] == [r["seed"] for r in ref["per_game"]]
    assert ours["mean_turns"] == ref["mean_turns"]
    assert ours["mean_points_by_feature"]["road"] == ref["mean_points_by_feature"]["road"]
    diffs = {d["measure"]: d for d in doc["differences"]}
    assert diffs["points from city"]["diff"] > 0 and diffs["points from city"]["significant"]
    assert diffs["points from city"]["low"] > 0
    assert diffs["points from road"]["diff"] == 0 and not diffs["points from road"]["significant"]


def test_comparison_table_says_what_is_significant():
    out = _run(["-n", "20", "-r", str(VARIANTS / "big_cities.tess"), "--against", "base", "--jobs", "1"])
    assert "points from city" in out and "significant at the 5% level: " in out
    assert "points from city" in out.split("significant at the 5% level: ")[1]


@pytest.mark.slow
def test_jobs_1_and_2_give_the_same_json():
    """Splitting the seeds over processes changes nothing, to the byte (greedy and random players)."""
    args = ["-n", "6", "-r", str(VARIANTS / "big_cities.tess"), "--against", "base", "--agents", "greedy,random", "--json"]
    assert _run([*args, "--jobs", "1"]) == _run([*args, "--jobs", "2"])


@pytest.mark.slow
def test_csv_has_one_line_per_game_and_rule_set(tmp_path):
    f = tmp_path / "games.csv"
    doc = _json(["-n", "5", "-r", str(VARIANTS / "rich_farms.tess"), "--against", "base", "--jobs", "1", "--csv", str(f)])
    with open(f, newline="", encoding="utf-8") as fh:
        lines = list(csv.DictReader(fh))
    assert len(lines) == 10
    first = [x for x in lines if x["rules"] == "base"]
    assert [int(x["score_1"]) for x in first] == [r["scores"][0] for r in doc["against"]["per_game"]]
    assert [int(x["seed"]) for x in first] == [game_seed(0, i) for i in range(5)]


@pytest.mark.slow
def test_interrupted_run_keeps_the_games_finished():
    """Ctrl-C (here raised from the progress callback) stops the run; finished games are kept, in both modes."""
    from tessera.compiler.build import load_engine
    from tessera.dsl.loader import require_rule_set

    eng = load_engine(require_rule_set(["base"]))
    task = {"source": eng.source, "rules": ["base"], "players": 2, "seed": 3, "agents": ["random"] * 2, "record": None}
    for jobs in (1, 2):
        def stop(done):
            if done >= 3:
                raise KeyboardInterrupt

        res = run([task], 40, jobs, progress=stop)
        finished = [r for r in res.rows[0] if r is not None]
        assert res.interrupted and 3 <= len(finished) < 40
        assert all(r["seed"] == game_seed(3, r["game"]) for r in finished)


def test_usage_errors():
    assert runner.invoke(app, ["simulate", "-n", "1", "-p", "6"]).exit_code == 2
    for bad in ("chess", "greedy,random,random", "mcts:0", "mcts", "greedy:3"):
        r = runner.invoke(app, ["simulate", "-n", "1", "--agents", bad])
        assert r.exit_code == 2, (bad, r.output)
    assert runner.invoke(app, ["simulate", "-n", "1", "--backend", "ray"]).exit_code == 2
    assert runner.invoke(app, ["simulate", "-n", "1", "--seed", "-1"]).exit_code == 2


@pytest.mark.slow
def test_json_asked_gets_json_even_when_typer_refuses_the_command_line():
    """Issue 34: with --json, an unknown option or a value that is not a number (refused by typer
    itself, before any command runs) is one JSON object on stdout with exit 2, as every other failure
    under --json; without --json it stays typer's text on stderr."""
    import subprocess
    import sys

    for args, words in ((["check", "--json", "--bogus"], "--bogus"),
                        (["simulate", "--json", "--games", "x"], "'x' is not a valid integer")):
        p = subprocess.run([sys.executable, "-m", "tessera", *args], capture_output=True, text=True, timeout=120)
        assert p.returncode == 2, (args, p.stdout, p.stderr)
        doc = json.loads(p.stdout)
        assert doc["error"]["kind"] == "usage" and words in doc["error"]["message"], doc
        assert doc["error"]["message"].startswith(f"tessera {args[0]}: ")
    p = subprocess.run([sys.executable, "-m", "tessera", "check", "--bogus"], capture_output=True, text=True, timeout=120)
    assert p.returncode == 2 and p.stdout == "" and "--bogus" in p.stderr


@pytest.mark.slow
def test_ctrl_c_stops_the_workers_and_summarises_the_games_finished(tmp_path):
    """A real SIGINT to the process group, as a terminal sends it, while two workers play: exit 130, the
    summary of the games finished, and every record written is whole."""
    import os
    import signal
    import subprocess
    import sys
    import time

    rec = tmp_path / "games"
    p = subprocess.Popen([sys.executable, "-m", "tessera", "simulate", "-n", "100000", "--jobs", "2", "--record", str(rec)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        deadline = time.monotonic() + 120
        while len(list(rec.glob("*.json"))) < 4 and time.monotonic() < deadline and p.poll() is None:
            time.sleep(0.2)
        os.killpg(p.pid, signal.SIGINT)
        out, err = p.communicate(timeout=120)
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
    assert p.returncode == 130, err
    assert "interrupted" in err and "Traceback" not in err
    played = int(out.split(" games,")[0])
    assert 1 <= played < 100000
    records = sorted(rec.glob("*.json"))
    assert len(records) >= played
    for f in records:
        assert json.loads(f.read_text(encoding="utf-8"))["format"] == "tessera-game/1"


def test_against_reports_the_stronger_players_edge():
    """With one player stronger than the others (--agents greedy,ladder:0), --against says whether the rule
    change moves its edge: in the table, the sentence and the JSON, each rule set's edge read from the
    per-game rows; with --rotate-seats the players swap seats game by game."""
    args = ["-n", "6", "-s", "3", "--jobs", "1", "--agents", "greedy,ladder:0", "--rotate-seats",
            "--rules", str(VARIANTS / "big_cities.tess"), "--against", "base"]
    text = _run(args)
    assert "the stronger player's edge: greedy wins" in text and "seats fixed" not in text
    doc = _json(args)
    for side in ("rules", "against"):
        s = doc[side]
        assert s["agents"] == ["greedy", "random"] and s["edge"]["player"] == "greedy"
        assert s["edge"]["seats"] == "rotated"
        assert [r["agents"] for r in s["per_game"]] == [["greedy", "random"], ["random", "greedy"]] * 3
        wins = sum(r["scores"][r["agents"].index("greedy")] > r["scores"][r["agents"].index("random")]
                   for r in s["per_game"])
        assert s["edge"]["wins"]["count"] == wins
    d = {r["measure"]: r for r in doc["differences"]}
    w = d["edge: win rate of the stronger player (greedy)"]
    assert w["ours"] == pytest.approx(doc["rules"]["edge"]["wins"]["rate"])
    assert w["ref"] == pytest.approx(doc["against"]["edge"]["wins"]["rate"])
    fixed = _run(args[:-5] + ["--rules", str(VARIANTS / "big_cities.tess"), "--against", "base"])
    assert "seats fixed" in fixed
