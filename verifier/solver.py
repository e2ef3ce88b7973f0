"""The one place that owns z3: fixed seed and resource limit.

Every query of the verifier goes through `prove`, `find` or `nearest` here, so
every query runs with the same settings and is reproducible.  What is printed
depends on the rules only, never on the machine's load (as CrossHair does it):

- z3's *rlimit* (a deterministic count of its own work, `RLIMIT` per query,
  `tessera verify --rlimit N`) bounds every search, so the same rules give the
  same proofs, the same counterexamples and the same inconclusive answers on an
  idle and on a loaded machine;
- there is no wall-clock timeout unless the designer asks for one
  (`tessera verify --timeout SECONDS`, per query).  A timeout can only ever make
  a result *inconclusive*: z3's search is the same with or without it (the timer
  only interrupts it), and a refutation whose smallest counterexample was not
  found in time is inconclusive too, never a different counterexample.

An `unknown` (a limit reached, or an incomplete theory) is reported as
*inconclusive*, never as a pass, with how to raise the limit.

Tracked facts: callers hand in `Fact`s, each a z3 condition with the rule-file
line it stands for.  A proof returns the facts it used (an unsat core); a
refutation returns a model and the facts that involve its variables.
"""
from __future__ import annotations

import time
from collections import OrderedDict
from dataclasses import dataclass, field
from enum import Enum
from typing import Callable, Iterable, Iterator, Sequence

import z3

from . import budget as _budget

SEED = 0
RLIMIT = 20_000_000  # z3's deterministic resource counter, per query
# The rule set's budget (`tessera verify --budget N`) is verifier/budget.py's: z3's work, the witness
# games and the engine check all draw on it.  Once it is spent, every query left is answered "unknown"
# at once and its check is inconclusive (budget spent), never a pass.
TIMEOUT: float | None = None  # wall-clock seconds per query; None: no timeout (the default)
_count = 0  # z3's resource count as last read (it only grows, over the whole process)


def set_limits(rlimit: int | None = None, timeout: float | None = None, budget: int | None = None) -> None:
    """`tessera verify --rlimit N --timeout SECONDS --budget N`: the limits of every later query."""
    global RLIMIT, TIMEOUT
    if rlimit is not None:
        RLIMIT = int(rlimit)
    if budget is not None:
        _budget.set_total(int(budget) if budget > 0 else None)
    TIMEOUT = timeout if timeout is None or timeout > 0 else None


def start_budget() -> None:
    """A rule set's checks begin: its budget is whole again."""
    _budget.start()


def spent() -> int:
    """The work spent since start_budget() (z3's resource count and the engine's moves)."""
    return _budget.current().used


def budget_spent() -> bool:
    return _budget.current().exhausted


BUDGET_SPENT = "budget spent"


def _check(obj) -> z3.CheckSatResult:
    """obj.check() within the query's rlimit and what is left of the rule set's budget."""
    b = _budget.current()
    if b.exhausted:
        return z3.unknown
    obj.set("rlimit", max(1, min(RLIMIT, b.left)))
    r = obj.check()
    count_work(obj)
    return r


NONLINEAR_WEIGHT = 8  # budget units per unit of z3's resource count on a nonlinear query (see count_work)
_weight = 1  # the weight of the queries being made now (heavy())


class heavy:
    """`with heavy(terms):` the queries inside are charged NONLINEAR_WEIGHT times their resource count when
    the terms are nonlinear: z3's resource count undercounts nonlinear arithmetic (nlsat) about eight
    times against the CPU it takes, which let 40 nonlinear worked examples run 428 s under a 200 M budget."""

    def __init__(self, terms=(), force: bool = False):
        self.on = force or nonlinear(list(terms))

    def __enter__(self):
        global _weight
        self.prev = _weight
        if self.on:
            _weight = NONLINEAR_WEIGHT
        return self

    def __exit__(self, *exc):
        global _weight
        _weight = self.prev
        return False


