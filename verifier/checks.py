"""The verifier's checks: a small registry that `tessera verify` runs in order.

A check is a function of a RuleSet that returns its problems: Diagnostics
(printed mypy-style, at a line of a rule file) or plain strings (printed as
they are).  It passes when it returns no error: warnings and notes are shown
but do not fail it.  Register one with

    from tessera.verifier.checks import register

    @register("invariants", ["BASE-SCORE-1"])
    def invariants(rs):
        return [...]

`clauses` are the rulebook clause IDs the check is about; it may also be a
function of the rule set (so a check names only the clauses that apply to it).
`applies(rs)`, if given, says whether the check has anything to check in a rule
set; a check that does not apply is reported as skipped.

Every module of this package is imported by `load_checks()`, so a new check
only needs a module in `verifier/` that registers it.  Checks run in
registration order (the tiles, the tile set and the river's laying first: a
rule set whose tiles are wrong is not worth proving things about, but every
check still runs; the engine check, which plays games, last).
"""
from __future__ import annotations

import importlib
import pkgutil
import time
from dataclasses import dataclass, field
from typing import Callable, Iterable, Sequence, Union

from ..dsl.diagnostics import Diagnostic
from ..dsl.model import RuleSet

Problem = Union[Diagnostic, str]
Clauses = Union[Sequence[str], Callable[[RuleSet], Sequence[str]]]


AFTER: list = []  # fn(rs, results), run after all of a rule set's checks (`after_checks`)


def after_checks(fn):
    """Register fn(rs, results) to run after every check of a rule set has run (its results may be
    rewritten: the invariants' verdicts that a model error of the engine check voids, issue 35)."""
    AFTER.append(fn)
    return fn


@dataclass(frozen=True)
class Check:
    name: str
    fn: Callable[[RuleSet], Iterable[Problem]]
    clauses: Clauses = ()
    applies: Callable[[RuleSet], bool] | None = None

    @property
    def title(self) -> str:
        doc = (self.fn.__doc__ or "").strip()
        return doc.splitlines()[0].rstrip(".") if doc else ""


@dataclass
class CheckResult:
    name: str
    passed: bool
    seconds: float
    clauses: tuple[str, ...] = ()
    diagnostics: list[Diagnostic] = field(default_factory=list)
    messages: list[str] = field(default_factory=list)
    skipped: bool = False
    title: str = ""


REGISTRY: dict[str, Check] = {}


def register(name: str, clauses: Clauses = (), applies: Callable[[RuleSet], bool] | None = None):
    """Decorator: add `fn(rule_set) -> list of Diagnostic or str` as the check `name`."""

    def deco(fn):
        REGISTRY[name] = Check(name, fn, clauses, applies)
        return fn

    return deco


_SKIP = {"checks"}
FIRST = ("topology", "tile_set", "river_layer")  # the tiles, then the tile set, then the river laid


def _order(m) -> tuple:
    return (FIRST.index(m.name) if m.name in FIRST else len(FIRST), m.name == "engine_check", m.name)


def load_checks() -> dict[str, Check]:
    """Import every module of the verifier package (each registers its checks)."""
    pkg = importlib.import_module("tessera.verifier")
    for info in sorted(pkgutil.iter_modules(pkg.__path__), key=_order):
        if info.name.startswith("_") or info.name in _SKIP:
            continue
        try:
            importlib.import_module(f"tessera.verifier.{info.name}")
        except Exception as exc:  # a broken check module is a failing check, not a crash
            _broken(info.name, exc)
    return REGISTRY


def _broken(module: str, exc: Exception) -> None:
    msg = f"tessera.verifier.{module} cannot be imported: {type(exc).__name__}: {exc}"

    def fn(rs: RuleSet) -> list[Problem]:
        return [msg]

    fn.__doc__ = f"import tessera.verifier.{module}"
    REGISTRY[f"import-{module}"] = Check(f"import-{module}", fn)


def _clauses(check: Check, rs: RuleSet) -> tuple[str, ...]:
    c = check.clauses(rs) if callable(check.clauses) else check.clauses
    return tuple(dict.fromkeys(c))


def run_check(check: Check, rs: RuleSet) -> CheckResult:
    """Run one check; a check that crashes fails with the crash as its message (the other
    checks and rule sets still run: see run_checks)."""
    t0 = time.perf_counter()
    try:
        clauses = _clauses(check, rs)
        if check.applies is not None and not check.applies(rs):
            return CheckResult(check.name, True, time.perf_counter() - t0, clauses, skipped=True, title=check.title)
    except Exception as exc:
        return _crashed(check, exc, t0, ())
    diags: list[Diagnostic] = []
    msgs: list[str] = []
    try:
        for p in check.fn(rs) or ():
            (diags if isinstance(p, Diagnostic) else msgs).append(p if isinstance(p, Diagnostic) else str(p))
    except Exception as exc:
        return _crashed(check, exc, t0, clauses)
    diags = list(dict.fromkeys(diags))  # tile variants share a declaration: report each problem once
    passed = not msgs and not any(d.severity == "error" for d in diags)
    return CheckResult(check.name, passed, time.perf_counter() - t0, clauses, diags, msgs, title=check.title)


def _crashed(check: Check, exc: Exception, t0: float, clauses) -> CheckResult:
    import traceback

    where = traceback.extract_tb(exc.__traceback__)[-1] if exc.__traceback__ else None
    at = f" (at {where.filename.rsplit('/', 1)[-1]}:{where.lineno})" if where else ""
    msg = (f"  the check `{check.name}` could not finish on these rules: internal error {type(exc).__name__}: "
           f"{str(exc)[:300]}{at}; the other checks still ran. Please report it with the rule files.")
    return CheckResult(check.name, False, time.perf_counter() - t0, tuple(clauses), [], [msg], title=check.title)


def of_family(name: str, rs: RuleSet) -> bool:
    """Is check `name` one of the rule set's game family (dsl/family.py: a card game runs the card
    checks, `card-*`, and the records check only)?"""
    return rs.family.owns_check(name)


def run_checks(rs: RuleSet, names: Sequence[str] | None = None) -> list[CheckResult]:
    """Run the registered checks (all, or those named) on one rule set, those of its game family,
    within one budget (tessera.verifier.budget, `tessera verify --budget`: z3's work, the witness games and
    the engine check): spent, the checks left are inconclusive."""
    from .solver import start_budget

    from . import budget

    start_budget()
    try:
        checks = load_checks()
        if names is None:  # every check of the rule set's game family
            todo = [c for c in checks.values() if of_family(c.name, rs) or c.name.startswith("import-")]
            results = [run_check(c, rs) for c in todo]
        else:  # checks named: one of the other family has nothing to check here (skipped)
            results = [run_check(checks[n], rs) if of_family(n, rs) or n.startswith("import-") else
                       CheckResult(n, True, 0.0, (), skipped=True, title=checks[n].title) for n in names]
        for fn in AFTER:  # e.g. the engine check's model errors void the proofs that used the erring steps
            fn(rs, results)
        return results
    finally:
        budget.finish()
