"""The verifier's facts, once, and a bounded run (issue 22 items 1, 2, 4, 5, 6; issue 28 item 2).

Each test is built from a house rule that got a wrong or misleading verdict:

1. an example whose rule a house rule overrides is a note at the house rule's line, and a
   capture example's board is as wide as the rule's own range (TOWER-CAPTURE-2, SIEGE-ATTACK-1);
2. the worked examples use the domain's facts (a field has no shields: BASE-FIELD-3);
4. `completed(K)` is part of the state: 0 at the start, +1 when a K completes, before its
   scoring and its `on complete` rules (the issue's cities_done invariants are proved);
5. no counterexample no game reaches: a floor is never a prisoner (TOWER-CAPTURE-1), a full row
   holds the figures that filled it (SIEGE-COUNTER-1), a ransom's `points` is the payer's
   score (TOWER-RANSOM-1);
6. a z3 budget per rule set (`--budget`): spent, the checks left are inconclusive, never
   passed; no internal error from a file `check` accepts.
"""
from __future__ import annotations

import pytest

import resource
import subprocess
import sys
from pathlib import Path

import z3

from tessera.dsl.diagnostics import SourceCache, render
from tessera.dsl.loader import require_rule_set
from tessera.verifier import solver
from tessera.verifier.checks import load_checks, run_check
from tessera.verifier.domain import Domain
from tessera.verifier.examples import check_examples
from tessera.verifier.invariants import SymGame, check_invariants

ROOT = Path(__file__).resolve().parent.parent


def write(tmp_path: Path, name: str, text: str) -> str:
    p = tmp_path / f"{name}.tess"
    p.write_text(text, encoding="utf-8")
    return str(p)


def run_examples(path: str):
    rs = require_rule_set([path])
    res = run_check(load_checks()["examples"], rs)
    return res, "\n".join(render(d, SourceCache()) for d in res.diagnostics)


# ------------------------------------------------------------ 1. examples under house rules
TOWER_RANGE_2 = """module tower_range2 "a tower captures up to twice its height away"
extends tower
clause HOUSE-RANGE-2 "a tower captures up to twice its height away"
override capture 1 of follower, abbot [TOWER-FIGURES-1]
    in line within 2 * count(floor) [HOUSE-RANGE-2]
    after put floor [TOWER-CAPTURE-1]
"""


@pytest.mark.slow
def test_TOWER_CAPTURE_2_range_examples_under_a_longer_range_are_notes_at_the_house_rule(tmp_path):
    """The Tower's range examples (5 tiles at height 1, 9 at height 2) under a range of 2 x height
    were "inconsistent" errors, and the board built for them (height + 1 wide) showed 13 tiles at
    height 2: the reach is 1 + 4 * 4 = 17."""
    path = write(tmp_path, "tower_range2", TOWER_RANGE_2)
    res, text = run_examples(path)
    assert res.passed, text
    byref = {r.ref: r for r in check_examples(require_rule_set([path]))}
    a, b = byref["EX-TOWER-CAPTURE-2a"], byref["EX-TOWER-CAPTURE-2b"]
    assert (a.status, b.status) == ("changed", "changed")
    assert "9 tiles in range" in a.message and "the rulebook says 5" in a.message
    assert "17 tiles in range" in b.message and "the rulebook says 9" in b.message
    # at the house rule's line (the override), naming the example's own line
    assert "tower_range2.tess:4:10: note: example EX-TOWER-CAPTURE-2b: changed" in text
    assert "(the example: " in b.message and "tower.tess:" in b.message.split("(the example: ")[1]
    assert byref["no_diagonal"].status == "ok"  # never diagonally, however far


def test_SIEGE_ATTACK_1_example_whose_rule_a_house_rule_removes_is_a_note(tmp_path):
    """Only the knights' outpost is attacked: the monks' attack example (EX-SIEGE-ATTACK-1a) failed
    at rules/siege.tess without naming the house rule."""
    path = write(tmp_path, "knights_only", """module knights_only "only the knights' outpost is attacked"
extends siege
clause HOUSE-ATTACK-1 "only the knights' outpost is attacked"
override on overflow of knights, travellers, monks [SIEGE-ATTACK-1] {
  return follower from outpost
  remove catapult from outpost
}
on overflow of knights [HOUSE-ATTACK-1] {
  score each 3 * own
  remove 1 of follower, abbot where own == 0
  return follower from outpost
  remove catapult from outpost
}
""")
    res, text = run_examples(path)
    assert res.passed, text
    assert "knights_only.tess:4:10: note: example EX-SIEGE-ATTACK-1a: changed: this house rule" in text
    assert "the rules now have no `on overflow of monks" in text


