"""The canonical form of a rule file (`tessera fmt`).

`format_module(mod, text)` prints every statement of `mod` (parsed from
`text`) in one fixed layout: single spaces between words, two-space
indentation inside `{ }` blocks, parentheses only where the grammar needs
them, and the citations (and titles) of consecutive one-line statements
aligned in one column.  The output parses to the same AST as the input
(`parse(format_module(m, text)) == m`, spans aside) and formatting twice
changes nothing.

Comments and blank lines come from `text` (without it, as for a module built
in code, there are no comments and blank lines follow the statements' spans):

- every `#` comment is printed exactly once, in its order;
- a comment on a line of its own belongs to what follows it (a statement, a
  tile's `edges`/feature line, a variant, an `on` action, a line of example
  fields) and is printed above it, at its indentation; one before a block's
  `}` stays at the end of that block, one after the last statement at the end
  of the file;
- a comment at the end of a line stays at the end of the line that thing is
  printed on (two spaces after it).  Where one printed line gathers several
  (a statement written over several lines with a comment on each), all but
  the last move above it;
- one blank line is kept wherever the source had one or more (never right
  after a `{`), so the paragraphs of a file survive;
- example fields written on one line stay on one line, two spaces apart.

A comment line or a blank line ends a run of aligned citations.
"""
from __future__ import annotations

import re
import threading
from bisect import bisect_right
from dataclasses import dataclass, field
from functools import lru_cache

from . import ast as A

INDENT = "  "
ALIGN_LIMIT = 60  # statements longer than this do not push the citation column right
WRAP_AT = 88  # a longer `figure ... when ...` puts `when` on its own line; a longer `deck` wraps its tiles

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


def _value(v: object, form: tuple | None = None) -> str:
    """An example field's value: a number, a name, a string or a mapping.  `form` is how
    the source wrote it (see `_Source`): a name-like string keeps its quotes and a mapping
    its order, which the AST does not record."""
    if form is not None:
        if form[0] == "string" and isinstance(v, str):
            return format_string(v)
        if form[0] == "mapping" and isinstance(v, tuple) and tuple(sorted(form[1])) == v:
            v = form[1]
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
        *(f"marks {m}" if n == 1 else f"marks {m} {n}" for m, n in f.marks),
        "-> " + " ".join(f.borders) if f.borders else None,
        f"crosses {f.crosses}" if f.crosses is not None else None,
    )


def _action(a: A.Action) -> str:
    match a:
        case A.Require(test=t, message=msg):
            return _join("require " + format_expr(t), format_string(msg) if msg is not None else None)
        case A.SetAction(name=n, value=v, seat=seat):
            whose = f" of {_sub(seat, _ATOM)}" if seat is not None else ""
            return f"set {n}{whose} = {format_expr(v)}"
        case A.ScoreEach(value=v):
            return f"score each {format_expr(v)}"
        case A.ReturnFrom(figures=figs):
            return f"return {', '.join(figs)} from outpost"
        case A.RemoveCatapult():
            return "remove catapult from outpost"
        case A.RemoveFigures(count=n, figures=figs, where=w):
            return _join(f"remove {n} of {', '.join(figs)}", f"where {format_expr(w)}" if w is not None else None)
        case A.PutCatapult():
            return "put catapult on symbols"
        case A.Release(figures=figs):
            return f"release {', '.join(figs)}"
    raise TypeError(f"not an action: {a!r}")


# ------------------------------------------------------------------ statements
class _Line:
    """A one-line statement: its words, then a tail (title and citations) that may be
    aligned with its neighbours' in one column."""

    def __init__(self, body: str, tail: str = ""):
        self.body = body
        self.tail = tail

    def text(self, col: int = 0) -> str:
        if self.tail and len(self.body) + 2 <= col:
            return self.body.ljust(col) + self.tail
        return _join(self.body, self.tail)


class _Block:
    """A statement with a `{ }` body (tile, on, example); `head` is the line before `{`."""

    def __init__(self, head: _Line, node: A.Statement):
        self.head = head
        self.node = node