def count_work(obj) -> None:
    """Charge the rule set's budget for the z3 work done since the last reading (the conformance
    check's queries too, made outside `_check`): z3's resource count, a count of its own work (the
    same on an idle and a loaded machine, and whatever the process did before), times the weight of
    the query (heavy: a nonlinear one)."""
    global _count
    try:
        now = int(obj.statistics().get_key_value("rlimit count"))
    except (z3.Z3Exception, ValueError, TypeError):
        return  # no work counted (a trivial query)
    if now > _count:
        _budget.current().spend((now - _count) * _weight)
        _count = now


def why_unknown(raw: str) -> str:
    """z3's reason for `unknown`, in words, with the option that raises the limit reached."""
    if budget_spent():
        return _budget.current().reason()
    timed = TIMEOUT is not None and ("timeout" in raw or "canceled" in raw or "cancelled" in raw)
    if "resource" in raw or "rlimit" in raw or (not timed and "cancel" in raw):
        return (f"z3 reached its resource limit ({RLIMIT:,} per query); raise it with "
                f"`tessera verify --rlimit {RLIMIT * 10}`")
    if timed:
        return (f"z3 ran out of time ({TIMEOUT:g} s per query); raise it with `tessera verify --timeout "
                f"{(TIMEOUT or 1) * 10:g}` or leave `--timeout` out (the resource limit alone decides)")
    return f"z3 answered unknown ({raw or 'no reason given'}); raising `--rlimit` may help"


def _limit(obj) -> None:
    obj.set("rlimit", RLIMIT)
    if TIMEOUT is not None:
        obj.set("timeout", max(1, int(TIMEOUT * 1000)))


MINIMIZE_FAILED = ("the claim is false, but the smallest counterexample was not found within the limits, "
                   "so none is shown")

_configured = False


def configure() -> None:
    """Set z3's global options once (deterministic, single-threaded)."""
    global _configured
    if _configured:
        return
    z3.set_param("smt.random_seed", SEED)
    z3.set_param("sat.random_seed", SEED)
    z3.set_param("nlsat.seed", SEED)
    _configured = True


class Verdict(str, Enum):
    PROVED = "proved"
    REFUTED = "refuted"
    INCONCLUSIVE = "inconclusive"

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class Fact:
    """A hypothesis of a query and where it comes from."""

    term: z3.BoolRef
    where: str  # "rules/base.tess:170" or "builtin"
    text: str  # the rule-file line or a description
    assumed: bool = False  # an induction hypothesis: used in proofs, left out of "lines involved"
    seat: int | None = None  # a fact about one seat: left out of a counterexample with fewer players

    def describe(self) -> str:
        return f"{self.where}: {self.text}"


@dataclass
class Result:
    verdict: Verdict
    model: dict[str, int | bool] = field(default_factory=dict)
    used: list[Fact] = field(default_factory=list)  # unsat core as found (proved) or facts involved (refuted)
    reason: str = ""  # why inconclusive
    seconds: float = 0.0
    # how to work out a proof's minimal core: a second solve, done only when asked (minimal_core)
    minimal: Callable[[], list[Fact]] | None = field(default=None, repr=False, compare=False)

    @property
    def proved(self) -> bool:
        return self.verdict is Verdict.PROVED

    @property
    def refuted(self) -> bool:
        return self.verdict is Verdict.REFUTED

    def minimal_core(self) -> list[Fact]:
        """The facts a proof needs, none of them superfluous.  A minimal unsat core costs as much
        as the proof again and no verdict or printed line needs it, so it is worked out here, on
        the first call (it then replaces `used`), not at every proof."""
        if self.minimal is not None:
            self.used, self.minimal = self.minimal(), None
        return self.used


# A query over bit-vectors and a few small integers (the river theorem's turns, headings and cells):
# bit-blasted once, up front, before z3's SMT core sees it, instead of lazily while it searches (a
# third of the time on the river's collision proof).  Its facts are asserted untracked: tracking each
# one behind a label keeps solve-eqs from eliminating the cells and headings they define.
BITBLAST = ("simplify", "solve-eqs", "bit-blast", "aig", "smt")


