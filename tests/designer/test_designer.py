"""A new designer's 24 house rules and the verdicts `tessera verify` should give them (issue 35).

The rules are `tests/designer/rules/*.tess`, 12 sound and 12 unsound, over every module and the
card game; their intended verdicts (`expected.json`, `EXPECTED.md`) were committed before the first
verify run.  Each test asserts one rule's intended verdict, as docs/verifier.md defines the three:

- **proved**: `tessera verify` exits 0 and every invariant and check passes (notes allowed);
- **refuted**: each check listed is refuted with a game -- a record that `tessera replay` replays to
  the break (a score below 0 or going down, tied owners scored differently, a declared invariant
  false on the engine's own state, a river tile discarded) -- every other invariant is proved, exit 1.

BASE-SCORE-1 (tie-rule), BASE-SCORE-3 (scores never below 0 nor down), RIVER-PLACE-2 (the river
theorem), CARD-SCORE-1 (card scores) and the house rules' own invariants are the clauses at stake.

Whether each unsound rule is really unsound is not left to the verifier: `games/` holds, for each,
a game of the compiled engine that breaks it (found by `find_game.py` or, for the card game,
`tessera simulate --record`), and `test_the_designers_game_breaks_the_rule` replays it.

One verify run per rule and mode serves all of that rule's tests (a module-level cache).  Most use
`--no-engine` (the invariant proofs, the river theorem and the card checks are the same with or
without the engine check); four rules whose verdict rests on the model agreeing with the engine
(`score ... by F`, the outposts, a state moved on completion, the card engine) also run in the
default mode (`ENGINE_RULES`), where a model error must void the verdicts it touches.

Tests that fail on today's verifier are `xfail(strict=True)` with the finding's number in
tests/designer/FINDINGS.md, so that the branch stays green and a fix flips them.

A second, independent trial (`rules2/`, `expected2.json`, `EXPECTED2.md`, `FINDINGS2.md`, games in
`games2/`) is tested the same way (`test_second_trial_*`): 16 rules, two per module, 14 of 16 right the
first time.  Its verdict `error` is a tile that can never be laid: an error naming it, with a game of
the engine that discards it.  `probes2/` holds the rules written after the first runs to test a
suspicion (FINDINGS2.md, P1 and P2).
"""
from __future__ import annotations

import json
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
RULES = HERE / "rules"
GAMES = HERE / "games"


def _expected(name: str) -> dict:
    return {k: v for k, v in json.loads((HERE / name).read_text()).items() if not k.startswith("_")}


EXPECTED = _expected("expected.json")
# The second, independent trial (tests/designer/EXPECTED2.md, FINDINGS2.md): 16 more rules, their
# verdicts in expected2.json, committed before the first verify run; its games under games2/.
RULES2, GAMES2 = HERE / "rules2", HERE / "games2"
EXPECTED2 = _expected("expected2.json")
TRIALS = {1: (RULES, GAMES, EXPECTED), 2: (RULES2, GAMES2, EXPECTED2)}

pytestmark = pytest.mark.slow

# The engine check's games in the default-mode tests: enough for every transition these rules have
# (each rule set's records already hold the rare ones), a fraction of the default 500's CPU.
ENGINE_GAMES = 60

# Misses of today's verifier (the finding in tests/designer/FINDINGS.md): noeng / engine mode.
MISSES_NOENG: dict[str, str] = {}  # none left: F1 (abbot_on_roads) is refuted by the beam search's tie watch
MISSES_ENGINE = dict(MISSES_NOENG)

# Which rules also run in the default mode (with the engine check and its conformance check): a
# `score ... by F` (the model's scoring step against the engine's), the outposts' `score each`, an
# `on complete` that moves a state (King & Robber's once disagreed with the engine), the card game's
# engine recount.  Each costs its z3 proofs again plus the games, so the list is kept short.
ENGINE_RULES = ["abbot_on_roads", "siege_veterans", "robber_long_roads", "card_people_minus_count"]
# The second trial's, for the same reasons: a new tile the engine check rebuilds (a road crossing a
# city, on the Siege's landscape), a `score ... put` scoring the model holds to the engine's.
ENGINE_RULES2 = ["siege_gate_tile", "barn_compensation"]
MISSES_NOENG2: dict[str, str] = {}  # FINDINGS2.md F4 is fixed: a turn names the copy drawn (`"variant"`)
MISSES_ENGINE2 = dict(MISSES_NOENG2)


