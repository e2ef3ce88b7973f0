"""What `tessera verify` prints depends on the rules only, never on the machine's load.

z3's deterministic resource limit (rlimit) decides every result; a wall-clock
timeout is off unless asked for (`--timeout`), and then it can only make a
result inconclusive, never change a proof or a counterexample
(verifier/solver.py).  Once the minimizer stopped early on a busy machine and a
different counterexample came back (players=5 instead of 2).
"""
from __future__ import annotations

import multiprocessing as mp
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tessera.dsl.loader import require_rule_set
from tessera.verifier import solver
from tessera.verifier.river import check_river

ROOT = Path(__file__).resolve().parent.parent
SMALL = "tests/fixtures/verify/small_besieged.tess"
NO_TURN = "rules/variants/river_no_turn_rule.tess"
TIME = re.compile(r" +\d+(\.\d+)? (ms|s)\b")  # the per-check time column: a measurement, not a result


def verify_output() -> str:
    out = []
    for check, rules in (("invariants", SMALL), ("river", NO_TURN)):
        proc = subprocess.run([sys.executable, "-m", "tessera", "verify", "--only", check, rules],
                              cwd=ROOT, capture_output=True, text=True, timeout=600)
        assert proc.returncode == 1, proc.stdout + proc.stderr  # both are refuted on purpose
        out.append(TIME.sub(" T", proc.stdout))
    return "".join(out)


def _spin() -> None:  # pragma: no cover (runs in a child process)
    while True:
        pass


@pytest.mark.slow
def test_same_output_on_an_idle_and_a_loaded_machine():
    idle = verify_output()
    assert "counterexample: players=2" in idle and "runs into itself: REFUTED" in idle
    hogs = [mp.get_context("spawn").Process(target=_spin, daemon=True) for _ in range(3)]
    for h in hogs:
        h.start()
    try:
        loaded = verify_output()
    finally:
        for h in hogs:
            h.kill()
            h.join()
    assert loaded == idle


@pytest.mark.slow
def test_a_timeout_only_ever_makes_a_result_inconclusive():
    rs = require_rule_set([str(ROOT / NO_TURN)])
    base = check_river(rs)
    for seconds in (0.001, 0.05):
        solver.set_limits(timeout=seconds)
        try:
            timed = check_river(rs)
        finally:
            solver.set_limits(timeout=None)
        assert timed.results.keys() == base.results.keys()
        for prop, r in timed.results.items():
            if r.verdict is solver.Verdict.INCONCLUSIVE:
                assert "--timeout" in r.reason or "--rlimit" in r.reason, r.reason
            else:
                assert r.verdict == base.results[prop].verdict, prop
                if prop in timed.counterexamples:
                    assert timed.counterexamples[prop].lines() == base.counterexamples[prop].lines()


@pytest.mark.parametrize("raw, option", [("max. resource limit exceeded", "--rlimit"), ("canceled", "--rlimit")])
def test_the_inconclusive_message_says_how_to_raise_the_limit(raw, option):
    assert option in solver.why_unknown(raw)
    solver.set_limits(timeout=5)
    try:
        assert "--timeout 50" in solver.why_unknown("timeout")
    finally:
        solver.set_limits(timeout=None)


@pytest.mark.slow
def test_rlimit_on_the_command_line_reaches_z3_and_the_message_says_how_to_raise_it():
    proc = subprocess.run([sys.executable, "-m", "tessera", "verify", "--only", "invariants", "--rlimit", "1", SMALL],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "inconclusive, not a pass: z3 reached its resource limit (1 per query); raise it with " \
           "`tessera verify --rlimit 10`" in proc.stdout
