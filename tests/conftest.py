"""What the tests share: the record harness (`Expect`, `check_record`) and rule sets loaded once.

A record test names what the rulebook says a record gives (one under tests/records/, or one of the
rulebooks' records under rules/records/ that `tessera verify` replays too: `record_file`), as an `Expect`,
and `check_record` compares a replay with it completely: the scores, every scoring event (no
other may happen), the figures in supply, the winners; or, for a record the rules refuse, the turn,
the clause and words of the refusal.

Rule sets and engines are loaded once per test session (`rule_set`, `engine`): loading is
read-only, and the same modules give the same rule set.

The `slow` marker (registered in pyproject.toml) tags tests that play many games, run z3 or
start a browser; `pytest -m "not slow"` is the fast subset (README, Tests).
"""
from __future__ import annotations

# Hypothesis profiles.  `ci` (the default, what .ci/run and a plain `pytest` use): derandomized, so
# every run draws the same examples and a green CI stays green; no example database.  `dev` explores:
# random examples, the database remembers failures (`HYPOTHESIS_PROFILE=dev pytest tests/test_parser_fuzz.py`).
# A test's own @settings (max_examples, deadline) still apply on top of either.
import os as _os

from hypothesis import settings as _settings

_settings.register_profile("ci", derandomize=True, database=None, deadline=None, print_blob=True)
_settings.register_profile("dev", derandomize=False, deadline=None)
_settings.load_profile(_os.environ.get("HYPOTHESIS_PROFILE", "ci"))

import functools
from dataclasses import dataclass, field
from pathlib import Path

RECORDS = Path(__file__).parent / "records"
# the rulebooks' records that `tessera verify` replays (verifier/records.py): a record the tests also
# replay is kept there only, so there is one copy of each game; tests/records holds the tests' own
SHARED = Path(__file__).resolve().parent.parent / "rules" / "records"


def record_file(rel: str) -> Path:
    """The record `rel` ("tower/ransom.json"): tests/records/`rel`, or rules/records/`rel` when it
    is one of the shared ones; never both (one copy of each record)."""
    here, shared = RECORDS / rel, SHARED / rel
    assert not (here.exists() and shared.exists()), f"{rel} is both in tests/records and in rules/records"
    return here if here.exists() else shared


def own_records(folder: str) -> set[str]:
    """The names of the records only the tests replay, in tests/records/`folder`."""
    return {p.name for p in (RECORDS / folder).glob("*.json")}


def shared_records(folder: str) -> set[str]:
    """The names of the shared records in rules/records/`folder` (its expected.json left out)."""
    return {p.name for p in (SHARED / folder).glob("*.json")} - {"expected.json"}


@dataclass(frozen=True)
class Expect:
    """What the rulebook says a record gives.

    events: (turn, feature, when, points, clause or set of clauses), compared as a multiset and
    completely: no other scoring event may happen.  Final scoring carries the turn index
    len(turns), or None where the table says `final_turn=None` (tests/test_base_rules.py).
    supply: {player: {figure: n}} for the figures named.
    illegal: (turn index, clause or set of clauses, substrings the message must contain).
    extra: a check of the test's own, (kind, argument), read by the test.
    """

    clause: str
    doc: str
    scores: dict | None = None
    events: list | None = None
    supply: dict | None = None
    winners: list | None = None
    illegal: tuple | None = None
    extra: tuple = field(default_factory=tuple)


def clause_ok(got: str, want) -> bool:
    """A clause matches one clause, or any of a set of acceptable clauses."""
    return got in want if isinstance(want, (set, frozenset)) else got == want


def _event_key(turn, feature, when, points) -> tuple:
    return (turn, feature, when, tuple(sorted(points.items())))


def _order(e) -> tuple:
    key, clause = e
    return (repr(key), min(clause) if isinstance(clause, (set, frozenset)) else clause)