def _deck(d: A.DeckDecl, c: str) -> _Line | list[str]:
    src = "tiles " + ", ".join(d.tiles) if d.tiles else "rest"
    parts = [(f"last {d.last}", d.last_cites)] if d.last else []
    if d.before:
        parts.append((f"before {d.before}", d.before_cites))
    src_c = ""
    if parts:  # each part's citations follow it; the final part's end the line
        src_c = _cites(d.cites[:len(d.cites) - len(d.last_cites) - len(d.before_cites)])
        c = _cites(parts[-1][1])
        parts[-1] = (parts[-1][0], ())
    rest = _join(src_c, *(_join(w, _cites(wc)) for w, wc in parts))
    one = _Line(_join(f"deck {d.name} = {src}", rest), c)
    if not d.tiles or len(one.text()) <= WRAP_AT:
        return one
    # fill the tiles into lines of at most WRAP_AT; `last`/`before` and the citations end it
    return _fill(f"deck {d.name} = tiles", [t + "," for t in d.tiles[:-1]] + [d.tiles[-1]], _join(rest, c))


def _fill(head: str, words: list[str], tail: str) -> list[str]:
    """`head` and `words` filled into lines of at most WRAP_AT (continuations indented twice),
    then `tail` (the citations) on the last line if it fits, else on one of its own."""
    lines, cur = [], head
    fresh = True  # nothing but the line's start yet: a word always goes on
    for w in words:
        if fresh or len(cur) + 1 + len(w) <= WRAP_AT:
            cur, fresh = f"{cur} {w}", False
        else:
            lines.append(cur)
            cur = INDENT * 2 + w
    if tail and len(cur) + 1 + len(tail) <= WRAP_AT:
        cur, tail = f"{cur} {tail}", ""
    lines.append(cur)
    if tail:
        lines.append(INDENT * 2 + tail)
    return lines


def _composition(s: A.CompositionDecl, c: str) -> _Line | list[str]:
    """`composition 72: A x2, B x4 [BASE-COMP-1]`, the list wrapped as a long `deck` is."""
    head = _join("composition", str(s.total) if s.total is not None else None)
    if not s.counts:
        return _Line(head, c)
    words = [f"{e.tile} x{e.count}" for e in s.counts]
    one = _Line(f"{head}: " + ", ".join(words), c)
    if len(one.text()) <= WRAP_AT:
        return one
    return _fill(head + ":", [w + "," for w in words[:-1]] + words[-1:], c)


