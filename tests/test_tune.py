"""`tessera tune` (issue 40): candidates raced on common seeds, the honest answer, --jobs, and `tessera verify
--param`, whose proved values are tune's candidates."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tessera.cli import app
from tessera.tune.search import Target, TargetError, parse_target

runner = CliRunner()
VARIANTS = Path(__file__).resolve().parent.parent / "rules" / "variants"
BONUS = str(VARIANTS / "second_seat_bonus.tess")


def test_targets_read_and_judge_an_interval():
    t = parse_target("seat_advantage=0")
    assert (t.measure, t.op, t.value) == ("seat_advantage", "=", 0.0)
    assert t.consistent(0.5, -1.0, 2.0) and t.met(0.5, -1.0, 2.0) and not t.consistent(3.0, 1.0, 5.0)
    le = parse_target("tie_rate<=5%")
    assert le.value == pytest.approx(0.05)
    assert le.consistent(0.06, 0.04, 0.09) and not le.met(0.06, 0.04, 0.09) and le.met(0.02, 0.01, 0.04)
    assert le.distance(0.08) == pytest.approx(0.03) and le.distance(0.01) == 0
    assert le.distance_range(0.06, 0.04, 0.09) == (0.0, pytest.approx(0.04))
    with pytest.raises(TargetError, match="did you mean `tie_rate`"):
        parse_target("tie_rat<=0.05")
    with pytest.raises(TargetError, match="write MEASURE=VALUE"):
        parse_target("seat_advantage ~ 0")


def _tune(*args):
    r = runner.invoke(app, ["tune", "base," + BONUS, "--param", "second_seat_bonus=0..3", "--no-verify", *args])
    return r


@pytest.mark.slow
def test_common_seeds_and_the_honest_answer():
    """Every candidate plays the same games: a bonus paid at the end changes no move, so each candidate's seat
    advantage is the first's minus its bonus, game by game.  A target no value can meet is said so, with the
    nearest value (exit 1)."""
    r = _tune("--target", "seat_advantage=40", "--budget", "48", "--first", "12", "--json")
    assert r.exit_code == 1, r.output
    doc = json.loads(r.output)
    assert doc["met"] is False and doc["chosen"]["values"] == {"second_seat_bonus": 0}
    by = {c["values"]["second_seat_bonus"]: c["measures"]["seat_advantage"] for c in doc["candidates"]}
    assert by[1]["estimate"] == pytest.approx(by[0]["estimate"] - 1, abs=1e-3)
    assert doc["games_spent"] <= 48 and doc["games_spent"] == sum(c["games"] for c in doc["candidates"])
    text = _tune("--target", "seat_advantage=40", "--budget", "48", "--first", "12")
    assert text.exit_code == 1
    said = " ".join(text.output.split())
    assert "no value meets the targets within the budget of 48 games; the nearest is second_seat_bonus=0" in said


@pytest.mark.slow
def test_jobs_give_the_result_of_a_serial_run(tmp_path):
    args = ["--target", "seat_advantage=0", "--target", "tie_rate<=0.05", "--budget", "40", "--first", "6", "--json"]
    one = json.loads(_tune(*args, "--jobs", "1").output)
    two = json.loads(_tune(*args, "--jobs", "2").output)
    for d in (one, two):
        d.pop("seconds")
    assert one == two
    assert one["chosen"] is not None and one["pareto_front"]


def test_a_parameter_the_rules_lack_is_a_usage_error():
    r = runner.invoke(app, ["tune", "base", "--param", "city_tile", "--target", "seat_advantage=0", "--budget", "4",
                            "--no-verify"])
    assert r.exit_code == 2 and "declare no parameter `city_tile`" in r.output


@pytest.mark.slow
def test_verify_over_a_range_proves_the_sound_part_and_not_the_other(tmp_path):
    """TOWER-RANSOM-1 with a price above the check's 3 points can leave a payer below 0 (BASE-SCORE-3):
    `verify --param ransom_price` proves 3 with the price kept a z3 name and does not prove 4 (z3's state:
    a payer with 3 points pays 4)."""
    import tessera.verifier.witness as wit
    from tessera.verifier.checks import load_checks
    from tessera.verifier.params import verify_range

    load_checks()
    games, wit.WITNESS_GAMES = wit.WITNESS_GAMES, 0
    try:
        res = verify_range([str(VARIANTS / "ransom_price_unchecked.tess")], "ransom_price", record=tmp_path,
                           low=3, high=4)
    finally:
        wit.WITNESS_GAMES = games
    assert res.symbolic and res.proved() == [3]
    (p3, p4) = res.parts
    assert (p3.low, p3.high, p3.verdict, p3.symbolic) == (3, 3, "proved", True)
    assert (p4.low, p4.verdict) == (4, "not proved")
    assert "score-nonnegative" in p4.details[0] and "price=4" in p4.details[0]
    assert res.to_dict()["proved"] == [[3, 3]]