def _solver(minimal_core: bool = False, bitblast: bool = False) -> z3.Solver:
    configure()
    s = z3.Then(*BITBLAST).solver() if bitblast else z3.Solver()
    s.set("random_seed", SEED)
    _limit(s)
    s.set("unsat_core", True)
    s.set("core.minimize", minimal_core)  # a minimal core costs extra time on big queries
    return s


def _optimizer() -> z3.Optimize:
    configure()
    o = z3.Optimize()
    _limit(o)
    return o


MAX_DIGITS = 4000  # a model value longer than this is shown by its length, never converted to a Python int


def _value(m: z3.ModelRef, t: z3.ExprRef) -> int | bool | str:
    v = m.eval(t, model_completion=True)
    if z3.is_true(v):
        return True
    if z3.is_false(v):
        return False
    if z3.is_int_value(v):
        digits = v.as_string()  # type: ignore[union-attr]
        if len(digits.lstrip("-")) > MAX_DIGITS:  # Python refuses int(str) past 4300 digits (and it is slow)
            return f"{digits[:12]}…({len(digits.lstrip('-'))} digits)"
        return int(digits)
    return str(v)


def model_values(m: z3.ModelRef, terms: dict[str, z3.ExprRef]) -> dict[str, int | bool]:
    return {name: _value(m, t) for name, t in terms.items()}


def _subterms(terms: Sequence[z3.ExprRef], inside=lambda x: True) -> Iterator[z3.ExprRef]:
    """Each distinct subterm of the terms once (depth first, shared subterms not revisited);
    the children of a subterm are visited only where `inside(subterm)` holds."""
    todo = list(terms)
    seen: set[int] = set()
    while todo:
        x = todo.pop()
        if x.get_id() in seen:
            continue
        seen.add(x.get_id())
        yield x
        if inside(x):
            todo.extend(x.children())


# The walks below read z3's terms through its C API, as _subterms does through the Python objects:
# the same terms in the same order, without a Python object made and freed for every subterm (which
# cost more than the proofs in verify --no-engine).  A subterm got this way is kept alive by its parent.
_C = z3.z3core


class _Quantified(Exception):
    """A quantifier met where _subterms would enter its body (the verifier makes none): done the slow way."""


def _walk(terms: Sequence[z3.ExprRef], quantifiers: bool = False) -> Iterator[object]:
    """Each distinct application subterm of the terms once (as _subterms: depth first), as a raw Ast;
    a quantifier or a bound variable is neither given nor entered (`quantifiers`: a quantifier raises
    _Quantified, for a walk that _subterms would take into its body)."""
    ctx = z3.main_ctx().ref()
    todo = [t.as_ast() for t in terms]
    seen: set[int] = set()
    kind, ident, nargs, arg = _C.Z3_get_ast_kind, _C.Z3_get_ast_id, _C.Z3_get_app_num_args, _C.Z3_get_app_arg
    app, numeral = z3.Z3_APP_AST, z3.Z3_NUMERAL_AST
    while todo:
        a = todo.pop()
        i = ident(ctx, a)
        if i in seen:
            continue
        seen.add(i)
        k = kind(ctx, a)
        if k not in (app, numeral):
            if quantifiers and k == z3.Z3_QUANTIFIER_AST:
                raise _Quantified()
            continue
        yield a
        for k in range(nargs(ctx, a)):
            todo.append(arg(ctx, a, k))


def _symbols(t: z3.ExprRef) -> set[str]:
    """The names of the uninterpreted constants (the variables) in t."""
    return set(_constants([t]))