# ------------------------------------------------------------------ running verify once per rule and mode
class Run:
    def __init__(self, name: str, mode: str, proc: subprocess.CompletedProcess, record_dir: Path, trial: int = 1):
        self.name, self.mode, self.rc, self.out = name, mode, proc.returncode, proc.stdout + proc.stderr
        self.trial = trial
        self.record_dir = record_dir
        # the invariants' summary: "    proved       conserved-follower [...]: 13 of 13 rules"
        self.invariants = dict((m.group(2), m.group(1).lower()) for m in re.finditer(
            r"^\s{4}(proved|REFUTED|NOT PROVED|INCONCLUSIVE|inconclusive)\s+(\S+)", self.out, re.M))
        # the checks: "  ✓ invariants   3.2 s  ..." / "  ✗ card-scores ..." / "  – river ... skipped"
        self.checks = dict((m.group(2), m.group(1)) for m in re.finditer(r"^  ([✓✗–])\s+(\S+)\s", self.out, re.M))

    def records_of(self, what: str) -> list[Path]:
        """The records the report names for each refutation of invariant (or check) `what`: for an
        invariant, those in its refutations' blocks; for the river theorem or a card check (the one
        check these rules are meant to break), every record the report names."""
        if what.startswith(("river", "card-")):
            return [Path(p) for p in re.findall(r"replay it: tessera replay (\S+)", self.out)]
        paths = []
        for block in re.split(r"\n(?=\S)", self.out):
            head = block.split("\n", 1)[0]
            if f"invariant `{what}`" in head and "is refuted" in head:
                paths += [Path(p) for p in re.findall(r"replay it: tessera replay (\S+)", block)]
        return paths

    def refuted(self, what: str) -> bool:
        if what.startswith("river"):
            return self.checks.get("river") == "✗" and re.search(r"never blocked: REFUTED", self.out) is not None
        if what.startswith("card-"):
            return self.checks.get(what) == "✗" and "refuted" in self.out
        return self.invariants.get(what) == "refuted"


_RUNS: dict[tuple[int, str, str], Run] = {}


@pytest.fixture(scope="module")
def verify(tmp_path_factory):
    def run(name: str, mode: str, trial: int = 1) -> Run:
        key = (trial, name, mode)
        if key not in _RUNS:
            d = tmp_path_factory.mktemp(f"{name}-{mode}")
            args = ["verify", str(TRIALS[trial][0] / f"{name}.tess"), "--record", str(d)]
            args += ["--no-engine"] if mode == "noeng" else ["--games", str(ENGINE_GAMES)]
            proc = subprocess.run([sys.executable, "-m", "tessera", *args], cwd=ROOT, capture_output=True,
                                  text=True, timeout=1800)
            _RUNS[key] = Run(name, mode, proc, d, trial)
        return _RUNS[key]
    return run


# ------------------------------------------------------------------ what a game must show to break a rule
@dataclass
class Replayed:
    returncode: int
    stdout: str


def _replay(path: Path) -> tuple[Replayed, dict]:
    """`tessera replay` and `tessera replay --json` of the record, in this process (CliRunner): a
    subprocess would spend half of its second on start-up, and the trial replays ~80 records."""
    from typer.testing import CliRunner

    from tessera.cli import app

    text = CliRunner().invoke(app, ["replay", str(path)])
    js = CliRunner().invoke(app, ["replay", "--json", str(path)])
    assert text.exit_code == 0, text.output
    return Replayed(text.exit_code, text.output), json.loads(js.stdout)


def _engine_state(path: Path):
    """The compiled engine's game as the record leaves it (its `state`s are what an invariant reads)."""
    from tessera.replay.records import load_record
    from tessera.replay.tiles import replay

    res = replay(load_record(path), path.parent)
    assert res.error is None, res.error
    g = res.game
    states = {n: g.st[i] for i, (n, _) in enumerate(g.R.STATES)}
    completed = {k[0]: g.board.completed_count[i] for i, k in enumerate(g.R.KINDS)}
    return g, states, completed


def _negative_points(answer: dict) -> list:
    return [e for e in answer["events"] if e.get("kind") == "score" and any(v < 0 for v in e["points"].values())]


def breaks_score_nonnegative(path):
    text, _ = _replay(path)
    return re.search(r"^below 0: p\d+ -\d+ after turn \d+", text.stdout, re.M) is not None


