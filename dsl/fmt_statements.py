"""How `tessera fmt` lays out one statement: its words, where a long one wraps, the tail of
title and citations that dsl/fmt.py aligns in a column with its neighbours'."""
from __future__ import annotations

import re

from . import ast as A
from .fmt_expr import _ATOM, _sub, format_expr, format_string

INDENT = "  "
WRAP_AT = 88  # a longer `figure ... when ...` puts `when` on its own line; a longer `deck` wraps its tiles

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


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


_OPTIONAL = re.compile(r"\[([^\]]*)\]")
_FIELD = re.compile(r"\{(\w+)\}")


def _layout(node: A.Declared) -> str:
    """A declared statement's line (without citations), from its class's `layout`."""

    def value(name: str) -> str | None:
        v = getattr(node, name)
        if v is None or v == ():
            return None
        if isinstance(v, tuple):
            return ", ".join(v)
        if isinstance(v, (int, str)):
            return str(v)
        return format_expr(v)

    def optional(m: re.Match) -> str:
        if any(value(f) is None for f in _FIELD.findall(m.group(1))):
            return ""
        return m.group(1)

    return _FIELD.sub(lambda m: value(m.group(1)) or "", _OPTIONAL.sub(optional, node.layout))


def _action(a: A.Action) -> str:
    if isinstance(a, A.Declared):
        return _layout(a)
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
    if isinstance(s, A.Declared):
        line = _Line(_layout(s), c)
        return line if s.block is None else _Block(line, s)
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
        case A.ParamDecl(name=n, value=v, low=lo, high=hi):
            return _Line(f"param {n} = {v} in {lo}..{hi}", c)
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
        case A.DealerDecl(mode=m):
            return _Line(f"dealer {m}", c)
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
    return isinstance(r, _Line) or (isinstance(r, _Block) and (isinstance(r.node, (A.OnDecl, A.OnPutDecl, A.OnTrackDecl))
                                                               or isinstance(r.node, A.Declared) and r.node.block is not None))
