"""Rule expressions -> Python source (the compiler's half of "one AST, two backends").

`tessera.verifier.encode` turns the same AST into z3 terms; tests check the two agree.
Names are resolved through a `Scope` that says which Python expression stands
for each quantity, state variable and function in the emitting context.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from ..dsl import ast as A

# Python precedence levels (higher binds tighter)
_PREC = {"or": 1, "and": 2, "not": 3, "==": 4, "!=": 4, "<": 4, "<=": 4, ">": 4, ">=": 4,
         "+": 5, "-": 5, "*": 6, "//": 6, "%": 6, "neg": 7, "atom": 9, "if": 0}


@dataclass
class Scope:
    """How the emitted code reads each name."""

    names: dict[str, str] = field(default_factory=dict)  # quantity/state name -> python expr
    calls: dict[str, Callable[[tuple[A.Expr, ...], "Scope"], str]] = field(default_factory=dict)
    used: set[str] = field(default_factory=set)

    def name(self, n: str) -> str:
        if n not in self.names:
            raise KeyError(n)
        self.used.add(n)
        return self.names[n]


def emit(e: A.Expr, scope: Scope) -> str:
    return _emit(e, scope)[0]


def _wrap(src: str, prec: int, need: int) -> str:
    return f"({src})" if prec < need else src


def _emit(e: A.Expr, scope: Scope) -> tuple[str, int]:
    match e:
        case A.IntLit(value=v):
            return repr(int(v)), _PREC["atom"]
        case A.BoolLit(value=v):
            return repr(bool(v)), _PREC["atom"]
        case A.Var(name=n):
            return scope.name(n), _PREC["atom"]
        case A.Call(fn=fn, args=args):
            if fn == "min" or fn == "max":
                inner = ", ".join(emit(a, scope) for a in args)
                return f"{fn}({inner})", _PREC["atom"]
            if fn in scope.calls:
                scope.used.add(fn)
                return scope.calls[fn](args, scope), _PREC["atom"]
            raise KeyError(fn)
        case A.StateOf(name=n, seat=seat):
            # a seat not in the game reads 0 (as z3's encoding does): never Python's negative index
            return f"_of({scope.name(n)}, {emit(seat, scope)})", _PREC["atom"]
        case A.BinOp(op=op, left=l, right=r):
            p = _PREC[op]
            ls, lp = _emit(l, scope)
            rs, rp = _emit(r, scope)
            if op in ("==", "!=", "<", "<=", ">", ">="):
                # never chain comparisons: a < b < c means something else in Python
                return f"{_wrap(ls, lp, p + 1)} {op} {_wrap(rs, rp, p + 1)}", p
            if op == "//":
                # floor division by zero is 0 in the rules language (total functions, as in z3's encoding)
                return f"_div({ls}, {rs})", _PREC["atom"]
            if op == "%":
                return f"_mod({ls}, {rs})", _PREC["atom"]
            return f"{_wrap(ls, lp, p)} {op} {_wrap(rs, rp, p + 1)}", p
        case A.Not(operand=o):
            s, sp = _emit(o, scope)
            return f"not {_wrap(s, sp, _PREC['not'])}", _PREC["not"]
        case A.Neg(operand=o):
            s, sp = _emit(o, scope)
            return f"-{_wrap(s, sp, _PREC['neg'])}", _PREC["neg"]
        case A.Cond(test=t, then=a, orelse=b):
            ts, tp = _emit(t, scope)
            as_, ap = _emit(a, scope)
            bs, bp = _emit(b, scope)
            return f"({_wrap(as_, ap, 1)} if {_wrap(ts, tp, 1)} else {_wrap(bs, bp, 1)})", _PREC["atom"]
    raise TypeError(f"not an expression: {e!r}")


def free_names(e: A.Expr, whole: Callable[[str], bool] = lambda fn: fn not in ("min", "max")) -> set[str]:
    """Variables an expression reads (quantities and state): a name, a state, and a call `fn(a,b)` that
    is read as one value when `whole(fn)` (the tile game's functions; the card game's kind functions,
    `taken(K)`...), where a call of any other function (min, max, a card game's table) reads its arguments."""
    out: set[str] = set()
    todo = [e]
    while todo:
        x = todo.pop()
        if isinstance(x, (A.Var, A.StateOf)):
            out.add(x.name)
        elif isinstance(x, A.Call) and whole(x.fn):
            out.add(f"{x.fn}({','.join(a.name if isinstance(a, A.Var) else '?' for a in x.args)})")
            continue
        todo.extend(x.iter_child_nodes())
    return out
