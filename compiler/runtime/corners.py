"""Figures on corners (a figure declared `at corner`: the Barn) and the scorings of two more
moments: when such a figure is put (`score KIND put FIGURE`) and when a tile joins features
(`score KIND join FIGURE`).

A corner figure stands where four placed tiles meet -- the tile just placed and the
three around that corner -- each with a feature of the figure's kinds on both
half-sides beside the corner.  It joins that feature, and counts toward nobody's
ownership.  Which corners are allowed, and why one is refused, is geometry only: the
figure's own `when` and the rules' `forbid`s stay in the one legality predicate,
`figures.options_for` (which asks the generated CORNER_RULES and FORBID_RULES).

The corners keep no state of their own: where each corner figure stands (`corner_at`), how many
there are (`on_corners`) and the figures a tile's unions joined (`joins`) are the board's
(`g.board`, runtime/board.py).  What reads the board only is a function of the board
(`ready_corners(b, ...)`, `corner_options(b, ...)`); the rest are functions of the game.
"""
from __future__ import annotations

from .errors import article as _a
from .geometry import CORNER_MEETS, cell_key


_MEETS = tuple(CORNER_MEETS.items())  # (corner, the three cells that meet there), in CORNER_MEETS's order
_CORNERED = {}  # edge base -> the edge codes of cells with neighbours on two sides that meet at a corner (-base: by code)


def cornered_codes(base):
    """Edge codes (`Board.fcodes`) of empty cells with a neighbour on two sides that meet at a
    corner (N or S, and E or W): only there may a corner be ready.  Pure, so kept per base."""
    got = _CORNERED.get(base)
    if got is None:
        got = set()
        for code in range(base ** 4):
            n, e, s, w = code % base, code // base % base, code // base ** 2 % base, code // base ** 3
            if (n or s) and (e or w):
                got.add(code)
        got = _CORNERED[base] = frozenset(got)
    return got


def cornered_flags(base):
    """cornered_codes(base) as a list indexed by the code (True: a corner may be ready there)."""
    got = _CORNERED.get(-base)
    if got is None:
        codes = cornered_codes(base)
        got = _CORNERED[-base] = [code in codes for code in range(base ** 4)]
    return got


def ready_corners(b, cell, kinds):
    """Corners of an empty cell of board b where the three other cells hold tiles with `kinds` at that corner."""
    code = b.code_of(cell_key(cell))  # (a cell's integer, geometry.KEY)
    if code is not None and code not in cornered_codes(b.edge_base):
        return ()  # a corner needs neighbours on both sides beside it
    return ready_at(b, cell, kinds)


def ready_at(b, cell, kinds):
    """ready_corners(b, cell, kinds) of a cell whose code is cornered (the listing has read it).  Kept per
    cell (`Board.ready`) until a tile comes to (or leaves) one of the eight cells around it."""
    per = b.ready.get(cell)
    if per is None:
        per = b.ready[cell] = {}
    got = per.get(kinds)
    if got is None:
        x, y = cell
        tiles = b.tiles
        got = []
        for corner, meets in _MEETS:
            for dx, dy, theirs in meets:
                nb = tiles.get((x + dx, y + dy))
                if nb is None:
                    break
                no = nb[0]
                f2 = no.corners.get(theirs)
                if f2 is None or no.kinds[f2] not in kinds:
                    break
            else:
                got.append(corner)
        per[kinds] = got
    return got


def corner_options(b, o, cell, kinds):
    """(corner, local feature) of o placed at cell of board b where four placed tiles meet, each with a
    feature of `kinds` on both half-sides of that corner."""
    out = []
    for corner in ready_corners(b, cell, kinds):
        fi = o.corners.get(corner)
        if fi is not None and o.feats[fi].kind in kinds:
            out.append((corner, fi))
    return out


def corner_refusal(g, o, cell, corner, kinds, what):
    """Why `what` (a figure name) may not stand on `corner` of o at cell, or None (geometry only)."""
    R = g.R
    names = " or ".join(R.KINDS[k].name for k in sorted(kinds))
    x, y = cell
    fi = o.corners.get(corner)
    if fi is None or o.feats[fi].kind not in kinds:
        return (f"{_a(what)} needs {names} at this corner on all four tiles: tile {o.tile.name} "
                f"has none on both half-sides of its {corner} corner")
    tiles = g.board.tiles
    for dx, dy, theirs in CORNER_MEETS[corner]:
        c2 = (x + dx, y + dy)
        nb = tiles.get(c2)
        if nb is None:
            return (f"{_a(what)} stands where four tiles meet, and [{c2[0]},{c2[1]}] "
                    f"(at the {corner} corner of [{x},{y}]) is empty")
        f2 = nb[0].corners.get(theirs)
        if f2 is None or nb[0].feats[f2].kind not in kinds:
            return (f"{_a(what)} needs {names} at this corner on all four tiles: tile {nb[0].tile.name} "
                    f"at [{c2[0]},{c2[1]}] has none on both half-sides of its {theirs} corner")
    return None


def put_corner(g, p, gi, seg, cell, corner):
    """Player p's figure gi, just put on segment seg, stands on `corner` of the tile at cell."""
    b = g.board
    b.corner_at[(p, gi, seg)] = (cell, corner)
    b.on_corners += 1


# ------------------------------------------------------------ put and join scorings
def score_put(g, gi, seg):
    """A figure gi was put this turn on segment seg: `score KIND put FIGURE`, then returns."""
    b = g.board
    rule = g.R.SCORE_PUT.get((b.seg_kind[seg], gi))
    if rule is None:
        return
    r = b.find(seg)
    g._award(r, b.seg_kind[r], "put", rule)
    g._return_figures(r)


def score_joins(g, touched):
    """Features in which the tile just laid joined a feature holding a FIGURE to one holding
    figures that count toward ownership: `score KIND join FIGURE`, then returns -- at once, as
    the tile is laid and before the turn's figure (the Barn's «сразу же»).  A feature the
    tile completed (`touched`, the tile's features) counts as completed for it, as it does for
    a figure put this turn: the tile is laid; its scoring waits for the turn's
    end, so its `done` flag is raised only while the join scores."""
    b = g.board
    joins, b.joins = b.joins, []
    if not joins:
        return
    R = g.R
    closed = []
    done, seg_kind, complete = b.done, b.seg_kind, R.COMPLETE
    for r in set(touched):
        if not done[r]:
            test = complete.get(seg_kind[r])
            if test is not None and test(g, r):
                closed.append(r)
    for r in closed:
        done[r] = True
    try:
        _score_joined(g, joins)
    finally:
        for r in closed:
            done[r] = False


def _score_joined(g, joins):
    R = g.R
    b = g.board
    corner = R.FIG_CORNER
    done = set()
    for a, c, root in joins:
        r = b.find(root)
        if r in done:
            continue
        kind = b.seg_kind[r]
        for (k, gi), rule in R.SCORE_JOIN.items():
            if k != kind:
                continue
            if ((any(e[1] == gi for e in a) and any(e[1] not in corner for e in c))
                    or (any(e[1] == gi for e in c) and any(e[1] not in corner for e in a))):
                done.add(r)
                g._award(r, kind, "join", rule)
                g._return_figures(r)
                break