def _constants(terms: Sequence[z3.ExprRef]) -> dict[str, object]:
    """The uninterpreted constants of the terms as raw Asts by name, the last one met winning a name two
    share (as a walk of _subterms finds them)."""
    terms = list(terms)
    try:
        if any(t.ctx is not z3.main_ctx() for t in terms):
            raise _Quantified()
        ctx = z3.main_ctx().ref()
        out: dict[str, object] = {}
        nargs, decl, dkind, dname = _C.Z3_get_app_num_args, _C.Z3_get_app_decl, _C.Z3_get_decl_kind, _C.Z3_get_decl_name
        for a in _walk(terms, quantifiers=True):
            if nargs(ctx, a) == 0:
                d = decl(ctx, a)
                if dkind(ctx, d) == z3.Z3_OP_UNINTERPRETED:
                    out[z3.z3._symbol2py(z3.main_ctx(), dname(ctx, d))] = a
        return out
    except _Quantified:  # another context, or a quantifier's body to enter: through z3's Python objects
        return {x.decl().name(): x.as_ast() for x in _subterms(terms)
                if z3.is_const(x) and x.decl().kind() == z3.Z3_OP_UNINTERPRETED}


def substitute(t: z3.ExprRef, pairs: Sequence[tuple[z3.ExprRef, z3.ExprRef]]) -> z3.ExprRef:
    """z3.substitute(t, *pairs), one C call: z3 itself refuses a pair of two sorts (a Z3Exception, as
    z3.substitute's own check raises), which z3.substitute checks first in Python, pair by pair."""
    n = len(pairs)
    src, dst = (z3.z3.Ast * n)(), (z3.z3.Ast * n)()
    for i, (v, w) in enumerate(pairs):
        src[i], dst[i] = v.as_ast(), w.as_ast()
    return z3.z3._to_expr_ref(_C.Z3_substitute(t.ctx.ref(), t.as_ast(), n, src, dst), t.ctx)


def relevant(facts: Sequence[Fact], goal: z3.ExprRef) -> list[Fact]:
    """The facts connected to the goal through shared variables (its cone of influence)."""
    facts = [f for f in facts if not f.assumed]
    want = _symbols(goal)
    syms = [_symbols(f.term) for f in facts]
    chosen: list[bool] = [False] * len(facts)
    changed = True
    while changed:
        changed = False
        for i, s in enumerate(syms):
            if not chosen[i] and s & want:
                chosen[i] = True
                want |= s
                changed = True
    return [f for f, c in zip(facts, chosen) if c]


def prove(claim: z3.BoolRef, facts: Sequence[Fact], show: dict[str, z3.ExprRef] | None = None,
          minimize: Iterable[z3.ArithRef] = (), minimal_core: bool = True, bitblast: bool = False) -> Result:
    """Does `facts ⇒ claim` hold?  proved (with the facts used), refuted (with a model), or inconclusive.

    A refutation's model is the one with the smallest numbers in `minimize`, when given.  `bitblast`:
    a query over bit-vectors (BITBLAST); a proof then names every fact as used (none is tracked).
    """
    return prove_all({"claim": claim}, facts, show, minimize, minimal_core, bitblast)["claim"]


def prove_all(claims: dict[str, z3.BoolRef], facts: Sequence[Fact], show: dict[str, z3.ExprRef] | None = None,
              minimize: Iterable[z3.ArithRef] = (), minimal_core: bool = True,
              bitblast: bool = False) -> dict[str, Result]:
    """`prove` for several claims under the same facts: the facts are asserted once (push/pop per claim).
    The same claims under the same facts again (a formula check of base's in every rule set) get the
    first answers (the memo above: the same verdicts, models and facts used; the cost charged again)."""
    facts, mins, show = list(facts), list(minimize), dict(show or {})
    key = _memo_key("prove", claims, [f.term for f in facts], show, mins)
    if key is not None:
        key += (tuple((f.where, f.text, f.assumed, f.seat) for f in facts), minimal_core, bitblast)
    hit = _memo_get(key)
    if hit is not None:
        return {name: _copy(r) for name, r in hit.items()}
    before = _budget.current().used
    out = _prove_all(claims, facts, show, mins, minimal_core, bitblast)
    if all(r.verdict is not Verdict.INCONCLUSIVE for r in out.values()):
        _memo_put(key, {name: _copy(r) for name, r in out.items()}, _budget.current().used - before,
                  (dict(claims), facts, show, mins))
    return out