def test_a_house_rules_own_example_is_checked_not_excused(tmp_path):
    """An example in the house rule's own file states what the house rule gives: a wrong one fails."""
    path = write(tmp_path, "big", """module big "cities score 3 per tile"
extends base
clause HOUSE-1 "cities score 3 per tile"
override score city complete = 3 * tiles [HOUSE-1]
example mine [HOUSE-1] { feature = city  when = complete  tiles = 3  shields = 0  followers = {red: 1}  points = {red: 10} }
""")
    r = {x.ref: x for x in check_examples(require_rule_set([path]))}["mine"]
    assert r.status == "inconsistent" and "the rules give red 9" in r.message


# ------------------------------------------------------------ 2. facts once
def test_BASE_FIELD_3_examples_use_the_domains_no_shields_on_fields(tmp_path):
    """`3 * completed_cities - shields` for fields: the proofs knew fields carry no shields, the
    worked-example checker called the three farmer examples "invalid"."""
    path = write(tmp_path, "fields3", """module fields3 "fields pay 3, less their shields"
extends base
override score field end = 3 * completed_cities - shields [BASE-FIELD-3]
""")
    rs = require_rule_set([path])
    byref = {r.ref: r for r in check_examples(rs)}
    for ref in ("EX-BASE-FIELD-3a", "EX-BASE-FIELD-3b", "EX-BASE-FIELD-3c"):
        assert byref[ref].status == "ok", (ref, byref[ref].message)
    dom = Domain(rs)
    assert dom.pinned("shields", "field") == 0 and dom.pinned("shields", "city") is None
    # a rule that reads a quantity the tile set does not fix still needs it given
    path2 = write(tmp_path, "cities", """module cities "shields count thrice"
extends base
override score city complete = tiles + 3 * shields [BASE-CITY-2]
example bare [BASE-CITY-2] { feature = city  when = complete  tiles = 3  followers = {red: 1}  points = {red: 6} }
""")
    bare = {r.ref: r for r in check_examples(require_rule_set([path2]))}["bare"]
    assert bare.status == "invalid" and "shields" in bare.message


# ------------------------------------------------------------ 4. completed(KIND) across steps
CITIES_DONE = """module cities_done "the completed cities, counted"
extends base
clause HOUSE-DONE-1 "the count of completed cities"
state cities_done = 0 [HOUSE-DONE-1]
on complete of city [HOUSE-DONE-1] {
  set cities_done = cities_done + STEP
}
invariant done_le_board: cities_done <= completed(city) [HOUSE-DONE-1]
invariant done_matches_board: cities_done == completed(city) [HOUSE-DONE-1]
"""


def test_completed_kind_counts_the_city_that_completes(tmp_path):
    """`done_le_board` was refuted inside `on complete of city` with completed(city)=0, and
    `done_matches_board` "for the initial state" with completed(city)=1; both hold in every game."""
    rs = require_rule_set([write(tmp_path, "cities_done", CITIES_DONE.replace("STEP", "1"))])
    checks = [c for c in check_invariants(rs) if c.invariant.id in ("done_le_board", "done_matches_board")]
    assert checks and all(c.result.proved for c in checks), [(c.invariant.id, c.rule) for c in checks if not c.result.proved]
    assert {c.rule for c in checks} >= {"initial state", "on complete of city [HOUSE-DONE-1]"}


@pytest.mark.slow
def test_a_count_that_runs_ahead_is_refuted_at_its_rule(tmp_path):
    """Counting 2 per city: refuted at the `on complete` line, with the count before and after."""
    rs = require_rule_set([write(tmp_path, "cities_done2", CITIES_DONE.replace("STEP", "2"))])
    bad = [c for c in check_invariants(rs) if not c.result.proved]
    assert {c.invariant.id for c in bad} == {"done_le_board", "done_matches_board"}
    for c in bad:
        assert c.result.refuted and c.rule == "on complete of city [HOUSE-DONE-1]" and c.where.endswith("cities_done2.tess:5")
        m = c.result.model
        assert (m["completed(city)"], m["completed(city)'"], m["cities_done"], m["cities_done'"]) == (0, 1, 0, 2)


