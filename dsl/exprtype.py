"""The types of rule expressions: `int`, `bool`, or `?` (unknown, once an error is reported).

Every name, function and state an expression reads is checked against what the rule's
context offers (dsl/builtins.py: a quantity's contexts); the checks call this through
`Builder.expr`.
"""
from __future__ import annotations

from . import ast as A
from .builtins import FUNCTIONS, QUANTITIES
from .diagnostics import did_you_mean


def expect(b, e: A.Expr, ctx, want: str | None, leaves: "Leaves | None" = None) -> str:
    """The type of `e` in a rule of context `ctx`; a diagnostic when it is not `want` (if given)."""
    got = type_of(b, e, ctx, leaves)
    if want is not None and got not in (want, "?"):
        b.err(e.span, f"expected {'a number' if want == 'int' else 'a condition'} here, but this is {'a number' if got == 'int' else 'a condition'}", "type")
    return got


class Leaves:
    """How a game family's expressions read their leaves -- a name, a call, a state of a player -- each
    checked and typed in context `ctx` (`expect(b, e, ctx, want, self)` checks an argument).  The
    operators, literals and `if` are every family's, typed once by `type_of`."""

    def var(self, b, e: A.Var, ctx) -> str:
        raise NotImplementedError

    def call(self, b, e: A.Call, ctx) -> str:
        raise NotImplementedError

    def state(self, b, e: A.StateOf, ctx) -> str:
        raise NotImplementedError


class TileLeaves(Leaves):
    """The tile game's: the quantities and functions of dsl/builtins.py, the rule set's states and
    parameters; `ctx` is the set of contexts the rule is read in."""

    def state(self, b, e: A.StateOf, ctx: set[str]) -> str:
        rs, n = b.rs, e.name
        st = rs.states.get(n)
        if st is None:
            b.err(e.span, f"`{n} of ...`: no `state {n}` is declared{did_you_mean(n, rs.states)}", "unknown-name", word=n)
        elif not st.each:
            b.err(e.span, f"`{n}` is one value for the game, not one per player: write `{n}` "
                             f"(or declare `state {n} of each player`)", "context")
        elif ctx == {"setup"}:
            b.err(e.span, f"state `{n}` has no value yet here: a figure count may read only `players`", "context")
        expect(b, e.seat, ctx, "int", self)
        return "int"

    def var(self, b, e: A.Var, ctx: set[str]) -> str:
        rs, n = b.rs, e.name
        if n in rs.params:  # a parameter kept as a name (the verifier's proof over its range): a number
            return "int"
        if n in rs.states:
            if rs.states[n].each:
                b.err(e.span, f"`{n}` is kept for each player: say whose, as in `{n} of current`", "context")
            if ctx == {"setup"}:
                b.err(e.span, f"state `{n}` has no value yet here: a figure count may read only `players`", "context")
            return "int"
        q = QUANTITIES.get(n)
        if q is None:
            choices = [*QUANTITIES, *rs.states, *rs.params]
            b.err(e.span, f"unknown name `{n}`{did_you_mean(n, choices)}", "unknown-name")
            return "?"
        if not (q.contexts & ctx):
            b.err(e.span, f"`{n}` has no meaning here ({q.doc}; usable in a {' or '.join(sorted(q.contexts))} rule)", "context")
        return q.type

    def call(self, b, e: A.Call, ctx: set[str]) -> str:
        rs, fn, args = b.rs, e.fn, e.args
        f = FUNCTIONS.get(fn)
        if f is None:
            b.err(e.span, f"unknown function `{fn}`{did_you_mean(fn, FUNCTIONS)}", "unknown-name", word=fn)
            return "?"
        if not (f.contexts & ctx):
            b.err(e.span, f"`{fn}(...)` has no meaning here ({f.doc})", "context", word=fn)
        if len(args) != len(f.args):
            b.err(e.span, f"`{fn}` takes {len(f.args)} argument{'s' if len(f.args) != 1 else ''}, not {len(args)}", "arity")
            return f.type
        for a, kind in zip(args, f.args):
            if kind == "figure":
                if not isinstance(a, A.Var) or a.name not in rs.figures:
                    nm = a.name if isinstance(a, A.Var) else "this"
                    b.err(a.span, f"`{fn}` takes a figure, and `{nm}` is not one{did_you_mean(nm, rs.figures)}", "unknown-name")
            elif kind == "mark":
                marks = rs.mark_names()
                if not isinstance(a, A.Var) or a.name not in marks:
                    nm = a.name if isinstance(a, A.Var) else "this"
                    b.err(a.span, f"`{fn}` takes a mark printed on some tile (`marks NAME` on a feature "
                                     f"line), and no tile prints `{nm}`{did_you_mean(nm, marks)}", "unknown-name")
            elif kind == "kind":
                if not isinstance(a, A.Var) or a.name not in rs.features:
                    nm = a.name if isinstance(a, A.Var) else "this"
                    b.err(a.span, f"`{fn}` takes a feature kind, and `{nm}` is not one{did_you_mean(nm, rs.features)}", "unknown-name")
            else:
                expect(b, a, ctx, kind, self)
        return f.type


TILES = TileLeaves()


def type_of(b, e: A.Expr, ctx, leaves: Leaves | None = None) -> str:
    """The type of `e`, every misuse inside it reported; its leaves read as `leaves` says (the tile game's
    by default, dsl/cards.py's for the card game)."""
    leaves = leaves or TILES
    match e:
        case A.IntLit():
            return "int"
        case A.BoolLit():
            return "bool"
        case A.StateOf():
            return leaves.state(b, e, ctx)
        case A.Var():
            return leaves.var(b, e, ctx)
        case A.Call():
            return leaves.call(b, e, ctx)
        case A.BinOp(op=op, left=l, right=r):
            if op in ("and", "or"):
                expect(b, l, ctx, "bool", leaves)
                expect(b, r, ctx, "bool", leaves)
                return "bool"
            if op in ("==", "!="):
                lt = type_of(b, l, ctx, leaves)
                rt = type_of(b, r, ctx, leaves)
                if "?" not in (lt, rt) and lt != rt:
                    b.err(e.span, "cannot compare a number with a condition", "type")
                return "bool"
            if op in ("<", "<=", ">", ">="):
                expect(b, l, ctx, "int", leaves)
                expect(b, r, ctx, "int", leaves)
                return "bool"
            expect(b, l, ctx, "int", leaves)
            expect(b, r, ctx, "int", leaves)
            if op in ("//", "%") and isinstance(r, A.IntLit) and r.value == 0:
                b.err(r.span, "division by zero", "range")
            return "int"
        case A.Not(operand=o):
            expect(b, o, ctx, "bool", leaves)
            return "bool"
        case A.Neg(operand=o):
            expect(b, o, ctx, "int", leaves)
            return "int"
        case A.Cond(test=t, then=a, orelse=other):
            expect(b, t, ctx, "bool", leaves)
            ta = type_of(b, a, ctx, leaves)
            tb = type_of(b, other, ctx, leaves)
            if "?" not in (ta, tb) and ta != tb:
                b.err(e.span, "both branches of `if` must be numbers, or both conditions", "type")
            return ta
    return "?"