def _copy(r: Result) -> Result:
    """A result of its own (a caller may void it, or work out its minimal core, in place)."""
    return Result(r.verdict, dict(r.model), list(r.used), r.reason, r.seconds, r.minimal)


def _prove_all(claims: dict[str, z3.BoolRef], facts: Sequence[Fact], show: dict[str, z3.ExprRef] | None = None,
               minimize: Iterable[z3.ArithRef] = (), minimal_core: bool = True,
               bitblast: bool = False) -> dict[str, Result]:
    out: dict[str, Result] = {}
    s = _solver(bitblast=bitblast)  # a minimal core is worked out apart, when asked (Result.minimal_core)
    labels: dict[str, Fact] = {}
    ctx = s.ctx.ref()
    for i, f in enumerate(facts):
        if bitblast:
            s.add(f.term)
            continue
        labels[f"__fact{i}"] = f  # the name, not str(lab): z3's printer costs more than the proof
        if isinstance(f.term, z3.BoolRef):  # Solver.assert_and_track's own C call, its checks made here
            _C.Z3_solver_assert_and_track(ctx, s.solver, f.term.as_ast(), _label(i).as_ast())
        else:
            s.assert_and_track(f.term, _label(i))
    mins = list(minimize)
    for name, claim in claims.items():
        t0 = time.perf_counter()
        s.push()
        s.add(z3.Not(claim))
        r = _check(s)
        if r == z3.unsat:
            if bitblast:
                used = list(facts)  # untracked: the proof may have used any of them
            else:
                core = _core_names(s)
                used = [f for k, f in labels.items() if k in core]
            res = Result(Verdict.PROVED, used=used)
            if minimal_core:
                res.minimal = lambda used=used, claim=claim: minimal_core_of(used, claim)
        elif r == z3.sat:
            model = s.model()
            if mins:
                model = smallest([f.term for f in facts] + [z3.Not(claim)], mins)
            if model is None:  # never a bigger counterexample instead: that one would depend on the limits
                res = Result(Verdict.INCONCLUSIVE, reason=f"{MINIMIZE_FAILED} ({why_unknown(_last_unknown)})")
            else:
                res = Result(Verdict.REFUTED, model=model_values(model, show or {}), used=relevant(facts, claim))
        else:
            res = Result(Verdict.INCONCLUSIVE, reason=why_unknown(s.reason_unknown()))
        s.pop()
        res.seconds = time.perf_counter() - t0
        out[name] = res
    return out


_LABELS: list[z3.BoolRef] = []  # __fact0, __fact1, ...: made once (z3 makes the same term every time)


def _label(i: int) -> z3.BoolRef:
    while len(_LABELS) <= i:
        _LABELS.append(z3.Bool(f"__fact{len(_LABELS)}"))
    return _LABELS[i]


def _core_names(s: z3.Solver) -> set[str]:
    """The names of the labels in the solver's unsat core ({c.decl().name() for c in s.unsat_core()})."""
    core = s.unsat_core()
    ctx = s.ctx.ref()
    get, decl, name = _C.Z3_ast_vector_get, _C.Z3_get_app_decl, _C.Z3_get_decl_name
    return {z3.z3._symbol2py(s.ctx, name(ctx, decl(ctx, get(ctx, core.vector, i))))
            for i in range(_C.Z3_ast_vector_size(ctx, core.vector))}


def minimal_core_of(facts: Sequence[Fact], claim: z3.BoolRef) -> list[Fact]:
    """The facts a proof of `facts ⇒ claim` needs, none of them superfluous (z3's minimal unsat
    core, asked of the core the proof found); that core itself if the limits are reached."""
    s = _solver(minimal_core=True)
    labels: dict[str, Fact] = {}
    for i, f in enumerate(facts):
        lab = z3.Bool(f"__fact{i}")
        labels[f"__fact{i}"] = f  # the name, not str(lab): z3's printer costs more than the proof
        s.assert_and_track(f.term, lab)
    s.add(z3.Not(claim))
    if _check(s) != z3.unsat:
        return list(facts)
    core = {c.decl().name() for c in s.unsat_core()}
    return [f for k, f in labels.items() if k in core]


