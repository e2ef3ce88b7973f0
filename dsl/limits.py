"""What a rule file may ask for: bounded, so no rule set can exhaust memory or time.

Every limit is a check-time error that names the limit (code `limit`), so what
`tessera check` accepts, compile, simulate, replay and verify can all handle:

- a number written in a rule (a literal, a count, a coordinate) is at most MAX_NUMBER;
- a tile has at most MAX_COPIES copies and a rule set at most MAX_TILES tiles;
- a figure comes at most MAX_FIGURES times per player (a card game's feudal too);
- a card game prints at most MAX_COPIES of one card and MAX_CARDS in all, and deals at most
  MAX_CARDS cards or rounds;
- a name (module, tile, feature, state, ...) is at most MAX_NAME characters.

`playable` says why a rule set that checks cannot be played (no tiles, no start tile).
"""
from __future__ import annotations

from dataclasses import fields, is_dataclass

from . import ast as A
from .diagnostics import Diagnostic

MAX_NUMBER = 1_000_000
MAX_COPIES = 500  # of one tile (the base game's most common tile has 9)
MAX_TILES = 2_000  # in a rule set (the base game and every expansion here: about 200)
MAX_FIGURES = 100  # of one figure per player (the base game: 7 followers)
MAX_NAME = 64
MAX_CARDS = 2_000  # in a card game, and of a deal's cards or rounds (rulebook 001: 140 cards)
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
    return out


def check_rule_set(rs) -> list[Diagnostic]:
    """Limits of a whole rule set (the tiles of all its modules together)."""
    if rs.cards is not None:
        n = rs.cards.count()
        if n > MAX_CARDS:
            return [Diagnostic(rs.cards.cards[0].span, f"these rules print {n:,} cards; the limit is {MAX_CARDS:,}", "limit")]
        return []
    total = sum(t.count for t in rs.tiles)
    if total <= MAX_TILES or any(t.count > MAX_COPIES for t in rs.tiles):  # that tile is reported already
        return []
    biggest = max(rs.tiles, key=lambda t: t.count)
    return [Diagnostic(biggest.decl.span, f"the rule set has {total} tiles; the limit is {MAX_TILES} "
                                          f"(tile `{biggest.name}` alone has {biggest.count})", "limit")]


def playable(rs) -> list[Diagnostic]:
    """Why a rule set that checks cannot be played as a game (compile, simulate, replay)."""
    where = rs.modules[-1].span if rs.modules else A.Span()
    names = " + ".join(rs.names)
    out = []
    if rs.cards is not None:  # the card game (dsl/cards.py): enough cards for the layout and one deal
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
