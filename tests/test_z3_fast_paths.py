"""The verifier's fast paths give what the plain ones give (verify --no-engine's speed, issue 35).

- `solver._symbols`, `solver.nonlinear` and `conformance._consts` walk z3 terms through z3's C API;
  on random terms they find what a walk through z3's Python objects finds (`solver._subterms`);
- `solver.substitute` is `z3.substitute` in one C call: the same term, and a pair of two sorts refused;
- a query asked again (`solver.find`, `solver.nearest`) gets the first answer, and the rule set's
  budget is charged its cost again, so a rule set spends the same whatever ran before it;
- the river theorem's bit-blasted proofs still refute a river rule that lets the river run into
  itself (RIVER-PLACE-2, `rules/variants/river_no_turn_rule.tess`).
"""
from __future__ import annotations

import z3
from hypothesis import given, settings, strategies as st

from tessera.verifier import budget, conformance, solver

X, Y, Z = z3.Ints("x y z")
R = z3.Real("r")
B = z3.Bool("b")


def _ints():
    leaf = st.sampled_from([X, Y, Z, z3.IntVal(0), z3.IntVal(2), z3.IntVal(-3)])

    def grow(kids):
        pair = st.tuples(kids, kids)
        return st.one_of(pair.map(lambda p: p[0] + p[1]), pair.map(lambda p: p[0] * p[1]),
                         pair.map(lambda p: p[0] / p[1]), pair.map(lambda p: p[0] % p[1]),
                         pair.map(lambda p: z3.If(p[0] > p[1], p[0], p[1])), kids.map(lambda k: 3 * k))
    return st.recursive(leaf, grow, max_leaves=12)


def _conds():
    return st.tuples(_ints(), _ints(), st.sampled_from(["<=", "==", "!="])).map(
        lambda t: t[0] <= t[1] if t[2] == "<=" else t[0] == t[1] if t[2] == "==" else z3.Or(t[0] != t[1], B))


def _slow_symbols(t) -> set[str]:
    return {x.decl().name() for x in solver._subterms([t])
            if z3.is_const(x) and x.decl().kind() == z3.Z3_OP_UNINTERPRETED}


@settings(max_examples=60, deadline=None)
@given(st.lists(_conds(), min_size=1, max_size=4))
def test_the_c_walks_find_what_the_python_walk_finds(terms):
    for t in terms:
        assert solver._symbols(t) == _slow_symbols(t)
    assert solver.nonlinear(terms) == solver._nonlinear_slow(terms)
    slow = {x.decl().name(): x for x in solver._subterms(terms)
            if z3.is_const(x) and x.decl().kind() == z3.Z3_OP_UNINTERPRETED}
    fast = conformance._consts(terms)
    assert list(fast) == list(slow) and all(fast[n].eq(slow[n]) for n in slow)


def test_nonlinear_by_hand():
    assert solver.nonlinear([X * Y > 0]) and solver.nonlinear([X / Y > 0]) and solver.nonlinear([X % Y == 0])
    assert solver.nonlinear([R / 2 > 0])  # a division by a value that is not an integer value
    assert not solver.nonlinear([2 * X * 3 > 0, X / 2 > 0, X % 3 == 0])


def test_a_quantifier_is_walked_into_as_before():
    q = z3.ForAll([X], X * Y > Z)
    assert solver._symbols(q) == _slow_symbols(q) == {"y", "z"}
    assert solver.nonlinear([q]) is False  # nonlinear() never entered a quantifier


def test_substitute_is_z3_substitute():
    t = z3.And(X + Y > Z, z3.Or(B, X == 2))
    pairs = [(X, Y + 1), (B, Y > 0)]
    assert solver.substitute(t, pairs).eq(z3.substitute(t, *pairs))
    try:
        solver.substitute(t, [(X, B)])
    except z3.Z3Exception:
        pass
    else:
        raise AssertionError("a pair of two sorts must be refused")


def test_a_query_asked_again_gets_the_first_answer_and_costs_as_much():
    cons = [X * Y == 12, X > Y, Y > 1]  # nonlinear: charged NONLINEAR_WEIGHT times its count
    show = {"x": X, "y": Y}
    budget.set_total(10 ** 12)
    try:
        b = budget.start()
        first = solver.find(cons, show)
        cost = b.used
        assert first.status == "sat" and cost > 0
        again = solver.find(list(cons), dict(show))
        assert (again.status, again.model) == (first.status, first.model)
        assert b.used == 2 * cost  # charged again on the hit
        near = solver.nearest(cons, {"x": (X, 5)}, show)
        spent = b.used
        assert solver.nearest(cons, {"x": (X, 5)}, show) == near and b.used == spent + (spent - 2 * cost)
        assert near == ("sat", 1, [{"x": 4, "y": 3}, {"x": 6, "y": 2}])
        # a budget that could not pay for the answer asks z3 again, which says it is spent
        budget.set_total(cost + 1)
        b = budget.start()
        b.spend(cost)
        assert solver.find(cons, show).status == "unknown"
    finally:
        budget.set_total(budget.DEFAULT)
        budget.finish()


def test_the_bit_blasted_river_proofs_still_refute_a_river_that_runs_into_itself():
    from tessera.dsl.loader import require_rule_set
    from tessera.verifier.river import check_river

    from pathlib import Path

    variant = Path(__file__).resolve().parent.parent / "rules" / "variants" / "river_no_turn_rule.tess"
    rep = check_river(require_rule_set([str(variant)]))
    assert rep.results["never runs into itself"].refuted  # RIVER-PLACE-2, its map from the smallest sequence
    assert rep.counterexamples["never runs into itself"].prop == "runs into itself"
    ok = check_river(require_rule_set(["base", "river"]))
    assert ok.results["never flows back"].proved and ok.results["never runs into itself"].proved