def nonlinear(terms: Sequence[z3.ExprRef]) -> bool:
    """Does any term multiply two unknowns, or divide by one?  z3's optimizer does not keep to its
    resource limit there (a product of unknowns ran for minutes past an rlimit of 20 M)."""
    terms = list(terms)
    if any(t.ctx is not z3.main_ctx() for t in terms):
        return _nonlinear_slow(terms)
    ctx = z3.main_ctx().ref()
    nargs, arg, decl, dkind = _C.Z3_get_app_num_args, _C.Z3_get_app_arg, _C.Z3_get_app_decl, _C.Z3_get_decl_kind
    is_num, sort, skind = _C.Z3_is_numeral_ast, _C.Z3_get_sort, _C.Z3_get_sort_kind
    divs = (z3.Z3_OP_IDIV, z3.Z3_OP_DIV, z3.Z3_OP_MOD, z3.Z3_OP_REM)

    def value(a, kinds) -> bool:  # z3.is_int_value (kinds: Int) or is_rational_value too (Int, Real)
        return skind(ctx, sort(ctx, a)) in kinds and is_num(ctx, a)

    for a in _walk(terms):
        k = dkind(ctx, decl(ctx, a))
        if k == z3.Z3_OP_MUL:
            kids = [arg(ctx, a, i) for i in range(nargs(ctx, a))]
            if sum(1 for c in kids if not value(c, (z3.Z3_INT_SORT, z3.Z3_REAL_SORT))) > 1:
                return True
        elif k in divs and nargs(ctx, a) == 2 and not value(arg(ctx, a, 1), (z3.Z3_INT_SORT,)):
            return True
    return False


def _nonlinear_slow(terms: Sequence[z3.ExprRef]) -> bool:
    """nonlinear() through z3's Python objects (terms of another z3 context than the main one)."""
    for x in _subterms(terms, inside=z3.is_app):
        if z3.is_app(x):
            k = x.decl().kind()
            kids = x.children()
            if k == z3.Z3_OP_MUL and sum(1 for c in kids if not z3.is_int_value(c) and not z3.is_rational_value(c)) > 1:
                return True
            if k in (z3.Z3_OP_IDIV, z3.Z3_OP_DIV, z3.Z3_OP_MOD, z3.Z3_OP_REM) and len(kids) == 2 and \
                    not z3.is_int_value(kids[1]):
                return True
    return False


def _minimize_lex(constraints: Sequence[z3.BoolRef], objectives: Sequence[z3.ArithRef]) -> z3.ModelRef | None:
    """A model of the constraints minimizing each objective in turn (every objective >= 0), by
    binary search with the plain solver, each query within the limits: what z3's optimizer does,
    for the nonlinear problems it would not bound.  None if a query gives up."""
    with heavy(force=True):
        return _minimize_lex_(constraints, objectives)


def _minimize_lex_(constraints, objectives):
    global _last_unknown
    s = _solver()
    for c in constraints:
        s.add(c)
    r = _check(s)
    if r != z3.sat:
        _last_unknown = s.reason_unknown() if r == z3.unknown else "unsat"
        return None
    model = s.model()
    for obj in objectives:
        hi = _value(model, obj)
        if not isinstance(hi, int):
            _last_unknown = "a value of thousands of digits"
            return None
        lo = 0
        while lo < hi:
            mid = (lo + hi) // 2
            s.push()
            s.add(obj <= mid)
            r = _check(s)
            if r == z3.sat:
                model = s.model()
                got = _value(model, obj)
                hi = got if isinstance(got, int) and got <= mid else mid
            elif r == z3.unsat:
                lo = mid + 1
            s.pop()
            if r == z3.unknown:
                _last_unknown = s.reason_unknown()
                return None
        s.add(obj == hi)
        if _check(s) != z3.sat:
            _last_unknown = s.reason_unknown()
            return None
        model = s.model()
    return model


