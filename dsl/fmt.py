"""The canonical form of a rule file (`tessera fmt`).

`format_module(parse(text))` prints every statement in one fixed layout:
single spaces between words, two-space indentation inside `{ }` blocks,
parentheses only where the grammar needs them, and the clause citations of
consecutive one-line statements aligned in one column.  The output parses to
the same AST as the input (`parse(format_module(m)) == m`, spans aside) and
formatting twice changes nothing.

Comments are not part of the AST and are lost.  Blank lines are kept where the
source had a gap between two statements (a blank line or a comment), so the
paragraphs of a file survive; several blank lines become one.
"""
from __future__ import annotations

import re

from . import ast as A

INDENT = "  "
ALIGN_LIMIT = 60  # statements longer than this do not push the citation column right
WRAP_AT = 88  # a `figure ... when ...` longer than this puts `when` on its own line

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

# ------------------------------------------------------------------ expressions
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


# ---------------------------------------------------------------------- pieces
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


def _cites(cites: tuple[A.Cite, ...]) -> str:
    return "[" + ", ".join(c.clause for c in cites) + "]" if cites else ""


def _join(*parts: str | None) -> str:
    return " ".join(p for p in parts if p)


def _value(v: object) -> str:
    """An example field's value: a number, a name, a string or a mapping."""
    if isinstance(v, bool):  # not produced by the parser; keep it readable anyway
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, str):
        return v if _NAME.fullmatch(v) else format_string(v)
    if isinstance(v, tuple):
        return "{" + ", ".join(f"{k}: {n}" for k, n in v) + "}"
    raise TypeError(f"not an example value: {v!r}")


def _feature(f: A.TileFeature) -> str:
    return _join(
        f.kind,
        " ".join(f.places),
        f"shields {f.shields}" if f.shields else None,
        "-> " + " ".join(f.borders) if f.borders else None,
        f"crosses {f.crosses}" if f.crosses is not None else None,
    )


def _block(head: str, body: list[str]) -> list[str]:
    if not body:
        return [head + " {}"]
    return [head + " {", *(INDENT + line for line in body), "}"]


# ------------------------------------------------------------------ statements
class _Line:
    """A one-line statement; its citations may be aligned with its neighbours'."""

    def __init__(self, body: str, cites: str = ""):
        self.body = body
        self.cites = cites


def _statement(s: A.Statement) -> _Line | list[str]:
    c = _cites(getattr(s, "cites", ()))
    match s:
        case A.Override(decl=d):
            inner = _statement(d)
            if isinstance(inner, _Line):
                return _Line("override " + inner.body, inner.cites)
            return ["override " + inner[0], *inner[1:]]
        case A.Requires(modules=m):
            return _Line("requires " + ", ".join(m), c)
        case A.Extends(modules=m):
            return _Line("extends " + ", ".join(m), c)
        case A.Total(count=n):
            return _Line(f"total {n}", c)
        case A.Players(low=lo, high=hi):
            return _Line(f"players {lo}..{hi}", c)
        case A.EdgeDecl(code=code, parts=parts, title=title):
            return _Line(_join(f"edge {code} =", " ".join(parts),
                               format_string(title) if title is not None else None), c)
        case A.FeatureDecl(kind=k, centre=centre, title=title):
            return _Line(_join(f"feature {k}", "centre" if centre else None,
                               format_string(title) if title is not None else None), c)
        case A.FigureDecl(name=n, count=count, on=on, when=when):
            head = f"figure {n} {count} per player on {', '.join(on)}"
            if when is None:
                return _Line(head, c)
            cond = "when " + format_expr(when)
            if len(_join(head, cond, c)) <= WRAP_AT:
                return _Line(_join(head, cond), c)
            return [head, INDENT * 2 + _join(cond, c)]
        case A.TileDecl(name=n, count=count, edges=edges, features=feats, variants=variants):
            body = ["edges " + " ".join(edges), *(_feature(f) for f in feats)]
            for v in variants:
                vhead = _join(f"variant {v.name} x{v.count}", _cites(v.cites))
                if len(v.features) == 1:
                    body.append(f"{vhead} {{ {_feature(v.features[0])} }}")
                else:
                    body.extend(_block(vhead, [_feature(f) for f in v.features]))
            return _block(_join(f"tile {n} x{count}", c), body)
        case A.StartDecl(tile=t, x=x, y=y, rotation=r):
            return _Line(f"start {t} at {x} {y} rotation {r}", c)
        case A.DeckDecl(name=n, tiles=tiles, last=last, before=before):
            src = "tiles " + ", ".join(tiles) if tiles else "rest"
            return _Line(_join(f"deck {n} = {src}", f"last {last}" if last else None,
                               f"before {before}" if before else None), c)
        case A.BoxDecl(tile=t):
            return _Line(f"box {t}", c)
        case A.PlacementDecl(kind=k, arg=arg):
            return _Line(_join(f"placement {k}", arg), c)
        case A.CompleteDecl(kind=k, when=when):
            return _Line(f"complete {k} when {format_expr(when)}", c)
        case A.ScoreDecl(kind=k, when=when, value=v):
            return _Line(f"score {k} {when} = {format_expr(v)}", c)
        case A.OwnersDecl(mode=m):
            return _Line(f"owners {m}", c)
        case A.ReturnDecl(figure=f):
            return _Line(f"return {f} when scored", c)
        case A.StateDecl(name=n, init=init):
            return _Line(f"state {n} = {format_expr(init)}", c)
        case A.OnDecl(event=ev, of=of, where=where, actions=actions):
            head = _join(f"on {ev}", f"of {of}" if of is not None else None,
                         f"where {format_expr(where)}" if where is not None else None, c)
            return _block(head, [_action(a) for a in actions])
        case A.AwardDecl(state=st, value=v):
            return _Line(f"award {st} at end = {format_expr(v)}", c)
        case A.RecallDecl(figure=f, value=v):
            return _Line(f"recall {f} = {format_expr(v)}", c)
        case A.InvariantDecl(name=n, test=t):
            return _Line(f"invariant {n}: {format_expr(t)}", c)
        case A.ExampleDecl(name=n, fields=fields):
            return _block(_join(f"example {n}", c), [f"{k} = {_value(v)}" for k, v in fields])
    raise TypeError(f"not a statement: {s!r}")


