"""How `tessera fmt` writes an expression and a string: parentheses only where the grammar's
binding strengths need them (dsl/fmt.py prints whole rule files)."""
from __future__ import annotations

from . import ast as A

# Binding strength, loosest first; mirrors the `?expr` chain of grammar.lark.
_COND, _OR, _AND, _NOT, _CMP, _SUM, _PROD, _NEG, _ATOM = range(9)
_CMP_OPS = {"==", "!=", "<", "<=", ">", ">="}
_SUM_OPS = {"+", "-"}
_PROD_OPS = {"*", "//", "%"}


def _prec(e: A.Expr) -> int:
    match e:
        case A.Cond():
            return _COND
        case A.BinOp(op=op):
            if op == "or":
                return _OR
            if op == "and":
                return _AND
            if op in _CMP_OPS:
                return _CMP
            if op in _SUM_OPS:
                return _SUM
            return _PROD
        case A.Not():
            return _NOT
        case A.Neg():
            return _NEG
    return _ATOM


def _sub(e: A.Expr, least: int) -> str:
    """`e` where the grammar accepts only expressions binding at least as tightly as `least`."""
    text = format_expr(e)
    return f"({text})" if _prec(e) < least else text


def format_expr(e: A.Expr) -> str:
    match e:
        case A.IntLit(value=v):
            return str(v) if v >= 0 else f"-{-v}"
        case A.BoolLit(value=v):
            return "true" if v else "false"
        case A.Var(name=n):
            return n
        case A.Call(fn=fn, args=args):
            return f"{fn}({', '.join(format_expr(a) for a in args)})"
        case A.StateOf(name=n, seat=seat):
            return f"{n} of {_sub(seat, _ATOM)}"
        case A.Not(operand=o):
            return f"not {_sub(o, _NOT)}"
        case A.Neg(operand=o):
            return f"-{_sub(o, _NEG)}"
        case A.Cond(test=t, then=a, orelse=b):
            return f"if {format_expr(t)} then {format_expr(a)} else {format_expr(b)}"
        case A.BinOp(op=op, left=l, right=r):
            p = _prec(e)
            if p == _CMP:  # comparisons do not chain: both sides are sums
                return f"{_sub(l, _SUM)} {op} {_sub(r, _SUM)}"
            # left-associative: the left operand may bind as loosely as the operator itself
            return f"{_sub(l, p)} {op} {_sub(r, p + 1)}"
    raise TypeError(f"not an expression: {e!r}")


def format_string(s: str) -> str:
    """A STRING token whose value (Python literal rules) is `s`."""
    out = []
    for ch in s:
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ch == "\r":
            out.append("\\r")
        elif ch.isprintable() or ch == " ":
            out.append(ch)
        else:
            n = ord(ch)
            out.append(f"\\x{n:02x}" if n < 0x100 else f"\\u{n:04x}" if n < 0x10000 else f"\\U{n:08x}")
    return '"' + "".join(out) + '"'
