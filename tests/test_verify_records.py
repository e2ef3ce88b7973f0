"""tessera verify's `records` check (verifier/records.py): the rulebooks' situations under
rules/records/ replayed with the engine of the rule set verified, against what the rulebook
says they give (issue 22, the mutation campaign: a mistyped Barn or Tower rule must not pass)."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tessera.dsl.loader import load_rule_set
from tessera.verifier.checks import load_checks, run_checks
from tessera.verifier.records import RECORDS, check_records, compare

REPO = Path(__file__).resolve().parent.parent


def _rs(*specs):
    rs, diags, _ = load_rule_set(list(specs))
    assert rs is not None, [d.message for d in diags]
    return rs


@pytest.mark.parametrize("specs,folder", [(("base",), "base"), (("base", "river"), "river"), (("base", "barn"), "barn"),
                                          (("base", "tower"), "tower"), (("base", "abbot"), "abbot"),
                                          (("base", "king_robber"), "king"), (("base", "siege"), "siege"),
                                          (("base", "river", "abbot", "king_robber", "barn", "tower", "siege"), "all")])
def test_the_bundled_records_agree_with_the_bundled_rules(specs, folder):
    results = check_records(_rs(*specs))
    expected = json.loads((RECORDS / folder / "expected.json").read_text(encoding="utf-8"))
    assert {p.name for p, _, _ in results} == set(expected)  # each record of the expansion, no other
    assert [(p.name, bad) for p, _, bad in results if bad] == []


def test_every_bundled_record_has_an_expectation_citing_a_clause():
    for folder in RECORDS.iterdir():
        expected = json.loads((folder / "expected.json").read_text(encoding="utf-8"))
        assert {p.name for p in folder.glob("*.json")} - {"expected.json"} == set(expected), folder
        assert all(e.get("clause") for e in expected.values()), folder


def _barn_mistyped(tmp_path: Path, old: str, new: str) -> Path:
    text = (REPO / "rules" / "barn.tess").read_text(encoding="utf-8")
    assert old in text
    path = tmp_path / "barn.tess"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return path


def test_BARN_SCORE_1_a_mistyped_number_is_caught_by_the_records(tmp_path):
    # "each field owner gets 3 points per completed city" (002): 4 gives the tied farmers 12 each
    rs = _rs("base", str(_barn_mistyped(tmp_path, "put barn = 3 *", "put barn = 4 *")))
    assert rs.names == ["base", "barn"]  # a module named barn: the Barn's records apply
    bad = {p.name: b for p, _, b in check_records(rs) if b}
    assert "put_tied_farmers.json" in bad
    assert any("scores: the rulebook gives blue 9, red 9, the rules give blue 12, red 12" in m
               for m in bad["put_tied_farmers.json"])


def test_BARN_FOLLOW_1_a_deleted_forbid_is_caught_by_the_records(tmp_path):
    rs = _rs("base", str(_barn_mistyped(tmp_path, "forbid follower on field when count(barn) > 0 [BARN-FOLLOW-1]", "")))
    bad = {p.name: b for p, _, b in check_records(rs) if b}
    assert any("the rulebook refuses turn 8 (BARN-FOLLOW-1); the rules accept the whole game" in m
               for m in bad["farmer_on_barn_field.json"])


def test_the_check_fails_verify_and_names_the_record(tmp_path):
    load_checks()
    rs = _rs("base", str(_barn_mistyped(tmp_path, "end by barn = 4 *", "end by barn = 5 *")))
    (res,) = run_checks(rs, ["records"])
    assert not res.passed
    msgs = [d.header() for d in res.diagnostics if d.severity == "error"]
    assert any(m.startswith("rules/records/barn/end_two_barns_joined.json:1:1: error: record rules/records/barn/"
                            "end_two_barns_joined.json [BARN-END-1]") for m in msgs), msgs


def test_a_house_rule_runs_none_of_them():
    load_checks()
    rs = _rs(str(REPO / "rules" / "variants" / "big_cities.tess"))
    (res,) = run_checks(rs, ["records"])
    assert res.skipped and res.passed


def test_an_expectation_that_the_rules_do_not_meet_is_reported_in_words(tmp_path):
    root = tmp_path / "records"
    shutil.copytree(RECORDS / "barn", root / "barn")
    exp = json.loads((root / "barn" / "expected.json").read_text(encoding="utf-8"))
    exp["put_tied_farmers.json"]["supply"]["red"]["follower"] = 6
    exp["farmer_on_barn_field.json"]["error"]["clause"] = "BASE-FOLLOW-2"
    (root / "barn" / "expected.json").write_text(json.dumps(exp), encoding="utf-8")
    bad = {p.name: b for p, _, b in check_records(_rs("base", "barn"), root) if b}
    assert bad["put_tied_farmers.json"] == ["supply: red has 6 follower in the rulebook, 7 under the rules"]
    (msg,) = bad["farmer_on_barn_field.json"]
    assert msg.startswith("the rulebook refuses turn 8 (BASE-FOLLOW-2); the rules refuse turn 8:") and msg.endswith("[BARN-FOLLOW-1]")
    assert set(bad) == {"put_tied_farmers.json", "farmer_on_barn_field.json"}


def test_compare_events_clauses_winners_and_prisoners():
    answer = {"scores": {"red": 4, "blue": 0}, "supply": {"red": {"follower": 7}}, "winners": ["red"],
              "prisoners": {}, "events": [{"turn": 0, "kind": "score", "feature": "city", "when": "complete",
                                           "points": {"red": 4}, "clause": "BASE-CITY-2"}]}
    assert compare({"scores": {"red": 4, "blue": 0}, "events": [[0, "city", "complete", {"red": 4}, "BASE-CITY-2"]],
                    "winners": ["red"], "prisoners": {}}, answer, None) == []
    assert compare({"events": [[0, "city", "complete", {"red": 4}, ["BASE-END-2", "BASE-CITY-1"]]]}, answer, None) == [
        "turn 0 city complete: scored citing BASE-CITY-2, the rulebook's clause is BASE-END-2 or BASE-CITY-1"]
    assert compare({"events": []}, answer, None) == [
        "scorings: the rulebook gives none; the rules give turn 0 city complete: red 4"]
    assert compare({"winners": ["blue"]}, answer, None) == ["winners: the rulebook gives blue, the rules give red"]
    assert compare({"prisoners": {"blue": {"red": {"follower": 1}}}}, answer, None) == [
        "prisoners: the rulebook gives {'blue': {'red': {'follower': 1}}}, the rules give {}"]
    assert compare({"scores": {}}, answer, {"turn": 2, "message": "turn 2: no", "clause": "BASE-PLACE-2"}) == [
        "the rules refuse turn 2: no [BASE-PLACE-2]; the rulebook allows it"]
    assert compare({"oops": 1}, answer, None) == ["unknown key `oops` in the expectation"]
