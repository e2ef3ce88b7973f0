"""Three verdicts (issue 22): *refuted* only with a game of the compiled engine that breaks the
invariant, written as a `tessera-game/1` record that `tessera replay` replays to the violation;
*not proved* when z3 breaks the induction step but no game tried reaches that state.

Each house rule below breaks an invariant on purpose (rules/variants/): BASE-SCORE-3 says a
score never goes below 0 nor down (but through the Tower's ransom, TOWER-RANSOM-1).
"""
from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

import tessera.verifier.witness as W
from tessera.dsl.loader import require_rule_set
from tessera.verifier.checks import load_checks, run_check
from tessera.verifier.invariants import check_invariants

ROOT = Path(__file__).resolve().parent.parent
VARIANTS = ROOT / "rules" / "variants"


def run(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tessera", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=900)


def record_of(out: str, invariant: str) -> Path:
    """The record the report names for `invariant`."""
    block = out.split(f"invariant `{invariant}`", 1)[1]
    m = re.search(r"replay it: tessera replay (\S+)", block)
    assert m, out
    return Path(m.group(1))


@pytest.mark.parametrize("variant, invariant, clause", [
    # BARN-END-1 made a debt: a barn on a field bordering no completed city scores 4 * 0 - 2
    ("barn_debt", "score-nonnegative", "score field end, BARN-END-1"),
    # TOWER-RANSOM-1 without "not below 0": a payer with fewer than 3 points ends below 0
    ("tower_free_ransom", "score-nonnegative", "ransom of a follower, TOWER-RANSOM-1"),
    # SIEGE-COUNTER-1 made a fine: a seat with no follower on the outpost pays 2 points
    ("siege_shirkers_pay", "score-nonnegative", "SIEGE-COUNTER-1"),
])
@pytest.mark.slow
def test_a_refuted_house_rule_writes_a_record_that_replays_to_the_violation(tmp_path, variant, invariant, clause):
    proc = run("verify", str(VARIANTS / f"{variant}.tess"), "--no-engine", "--only", "invariants",
               "--record", str(tmp_path))
    out = proc.stdout
    assert proc.returncode == 1, out + proc.stderr
    assert f"invariant `{invariant}` [BASE-SCORE-3] is refuted for" in out
    rec = record_of(out, invariant)
    assert rec.parent == tmp_path and rec.exists()
    doc = json.loads(rec.read_text())
    # a bundled house rule by its name (rules/variants/); another rule file would be copied beside the record
    assert doc["format"] == "tessera-game/1" and variant in doc["rules"]
    assert f"see it:    tessera view {rec} -o" in out
    # the witness: whose score goes below 0, when, by which rule
    block = out.split(f"invariant `{invariant}`", 1)[1]
    # labelled with the invariant and the step it breaks (issue 35: each refutation its own witness)
    m = re.search(rf"witness of `{invariant}` at [^:]+: (p\d)'s score goes (\d+) -> (-\d+) at turn (\d+) \(([^)]*)\)", block)
    assert m and clause in m.group(5), block
    who, score, turn = m.group(1), m.group(3), m.group(4)
    # the record replays, from another folder, to the negative score
    rep = run("replay", str(rec), cwd=tmp_path)
    assert rep.returncode == 0, rep.stdout + rep.stderr
    assert f"below 0: {who} {score} after turn {turn}" in rep.stdout
    assert f"{who} {score}" in rep.stdout.split("scores:")[1]  # the record stops with the score still below 0
    answer = json.loads(run("replay", "--json", str(rec), cwd=tmp_path).stdout)
    assert answer["scores"][who] < 0


@pytest.mark.slow
def test_besieged_cities_witness_shows_the_negative_points_event(tmp_path, monkeypatch):
    """BASE-END-2 made a cost: an unfinished city of 1 tile with its shield scores 1 - 2 = -1.
    The witness's score goes below 0 during the final scoring; replay lists the event and says so."""
    monkeypatch.setattr(W, "RECORD_DIR", tmp_path)
    rs = require_rule_set([str(VARIANTS / "besieged_cities.tess")])
    res = run_check(load_checks()["invariants"], rs)
    text = "\n".join(d.message for d in res.diagnostics)
    assert "invariant `score-never-decreases` [BASE-SCORE-3] is refuted for score city end" in text
    rec = record_of(text, "score-never-decreases")
    rep = run("replay", str(rec), cwd=tmp_path)
    assert rep.returncode == 0
    assert re.search(r"│ city\s+│ end\s+│ \d+\s+│ p\d -\d", rep.stdout), rep.stdout


@pytest.mark.slow
def test_a_state_no_game_reaches_is_not_proved_and_says_so(tmp_path, monkeypatch):
    """`t` doubles at every completed road and starts at 0, so it is 0 in every game; `t != 2` is true
    in every game, but z3's induction step breaks it from t = 1.  No game tried reaches that state:
    the verdict is *not proved* (exit 1 still), with z3's state and a hint, never *refuted*."""
    monkeypatch.setattr(W, "RECORD_DIR", tmp_path)
    monkeypatch.setattr(W, "WITNESS_GAMES", 6)
    p = tmp_path / "doubling.tess"
    p.write_text("module doubling\nextends base\nstate t = 0\n"
                 "on complete of road [BASE-ROAD-1] {\n  set t = 2 * t\n}\n"
                 "invariant t_not_two: t != 2 [BASE-ROAD-1]\n", encoding="utf-8")
    rs = require_rule_set([str(p)])
    res = run_check(load_checks()["invariants"], rs)
    assert not res.passed
    [d] = [d for d in res.diagnostics if d.severity == "error"]
    assert d.message.startswith("invariant `t_not_two` [BASE-ROAD-1] is not proved for on complete of road")
    assert "not reached by any game tried: 6 games of the compiled engine" in d.message
    assert "hint: " in d.message
    assert "z3's state that breaks the induction step: " in d.message and "t 1 -> 2" in d.message
    assert "refuted" not in d.message.split("\n")[0]
    assert not list(tmp_path.glob("*.json"))  # no record: no game broke it
    [note] = [d for d in res.diagnostics if d.severity == "note" and "induction steps" in d.message]
    assert "0 refuted (a game breaks it), 1 not proved (no game tried breaks it)" in note.message
    assert "NOT PROVED   t_not_two" in note.message


@pytest.mark.slow
def test_the_search_is_deterministic(tmp_path):
    """The same rules give the same witness: the games have fixed seeds and policies."""
    rs = require_rule_set([str(VARIANTS / "tower_free_ransom.tess")])
    [c] = [c for c in check_invariants(rs) if c.result.refuted]
    a = W.search(rs, c, record_dir=tmp_path / "a")
    b = W.search(rs, c, record_dir=tmp_path / "b")
    assert a.witness is not None and b.witness is not None
    assert (a.witness.seed, a.witness.players, a.witness.policy, a.witness.what) == \
           (b.witness.seed, b.witness.players, b.witness.policy, b.witness.what)
    assert json.loads(a.witness.record.read_text())["turns"] == json.loads(b.witness.record.read_text())["turns"]


@pytest.mark.slow
def test_a_house_rule_outside_the_bundled_rules_is_copied_beside_its_witness(tmp_path, monkeypatch):
    """BASE-SCORE-2: knights that are never returned stay on a completed city.  The house rule's file
    goes beside the record (a replay reads rule files from the record's folder only), so the record
    replays from anywhere, and the board shows the knight on the completed city."""
    src = tmp_path / "rules"
    src.mkdir()
    (src / "knights.tess").write_text('module knights "knights that stay"\nrequires base\n'
                                      'figure knight 2 per player on city when figures == 0   [BASE-FOLLOW-1]\n',
                                      encoding="utf-8")
    out_dir = tmp_path / "witnesses"
    monkeypatch.setattr(W, "RECORD_DIR", out_dir)
    rs = require_rule_set([str(src / "knights.tess")])
    res = run_check(load_checks()["invariants"], rs)
    text = "\n".join(d.message for d in res.diagnostics)
    assert "invariant `returned-when-scored` [BASE-SCORE-2] is refuted for score city complete" in text
    assert re.search(r"witness of `returned-when-scored` at [^:]+: p\d's knight stays on the completed city at \[-?\d+,-?\d+\] after turn \d+", text)
    rec = record_of(text, "returned-when-scored")
    assert (out_dir / "knights.tess").read_text() == (src / "knights.tess").read_text()
    assert json.loads(rec.read_text())["rules"] == ["base", "knights.tess"]
    rep = run("replay", "--json", str(rec), cwd=tmp_path)
    assert rep.returncode == 0, rep.stdout + rep.stderr