def _statement(s: A.Statement) -> _Line | _Block | list[str]:
    """A statement's layout: one line, a block, or (wrapped) several lines."""
    c = _cites(getattr(s, "cites", ()))
    match s:
        case A.Override(decl=d):
            inner = _statement(d)
            if isinstance(inner, _Line):
                return _Line("override " + inner.body, inner.tail)
            if isinstance(inner, _Block):
                return _Block(_Line("override " + inner.head.body, inner.head.tail), inner.node)
            return ["override " + inner[0], *inner[1:]]
        case A.Requires(modules=m):
            return _Line("requires " + ", ".join(m), c)
        case A.Extends(modules=m):
            return _Line("extends " + ", ".join(m), c)
        case A.Total(count=n):
            return _Line(f"total {n}", c)
        case A.CompositionDecl():
            return _composition(s, c)
        case A.Players(low=lo, high=hi):
            return _Line(f"players {lo}..{hi}", c)
        case A.EdgeDecl(code=code, parts=parts, title=title):
            return _Line(f"edge {code} = " + " ".join(parts),
                         _join(format_string(title) if title is not None else None, c))
        case A.FeatureDecl(kind=k, centre=centre, title=title, halves=halves):
            return _Line(_join(f"feature {k}", "centre" if centre else ("halves" if halves else None)),
                         _join(format_string(title) if title is not None else None, c))
        case A.FigureDecl(name=n, count=count, on=on, when=when, count_expr=cx):
            if cx is not None:
                count = f"({format_expr(cx)})"
            sc, oc, wc = _cites(s.supply_cites), _cites(s.on_cites), _cites(s.when_cites)
            if not (sc or oc or wc):
                sc, oc, wc = "", "", c  # built without parts (a synthetic node): cites go last
            first = _join(f"figure {n} {count} per player", sc or None)
            where = ("at corner " if s.at == "corner" else "") + f"on {', '.join(on)}" + (" anywhere" if s.anywhere else "")
            if when is None:
                if len(_join(first, where, oc or wc)) <= WRAP_AT:
                    return _Line(_join(first, where), oc or wc)
                return [first, INDENT * 2 + _join(where, oc or wc)]
            cond = "when " + format_expr(when)
            if len(_join(first, where, oc, cond, wc)) <= WRAP_AT:
                return _Line(_join(first, where, oc or None, cond), wc)
            if len(_join(first, where, oc)) <= WRAP_AT:
                return [_join(first, where, oc or None), INDENT * 2 + _join(cond, wc)]
            return [first, INDENT * 2 + _join(where, oc), INDENT * 2 + _join(cond, wc)]
        case A.TileDecl(name=n, count=count, cells=cells):
            return _Block(_Line(f"tile {n} x{count}" + (f" cells {cells[0]}x{cells[1]}" if cells else ""), c), s)
        case A.StartDecl():
            # the anchor always says its rotation; the landscape's other tiles only when turned
            parts = [f"{s.tile} at {s.x} {s.y} rotation {s.rotation}"] + [
                f"{p.tile} at {p.x} {p.y}" + (f" rotation {p.rotation}" if p.rotation else "") for p in s.more]
            one = _Line("start " + ", ".join(parts), c)
            if len(one.text()) <= WRAP_AT:
                return one
            return _fill("start", [p + "," for p in parts[:-1]] + [parts[-1]], c)
        case A.AssumeDecl(name=n, text=text):
            return _Line(f"assume {n} {format_string(text)}", c)
        case A.WithDecl(module=m, without=without):
            return _Block(_Line(f"{'without' if without else 'with'} {m}", c), s)
        case A.DeckDecl():
            return _deck(s, c)
        case A.BoxDecl(tile=t):
            return _Line(f"box {t}", c)
        case A.PlacementDecl(kind=k, arg=arg):
            return _Line(_join(f"placement {k}", arg), c)
        case A.CompleteDecl(kind=k, when=when):
            return _Line(f"complete {k} when {format_expr(when)}", c)
        case A.ScoreDecl(kind=k, when=when, value=v, figure=fig) if fig is not None:
            return _Line(f"score {k} {when} {fig} = {format_expr(v)}", c)
        case A.ScoreDecl(kind=k, when=when, value=v, by=by) if by is not None:
            return _Line(f"score {k} {when} by {by} = {format_expr(v)}", c)
        case A.ScoreDecl(kind=k, when=when, value=v):
            return _Line(f"score {k} {when} = {format_expr(v)}", c)
        case A.OwnersDecl(mode=m):
            return _Line(f"owners {m}", c)
        case A.ReturnDecl(figure=f):
            return _Line(f"return {f} when scored", c)
        case A.StateDecl(name=n, init=init, each=each):
            return _Line(f"state {n}{' of each player' if each else ''} = {format_expr(init)}", c)
        case A.OnDecl(event=ev, of=of, where=where):
            return _Block(_Line(_join(f"on {ev}", f"of {of}" if of is not None else None,
                                      f"where {format_expr(where)}" if where is not None else None), c), s)
        case A.OnPutDecl(figures=figs, kinds=kinds):
            return _Block(_Line(_join(f"on put {', '.join(figs)}", f"of {', '.join(kinds)}" if kinds else None), c), s)
        case A.OnTrackDecl(event=ev, tracks=tracks, shows=shows):
            of = tracks or shows
            return _Block(_Line(_join(f"on {ev}", f"of {', '.join(of)}" if of else None), c), s)
        case A.OnRoundDecl(where=where):
            return _Block(_Line(_join("on round end", f"where {format_expr(where)}" if where is not None else None), c), s)
        case A.TrackDecl(name=n, kinds=kinds, row=row, row_expr=rx, pool=pool, catapult=cap):
            rc, sc = _cites(s.row_cites), _cites(s.slot_cites)
            if not (rc or sc):
                sc = c  # built without parts (a synthetic node): cites go last
            size = str(row) if rx is None else f"({format_expr(rx)})"
            head = _join(f"track {n} for {', '.join(kinds)} row {size}", rc or None)
            slots = ("pool " if pool else "") + f"catapult {cap}"
            if len(_join(head, slots, sc)) <= WRAP_AT:
                return _Line(_join(head, slots), sc)
            return [head, INDENT * 2 + _join(slots, sc)]
        case A.AwardDecl(state=st, value=v, most=most):
            return _Line(f"award {'most ' if most else ''}{st} at end = {format_expr(v)}", c)
        case A.PermitDecl(mode=m, figure=f, on=on, when=when):
            head = f"{m} {f} on {', '.join(on)}" + (" anywhere" if s.anywhere else "")
            oc, wc = _cites(s.on_cites), _cites(s.when_cites)
            if not (oc or wc):
                oc, wc = "", c  # built without parts (a synthetic node): cites go last
            if when is None:
                return _Line(head, oc or wc)
            cond = "when " + format_expr(when)
            if not oc:
                return _Line(_join(head, cond), wc)
            if len(_join(head, oc, cond, wc)) <= WRAP_AT:
                return _Line(_join(head, oc, cond), wc)
            return [_join(head, oc), INDENT * 2 + _join(cond, wc)]
        case A.RecallDecl(figure=f, value=v):
            return _Line(f"recall {f} = {format_expr(v)}", c)
        case A.CaptureDecl(count=n, figures=figs, within=wn, after=a):
            fc, wc, ac = _cites(s.figures_cites), _cites(s.within_cites), _cites(s.after_cites)
            if not (fc or wc or ac):
                ac = c  # built without parts (a synthetic node): cites go last
            head = _join(f"capture {n} of {', '.join(figs)}", fc or None)
            rng = _join(f"in line within {format_expr(wn)}", wc or None)
            if len(_join(head, rng, f"after put {a}", ac)) <= WRAP_AT:
                return _Line(_join(head, rng, f"after put {a}"), ac)
            return [head, INDENT * 2 + rng, INDENT * 2 + _join(f"after put {a}", ac)]
        case A.ExchangeDecl():
            return _Line("exchange prisoners", c)
        case A.RansomDecl(figures=figs, price=pr, when=wh):
            return _Line(_join(f"ransom {', '.join(figs)} = {format_expr(pr)}",
                               f"when {format_expr(wh)}" if wh is not None else None), c)
        case A.InvariantDecl(name=n, test=t):
            return _Line(f"invariant {n}: {format_expr(t)}", c)
        case A.ExampleDecl(name=n):
            return _Block(_Line(f"example {n}", c), s)
        case A.ClauseDecl(clause=cl, text=t):
            return _Line(f"clause {cl} {format_string(t)}")
        # the card game (rulebook 001)
        case A.ColourDecl(name=n, title=title):
            return _Line(f"colour {n}", _join(format_string(title) if title is not None else None, c))
        case A.CardDecl(kind=k, count=n, per_colour=per, value=v, flag=flag):
            return _Line(_join(f"card {k} x{n}", "per colour" if per else None,
                               f"value {v}" if v is not None else None, flag), c)
        case A.CardsTotal(count=n):
            return _Line(f"cards {n}", c)
        case A.LayoutDecl(count=n):
            return _Line(f"layout {n}", c)
        case A.DealDecl(rows=rows):
            parts = [f"{r.players} players {r.cards} cards {r.rounds} rounds" for r in rows]
            one = _Line("deal " + ", ".join(parts), c)
            if len(one.text()) <= WRAP_AT:
                return one
            return _fill("deal", [p + "," for p in parts[:-1]] + parts[-1:], c)
        case A.FacedownDecl(mode=m):
            return _Line(f"facedown {m}", c)
        case A.FeudalDecl(name=n, count=k):
            return _Line(f"feudal {n} {k} per player", c)
        case A.TakeDecl(kinds=kinds, to=to):
            return _Line(f"take {', '.join(kinds)} to {to}", c)
        case A.MisplacedDecl(value=v, keep=keep):
            return _Line(_join(f"misplaced = {format_expr(v)}", f"keep {', '.join(keep)}" if keep else None), c)
        case A.TableDecl(name=n, values=vals):
            return _Line(f"table {n} = " + ", ".join(str(v) for v in vals), c)
        case A.CardScoreDecl(name=n, when=w, value=v):
            return _Line(f"score {n} {'on take' if w == 'take' else 'at end'} = {format_expr(v)}", c)
        case A.EndDecl(when=w):
            return _Line(f"end when {format_expr(w)}", c)
        case A.TieDecl(value=v):
            return _Line(f"tie = {format_expr(v)}", c)
    raise TypeError(f"not a statement: {s!r}")