def breaks_score_never_decreases(path):
    _, answer = _replay(path)
    return bool(_negative_points(answer))


def breaks_tie_rule(path):
    """Two owners of one feature, scored in the same scoring (turn, feature, moment, tiles) -- a tie,
    since only tied owners both score -- with different points."""
    _, answer = _replay(path)
    groups: dict = {}
    for e in answer["events"]:
        if e.get("kind") == "score" and "tiles" in e:
            groups.setdefault((e["turn"], e["feature"], e["when"], e["tiles"]), {}).update(e["points"])
    return any(len(p) >= 2 and len(set(p.values())) >= 2 for p in groups.values())


def breaks_river_never_blocked(path):
    """A river tile discarded (BASE-PLACE-3: it fits nowhere), and the record replays: the engine
    accepts a discard only of a tile that cannot be laid."""
    _replay(path)
    turns = json.loads(path.read_text())["turns"]
    return any(t.get("discard") and "river" in t.get("tile", "") for t in turns)


def breaks_card_scores(path):
    _, answer = _replay(path)
    return bool(_negative_points(answer))


def _declared(ok):
    def breaks(path):
        _replay(path)
        g, states, completed = _engine_state(path)
        return not ok(g, states, completed)
    return breaks


def _never_laid(tile):
    """A copy of `tile` discarded (BASE-PLACE-3: it fits nowhere), and the record replays: the engine
    accepts a discard only of a tile that cannot be laid."""
    def breaks(path):
        text, _ = _replay(path)
        turns = json.loads(path.read_text())["turns"]
        return any(t.get("discard") and t.get("tile") == tile for t in turns) and "discarded:" in text.stdout
    return breaks


BREAKS = {
    "score-nonnegative": breaks_score_nonnegative,
    "score-never-decreases": breaks_score_never_decreases,
    "tie-rule": breaks_tie_rule,
    "river: never blocked": breaks_river_never_blocked,
    "card-scores": breaks_card_scores,
    "every_city_counted": _declared(lambda g, s, c: s["big_cities"] == c["city"]),
    "robber_held": _declared(lambda g, s, c: (s["robber"] == -1) == (s["robber_road"] == 0)),
    "goods_never_negative": _declared(lambda g, s, c: all(v >= 0 for v in s["wine"])
                                      and all(v >= 0 for v in s["grain"]) and all(v >= 0 for v in s["cloth"])),
    # the second trial's
    "gardener_held": _declared(lambda g, s, c: (s["first_gardener"] == -1) == (c["garden"] == 0)),
    "king_held": _declared(lambda g, s, c: (s["king"] == -1) == (s["king_city"] == 0)),
    "never-laid:pond": _never_laid("pond"),
}


# ------------------------------------------------------------------ the tests
def _cases(mode: str, trial: int = 1):
    if trial == 1:
        misses = MISSES_NOENG if mode == "noeng" else MISSES_ENGINE
        names = sorted(EXPECTED) if mode == "noeng" else ENGINE_RULES
    else:
        misses = MISSES_NOENG2 if mode == "noeng" else MISSES_ENGINE2
        names = sorted(EXPECTED2) if mode == "noeng" else ENGINE_RULES2
    # each rule's verify run is cached in its worker: under xdist (`-n auto --dist loadgroup`, the README's
    # test command) the tests that share a run go to one worker (`xdist_group`), so none runs twice
    return [pytest.param(n, marks=[pytest.mark.xdist_group(f"designer{'' if trial == 1 else trial}-{n}-{mode}")]
                         + ([pytest.mark.xfail(strict=True, reason=misses[n])] if n in misses else []))
            for n in names]