@pytest.mark.slow
def test_a_kind_that_never_completes_stays_at_0(tmp_path):
    """A tower is never completed by its tiles (no `complete tower`): completed(tower) stays 0."""
    path = write(tmp_path, "towers", """module towers "towers never complete"
extends tower
invariant none: completed(tower) == 0 [TOWER-COMP-1]
""")
    checks = [c for c in check_invariants(require_rule_set([path])) if c.invariant.id == "none"]
    assert checks and all(c.result.proved for c in checks)


# ------------------------------------------------------------ 5. counterexamples a game reaches
def test_TOWER_CAPTURE_1_floors_are_never_prisoners():
    """A floor is no figure a `capture` names: never held, so no counterexample holds 10 floors."""
    rs = require_rule_set(["base", "tower"])
    dom = Domain(rs)
    assert dom.capturable("floor")[0] is False and dom.capturable("follower")[0] is True
    g = SymGame.make(rs)
    assert all(z3.is_int_value(g.before.held[(p, "floor")]) and g.before.held[(p, "floor")].as_long() == 0
               for p in range(g.seats))
    assert not z3.is_int_value(g.before.held[(0, "follower")])


@pytest.mark.slow
def test_TOWER_RANSOM_1_counterexample_points_is_the_payers_score():
    """`points` in a ransom is the payer's score (docs/verifier.md); it showed the price."""
    rs = require_rule_set([str(ROOT / "rules" / "variants" / "tower_free_ransom.tess")])
    [c] = [c for c in check_invariants(rs) if c.invariant.id == "score-nonnegative" and not c.result.proved]
    m = c.result.model
    payer = m["current"]
    assert m["price"] == 3
    assert m["points"] == m[f"score[{payer}]"] and m[f"score'[{payer}]"] == m["points"] - 3


@pytest.mark.slow
def test_SIEGE_COUNTER_1_a_full_row_holds_the_figures_that_filled_it():
    """A counterattack that costs the players without a follower there 2 points is refuted; the
    counterexample's outpost holds at least its row (4 slots with 2 players), never nobody."""
    rs = require_rule_set([str(ROOT / "rules" / "variants" / "siege_shirkers_pay.tess")])
    bad = [c for c in check_invariants(rs) if c.result.refuted and c.rule.startswith("on full")]
    assert bad
    for c in bad:
        m = c.result.model
        on = sum(v for k, v in m.items() if k.startswith("on_outpost[") and int(k[11]) < m["players"])
        rows = {2: 4, 3: 5, 4: 4, 5: 5, 6: 5}  # rules/siege.tess's row sizes (SIEGE-OUTPOST-4)
        assert on >= rows[m["players"]], m


# ------------------------------------------------------------ 6. a bounded run, no internal error
def test_a_formula_of_the_wrong_type_is_a_diagnostic_not_an_internal_error(tmp_path):
    """`formula = "tiles > 2" expect = 5` ended as "internal error Z3Exception ... Received 5 of type int"."""
    path = write(tmp_path, "cond", """module cond "a formula example whose formula is a condition"
requires base
example cond_formula [BASE-CITY-2] {
  formula = "tiles > 2"  tiles = 3  expect = 5
}
example cond_points [BASE-CITY-2] {
  formula = "tiles > 2"  tiles = 3  followers = {red: 1}  points = {red: 5}
}
""")
    res, text = run_examples(path)
    assert not res.messages, res.messages  # no "internal error"
    assert text.count("is a condition (true or false), but the example gives the number 5") == 2


def test_a_model_value_of_thousands_of_digits_is_shown_by_its_length():
    """Python refuses int() of a 5000-digit string ("Exceeds the limit (4300 digits)")."""
    x = z3.Int("x")
    s = z3.Solver()
    s.add(x == z3.IntVal("1" + "0" * 5000))
    assert s.check() == z3.sat
    v = solver.model_values(s.model(), {"x": x})["x"]
    assert isinstance(v, str) and v.endswith("(5001 digits)")