def _aligns(r: object) -> bool:
    """Does this statement join the citation column of its neighbours?  One-line
    statements and the heads of `on` blocks do; tiles, examples and wrapped lines
    end the run."""
    return isinstance(r, _Line) or (isinstance(r, _Block) and isinstance(r.node, (A.OnDecl, A.OnPutDecl, A.OnTrackDecl, A.OnRoundDecl)))


# -------------------------------------------------------------------- comments
_WS = " \t\f\r\n"  # what the grammar's WS skips


@dataclass
class _Comment:
    text: str  # `# ...`, trailing spaces removed
    start: int  # offset in the source
    trailing: bool  # code before it on its line
    blank: bool  # a blank line above it


@dataclass(eq=False)
class _Unit:
    """Something printed on a line (or as a block) of its own, and the comments it carries."""

    first_line: int = 0
    last_line: int = 0
    start: int = -1  # offsets in the source; -1 without one
    end: int = -1
    block: bool = False
    children: list["_Unit"] = field(default_factory=list)
    blank: bool = False  # a blank line above it (and above `before`'s last comment)
    before: list[_Comment] = field(default_factory=list)  # comment lines above it
    inside: list[_Comment] = field(default_factory=list)  # comments within it (a block: within its head)
    end_before: list[_Comment] = field(default_factory=list)  # a block: comment lines before its `}`
    end_inside: list[_Comment] = field(default_factory=list)  # a block: comments after its `}`
    form: tuple | None = None  # an example field: how its value was written (see `_value`)