def check_record(exp: Expect, res, name: str, final_turn: str = "index") -> None:
    """Assert that replay result `res` of record `name` gives what `exp` says.  final_turn "none":
    the table writes final scoring's events with turn None (else with the turn index len(turns))."""
    where = f"{name}: {exp.clause}: {exp.doc}"
    if exp.illegal is not None:
        turn, clause, words = exp.illegal
        assert res.error is not None, f"{where}: the engine accepted it: {res.answer}"
        assert res.error["turn"] == turn, (where, res.error)
        assert clause_ok(res.error["clause"], clause), (where, res.error)
        assert res.error["message"].startswith(f"turn {turn}: "), res.error
        for w in words:
            assert w in res.error["message"], (where, w, res.error)
        return
    assert res.error is None, (where, res.error)
    ans = res.answer
    if exp.scores is not None:
        assert ans["scores"] == exp.scores, (where, ans["scores"])
    if exp.events is not None:
        got = []
        for ev in ans["events"]:
            if ev.get("kind", "score") != "score":  # captures, outposts, ...: not scoring events
                continue
            turn = None if final_turn == "none" and ev["when"] == "end" else ev["turn"]
            got.append((_event_key(turn, ev["feature"], ev["when"], ev["points"]), ev["clause"]))
        want = [(_event_key(t, f, w, p), c) for t, f, w, p, c in exp.events]
        got.sort(key=_order)
        want.sort(key=_order)
        assert [k for k, _ in got] == [k for k, _ in want], (where, ans["events"])
        for (key, clause), (_, want_clause) in zip(got, want):
            assert clause_ok(clause, want_clause), (where, key, clause, want_clause)
    if exp.supply is not None:
        for player, figs in exp.supply.items():
            for fig, n in figs.items():
                assert ans["supply"][player][fig] == n, (where, player, fig, ans["supply"])
    if exp.winners is not None:
        assert ans["winners"] == exp.winners, (where, ans["winners"])


def replay_record(rel: str):
    """Replay the record `rel` (tests/records/ or the shared rules/records/), its rule files found beside it."""
    from tessera.replay.tiles import load_record, replay

    path = record_file(rel)
    return replay(load_record(path), path.parent)


@functools.lru_cache(maxsize=None)
def rule_set(*modules: str):
    """The rule set of these modules or rule-file paths, loaded once per session (read-only)."""
    from tessera.dsl.loader import require_rule_set

    return require_rule_set(list(modules))


def engine(*modules: str):
    """The compiled engine of these modules, built once per session (tessera.replay.tiles caches it)."""
    from tessera.replay.tiles import engine_for

    return engine_for(list(modules), [])


# ------------------------------------------------------------------ the fast subset, by measured CPU
# A test is slow when it says so (`@pytest.mark.slow`) or when it was measured to cost over
# SLOW_CPU seconds of CPU (its own and its subprocesses') in the fast subset: tests/measured_slow.txt,
# written by `pytest -m "not slow" --measure-cpu tests/measured_slow.txt`.  The first test to use a
# shared fixture (a rule set loaded, an engine compiled) pays for it, so re-measure after such a change.
# The whole suite (CI, the README's test command) runs every test either way.
import pytest as _pytest

SLOW_CPU = 0.25
MEASURED = Path(__file__).parent / "measured_slow.txt"


def pytest_addoption(parser):
    parser.addoption("--measure-cpu", metavar="FILE", default=None,
                     help=f"write the tests that cost over {SLOW_CPU} s CPU (with their subprocesses) to FILE")


def _measured_slow() -> set[str]:
    if not MEASURED.exists():
        return set()
    return {ln.split(None, 1)[1].strip() for ln in MEASURED.read_text(encoding="utf-8").splitlines()
            if ln.strip() and not ln.startswith("#")}


@_pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    slow = _measured_slow()
    for item in items:
        if item.nodeid in slow:
            item.add_marker(_pytest.mark.slow)


@_pytest.hookimpl(tryfirst=True)
def pytest_collection_finish(session):
    if hasattr(session.config, "workerinput"):  # an xdist worker: before it tells the controller its order
        _longest_first(session.items)


