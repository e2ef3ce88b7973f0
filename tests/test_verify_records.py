"""tessera verify's `records` check (verifier/records.py): the rulebooks' situations under
rules/records/ replayed with the engine of the rule set verified, against what the rulebook
says they give (issue 22, the mutation campaign: a mistyped Barn or Tower rule must not pass)."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tessera.dsl.loader import load_rule_set
from tessera.verifier.checks import load_checks, run_checks
from tessera.verifier.records import RECORDS, check_house_records, check_records, compare
from tessera.verifier.source import rel

REPO = Path(__file__).resolve().parent.parent


def _rs(*specs):
    rs, diags, _ = load_rule_set(list(specs))
    assert rs is not None, [d.message for d in diags]
    return rs


@pytest.mark.parametrize("specs,folder", [(("base",), "base"), (("base", "river"), "river"), (("base", "barn"), "barn"),
                                          (("base", "tower"), "tower"), (("base", "abbot"), "abbot"),
                                          (("base", "king_robber"), "king"), (("base", "siege"), "siege"),
                                          (("base", "refcard"), "refcard"),
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


VARIANTS = REPO / "rules" / "variants"


def _house(rs) -> dict[str, tuple[list[str], list[str], list]]:
    """Record name -> (what the house rule changes, problems, the house rule's lines) under `rs`."""
    return {f"{p.parent.name}/{p.name}": (changed, problems, spans)
            for p, _, changed, problems, spans in check_house_records(rs)}


def _records_check(rs):
    load_checks()
    (res,) = run_checks(rs, ["records"])
    return res


def test_BASE_CITY_1_a_house_rule_that_changes_city_scoring_changes_exactly_the_records_that_complete_a_city():
    """big_cities (3 per city tile): the base records are replayed with its engine; those whose
    rulebook game completes a city (city_3_tiles_1_shield, BASE-CITY-1: 3 tiles + 1 shield) now give
    other points, a note at the override's line; the others (road_loop, BASE-ROAD-1) agree."""
    rs = _rs(str(VARIANTS / "big_cities.tess"))
    got = _house(rs)
    expected = json.loads((RECORDS / "base" / "expected.json").read_text(encoding="utf-8"))
    assert set(got) == {f"base/{n}" for n in expected}  # base's records, and no other expansion's
    completes_a_city = {f"base/{n}" for n, e in expected.items()
                        if any(ev[1] == "city" and ev[2] == "complete" for ev in e.get("events", []))}
    assert "base/city_3_tiles_1_shield.json" in completes_a_city and "base/road_loop.json" not in completes_a_city
    assert {n for n, (changed, _, _) in got.items() if changed} == completes_a_city
    assert all(problems == [] for _, problems, _ in got.values())
    changed, _, spans = got["base/city_3_tiles_1_shield.json"]
    assert changed[0] == "red scores 11 where the rulebook's game gives 8"  # 3 * 3 + 2 * 1, not 2 * 3 + 2 * 1
    assert [(Path(s.file).name, s.line) for s in spans] == [("big_cities.tess", 5)]  # the override citing BASE-CITY-2
    assert got["base/road_loop.json"] == ([], [], [])

    res = _records_check(rs)
    assert res.passed and not res.skipped  # a house rule may change the game: notes, no error
    assert not [d for d in res.diagnostics if d.severity != "note"]
    notes = [d.header() for d in res.diagnostics]
    (city,) = [d for d in res.diagnostics if "city_3_tiles_1_shield.json [" in d.message]
    assert (Path(city.span.file).name, city.span.line, city.span.column) == ("big_cities.tess", 5, 10)  # the override
    assert city.message.split("\n") == [
        "record base/city_3_tiles_1_shield.json [BASE-CITY-1]: changed: under this house rule "
        f"({rel(str(VARIANTS / 'big_cities.tess'))}:5) red scores 11 where the rulebook's game gives 8 "
        "(the record: rules/records/base/city_3_tiles_1_shield.json)",
        "    and the scorings are turn 1 city complete: red 11 where the rulebook's game has turn 1 city complete: red 8"]
    n, c = len(expected), len(completes_a_city)
    assert notes[-1] == (f"rules/records/base/city_3_tiles_1_shield.json:0:0: note: {n} worked-example records of base "
                         f"replayed under this house rule (big_cities): {n - c} agree with the rulebook, {c} changed by "
                         f"the house rule  [record]")


def test_RIVER_PLACE_2_a_house_rule_that_drops_a_refusal_says_the_record_now_plays_on():
    """river_no_turn_rule drops the curve rule: same_turn_twice (RIVER-PLACE-2, refused at turn 1)
    now plays to its end; away_from_open_end (RIVER-PLACE-1) is still refused as the rulebook says."""
    got = _house(_rs(str(VARIANTS / "river_no_turn_rule.tess")))
    expected = json.loads((RECORDS / "river" / "expected.json").read_text(encoding="utf-8"))
    assert set(got) == {f"river/{n}" for n in expected}
    changed, problems, spans = got["river/same_turn_twice.json"]
    assert problems == [] and changed == [
        "the game plays to its end (scores blue 0, red 0) where the rulebook refuses turn 1 (RIVER-PLACE-2)"]
    assert [(Path(s.file).name, s.line) for s in spans] == [("river_no_turn_rule.tess", 8)]
    assert got["river/away_from_open_end.json"] == ([], [], [])


def test_TOWER_RANSOM_1_a_house_rule_that_allows_a_refused_ransom():
    """tower_free_ransom: the ransom that would leave red below 0 (refused at turn 4) is paid."""
    got = _house(_rs(str(VARIANTS / "tower_free_ransom.tess")))
    changed, _, spans = got["tower/ransom_below_zero.json"]
    assert changed == ["the game plays to its end (scores blue 3, red -1) where the rulebook refuses turn 4 (TOWER-RANSOM-1)"]
    assert [(Path(s.file).name, s.line) for s in spans] == [("tower_free_ransom.tess", 10)]
    assert got["tower/ransom.json"] == ([], [], [])  # a ransom the rulebook allows: the same game


def test_BASE_COMP_1_a_house_rule_that_makes_a_record_refused():
    """more_cloisters keeps 4 straight roads (U) of base's 8: field3_majority (BASE-FIELD-3) lays a
    fifth at turn 6, which the house rule's engine refuses citing BASE-COMP-1."""
    got = _house(_rs(str(VARIANTS / "more_cloisters.tess")))
    (changed, problems, spans) = got["base/field3_majority.json"]
    assert problems == [] and len(changed) == 1
    assert changed[0].startswith("it refuses turn 6: tile U") and changed[0].endswith(
        "[BASE-COMP-1] where the rulebook's game plays on")
    assert sorted(s.line for s in spans) == [5, 10]  # both overrides cite BASE-COMP-1


def test_a_house_rule_runs_the_records_of_the_rule_set_it_changes_and_no_other():
    """base+river+big_cities: the River's records (base's would be refused by the river, not by the house rule)."""
    rs = _rs("base", "river", str(VARIANTS / "big_cities.tess"))
    got = _house(rs)
    assert {n.split("/")[0] for n in got} == {"river"}
    # whole_river (RIVER-FOLLOW-1) completes a city of 2 tiles at turn 11: 6 under the house rule, 4 in the rulebook
    assert got["river/whole_river.json"][0][0] == "red scores 12 where the rulebook's game gives 10"


def test_a_rule_of_a_house_rule_that_fails_in_a_record_is_an_error(tmp_path):
    """A road worth 1,000,000 a tile goes beyond the bound on values (dsl/limits.py) in base's road
    records (road_loop, BASE-ROAD-1): an error naming the rule's line, not a crash and not a note."""
    (tmp_path / "rich.tess").write_text("module rich\nextends base\n"
                                        "override score road complete = 1000000 * tiles [BASE-ROAD-2]\n", encoding="utf-8")
    rs = _rs(str(tmp_path / "rich.tess"))
    _, problems, _ = _house(rs)["base/road_loop.json"]
    assert len(problems) == 1 and "rich.tess:3" in problems[0] and "BoundExceeded" in problems[0]
    res = _records_check(rs)
    assert not res.passed
    assert any(d.severity == "error" and d.header().startswith("rules/records/base/road_loop.json:1:1: error:")
               for d in res.diagnostics)


def test_under_a_house_rule_a_broken_expectation_stays_an_error(tmp_path):
    """The house rule may change a game, not excuse a malformed expectation (base's turn_order, BASE-TURN-1)."""
    root = tmp_path / "records"
    shutil.copytree(RECORDS / "base", root / "base")
    exp = json.loads((root / "base" / "expected.json").read_text(encoding="utf-8"))
    exp["turn_order.json"]["score"] = exp["turn_order.json"].pop("scores")
    (root / "base" / "expected.json").write_text(json.dumps(exp), encoding="utf-8")
    got = {p.name: (changed, problems) for p, _, changed, problems, _ in
           check_house_records(_rs(str(VARIANTS / "big_cities.tess")), root)}
    assert got["turn_order.json"] == ([], ["unknown key `score` in the expectation"])


@pytest.mark.slow
def test_tessera_verify_a_house_rule_exits_0_with_its_changed_records():
    p = subprocess.run([sys.executable, "-m", "tessera", "verify", "--no-engine", "--only", "records",
                        "rules/variants/river_no_turn_rule.tess"], cwd=REPO, capture_output=True, text=True,
                       env={**os.environ, "COLUMNS": "200"}, timeout=300)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "✓ records" in p.stdout and "skipped" not in p.stdout
    assert ("rules/variants/river_no_turn_rule.tess:8:10: note: record river/same_turn_twice.json [RIVER-PLACE-2]: "
            "changed: under this house rule (rules/variants/river_no_turn_rule.tess:8) the game plays to its end") in p.stdout
    assert "replayed under this house rule (river_no_turn_rule): 6 agree with the rulebook, 2 changed by the house rule" in p.stdout


def test_the_default_rule_set_reports_as_before():
    """base alone (no house rule): exact modules, one summary note, and a difference stays an error (above)."""
    res = _records_check(_rs("base"))
    n = len(json.loads((RECORDS / "base" / "expected.json").read_text(encoding="utf-8")))
    assert res.passed and [d.header() for d in res.diagnostics] == [
        f"rules/records/base/city_3_tiles_1_shield.json:0:0: note: {n} worked-example records: {n} agree, 0 do not  [record]"]


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


def _as_set(c) -> frozenset:
    return frozenset(c) if isinstance(c, (set, frozenset, list, tuple)) else frozenset([c])


@pytest.mark.parametrize("module,prefix", [("test_base_rules", "base/"), ("test_expansions", ""),
                                           ("test_barn_records", "barn/")])
def test_the_tests_tables_say_what_expected_json_says_of_each_shared_record(module, prefix):
    """A record the tests replay and `tessera verify` replays is kept once (rules/records/); the
    tests' table (`Expect`) and the folder's expected.json then state the same game twice: their
    scores, winners, supply and refusals (turn and clause) must agree, so they cannot drift apart."""
    import importlib

    cases = importlib.import_module(module).CASES
    compared = 0
    for name, want in cases.items():
        folder, rec = (prefix + name).split("/")
        exp_file = RECORDS / folder / "expected.json"
        exp = json.loads(exp_file.read_text(encoding="utf-8")).get(rec) if exp_file.exists() else None
        if exp is None:  # a record of the tests' own (tests/records/)
            continue
        compared += 1
        if want.illegal is not None:
            turn, clause, _ = want.illegal
            assert exp["error"]["turn"] == turn and _as_set(exp["error"]["clause"]) & _as_set(clause), (name, exp)
            continue
        assert "error" not in exp, name
        if want.scores is not None and "scores" in exp:
            assert want.scores == exp["scores"], name
        if want.winners is not None and "winners" in exp:
            assert want.winners == exp["winners"], name
        for player, figs in (want.supply or {}).items():
            for fig, n in figs.items():
                assert exp.get("supply", {}).get(player, {}).get(fig, n) == n, (name, player, fig)
    assert compared >= len(cases) - 2  # all but the Barn's two records beside the fortress are shared