_scan_lock = threading.Lock()
_scanned: list = []


@lru_cache(maxsize=1)
def _comment_parser():
    from .parser import make_parser

    return make_parser(lexer_callbacks={"COMMENT": _scanned.append})


class _Source:
    """The text a module was parsed from: its comments and the positions fmt needs."""

    def __init__(self, text: str):
        self.text = text
        self.starts = [0, *(i + 1 for i, ch in enumerate(text) if ch == "\n")]
        with _scan_lock:
            _scanned.clear()
            try:
                tree = _comment_parser().parse(text)
                toks = list(_scanned)
            finally:
                _scanned.clear()
        seen: dict[int, object] = {t.start_pos: t for t in toks}  # one per position, in order
        self.comments = []
        for pos in sorted(seen):
            tok = seen[pos]
            prev = self.prev_code(pos)
            trailing = prev >= 0 and self.line(prev) == self.line(pos)
            self.comments.append(_Comment(str(tok).rstrip(), pos, trailing, not trailing and self.blank_before(pos)))
        # example fields have no span in the AST: take them from the parse tree, in order,
        # with how each value was written
        self.fields = [self._field(t) for t in tree.iter_subtrees_topdown() if t.data == "example_field"]

    @staticmethod
    def _field(t) -> tuple[tuple[int, int, int, int], tuple | None]:
        m, value = t.meta, t.children[1]
        form = None
        if getattr(value, "type", None) == "STRING":
            form = ("string",)
        elif getattr(value, "data", None) == "mapping":
            kv = value.children
            form = ("mapping", tuple((str(kv[i]), int(kv[i + 1].children[0])) for i in range(0, len(kv), 2)))
        return (m.line, m.column, m.end_line, m.end_column), form

    def offset(self, line: int, column: int) -> int:
        return self.starts[line - 1] + column - 1

    def line(self, offset: int) -> int:
        return bisect_right(self.starts, offset)

    def prev_code(self, offset: int) -> int:
        """The offset of the last character before `offset` that is not white space (-1: none)."""
        i = offset - 1
        while i >= 0 and self.text[i] in _WS:
            i -= 1
        return i

    def next_code(self, offset: int) -> int | None:
        """The offset of the first token at or after `offset`, comments skipped (None: end of file)."""
        t, i = self.text, offset
        while True:
            while i < len(t) and t[i] in _WS:
                i += 1
            if i >= len(t):
                return None
            if t[i] != "#":
                return i
            i = t.find("\n", i)
            if i < 0:
                return None

    def blank_before(self, offset: int) -> bool:
        prev = self.prev_code(offset)
        return prev >= 0 and self.line(offset) - self.line(prev) >= 2


