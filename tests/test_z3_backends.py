"""One AST, two backends: the compiled Python and the z3 encoding agree.

On random expressions over the language's names and random states, the Python
that `tessera.compiler.pyexpr.emit` produces and the z3 term of `tessera.verifier.encode` give
the same value.  The expressions of the bundled rule files are checked the same
way (BASE-CITY-2, BASE-END-2, BASE-FIELD-3, KING-1, RIVER-PLACE-2, ABBOT-RECALL-1).
"""
from __future__ import annotations

import pytest

import z3
from hypothesis import given, settings, strategies as st

from tessera.compiler.pyexpr import Scope, emit
from tessera.dsl import ast as A
from tessera.dsl.loader import load_rule_set
from tessera.verifier.encode import Env, div, encode, mod

try:  # the engine's own helpers, when the runtime is present
    from tessera.compiler.runtime.ops import _div, _mod
except ImportError:  # pragma: no cover - the documented semantics
    def _div(a, b):
        return a // b if b else 0

    def _mod(a, b):
        return a % b if b else 0

INT_NAMES = ["tiles", "shields", "neighbours", "completed_cities", "players", "king", "river_turn"]
CALLS = ["turn(river)", "completed(city)"]


def compile_py(e: A.Expr):
    """The compiler's code for `e` as a function of a dict of names."""
    names = {n: f"s[{n!r}]" for n in INT_NAMES}
    calls = {fn: (lambda args, sc, fn=fn: f"s[{fn + '(' + args[0].name + ')'!r}]") for fn in ("turn", "completed")}
    src = emit(e, Scope(names=names, calls=calls))
    return eval(f"lambda s: {src}", {"_div": _div, "_mod": _mod, "min": min, "max": max}), src


def z3_value(e: A.Expr, state: dict[str, int]):
    env = Env(tag="", auto=False)
    env.names.update({n: z3.IntVal(state[n]) for n in INT_NAMES})
    env.calls["turn"] = lambda args: z3.IntVal(state[f"turn({args[0].name})"])
    env.calls["completed"] = lambda args: z3.IntVal(state[f"completed({args[0].name})"])
    v = z3.simplify(encode(e, env))
    if z3.is_true(v):
        return True
    if z3.is_false(v):
        return False
    return v.as_long()


# ------------------------------------------------------------- strategies
small = st.integers(-30, 30)


def _leaf_int():
    return st.one_of(
        small.map(lambda v: A.Neg(A.IntLit(-v)) if v < 0 else A.IntLit(v)),
        st.sampled_from(INT_NAMES).map(A.Var),
        st.sampled_from(CALLS).map(lambda c: A.Call(c.split("(")[0], (A.Var(c[c.index("(") + 1:-1]),))),
    )


def _exprs():
    def extend(children):
        ints, bools = children
        return st.one_of(
            st.tuples(st.sampled_from(["+", "-", "*", "//", "%"]), ints, ints).map(lambda t: A.BinOp(*t)),
            ints.map(A.Neg),
            st.tuples(st.sampled_from(["min", "max"]), ints, ints).map(lambda t: A.Call(t[0], (t[1], t[2]))),
            st.tuples(bools, ints, ints).map(lambda t: A.Cond(*t)),
        ), st.one_of(
            st.tuples(st.sampled_from(["==", "!=", "<", "<=", ">", ">="]), ints, ints).map(lambda t: A.BinOp(*t)),
            st.tuples(st.sampled_from(["and", "or"]), bools, bools).map(lambda t: A.BinOp(*t)),
            st.tuples(st.sampled_from(["==", "!="]), bools, bools).map(lambda t: A.BinOp(*t)),
            bools.map(A.Not),
            st.tuples(bools, bools, bools).map(lambda t: A.Cond(*t)),
        )

    base = (_leaf_int(), st.sampled_from([True, False]).map(A.BoolLit))
    # grow pairs (int exprs, bool exprs) a few levels deep
    levels = [base]
    for _ in range(3):
        ints, bools = levels[-1]
        new_i, new_b = extend((ints, bools))
        levels.append((st.one_of(ints, new_i), st.one_of(bools, new_b)))
    return st.one_of(levels[-1][0], levels[-1][1])


states = st.fixed_dictionaries({n: small for n in INT_NAMES + CALLS})


@pytest.mark.slow
@settings(max_examples=400, deadline=None)
@given(_exprs(), states)
def test_python_and_z3_agree_on_random_expressions(e, state):
    fn, src = compile_py(e)
    assert fn(state) == z3_value(e, state), src


@settings(max_examples=200, deadline=None)
@given(st.integers(-50, 50), st.integers(-50, 50))
def test_floor_division_and_modulo_are_pythons_and_total(a, b):
    got_d = z3.simplify(div(z3.IntVal(a), z3.IntVal(b))).as_long()
    got_m = z3.simplify(mod(z3.IntVal(a), z3.IntVal(b))).as_long()
    assert got_d == _div(a, b) and got_m == _mod(a, b)


def _rule_exprs():
    rs, diags, _ = load_rule_set(["base", "river", "abbot", "king_robber"])
    assert rs is not None, diags
    out = []
    for s in rs.scores.values():
        out.append(s.value)
    for c in rs.complete.values():
        out.append(c.when)
    for on in rs.ons:
        if on.where is not None:
            out.append(on.where)
        for a in on.actions:
            out.append(a.test if isinstance(a, A.Require) else a.value)
    out += [r.value for r in rs.recalls.values()] + [a.value for a in rs.awards.values()]
    out += [s.init for s in rs.states.values()] + [i.test for i in rs.invariants]
    out += [f.when for f in rs.figures.values() if f.when is not None]
    return out


RULE_EXPRS = _rule_exprs()
RULE_NAMES = INT_NAMES + ["open", "figures", "current", "king_city", "robber", "robber_road"]


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(st.fixed_dictionaries({n: st.integers(-10, 40) for n in RULE_NAMES + CALLS + ["completed(road)"]}))
def test_bundled_rule_expressions_agree(state):
    """Every expression of the bundled rules (BASE-CITY-2, KING-1, RIVER-PLACE-2 …) on a random state."""
    for e in RULE_EXPRS:
        names = {n: f"s[{n!r}]" for n in RULE_NAMES}
        calls = {fn: (lambda args, sc, fn=fn: f"s[{fn + '(' + args[0].name + ')'!r}]") for fn in ("turn", "completed")}
        py = eval(f"lambda s: {emit(e, Scope(names=names, calls=calls))}", {"_div": _div, "_mod": _mod})
        env = Env(auto=False)
        env.names.update({n: z3.IntVal(state[n]) for n in RULE_NAMES})
        env.calls["turn"] = lambda args: z3.IntVal(state[f"turn({args[0].name})"])
        env.calls["completed"] = lambda args: z3.IntVal(state[f"completed({args[0].name})"])
        v = z3.simplify(encode(e, env))
        zv = True if z3.is_true(v) else False if z3.is_false(v) else v.as_long()
        assert py(state) == zv