def _assert_verdict(run: Run, name: str):
    exp = TRIALS[run.trial][2][name]
    if exp["verdict"] == "error":
        # a tile that can never be laid: an error naming it, with a game of the engine that discards it
        assert run.rc == 1, run.out
        for tile in exp["errors"]:
            lines = [ln for ln in run.out.splitlines()
                     if ": error: " in ln and re.search(rf"\btile `?{re.escape(tile)}`? can never be laid", ln)]
            assert lines, f"{name} ({run.mode}): no error names the tile `{tile}`\n{run.out}"
            records = [Path(p) for p in re.findall(r"replay it: tessera replay (\S+)", run.out)]
            assert records, f"{name} ({run.mode}): `{tile}` is never laid, but no game shows it\n{run.out}"
            assert any(BREAKS[f"never-laid:{tile}"](r) for r in records), (name, records)
        not_proved = {k: v for k, v in run.invariants.items() if v != "proved"}
        assert not not_proved, f"{name} ({run.mode}): every invariant should be proved: {not_proved}\n{run.out}"
        return
    if exp["verdict"] == "proved":
        not_proved = {k: v for k, v in run.invariants.items() if v != "proved"}
        failed = [k for k, v in run.checks.items() if v == "✗"]
        assert run.rc == 0 and not not_proved and not failed, (
            f"{name} ({run.mode}) is sound, meant proved; verify said {not_proved or ''} {failed or ''}\n{run.out}")
        return
    assert run.rc == 1, run.out
    for what in exp["refuted"]:
        assert run.refuted(what), f"{name} ({run.mode}): `{what}` should be refuted\n{run.out}"
        records = run.records_of(what)
        assert records, f"{name} ({run.mode}): `{what}` is refuted without a game (no record)\n{run.out}"
        for rec in records:
            assert rec.exists(), rec
            assert BREAKS[what](rec), f"{name}: the record {rec} does not show `{what}` broken"
    others = {k: v for k, v in run.invariants.items() if k not in exp["refuted"] and v != "proved"}
    assert not others, f"{name} ({run.mode}): only {exp['refuted']} should fail, also: {others}\n{run.out}"


@pytest.mark.parametrize("name", _cases("noeng"))
def test_verdict_without_the_engine_check(verify, name):
    _assert_verdict(verify(name, "noeng"), name)


@pytest.mark.parametrize("name", _cases("engine"))
def test_verdict_with_the_engine_check(verify, name):
    """The default mode: the same verdict, and no model error (the model is the engine)."""
    run = verify(name, "engine")
    assert "model error" not in run.out, run.out
    _assert_verdict(run, name)


@pytest.mark.parametrize("trial,name", [(t, n) for t in TRIALS for n, e in sorted(TRIALS[t][2].items())
                                         if not e["sound"]])
def test_the_designers_game_breaks_the_rule(trial, name):
    """The designer's intent checked by the engine, not by the verifier: each unsound rule has a game
    that breaks what it is meant to break."""
    rules, games, expected = TRIALS[trial]
    exp = expected[name]
    rec = games / name / f"{name}.json"
    assert rec.exists(), rec
    # the rule file beside the record (a record reads rule files from its own folder) is the rule's
    assert (rec.parent / f"{name}.tess").read_text() == (rules / f"{name}.tess").read_text()
    what = exp["refuted"][0] if exp["refuted"] else f"never-laid:{exp['errors'][0]}"
    assert BREAKS[what](rec), f"{rec} does not break `{what}`"


def test_the_trial_is_half_sound_and_covers_every_module():
    assert len(EXPECTED) == 24
    assert sum(e["sound"] for e in EXPECTED.values()) == 12
    modules = {e["module"] for e in EXPECTED.values()}
    assert modules == {"base", "river", "abbot", "king_robber", "barn", "tower", "siege", "refcard", "card"}
    for name in EXPECTED:
        assert (RULES / f"{name}.tess").is_file(), name


@pytest.mark.parametrize("name", _cases("noeng", 2))
def test_second_trial_verdict_without_the_engine_check(verify, name):
    _assert_verdict(verify(name, "noeng", 2), name)


@pytest.mark.parametrize("name", _cases("engine", 2))
def test_second_trial_verdict_with_the_engine_check(verify, name):
    """The default mode: the same verdict, and no model error (the model is the engine)."""
    run = verify(name, "engine", 2)
    assert "model error" not in run.out, run.out
    _assert_verdict(run, name)


def test_the_second_trial_is_half_sound_and_covers_every_module():
    assert len(EXPECTED2) == 16
    assert sum(e["sound"] for e in EXPECTED2.values()) == 8
    modules = {e["module"] for e in EXPECTED2.values()}
    assert modules == {"base", "river", "abbot", "king_robber", "barn", "tower", "siege", "card"}
    for m in modules:  # one sound and one unsound rule in each
        assert sorted(e["sound"] for e in EXPECTED2.values() if e["module"] == m) == [False, True], m
    for name in EXPECTED2:
        assert (RULES2 / f"{name}.tess").is_file(), name