def comments(text: str) -> list[str]:
    """The `#` comments of a rule file that parses, in order, trailing spaces removed."""
    return [c.text for c in _Source(text).comments]


def _unit(src: _Source | None, span: tuple[int, int, int, int] | A.Span) -> _Unit:
    line, col, end_line, end_col = (span.line, span.column, span.end_line, span.end_column) \
        if isinstance(span, A.Span) else span
    u = _Unit(line, end_line)
    if src is not None and line > 0:
        u.start, u.end = src.offset(line, col), src.offset(end_line, end_col)
        u.blank = src.blank_before(u.start)
    return u


def _statement_unit(s: A.Statement, src: _Source | None, fields) -> _Unit:
    d = s.decl if isinstance(s, A.Override) else s
    u = _unit(src, s.span)
    if isinstance(d, A.TileDecl):
        u.block = True
        u.children = [_unit(src, d.edges_span), *(_unit(src, f.span) for f in d.features)]
        if d.symbols:
            u.children.append(_unit(src, d.symbols_span))
        for v in d.variants:
            vu = _unit(src, v.span)
            vu.block = True
            vu.children = [_unit(src, f.span) for f in v.features]
            u.children.append(vu)
    elif isinstance(d, (A.OnDecl, A.OnTrackDecl, A.OnRoundDecl)):
        u.block = True
        u.children = [_unit(src, a.span) for a in d.actions]
    elif isinstance(d, A.OnPutDecl):
        u.block = True
        u.children = [_unit(src, d.action_span)]
    elif isinstance(d, A.WithDecl):
        u.block = True
        u.children = [_statement_unit(item, src, fields) for item in d.items]
    elif isinstance(d, A.ExampleDecl):
        u.block = True
        for _ in d.fields:
            k = _Unit()
            if src is not None:
                span, form = next(fields)
                k = _unit(src, span)
                k.form = form
            u.children.append(k)
    return u


def _locate(units: list[_Unit], pos: int) -> tuple[_Unit, str] | None:
    """The innermost unit holding the character at `pos`, and which part of it:
    `line`, a block's `head` or its closing `end`."""
    for u in units:
        if u.start <= pos < u.end:
            if not u.block:
                return u, "line"
            if pos == u.end - 1:
                return u, "end"
            return _locate(u.children, pos) or (u, "head")
    return None


def _attach_line(units: list[_Unit], pos: int, c: _Comment) -> bool:
    """Give a comment on a line of its own to what follows it (the token at `pos`)."""
    for u in units:
        if u.start == pos:
            u.before.append(c)
            return True
        if u.start < pos < u.end:
            if u.block and pos == u.end - 1:
                u.end_before.append(c)
            elif not (u.block and _attach_line(u.children, pos, c)):
                u.inside.append(c)  # within a statement: it moves above it
            return True
    return False


def _attach(src: _Source, units: list[_Unit]) -> list[_Comment]:
    """Distribute the comments of `src` over `units`; return those that end the file."""
    trailer = []
    for c in src.comments:
        if c.trailing:
            found = _locate(units, src.prev_code(c.start))
            if found is None:
                raise RuntimeError(f"fmt: no statement before the comment at offset {c.start}")
            u, part = found
            (u.end_inside if part == "end" else u.inside).append(c)
            continue
        pos = src.next_code(c.start)
        if pos is None:
            trailer.append(c)
        elif not _attach_line(units, pos, c):
            raise RuntimeError(f"fmt: no statement after the comment at offset {c.start}")
    return trailer


def _last(cs: list[_Comment]) -> tuple[list[_Comment], _Comment | None]:
    """Comments gathered by one printed line: all but the last go above it, the last ends it."""
    return (cs[:-1], cs[-1]) if cs else ([], None)


