"""What a rule file may ask for: bounded, so no rule set can exhaust memory or time.

Every limit is a check-time error that names the limit (code `limit`), so what
`tessera check` accepts, compile, simulate, replay and verify can all handle:

- a number written in a rule (a literal, a count, a coordinate) is at most MAX_NUMBER;
- a tile has at most MAX_COPIES copies and a rule set at most MAX_TILES tiles;
- a figure comes at most MAX_FIGURES times per player (a card game's feudal too), and a rule set
  declares at most MAX_FIGURE_KINDS kinds of figures;
- a card game prints at most MAX_COPIES of one card and MAX_CARDS in all, and deals at most
  MAX_CARDS cards or rounds;
- a name (module, tile, feature, state, ...) is at most MAX_NAME characters.

What a rule computes while a game is played is bounded too: a state's value, the
points of one scoring (score, award, recall, an outpost's `score each`), a capture
range and a ransom price are at most MAX_VALUE either way.  A value beyond it stops
the game with an error naming the rule's line (the generated engine checks it),
so no rule can grow a number until memory runs out (`set s = s * s`).  `check`
sees some of it before any game: an expression whose value could need more than
MAX_DIGITS digits is an error, and a `set` that can multiply a state by more than
one each time (`set s = s * s`, `set s = 2 * s`) is a warning.

`playable` says why a rule set that checks cannot be played (no tiles, no start tile).
"""
from __future__ import annotations

from dataclasses import fields, is_dataclass

from . import ast as A
from .diagnostics import Diagnostic
from .family import CARDS

MAX_NUMBER = 1_000_000
MAX_COPIES = 500  # of one tile (the base game's most common tile has 9)
MAX_TILES = 2_000  # in a rule set (the base game and every expansion here: about 200)
MAX_FIGURES = 100  # of one figure per player (the base game: 7 followers)
# kinds of figures in a rule set (every bundled module together: 4); the engine keeps one bit per kind in a
# machine integer (the figures in supply, those on corners), the same on both kernels below this
MAX_FIGURE_KINDS = 32
MAX_NAME = 64
MAX_CARDS = 2_000  # in a card game, and of a deal's cards or rounds (rulebook 001: 140 cards)
MAX_VALUE = MAX_NUMBER  # any value a rule computes in a game (a state, the points of one scoring)
MAX_DIGITS = 1_000  # digits any value inside one expression could need, read with the bounds below
MAX_COUNT = 10 ** 12  # above any count or score a game of at most MAX_TILES tiles can reach (for MAX_DIGITS)
MAX_CELLS = 64  # covered by one tile (`cells WxH`; the Siege's fortress pieces cover 6)

_NAME_FIELDS = {"name", "kind", "tile", "code", "state", "figure", "fn", "of", "by", "before", "last"}


def check_module(mod: A.Module) -> list[Diagnostic]:
    """Numbers, counts and names of one parsed module against the limits."""
    out: list[Diagnostic] = []
    seen: set[tuple] = set()

    def err(span: A.Span, msg: str) -> None:
        key = (span.line, span.column, msg)
        if key not in seen:
            seen.add(key)
            out.append(Diagnostic(span if span.line else mod.span, msg, "limit"))

    stack: list[tuple[object, A.Span]] = [(mod, mod.span)]
    while stack:
        node, where = stack.pop()
        if isinstance(node, (tuple, list)):
            stack.extend((c, where) for c in node)
            continue
        if isinstance(node, bool) or node is None or isinstance(node, str):
            continue
        if isinstance(node, int):
            if abs(node) > MAX_NUMBER:
                err(where, f"the number {_short(node)} is larger than the limit of {MAX_NUMBER:,} "
                           f"for any number in a rule file")
            continue
        if not is_dataclass(node) or isinstance(node, A.Span):
            continue
        span = getattr(node, "span", None) or where
        if isinstance(node, (A.TileDecl, A.TileVariant)) and 0 <= node.count <= MAX_NUMBER and node.count > MAX_COPIES:
            what = f"tile `{node.name}`" if isinstance(node, A.TileDecl) else f"variant `{node.name}`"
            err(span, f"{what} has {node.count} copies; the limit is {MAX_COPIES} copies of one tile")
        if isinstance(node, A.CardDecl) and MAX_COPIES < node.count <= MAX_NUMBER:
            err(span, f"card `{node.kind}` has {node.count} copies; the limit is {MAX_COPIES} copies of one card")
        if isinstance(node, A.FeudalDecl) and MAX_FIGURES < node.count <= MAX_NUMBER:
            err(span, f"feudal `{node.name}`: {node.count} per player; the limit is {MAX_FIGURES}")
        if isinstance(node, A.DealRow) and max(node.cards, node.rounds) > MAX_CARDS:
            err(span, f"a deal of {node.cards} cards for {node.rounds} rounds; the limit is {MAX_CARDS} of each")
        if isinstance(node, A.FigureDecl) and MAX_FIGURES < node.count <= MAX_NUMBER:
            err(span, f"figure `{node.name}`: {node.count} per player; the limit is {MAX_FIGURES}")
        for f in fields(node):
            if f.name in ("span", "edges_span"):
                continue
            value = getattr(node, f.name)
            names = value if f.name == "modules" and isinstance(value, tuple) else (value,)
            for v in names:
                if (f.name in _NAME_FIELDS or f.name == "modules") and isinstance(v, str) and len(v) > MAX_NAME:
                    err(span, f"the name `{v[:20]}…` is {len(v)} characters long; the limit is {MAX_NAME}")
            stack.append((value, span))
    return out + check_values(mod)