# ------------------------------------------------------------------ the longest first, under xdist
# CI runs the suite on every core (`-n auto --dist loadgroup`), which hands out the tests in collection
# order: a long test handed out last keeps one worker busy while the others idle.  So under xdist the
# tests (an `xdist_group` counted as one, its tests together) go out longest first, by the CPU measured
# in tests/measured_cpu.txt (`pytest -m slow -n auto --measure-cpu tests/measured_cpu.txt`) and
# tests/measured_slow.txt; the rest keep their order after them.  A serial run keeps file order.
MEASURED_CPU = Path(__file__).parent / "measured_cpu.txt"


def _bare(nodeid: str) -> str:
    return nodeid.split("@", 1)[0] if "@" in nodeid.rsplit("]", 1)[-1] else nodeid  # xdist adds "@group"


def _measured_costs() -> dict[str, float]:
    out: dict[str, float] = {}
    for path in (MEASURED, MEASURED_CPU):
        if path.exists():
            for ln in path.read_text(encoding="utf-8").splitlines():
                if ln.strip() and not ln.startswith("#"):
                    cpu, node = ln.split(None, 1)
                    out[_bare(node.strip())] = float(cpu)
    return out


def _longest_first(items) -> None:
    costs = _measured_costs()

    def group(item) -> str:
        names = sorted(str(m.args[0] if m.args else m.kwargs.get("name", "default"))
                       for m in item.iter_markers("xdist_group"))
        return "@" + "_".join(names) if names else item.nodeid

    total: dict[str, float] = {}
    first: dict[str, int] = {}
    for i, item in enumerate(items):
        g = group(item)
        total[g] = total.get(g, 0.0) + costs.get(_bare(item.nodeid), 0.0)
        first.setdefault(g, i)
    order = {id(item): (-total[group(item)], first[group(item)], i) for i, item in enumerate(items)}
    items.sort(key=lambda item: order[id(item)])


def _cpu() -> float:
    import resource

    s, c = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return s.ru_utime + s.ru_stime + c.ru_utime + c.ru_stime


_CPU_ROWS: list[tuple[float, str]] = []


@_pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    if item.config.getoption("--measure-cpu") is None:
        yield
        return
    start = _cpu()
    yield
    _CPU_ROWS.append((_cpu() - start, item.nodeid))


def pytest_sessionfinish(session):
    out = session.config.getoption("--measure-cpu")
    if out is None:
        return
    worker = getattr(session.config, "workerinput", None)
    if worker is not None:  # under xdist each worker writes its rows; the controller merges them
        Path(f"{out}.{worker['workerid']}").write_text("".join(f"{c:.2f} {n}\n" for c, n in _CPU_ROWS),
                                                        encoding="utf-8")
        return
    rows = list(_CPU_ROWS)
    for part in Path(out).parent.glob(Path(out).name + ".gw*"):
        rows += [(float(c), n) for c, n in (ln.split(" ", 1) for ln in part.read_text(encoding="utf-8").splitlines())]
        part.unlink()
    rows = sorted((r for r in rows if r[0] > SLOW_CPU), reverse=True)
    Path(out).write_text(f"# CPU seconds and test, over {SLOW_CPU} s each: tests/conftest.py marks them slow\n"
                         + "".join(f"{c:.2f} {n}\n" for c, n in rows), encoding="utf-8")


# ------------------------------------------------------------------ settings a command leaves behind
# `tessera verify` run in-process (CliRunner) sets module-level settings (the engine check's games, the
# witness folder, z3's limits): restored after every test, so a later test's cost and outcome do not
# depend on which test ran before it in the same process (or xdist worker).
_SETTINGS = {
    "tessera.verifier.engine_check": ("ENGINE_GAMES", "ENGINE_PLAYERS"),
    "tessera.verifier.cards": ("ENGINE_GAMES",),
    "tessera.verifier.witness": ("RECORD_DIR", "WITNESS_GAMES"),
    "tessera.verifier.solver": ("RLIMIT", "TIMEOUT"),
    "tessera.verifier.budget": ("_TOTAL",),
}


@_pytest.fixture(autouse=True)
def _restore_command_settings():
    import importlib

    mods = {m: importlib.import_module(m) for m in _SETTINGS}  # imported once per process, then cached
    saved = {(m, a): getattr(mods[m], a) for m, names in _SETTINGS.items() for a in names}
    yield
    for (m, a), v in saved.items():
        setattr(mods[m], a, v)