def smallest(constraints: Sequence[z3.BoolRef], terms: Sequence[z3.ArithRef]) -> z3.ModelRef | None:
    """A model of the constraints with the smallest sum of |term|, or None if the optimizer gives up."""
    if nonlinear(constraints):
        return _minimize_lex(constraints, [z3.Sum([z3.If(t >= 0, t, -t) for t in terms])] +
                             [z3.If(t >= 0, 2 * t, -2 * t - 1) for t in terms])
    o = _optimizer()
    for c in constraints:
        o.add(c)
    o.minimize(z3.Sum([z3.If(t >= 0, t, -t) for t in terms]))
    for t in terms:  # ties broken lexicographically, so the counterexample does not depend on z3's state
        o.minimize(z3.If(t >= 0, 2 * t, -2 * t - 1))
    global _last_unknown
    if _check(o) == z3.sat:
        return o.model()
    _last_unknown = o.reason_unknown()
    return None


_last_unknown = ""  # why the last `smallest` gave up


@dataclass
class Search:
    """The answer to "is there an assignment satisfying these constraints?"."""

    status: str  # "sat" (found: see model), "unsat" (none exists), "unknown" (inconclusive)
    model: dict[str, int | bool] = field(default_factory=dict)
    reason: str = ""
    seconds: float = 0.0


# ------------------------------------------------------------------ the same query again
# The bundled rule sets share modules (base is in all of them), so the worked examples ask z3 the very
# same questions once per rule set.  z3 builds every term once (hash-consing): a term built again is the
# same term, with the same id, as long as the first one is alive.  So a query is known again by the ids
# of its terms, with no printing, and its answer is the one z3 gave the first time (the same question
# has the same answer: sat or unsat does not depend on when it is asked).  The memo keeps the terms
# alive, so an id never stands for another term.  What the query cost is charged to the budget again
# on every hit, so a rule set spends the same whatever was verified before it in the process; an answer
# "unknown" is never kept, and a hit that the budget left could not have paid for is asked again.
_MEMO: "OrderedDict[tuple, tuple[object, int, tuple]]" = OrderedDict()
MEMO_SIZE = 4096


def _ids(terms) -> tuple | None:
    out = []
    for t in terms:
        if not isinstance(t, z3.AstRef):
            return None
        out.append(t.get_id())
    return tuple(out)


def _memo_key(kind: str, *groups) -> tuple | None:
    """The query's key (its kind, the limits and every term's id), or None when a part is not a z3 term."""
    key: list = [kind, RLIMIT, TIMEOUT]
    for g in groups:
        if isinstance(g, dict):
            ids = _ids(g.values())
            if ids is None:
                return None
            key.append(tuple(zip(g.keys(), ids)))
        else:
            ids = _ids(g)
            if ids is None:
                return None
            key.append(ids)
    return tuple(key)


def _memo_get(key: tuple | None):
    """The kept answer to the query, its cost charged to the budget; None: ask z3."""
    if key is None or key not in _MEMO:
        return None
    answer, cost, _ = _MEMO[key]
    b = _budget.current()
    if b.exhausted or cost > b.left:
        return None  # asked now, z3 would have stopped short of its answer: ask it
    _MEMO.move_to_end(key)
    b.spend(cost)
    return answer


def _memo_put(key: tuple | None, answer, cost: int, keep: tuple) -> None:
    if key is None:
        return
    _MEMO[key] = (answer, cost, keep)
    while len(_MEMO) > MEMO_SIZE:
        _MEMO.popitem(last=False)


def find(constraints: Sequence[z3.BoolRef], show: dict[str, z3.ExprRef],
         minimize: Sequence[z3.ArithRef] = ()) -> Search:
    """Search for an assignment satisfying every constraint (the smallest one if `minimize` is given)."""
    constraints, minimize = list(constraints), list(minimize)
    key = _memo_key("find", constraints, show, minimize)
    hit = _memo_get(key)
    if hit is not None:
        return Search(hit.status, dict(hit.model), hit.reason, 0.0)
    before = _budget.current().used
    res = _find(constraints, show, minimize)
    if res.status != "unknown":
        _memo_put(key, Search(res.status, dict(res.model), res.reason, 0.0), _budget.current().used - before,
                  (constraints, dict(show), minimize))
    return res