_EXPRS = (A.IntLit, A.BoolLit, A.Var, A.Call, A.BinOp, A.Not, A.Neg, A.Cond, A.StateOf)


def check_values(mod: A.Module) -> list[Diagnostic]:
    """What `check` can see of the values a rule computes, before any game is played.

    An expression whose value could need more than MAX_DIGITS digits (each state at most
    MAX_VALUE, each quantity at most MAX_COUNT) is an error; a `set` whose value can be more
    than its states' value each time it applies (a product of states, or a state times more
    than one) is a warning: it grows until MAX_VALUE stops the game."""
    out: list[Diagnostic] = []
    stack: list[object] = [mod]
    while stack:
        node = stack.pop()
        if isinstance(node, (tuple, list)):
            stack.extend(node)
            continue
        if not is_dataclass(node) or isinstance(node, (A.Span, A.Cite)):
            continue
        if isinstance(node, _EXPRS):
            digits = _digits(node)
            if digits > MAX_DIGITS:
                out.append(Diagnostic(node.span if node.span.line else mod.span,
                                      f"this expression's value could have about {digits:,.0f} digits; the limit is "
                                      f"{MAX_DIGITS:,} (every state read as up to {MAX_VALUE:,}, every count as up to 10^12): multiply less",
                                      "limit"))
            continue
        if isinstance(node, A.SetAction):
            low, linear, higher = _growth(node.value)
            if higher or linear > 1:
                target = node.name + (" of SEAT" if node.seat is not None else "")
                how = "a product of states" if higher else "more than one times a state (a sum of states, or a state times a number)"
                out.append(Diagnostic(node.span if node.span.line else mod.span,
                                      f"`set {target}` can be {how}, so its value can grow each time the rule applies; "
                                      f"a state beyond {MAX_VALUE:,} either way stops the game", "growth", "warning"))
        stack.extend(getattr(node, f.name) for f in fields(node) if f.name != "span")
    return out


def _leaf_is_state(e) -> bool:
    from .builtins import QUANTITIES
    return isinstance(e, A.StateOf) or (isinstance(e, A.Var) and e.name not in QUANTITIES)


def _digits(e) -> float:
    """An upper bound on the decimal digits of the expression's value (log10 of its magnitude)."""
    import math
    match e:
        case A.IntLit(value=v):
            return math.log10(abs(v)) if v else 0.0
        case A.BoolLit():
            return 0.0
        case A.Var() | A.StateOf():
            return math.log10(MAX_VALUE if _leaf_is_state(e) else MAX_COUNT)
        case A.Call(fn=fn, args=args):
            if fn in ("min", "max") and args:
                return max(_digits(a) for a in args)
            return math.log10(MAX_COUNT)
        case A.BinOp(op=op, left=l, right=r):
            a, b = _digits(l), _digits(r)
            if op == "*":
                return a + b
            if op in ("+", "-"):
                return max(a, b) + math.log10(2)
            if op == "//":
                return a
            if op == "%":
                return b
            return 0.0  # a comparison or `and`/`or`: true or false
        case A.Neg(operand=o):
            return _digits(o)
        case A.Not():
            return 0.0
        case A.Cond(then=a, orelse=b):
            return max(_digits(a), _digits(b))
    return 0.0