@pytest.mark.xdist_group("designer-abbot_recall_minus_two-noeng")
def test_each_recall_refutation_shows_its_own_recall(verify):
    """Issue 35: each refutation gets its own witness, labelled with the rule it breaks.  The abbot's
    recall from a cloister and from a garden are two steps (ABBOT-RECALL-1); each one's record must
    replay to a recall from that feature."""
    run = verify("abbot_recall_minus_two", "noeng")
    seen = 0
    for block in re.split(r"\n(?=\S)", run.out):
        head = block.split("\n", 1)[0]
        m = re.search(r"is refuted for recall abbot from an? (\w+)", head)
        if not m:
            continue
        seen += 1
        rec = Path(re.search(r"replay it: tessera replay (\S+)", block).group(1))
        _, answer = _replay(rec)
        negative = [e for e in _negative_points(answer) if e["when"] == "recall"]
        assert negative and negative[0]["feature"] == m.group(1), (head, negative)
    assert seen == 4, run.out


@pytest.mark.xdist_group("designer2-param")
def test_a_card_parameter_range_is_verified_value_by_value():
    """`verify --param` of a card house rule (the card proofs take numbers, so each value is verified on
    its own) without `--record`: each value's witnesses go under the user's own witness folder.  It was an
    internal error (`witness.DEFAULT_RECORD_DIR`, a name that no longer exists), exit 2."""
    proc = subprocess.run([sys.executable, "-m", "tessera", "verify", "--no-engine", "--param", "last_round",
                           str(RULES2 / "card_short_game.tess")], cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "proved for 8 of 8 values: 3..10" in proc.stdout, proc.stdout


PROBES2 = HERE / "probes2"


def test_an_on_complete_rule_reads_the_figures_left_after_the_return():
    """Language 2.16: `on complete` runs after the feature is scored and its figures go home.  Under
    abbot_tended_gardens (`on complete of garden where ... count(abbot) >= 1`) an abbot put on a garden
    that completes at once is scored and sent home, and the rule does not fire (ABBOT-SCORE-1).  The
    model once counted the abbot still there: game seed 399 of the engine check was a model error
    (turn 67), which voided every invariant of the completion step (FINDINGS2.md, F2)."""
    from tessera.dsl.loader import require_rule_set
    from tessera.verifier.engine_check import check_engine

    rs = require_rule_set([str(RULES2 / "abbot_tended_gardens.tess")])
    mismatches, checked = check_engine(rs, 1, 2, 399, conform=True)
    assert checked > 0 and mismatches == [], [str(m) for m in mismatches]


@pytest.mark.parametrize("name,rc,text", [
    # BASE-SETUP-1 with the cloister tile B at the start, BASE-END-2 less 1: every cloister with a figure
    # on it has a neighbour (the start tile's too, once a tile is laid), so no score goes below 0
    ("start_cloister", 0, "Success"),
    # less 2: a cloister laid beside one tile only, its monk there at the end, scores -1
    ("start_cloister_minus_two", 1, "is refuted for score cloister end"),
])
def test_a_start_tile_cloister_has_a_neighbour_whenever_it_is_scored(name, rc, text, tmp_path):
    """FINDINGS2.md, P1: `neighbours >= 1` held only for a centre kind no start tile carries, so a house
    rule starting from a cloister had its sound end score `neighbours - 1` *not proved* (z3's state, a
    monk on a cloister with no neighbour, is one no game reaches)."""
    proc = subprocess.run([sys.executable, "-m", "tessera", "verify", "--no-engine", "--record", str(tmp_path / "w"),
                           str(PROBES2 / f"{name}.tess")], cwd=ROOT, capture_output=True, text=True, timeout=900)
    out = proc.stdout + proc.stderr
    assert proc.returncode == rc and text in out, out
    assert "not proved" not in out.replace("0 not proved", ""), out


def test_the_rebuild_reads_count_in_a_completion_condition():
    """FINDINGS2.md, P2: `complete tower when count(floor) >= 3` stopped the engine check with an internal
    error (KeyError: 'count'): the independent rebuild's completion conditions knew no `count(F)`."""
    from collections import Counter

    from tessera.dsl.loader import require_rule_set
    from tessera.verifier.engine_check import compile_complete_rules

    rs = require_rule_set([str(PROBES2 / "tower_complete.tess")])
    done = compile_complete_rules(rs)["tower"]
    assert done({"count": Counter(floor=3, follower=1)}) is True
    assert done({"count": Counter(floor=2)}) is False