def test_nonlinear_nearest_inputs_keep_to_the_resource_limit():
    """z3's optimizer ignored its rlimit on products of unknowns (minutes at 20 M); the nearest
    consistent inputs of a nonlinear example are found by binary search with the plain solver."""
    t, sh, f = z3.Ints("tiles shields f")
    pts = t * t * t * sh * sh + t * sh
    cons = [t >= 1, sh >= 0, sh <= t, f >= 0, z3.If(f > 0, pts, 0) == 999983]
    assert solver.nonlinear(cons) and not solver.nonlinear([t + 2 * sh == 3])
    status, dist, sols = solver.nearest(cons, {"shields": (sh, 0), "f": (f, 1)}, {"shields": sh, "f": f})
    assert status in ("sat", "unsat", "unknown")
    if status == "sat":  # every listed solution lies at the smallest distance
        assert all(abs(s["shields"]) + abs(s["f"] - 1) == dist for s in sols)
    # a linear one: the exact nearest point, as before
    status, dist, sols = solver.nearest([t + sh == 10, t >= 0, sh >= 0], {"t": (t, 3), "s": (sh, 3)}, {"t": t, "s": sh})
    assert (status, dist) == ("sat", 4)


def _nonlinear_file(tmp_path: Path) -> str:
    """A 5 KB file: a nonlinear city score and 40 worked examples no inputs satisfy."""
    lines = ['module big_nl "nonlinear, 40 examples"', 'extends base', 'clause HOUSE-NL-1 "cubes"',
             'override score city complete = tiles * tiles * tiles * shields * shields + tiles * shields [HOUSE-NL-1]']
    for i in range(40):
        lines += [f'example n{i} [HOUSE-NL-1] {{ feature = city when = complete shields = {i % 5}',
                  f'unknown = "tiles" followers = {{r: 1}} points = {{r: {999983 - 7919 * i}}} }}']
    return write(tmp_path, "big_nl", "\n".join(lines) + "\n")


def _capped():  # the child may not take the machine down, whatever it does
    resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))


@pytest.mark.slow
def test_issue_28_item_2_verify_has_an_overall_bound(tmp_path):
    """Issue 22 item 6 / issue 28 item 2: 40 inconsistent examples over a nonlinear formula ran for
    minutes.  With a budget the run ends, and what the budget did not cover is inconclusive
    ("budget spent"): exit 1, never a pass, never an internal error."""
    path = _nonlinear_file(tmp_path)
    proc = subprocess.run([sys.executable, "-m", "tessera", "verify", "--no-engine", "--budget", "3000000", path],
                          cwd=ROOT, capture_output=True, text=True, timeout=600, preexec_fn=_capped)
    assert proc.returncode == 1, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "budget spent" in proc.stdout and "--budget 30000000" in proc.stdout
    assert "internal error" not in proc.stdout + proc.stderr
    assert "inconclusive" in proc.stdout and "0 inconclusive" not in proc.stdout.split("induction steps")[-1][:80]


@pytest.mark.slow
def test_a_spent_budget_makes_checks_inconclusive_never_proved(monkeypatch):
    """Every query after the budget is spent is unknown: the invariants' checks are inconclusive."""
    from tessera.verifier import budget

    monkeypatch.setattr(budget, "_TOTAL", 1)
    monkeypatch.setattr(budget, "_CURRENT", budget._CURRENT)  # the spent budget does not outlive the test
    rs = require_rule_set(["base"])
    solver.start_budget()
    res = run_check(load_checks()["invariants"], rs)
    assert not res.passed
    solver.start_budget()
    checks = check_invariants(rs)
    inconclusive = [c for c in checks if c.result.verdict is solver.Verdict.INCONCLUSIVE]
    assert inconclusive and all("budget spent" in c.result.reason for c in inconclusive)
    assert not any(c.result.refuted for c in checks)
    # only what needs no z3 query is proved: a step that leaves every variable of the invariant alone
    assert all(c.result.verdict is not solver.Verdict.PROVED or c.result.seconds == 0.0 for c in checks)