def _growth(e) -> tuple[float, float, bool]:
    """The value as a polynomial in the states' size S: (constant, factor of S, whether S*S or
    more can appear), every coefficient an upper bound of its magnitude."""
    match e:
        case A.IntLit(value=v):
            return float(abs(v)), 0.0, False
        case A.Var() | A.StateOf():
            return (0.0, 1.0, False) if _leaf_is_state(e) else (float(MAX_COUNT), 0.0, False)
        case A.Call(fn=fn, args=args):
            if fn in ("min", "max") and args:
                parts = [_growth(a) for a in args]
                return max(p[0] for p in parts), max(p[1] for p in parts), any(p[2] for p in parts)
            return float(MAX_COUNT), 0.0, False
        case A.BinOp(op=op, left=l, right=r):
            if op in ("+", "-", "*", "//", "%"):
                (c1, k1, h1), (c2, k2, h2) = _growth(l), _growth(r)
                if op in ("+", "-"):
                    return c1 + c2, k1 + k2, h1 or h2
                if op == "*":
                    return c1 * c2, c1 * k2 + k1 * c2, h1 or h2 or (k1 > 0 and k2 > 0)
                if op == "//":
                    return c1, k1, h1
                return c2, k2, h2  # a remainder is smaller than what it divides by
            return 1.0, 0.0, False
        case A.Neg(operand=o):
            return _growth(o)
        case A.Cond(then=a, orelse=b):
            (c1, k1, h1), (c2, k2, h2) = _growth(a), _growth(b)
            return max(c1, c2), max(k1, k2), h1 or h2
    return 1.0, 0.0, False


def check_rule_set(rs) -> list[Diagnostic]:
    """Limits of a whole rule set (the tiles of all its modules together)."""
    if rs.family is CARDS:
        n = rs.cards.count()
        if n > MAX_CARDS:
            return [Diagnostic(rs.cards.cards[0].span, f"these rules print {n:,} cards; the limit is {MAX_CARDS:,}", "limit")]
        return []
    out = []
    if len(rs.figures) > MAX_FIGURE_KINDS:
        extra = list(rs.figures.values())[MAX_FIGURE_KINDS]
        out.append(Diagnostic(extra.span, f"the rule set declares {len(rs.figures)} kinds of figures; the limit is "
                                          f"{MAX_FIGURE_KINDS}", "limit"))
    total = sum(t.count for t in rs.tiles)
    if total <= MAX_TILES or any(t.count > MAX_COPIES for t in rs.tiles):  # that tile is reported already
        return out
    biggest = max(rs.tiles, key=lambda t: t.count)
    return out + [Diagnostic(biggest.decl.span, f"the rule set has {total} tiles; the limit is {MAX_TILES} "
                                                f"(tile `{biggest.name}` alone has {biggest.count})", "limit")]


def playable(rs) -> list[Diagnostic]:
    """Why a rule set that checks cannot be played as a game (compile, simulate, replay)."""
    where = rs.modules[-1].span if rs.modules else A.Span()
    names = " + ".join(rs.names)
    out = []
    if rs.family is CARDS:  # the card game (dsl/cards.py): enough cards for the layout and one deal
        cg = rs.cards
        need = (cg.layout.count if cg.layout else 0) + min((r.players * r.cards for r in cg.deal.rows), default=0)
        if cg.in_play() < need:
            out.append(Diagnostic(where, f"{names} has {cg.in_play()} cards in play, fewer than the layout and one "
                                         f"deal take ({need})", "unplayable"))
        return out
    if not any(t.count > 0 for t in rs.tiles):
        out.append(Diagnostic(where, f"{names} has no tiles to play with; `extends base` (or declare tiles)", "unplayable"))
    elif rs.start is None:
        out.append(Diagnostic(where, f"{names} lays out no start tile, so no tile could ever be placed; "
                                     f"declare one (`start D at 0 0`) or `extends base`", "unplayable"))
    elif not any(f.count > 0 for f in rs.figures.values()):  # legal, but nobody can ever score
        span = next((f.span for f in rs.figures.values()), where)
        out.append(Diagnostic(span, f"{names} gives every player 0 figures, so no feature is ever owned and "
                                    f"nobody scores", "unplayable", "warning"))
    return out


def _short(n: int) -> str:
    sign = "-" if n < 0 else ""
    if n.bit_length() > 10_000:
        return f"{sign}…({int(n.bit_length() * 0.30103) + 1} digits)"
    s = str(abs(n))
    return f"{sign}{s}" if len(s) <= 12 else f"{sign}{s[:6]}…({len(s)} digits)"