def _ends(text: str, c: _Comment | None) -> str:
    return f"{text}  {c.text}" if c is not None else text


# --------------------------------------------------------------------- printer
class _Printer:
    def __init__(self) -> None:
        self.lines: list[str] = []
        self.fresh = True  # at the start of the file or right after a `{`: no blank line

    def blank(self) -> None:
        if not self.fresh and self.lines[-1] != "":
            self.lines.append("")

    def add(self, depth: int, text: str) -> None:
        self.lines.append(INDENT * depth + text)
        self.fresh = False

    def comment_lines(self, depth: int, cs: list[_Comment], blanks: bool = True) -> None:
        for c in cs:
            if blanks and c.blank:
                self.blank()
            self.add(depth, c.text)

    def prefix(self, depth: int, u: _Unit, moved: list[_Comment]) -> None:
        """What goes above a unit: its comment lines, a blank line, comments moved up from it."""
        self.comment_lines(depth, u.before)
        if u.blank:
            self.blank()
        self.comment_lines(depth, moved, blanks=False)

    def line_unit(self, depth: int, u: _Unit, text: str) -> None:
        moved, end = _last(u.inside)
        self.prefix(depth, u, moved)
        self.add(depth, _ends(text, end))

    def statement(self, depth: int, u: _Unit, r: _Line | _Block | list[str], col: int = 0) -> None:
        """A statement whose prefix is printed (see `_statement_comments`)."""
        end = _statement_comments(u, r)[1]
        if isinstance(r, _Line):
            self.add(depth, _ends(r.text(col), end))
        elif isinstance(r, _Block):
            self.block(depth, u, r.head.text(col), end, lambda: self.body(depth + 1, u, r.node))
        else:
            for line in r[:-1]:
                self.add(depth, line)
            self.add(depth, _ends(r[-1], end))

    def block(self, depth: int, u: _Unit, head: str, end: _Comment | None, body) -> None:
        if not u.children and not u.end_before:
            self.add(depth, _ends(head + " {}", end))
            return
        self.add(depth, _ends(head + " {", end))
        self.fresh = True
        body()
        self.comment_lines(depth + 1, u.end_before)
        moved, end = _last(u.end_inside)
        self.comment_lines(depth + 1, moved, blanks=False)
        self.fresh = False
        self.add(depth, _ends("}", end))

    def body(self, depth: int, u: _Unit, node: A.Statement) -> None:
        kids = iter(u.children)
        match node:
            case A.WithDecl(items=items):
                for item, k in zip(items, kids):
                    r = _statement(item)
                    moved, _ = _statement_comments(k, r)
                    self.prefix(depth, k, moved)
                    self.statement(depth, k, r)
            case A.TileDecl(edges=edges, features=feats, variants=variants, symbols=symbols):
                if edges and isinstance(edges[0], tuple):  # a tile covering several cells: four groups
                    self.line_unit(depth, next(kids), "edges " + " ".join("(" + " ".join(g) + ")" for g in edges))
                else:
                    self.line_unit(depth, next(kids), "edges " + " ".join(edges))
                for f in feats:
                    self.line_unit(depth, next(kids), _feature(f))
                if symbols:
                    self.line_unit(depth, next(kids), "symbols " + " ".join(symbols))
                for v in variants:
                    self.variant(depth, next(kids), v)
            case A.OnDecl(actions=actions) | A.OnTrackDecl(actions=actions) | A.OnRoundDecl(actions=actions):
                for a in actions:
                    self.line_unit(depth, next(kids), _action(a))
            case A.OnPutDecl(figure=f, slot=slot):
                self.line_unit(depth, next(kids), f"may put {f} on {slot}")
            case A.ExampleDecl(fields=fields):
                self.fields(depth, list(zip(u.children, fields)))

    def variant(self, depth: int, u: _Unit, v: A.TileVariant) -> None:
        head = _join(f"variant {v.name} x{v.count}", _cites(v.cites))
        if len(v.features) == 1 and not (u.inside or u.end_before or u.children[0].before or u.children[0].inside):
            moved, end = _last(u.end_inside)
            self.prefix(depth, u, moved)
            self.add(depth, _ends(f"{head} {{ {_feature(v.features[0])} }}", end))
            return
        empty = not v.features and not u.end_before
        moved, end = _last(u.inside + (u.end_inside if empty else []))
        self.prefix(depth, u, moved)

        def features() -> None:
            for k, f in zip(u.children, v.features):
                self.line_unit(depth + 1, k, _feature(f))

        self.block(depth, u, head, end, features)

    def fields(self, depth: int, fields: list[tuple[_Unit, tuple[str, object]]]) -> None:
        """Example fields; those written on one line stay on one line."""
        groups: list[list[tuple[_Unit, str]]] = []
        for k, (key, value) in fields:
            text = f"{key} = {_value(value, k.form)}"
            if groups and k.first_line > 0 and k.first_line == groups[-1][-1][0].last_line:
                groups[-1].append((k, text))
            else:
                groups.append([(k, text)])
        for g in groups:
            first = g[0][0]
            cs = first.inside + [c for k, _ in g[1:] for c in (*k.before, *k.inside)]
            moved, end = _last(cs)
            self.prefix(depth, first, moved)
            self.add(depth, _ends("  ".join(t for _, t in g), end))