def _action(a: A.Action) -> str:
    match a:
        case A.Require(test=t, message=msg):
            return _join("require " + format_expr(t), format_string(msg) if msg is not None else None)
        case A.SetAction(name=n, value=v):
            return f"set {n} = {format_expr(v)}"
    raise TypeError(f"not an action: {a!r}")


def format_statement(s: A.Statement) -> str:
    """One statement in canonical form (no trailing newline)."""
    r = _statement(s)
    if isinstance(r, _Line):
        return _join(r.body, r.cites)
    return "\n".join(r)


def _gap(prev: A.Span, nxt: A.Span) -> bool:
    """Did the source leave a blank line or a comment between two statements?"""
    if prev.end_line <= 0 or nxt.line <= 0:
        return False
    return nxt.line - prev.end_line > 1


def _flush(par: list[_Line], out: list[str]) -> None:
    """Print a run of one-line statements, their citations in one column."""
    widths = [len(l.body) for l in par if l.cites and len(l.body) <= ALIGN_LIMIT]
    col = max(widths) + 2 if len(widths) > 1 else 0  # a lone citation just follows its line
    for l in par:
        if not l.cites:
            out.append(l.body)
        elif len(l.body) + 2 <= col:
            out.append(l.body.ljust(col) + l.cites)
        else:
            out.append(f"{l.body} {l.cites}")
    par.clear()


def format_module(mod: A.Module) -> str:
    """The canonical text of a module, ending in a newline."""
    out: list[str] = []
    par: list[_Line] = []
    head = _Line(_join(f"module {mod.name}", format_string(mod.title) if mod.title is not None else None),
                 _cites(mod.cites))
    _flush([head], out)  # the header is never aligned with what follows
    prev_end = mod.span
    for item in mod.items:
        r = _statement(item)
        if _gap(prev_end, item.span):
            _flush(par, out)
            out.append("")
        if isinstance(r, _Line):
            par.append(r)
        else:  # a block ends the run of aligned lines
            _flush(par, out)
            out.extend(r)
        prev_end = item.span
    _flush(par, out)
    return "\n".join(out) + "\n"


def format_text(text: str, file: str = "<input>") -> str:
    """Parse and format; raises dsl.parser.ParseFailure on a syntax error."""
    from .parser import parse

    return format_module(parse(text, file))


def count_comments(text: str) -> int:
    """How many `#` comments the text holds (what formatting it would drop)."""
    from .parser import _parser

    try:
        return sum(1 for tok in _parser().lex(text, dont_ignore=True) if tok.type == "COMMENT")
    except Exception:  # the plain lexer is only an estimate; never fail over it
        return sum(1 for line in text.splitlines() if line.lstrip().startswith("#"))
