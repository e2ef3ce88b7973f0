"""The rulebooks' worked examples, checked against the rules with z3 (verifier/examples.py).

BASE-ROAD-2, BASE-CITY-2, BASE-CLOISTER-1, BASE-SCORE-1, BASE-END-2, BASE-FIELD-3,
ABBOT-RECALL-1, ABBOT-SCORE-1, RIVER-PLACE-2,
TOWER-CAPTURE-2, TOWER-COMP-1, SIEGE-COUNTER-1, SIEGE-ATTACK-1 (rules/siege.tess).  The two known
misprints (CONFLICT in CLAUSES.md: BASE-CITY-2's summary page, BASE-END-2's
"5 tiles + 1 shield = 8") are reported with the nearest consistent inputs.
"""
from __future__ import annotations

import pytest

import subprocess
import sys
from pathlib import Path

from conftest import rule_set
from tessera.verifier.checks import load_checks, run_check
from tessera.verifier.examples import check_examples

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "rules" / "examples"


def rules(*specs: str):
    return rule_set(*specs)  # loaded once per session (tests/conftest.py)


def results(*specs: str):
    return {r.ref: r for r in check_examples(rules(*specs))}


def test_every_bundled_example_agrees_or_is_a_known_misprint():
    res = results("base", "river", "abbot", "king_robber", "tower", "siege", *(str(p) for p in sorted(EXAMPLES.glob("*.tess"))))
    bad = [r.lines() for r in res.values() if not r.ok]
    assert not bad, bad
    conflicts = sorted(ref for ref, r in res.items() if r.status == "conflict")
    assert conflicts == ["EX-BASE-CITY-2a (summary page)", "EX-BASE-END-2d"]
    # every worked example with printed points in docs/rulebook-examples.md is encoded
    for ref in ("EX-BASE-ROAD-2a", "EX-BASE-CITY-2a", "EX-BASE-CLOISTER-1a", "EX-BASE-SCORE-1a", "EX-BASE-SCORE-1b",
                "EX-BASE-END-2a", "EX-BASE-END-2b", "EX-BASE-END-2c", "EX-BASE-END-2d", "EX-BASE-FIELD-3a",
                "EX-BASE-FIELD-3b", "EX-BASE-FIELD-3c", "EX-ABBOT-RECALL-1a", "EX-TOWER-CAPTURE-2a", "EX-TOWER-CAPTURE-2b",
                "EX-TOWER-CAPTURE-2c", "EX-SIEGE-COUNTER-1a", "EX-SIEGE-ATTACK-1a"):
        assert ref in res, ref
    assert res["EX-BASE-CITY-2a"].status == "ok"
    # the card game's examples (EX-CARD-SCORE-1a-d, the deals) live in rules/card.tess and are the
    # card-examples and card-deal checks' (verifier/cards.py, tests/test_cards.py)


def test_base_end_2_misprint_and_its_nearest_inputs():
    """BASE-END-2: green's 8 for "5 tiles + 1 shield" is 6 by the formula; 2 steps away lie 7+1, 6+2, 5+3."""
    r = results("base")["EX-BASE-END-2d"]
    assert r.status == "conflict" and "the rules give black 0, green 6" in r.message
    detail = r.details[0]
    assert "distance 2" in detail
    for alt in ("tiles 5 -> 7", "tiles 5 -> 6, shields 1 -> 2", "shields 1 -> 3"):
        assert alt in detail, detail


def test_base_city_2_summary_page_misprint():
    """BASE-CITY-2: the summary page's 4 per shield makes the worked example 10; the rules give 8."""
    r = results("base")["EX-BASE-CITY-2a (summary page)"]
    assert r.status == "conflict" and "the rules give you 8" in r.message
    assert "distance 1" in r.details[0] and "shields 1 -> 2" in r.details[0] and "tiles 3 -> 4" in r.details[0]


def test_lost_inputs_are_inferred():
    """BASE-SCORE-1 (tie: 4 tiles), BASE-SCORE-1b (tiles + shields = 5), ABBOT-RECALL-1 (5 neighbours)."""
    res = results("base", "abbot")
    assert res["EX-BASE-SCORE-1a"].status == "inferred" and "tiles=4 (the only" in res["EX-BASE-SCORE-1a"].message
    b = res["EX-BASE-SCORE-1b"].message
    assert "tiles=3 shields=2" in b and "tiles=4 shields=1" in b and "tiles=5 shields=0" in b
    assert "neighbours=5 (the only" in res["EX-ABBOT-RECALL-1a"].message


