"""Evaluate a rule expression whose names are all known numbers (a figure count
over `players`, TOWER-COMP-1).  Division and remainder by zero give 0, as in the
generated engines (compiler/runtime/ops.py), so the checker, the engine and the
verifier read such an expression the same way."""
from __future__ import annotations

from . import ast as A

_ARITH = {
    "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
    "//": lambda a, b: a // b if b else 0, "%": lambda a, b: a % b if b else 0,
    "==": lambda a, b: a == b, "!=": lambda a, b: a != b, "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b,
}


def evaluate(e: A.Expr, names: dict[str, int]) -> int | bool:
    """The value of `e`; KeyError names a name or function `names` does not give."""
    match e:
        case A.IntLit(value=v):
            return v
        case A.BoolLit(value=v):
            return v
        case A.Var(name=n):
            return names[n]
        case A.Neg(operand=x):
            return -evaluate(x, names)
        case A.Not(operand=x):
            return not evaluate(x, names)
        case A.Cond(test=t, then=a, orelse=b):
            return evaluate(a, names) if evaluate(t, names) else evaluate(b, names)
        case A.BinOp(op="and", left=l, right=r):
            return bool(evaluate(l, names)) and bool(evaluate(r, names))
        case A.BinOp(op="or", left=l, right=r):
            return bool(evaluate(l, names)) or bool(evaluate(r, names))
        case A.BinOp(op=op, left=l, right=r):
            return _ARITH[op](evaluate(l, names), evaluate(r, names))
        case A.Call(fn="min", args=(a, b)):
            return min(evaluate(a, names), evaluate(b, names))
        case A.Call(fn="max", args=(a, b)):
            return max(evaluate(a, names), evaluate(b, names))
        case A.Call(fn=fn):
            raise KeyError(fn)
    raise KeyError(type(e).__name__)