def _statement_comments(u: _Unit, r: object) -> tuple[list[_Comment], _Comment | None]:
    """The comments within a statement's first printed line: those moved above it and
    the one that ends it.  An empty block (`{}`) also gathers those after its `}`."""
    cs = u.inside
    if isinstance(r, _Block) and not u.children and not u.end_before:
        cs = cs + u.end_inside
    return _last(cs)


def format_statement(s: A.Statement) -> str:
    """One statement in canonical form (no trailing newline)."""
    p = _Printer()
    p.statement(0, _statement_unit(s, None, None), _statement(s))
    return "\n".join(p.lines)


def _column(rs: list[_Line]) -> int:
    """The citation column of a run of one-line statements (0: each tail just follows its line)."""
    widths = [len(r.body) for r in rs if r.tail and len(r.body) <= ALIGN_LIMIT]
    return max(widths) + 2 if len(widths) > 1 else 0


def format_module(mod: A.Module, source: str | None = None) -> str:
    """The canonical text of a module, ending in a newline.  `source` is the text `mod`
    was parsed from; its comments and blank lines are kept."""
    src = _Source(source) if source is not None else None
    fields = iter(src.fields) if src is not None else None
    header = _unit(src, mod.span)
    units = [_statement_unit(item, src, fields) for item in mod.items]
    if src is not None:
        if next(fields, None) is not None:
            raise RuntimeError("fmt: the source text does not match the module")
        trailer = _attach(src, [header, *units])
    else:  # no text: a blank line wherever the statements' lines leave a gap
        trailer = []
        prev = mod.span
        for item, u in zip(mod.items, units):
            u.blank = prev.end_line > 0 and item.span.line > 0 and item.span.line - prev.end_line > 1
            prev = item.span
    p = _Printer()
    moved, end = _last(header.inside)
    p.prefix(0, header, moved)
    head = _Line(f"module {mod.name}", _join(format_string(mod.title) if mod.title is not None else None,
                                             _cites(mod.cites)))
    p.add(0, _ends(head.text(), end))  # the header is never aligned with what follows
    run: list[tuple[_Unit, _Line | _Block]] = []

    def flush() -> None:
        col = _column([r if isinstance(r, _Line) else r.head for _, r in run])
        for u, r in run:
            p.statement(0, u, r, col)
        run.clear()

    for item, u in zip(mod.items, units):
        r = _statement(item)
        moved, _ = _statement_comments(u, r)
        if u.before or moved or u.blank or not _aligns(r):
            flush()
        p.prefix(0, u, moved)
        if _aligns(r):
            run.append((u, r))
        else:
            p.statement(0, u, r)
    flush()
    p.comment_lines(0, trailer)
    return "\n".join(p.lines) + "\n"


def format_text(text: str, file: str = "<input>") -> str:
    """Parse and format, comments kept; raises dsl.parser.ParseFailure on a syntax error."""
    from .parser import parse

    return format_module(parse(text, file), text)