def test_river_sequences_separate_the_readings():
    """RIVER-PLACE-2: left, straight, left is illegal under the bundled rule, legal under the weaker one."""
    assert results("river")["left_straight_left"].status == "ok"
    weak = results(str(ROOT / "rules" / "variants" / "river_no_uturn.tess"))
    # the house rule overrides the rule the example checks: a note that says so, not a failure
    assert weak["left_straight_left"].status == "changed"
    assert "the example says illegal, the rules make it legal" in weak["left_straight_left"].message
    assert "river_no_uturn.tess" in weak["left_straight_left"].message


@pytest.mark.slow
def test_a_scoring_house_rule_turns_the_changed_example_into_a_note(monkeypatch):
    """BASE-CITY-2 under rules/variants/big_cities.tess (3 per tile): the rulebook's city of
    3 tiles and 1 shield (EX-BASE-CITY-2a, 8 points) is worth 3 * 3 + 2 * 1 = 11."""
    monkeypatch.chdir(ROOT)  # reports name files relative to the working folder
    res = results(str(ROOT / "rules" / "variants" / "big_cities.tess"))
    r = res["EX-BASE-CITY-2a"]
    assert r.status == "changed" and r.ok
    assert r.message == ("this house rule (rules/variants/big_cities.tess:5) changes EX-BASE-CITY-2a: "
                         "the rulebook prints you 8, the house rule gives you 11 (the example: rules/base.tess:234)")
    assert res["EX-BASE-ROAD-2a"].status == "ok"  # an example of a clause the house rule leaves alone still checks
    proc = subprocess.run([sys.executable, "-m", "tessera", "verify", "--no-engine", "rules/variants/big_cities.tess"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout
    # at the house rule's line, which is what changes the example (issue 22 item 1)
    assert "big_cities.tess:5:10: note: example EX-BASE-CITY-2a: changed: this house rule" in proc.stdout


def test_an_example_under_an_unrelated_house_rule_still_fails(tmp_path):
    """Only an override of the very rule an example checks makes it a note."""
    p = tmp_path / "house.tess"
    p.write_text("module house\nextends base\noverride score road complete = 2 * tiles [BASE-ROAD-2]\n"
                 "example wrong [BASE-CITY-2] {\n  feature = city  when = complete  tiles = 3  shields = 1\n"
                 "  followers = {you: 1}  points = {you: 9}\n}\n", encoding="utf-8")
    assert results(str(p))["wrong"].status == "inconsistent"


def _module(tmp_path: Path, body: str) -> str:
    p = tmp_path / "ex.tess"
    p.write_text('module ex "examples under test"\nrequires base\n' + body, encoding="utf-8")
    return str(p)


def test_an_unmarked_inconsistent_example_fails(tmp_path):
    rs = rules(_module(tmp_path, """example wrong [BASE-ROAD-2] {
  feature = road  when = complete  tiles = 3  followers = {red: 1}  points = {red: 4}
}
"""))
    r = {x.ref: x for x in check_examples(rs)}["wrong"]
    assert r.status == "inconsistent" and "tiles 3 -> 4" in r.details[0]
    res = run_check(load_checks()["examples"], rs)
    assert not res.passed
    assert any(d.severity == "error" and "example wrong: inconsistent" in d.message for d in res.diagnostics)


def test_a_marked_conflict_that_agrees_fails(tmp_path):
    rs = rules(_module(tmp_path, """example not_a_misprint [BASE-ROAD-2] {
  feature = road  when = complete  tiles = 3  followers = {red: 1}  points = {red: 3}  conflict = "BASE-ROAD-2"
}
"""))
    assert check_examples(rs)[-1].status == "conflict-missing"


def test_an_example_must_give_what_the_rule_reads(tmp_path):
    rs = rules(_module(tmp_path, """example vague [BASE-CITY-2] {
  feature = city  when = complete  tiles = 3  followers = {red: 1}  points = {red: 8}
}
"""))
    r = check_examples(rs)[-1]
    assert r.status == "invalid" and "`shields`" in r.message


def test_majority_and_ties_follow_the_owners_rule(tmp_path):
    """BASE-SCORE-1: the minority scores 0, tied leaders both score."""
    rs = rules(_module(tmp_path, """example minority [BASE-SCORE-1] {
  feature = road  when = complete  tiles = 2  followers = {red: 2, blue: 1, green: 2}  points = {red: 2, blue: 0, green: 2}
}
"""))
    assert check_examples(rs)[-1].status == "ok"


@pytest.mark.slow
def test_formula_examples_use_the_languages_expressions():
    """TOWER-CAPTURE-2: 1 + 4 * height.  (SIEGE-COUNTER-1's 3 per
    follower is no longer a formula: rules/siege.tess states it, and its example reads that rule.)"""
    res = results("tower", *(str(p) for p in sorted(EXAMPLES.glob("*.tess"))))
    assert "EX-SIEGE-COUNTER-1a" not in res
    assert results("siege")["EX-SIEGE-COUNTER-1a"].status == "ok"
    assert res["EX-TOWER-CAPTURE-2b"].status == "ok"
