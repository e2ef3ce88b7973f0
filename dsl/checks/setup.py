"""What is in the box and on the table at the start: compositions, the start landscape,
boxed tiles and the copies they take, decks, the players' range."""
from __future__ import annotations

from .. import ast as A
from ..diagnostics import did_you_mean
from ..model import MOST_PLAYERS
from . import register


@register("compositions")
def compositions(b) -> None:
    """Each `composition` is one clause's printed counts, consistent in itself.  (Whether
    the tiles agree with it is the verifier's `set-counts`: the tiles may come later.)"""
    unlisted: dict[str, A.CompositionDecl] = {}
    listed: dict[tuple[str, str], A.CompositionCount] = {}
    for _, comp in b.rs.compositions:
        if comp.total is None and not comp.counts:
            b.err(comp.span, "a composition states how many tiles (`composition 18`), how many of each "
                             "(`composition: A x2, B x4`), or both", "composition")
            continue
        if len(comp.cites) != 1:
            how = "cites none" if not comp.cites else f"cites {len(comp.cites)} clauses"
            b.err(comp.span, f"a composition states the counts of one composition clause, but this one {how}: "
                             f"cite it, as in `composition 18 [TOWER-COMP-1]`", "composition")
            continue
        clause = comp.cites[0].clause
        if not comp.counts:
            if clause in unlisted:
                b.err(comp.span, f"{clause} already has a composition without a list at {unlisted[clause].span}; "
                                 f"both would count the same tiles", "composition")
            unlisted.setdefault(clause, comp)
            continue
        for entry in comp.counts:
            if entry.count < 1:
                b.err(entry.span, f"`{entry.tile} x{entry.count}`: a tile the rulebook prints is there at least once", "range")
            prev = listed.get((clause, entry.tile))
            if prev is not None:
                b.err(entry.span, f"tile `{entry.tile}` is already counted for {clause} at {prev.span}", "duplicate")
            listed.setdefault((clause, entry.tile), entry)
        n = sum(e.count for e in comp.counts)
        if comp.total is not None and n != comp.total:
            b.err(comp.span, f"this composition of {clause} states {comp.total} tiles, but its list adds up to {n}", "composition")



@register("start")
def start(b) -> None:
    """The start landscape (X12): known tiles, turned by quarters, a tile covering several
    cells at rotation 0 and wholly used there, no two tiles on one cell."""
    rs = b.rs
    names = {t.name for t in rs.tiles}
    if rs.start is None:
        return
    covered: dict[tuple[int, int], str] = {}
    for sp in rs.start.places():
        span = sp.span if sp.span.line else rs.start.span
        if sp.tile not in names:
            b.err(span, f"start tile `{sp.tile}` is not a tile{did_you_mean(sp.tile, names)}", "unknown-name", word=sp.tile)
            continue
        if sp.rotation % 90:
            b.err(span, "a rotation is 0, 90, 180 or 270", "range")
        decl = b.tiles_seen[sp.tile]
        w, h = decl.cells or (1, 1)
        if decl.cells is not None and sp.rotation % 360:
            b.err(span, f"tile `{sp.tile}` covers {w}x{h} cells: it is laid at rotation 0 only (turning it is "
                        f"not supported)", "unsupported")
        for i in range(w):
            for j in range(h):
                c = (sp.x + i, sp.y + j)
                if c in covered:
                    b.err(span, f"start tile `{sp.tile}` at {sp.x} {sp.y} covers [{c[0]}, {c[1]}], where "
                                f"`{covered[c]}` already lies", "place-overlap")
                covered[c] = sp.tile
    for name, decl in b.tiles_seen.items():
        if decl.cells is None or name not in names:
            continue
        used = sum(1 for sp in rs.start.places() if sp.tile == name) + sum(1 for bx in rs.boxed if bx.tile == name)
        if decl.count > used:
            b.err(decl.span, f"tile `{name}` covers several cells, so it can only lie in the start landscape, "
                             f"but {decl.count - used} of its {decl.count} copies would go in a deck", "unsupported")
    for d in rs.decks:
        for tn in (*d.tiles, *([d.last] if d.last else [])):
            if tn in b.tiles_seen and b.tiles_seen[tn].cells is not None:
                b.err(d.span, f"deck `{d.name}` names tile `{tn}`, which covers several cells: it can only "
                              f"lie in the start landscape", "unsupported", word=tn)


@register("boxed")
def boxed(b) -> None:
    """Each boxed tile is a tile."""
    rs = b.rs
    names = {t.name for t in rs.tiles}
    for bx in rs.boxed:
        if bx.tile not in names:
            b.err(bx.span, f"boxed tile `{bx.tile}` is not a tile{did_you_mean(bx.tile, names)}", "unknown-name", word=bx.tile)


@register("copies")
def copies_taken(b) -> None:
    """The start tile and each boxed tile take a copy out of the tile's count: it must have one."""
    rs = b.rs
    names = {t.name for t in rs.tiles}
    takers: dict[str, list[tuple[str, A.Span]]] = {}
    for sp in (rs.start.places() if rs.start is not None else ()):
        if sp.tile in names:
            takers.setdefault(sp.tile, []).append(("the start tile", sp.span if sp.span.line else rs.start.span))
    for bx in rs.boxed:
        if bx.tile in names:
            takers.setdefault(bx.tile, []).append(("a `box`", bx.span))
    for name, who in takers.items():
        copies = sum(tt.count for tt in rs.tiles if tt.name == name and tt.variant is None)
        if copies >= len(who):
            continue
        decl = b.tiles_seen[name]
        uses = " and ".join(f"{what} (at {span})" for what, span in who)
        b.err(decl.span, f"tile `{name}` has {copies} plain cop{'y' if copies == 1 else 'ies'}, but {uses} "
                         f"take{'s' if len(who) == 1 else ''} {len(who)} out of its count: "
                         f"{'it' if len(who) == 1 else 'they'} would come from nowhere; give it at least "
                         f"x{len(who)}", "count")


@register("decks")
def decks(b) -> None:
    """Each deck names known tiles, and is drawn before a known deck."""
    rs = b.rs
    names = {t.name for t in rs.tiles}
    deck_names = {d.name for d in rs.decks}
    for d in rs.decks:
        for tn in (*d.tiles, *([d.last] if d.last else [])):
            if tn not in names:
                b.err(d.span, f"deck `{d.name}` names unknown tile `{tn}`{did_you_mean(tn, names)}", "unknown-name", word=tn)
        if d.before and d.before not in deck_names:
            b.err(d.span, f"deck `{d.name}` is drawn before unknown deck `{d.before}`{did_you_mean(d.before, deck_names)}", "unknown-name", word=d.before)


@register("players")
def players(b) -> None:
    """The players' range lies within 1..MOST_PLAYERS, fewest first."""
    rs = b.rs
    if rs.players is not None and not (1 <= rs.players.low <= rs.players.high <= MOST_PLAYERS):
        lo, hi = rs.players.low, rs.players.high
        if lo > hi and 1 <= hi and lo <= MOST_PLAYERS:  # within the bounds, but backwards
            b.err(rs.players.span, f"players {lo}..{hi} is backwards: the fewest come first, "
                                   f"as in `players {hi}..{lo}`", "range")
        else:
            b.err(rs.players.span, f"players must be a range within 1..{MOST_PLAYERS}", "range")