def _find(constraints: Sequence[z3.BoolRef], show: dict[str, z3.ExprRef],
          minimize: Sequence[z3.ArithRef] = ()) -> Search:
    t0 = time.perf_counter()
    s = _solver()
    for c in constraints:
        s.add(c)
    with heavy(constraints):
        r = _check(s)
    if r == z3.sat:
        model = s.model()
        if minimize:
            model = smallest(constraints, minimize)
            if model is None:
                return Search("unknown", reason=f"{MINIMIZE_FAILED} ({why_unknown(_last_unknown)})",
                              seconds=time.perf_counter() - t0)
        return Search("sat", model_values(model, show), seconds=time.perf_counter() - t0)
    if r == z3.unsat:
        return Search("unsat", seconds=time.perf_counter() - t0)
    return Search("unknown", reason=why_unknown(s.reason_unknown()), seconds=time.perf_counter() - t0)


def nearest(constraints: Sequence[z3.BoolRef], given: dict[str, tuple[z3.ArithRef, int]],
            show: dict[str, z3.ExprRef], limit: int = 6) -> tuple[str, int | None, list[dict[str, int | bool]]]:
    """Assignments satisfying the constraints closest (L1 distance) to the `given` values.

    Returns (status, distance, solutions): status "sat" with every solution at the
    smallest distance (up to `limit`), "unsat" if none exists, "unknown" if z3 gave up.
    """
    constraints = list(constraints)
    targets = {k: t for k, (t, _) in given.items()}
    key = _memo_key("nearest", constraints, targets, show)
    if key is not None:
        key += (tuple((k, v) for k, (_, v) in given.items()), limit)
    hit = _memo_get(key)
    if hit is not None:
        status, dist, sols = hit
        return status, dist, [dict(x) for x in sols]
    before = _budget.current().used
    status, dist, sols = _nearest(constraints, given, show, limit)
    if status != "unknown":
        _memo_put(key, (status, dist, [dict(x) for x in sols]), _budget.current().used - before,
                  (constraints, targets, dict(show)))
    return status, dist, sols


def _nearest(constraints: Sequence[z3.BoolRef], given: dict[str, tuple[z3.ArithRef, int]],
             show: dict[str, z3.ExprRef], limit: int = 6) -> tuple[str, int | None, list[dict[str, int | bool]]]:
    dist = z3.Sum([z3.If(t - v >= 0, t - v, v - t) for t, v in given.values()]) if given else z3.IntVal(0)
    if nonlinear(constraints):
        m = _minimize_lex(constraints, [dist])
        if m is None:
            return ("unsat", None, []) if _last_unknown == "unsat" else ("unknown", None, [])
        best = _value(m, dist)
    else:
        o = _optimizer()
        for c in constraints:
            o.add(c)
        o.minimize(dist)
        r = _check(o)
        if r == z3.unsat:
            return "unsat", None, []
        if r != z3.sat:
            return "unknown", None, []
        best = _value(o.model(), dist)
    if not isinstance(best, int):  # a distance of thousands of digits: no nearby inputs worth listing
        return "unknown", None, []
    # every solution at that distance, by enumeration with blocking clauses
    s = _solver()
    for c in constraints:
        s.add(c)
    s.add(dist == best)
    sols: list[dict[str, int | bool]] = []
    keys = [t for t, _ in given.values()]
    w = heavy(constraints)
    while len(sols) < limit:
        with w:
            r = _check(s)
        if r == z3.unknown:  # a shorter list would depend on the limits: say so instead
            return "unknown", None, []
        if r == z3.unsat:
            break
        m = s.model()
        sols.append(model_values(m, show))
        if not keys:
            break
        s.add(z3.Or([k != m.eval(k, model_completion=True) for k in keys]))
    # in a fixed order: z3's enumeration order depends on what the process asked it before
    sols.sort(key=lambda sol: [(k, repr(v)) for k, v in sorted(sol.items())])
    return "sat", best, sols
