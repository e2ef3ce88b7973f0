"""Figures: each player's supply, where a figure may go, recalls, and why a figure is refused.

Whether a figure may stand on a feature is decided in ONE place: `options_for(g, o, cell, nbr,
sup)` here, which lists the (figure, local feature) pairs allowed on a tile about to be placed --
each figure's supply, the kinds it may stand on and its condition.  The conditions are the
rules' own, decided in lowering (compiler/lower.py) and written as small functions in the
generated tables SIDE_RULES, CORNER_RULES and FORBID_RULES; this module asks them.  The listing
lists those pairs, `apply_action` accepts exactly those, and a refusal names the part of the
`figure` statement that failed.

The supply is a component of the game (`g.supply`, a `Supply`, whose class is in runtime/core.py); the
rest of the module is functions of the game (`Game` binds the public ones, docs/engine.md, as its
methods).
"""
from __future__ import annotations

from types import FunctionType
from weakref import WeakKeyDictionary

from .corners import corner_options, corner_refusal
from .errors import article
from .geometry import KEY, OPP, STEP, cell_key
from .moves import Put, PutAt, PutCorner, Recall

_move = tuple.__new__  # a move of a known type, without its constructor's checks (the hot path)
_MAY = WeakKeyDictionary()  # rule set -> the answers of its figure conditions that read only masks (_asked)
_LAST = [None, None, None]  # the rule set _may_memo answered last, its answers and its tables (_tables)
_KEPT = 1 << 16
_KEY = KEY  # a C integer on the native kernel (figures.pxd)


def neighbour_roots(b, cell):
    """For each side of an empty cell, the roots of the neighbour's three facing parts (-1: none)."""
    x, y = cell
    k = x * _KEY + y
    at = b.at
    parent = b.parent
    out = []
    for d in range(4):
        nb = at.get(k + STEP[d])
        if nb is None:
            out.append(None)
            continue
        no, nbase = nb
        side = []
        for p in no.parts[OPP[d]]:
            if p < 0:
                side.append(-1)
                continue
            s = parent[nbase + p]  # most segments point at their root already: no call
            side.append(s if parent[s] == s else b.find(s))
        out.append(side)
    return out


def figure_context(g, cell):
    """What figures.options_for reads about the features around an empty cell."""
    return g.board.occupied_parts(cell_key(cell)) if g.R.FIG_MASKS else neighbour_roots(g.board, cell)


def context_of(g, cell):
    """figure_context(g, cell), read once per cell while legal_actions lists (listing resets the memo,
    `Board.contexts`)."""
    memo = g.board.contexts
    got = memo.get(cell)
    if got is None:
        got = memo[cell] = figure_context(g, cell)
    return got


def joined(g, o, cell, fi, nbr):
    """(roots, figures): the placed features local feature fi of o at cell would join, and how many
    figures on them make an owner (a figure on a corner does not).  `nbr`: the neighbours' roots
    (neighbour_roots), or None: read once per cell (context_of)."""
    if nbr is None:
        nbr = context_of(g, cell)
    roots = set()
    for d, k in o.sidefeat[fi]:
        side = nbr[d]
        if side is not None and side[k] >= 0:
            roots.add(side[k])
    b = g.board
    figs = b.figs
    figures = 0
    for x in roots:
        figures += len(figs[x])
    if b.on_corners:  # a figure on a corner counts toward nobody's ownership
        corner = g.R.FIG_CORNER
        figures -= sum(1 for x in roots for e in figs[x] if e[1] in corner)
    return roots, figures


def _may_memo(R):
    """The rule set's answers kept by _asked (the last rule set's at hand: a WeakKeyDictionary's `get`
    is Python code)."""
    if _LAST[0] is not R:
        _LAST[:] = [R, _MAY.get(R) or _MAY.setdefault(R, {}),
                    (R.FIG_MASKS, R.SIDE_RULES, R.PUTS, bool(R.FIG_PURE), R.CORNER_RULES, R.FIG_KINDS)]
    return _LAST[1]


def _tables(R):
    """What options_for reads of rule set R, as one tuple kept with _may_memo's (a generated module's
    attribute is a dictionary lookup each time it is read)."""
    if _LAST[0] is not R:
        _may_memo(R)
    return _LAST[2]


def _asked(seen, may, g, o, fi, nbr, fmask, gi, kind):
    """Whether figure gi may stand on local feature fi (of kind `kind`, meeting the parts `fmask`):
    `may(g, o, fi, nbr, fmask)` of rules whose figure conditions read only masks (FIG_PURE), so a
    function of the figure, the kind and each mask as the feature sees it (`nbr[k] & fmask`), kept so
    in `seen` (the rule set's, emptied past _KEPT answers), under one integer while it fits 62 bits."""
    if len(nbr) <= 4 and gi < 64 and kind < 256:  # figure, kind and masks (12 bits each) as one machine integer
        ck = gi << 8 | kind
        for j in range(len(nbr)):
            m = nbr[j]
            ck = ck << 12 | (m & fmask)
        key = ck
    else:
        key = (gi, kind, tuple([m & fmask for m in nbr]))
    got = seen.get(key)
    if got is None:
        if len(seen) >= _KEPT:
            seen.clear()
        got = seen[key] = bool(may(g, o, fi, nbr, fmask))
    return got


_NATIVE = not isinstance(_asked, FunctionType)  # this module runs compiled (compiler/native.py)


def options_for(g, o, cell, nbr, sup, corners=True):
    """The figures a player with supply `sup` may put on o placed at cell: Put(figure, local
    feature) for each feature in turn and each figure in the order of the statements (SIDE_RULES),
    then PutCorner(figure, feature, corner) for each figure `at corner` (CORNER_RULES, on the
    corners runtime/corners.py finds ready; `corners` False: the caller has found none ready for
    any such figure in supply, as the listing does before it asks).  `nbr`: the masks of occupied parts around the cell
    (FIG_MASKS: each condition is asked with them and the feature's own parts), else the
    neighbours' roots or None (each condition is asked with the features it would join)."""
    R = g.R
    out = []
    masks, side, puts, pure, corner_rules, fig_kinds = _tables(R)
    # conditions that read only masks (FIG_PURE): each answer kept by figure, kind and masks (_asked),
    # on the native kernel (interpreted, asking the memo costs what calling the condition does)
    seen = _may_memo(R) if _NATIVE and masks and pure else None
    feats = o.feats
    for first, _ in side:
        if sup[first] > 0:  # some figure that stands on a feature is in supply
            if masks:
                for fi, gis, _, fmask in o.figfeats:
                    for gi, may in side:
                        if sup[gi] > 0 and gi in gis:
                            if seen is None:
                                ok = may(g, o, fi, nbr, fmask)
                            else:
                                ok = _asked(seen, may, g, o, fi, nbr, fmask, gi, feats[fi].kind)
                            if ok:
                                out.append(puts[gi][fi])
            else:
                for fi, gis, _, _ in o.figfeats:
                    found = None
                    for gi, may in side:
                        if sup[gi] > 0 and gi in gis:
                            if found is None:  # the features it would join, read where some figure may go
                                found = joined(g, o, cell, fi, nbr)
                            if may(g, o, cell, fi, *found):
                                out.append(puts[gi][fi])
            break
    for gi, may in corner_rules:
        if corners and sup[gi] > 0:
            for corner, fi in corner_options(g.board, o, cell, fig_kinds[gi]):
                if seen is not None:
                    ok = _asked(seen, may, g, o, fi, nbr, o.fmasks[fi], gi, feats[fi].kind)
                elif masks:
                    ok = may(g, o, fi, nbr, o.fmasks[fi])
                else:
                    ok = may(g, o, cell, fi, *joined(g, o, cell, fi, nbr))
                if ok:
                    out.append(_move(PutCorner, (gi, fi, corner)))
    return out


def forbidden_by(g, o, cell, nbr, gi, fi):
    """(condition, clause) of the first `forbid` that holds for figure gi on local feature fi of o
    at cell (FORBID_RULES), or None.  `nbr`: the neighbours' roots (neighbour_roots)."""
    kind = o.feats[fi].kind
    for fg, kinds, holds, src, clause in g.R.FORBID_RULES:
        if fg == gi and kind in kinds and holds(g, o, cell, fi, *joined(g, o, cell, fi, nbr)):
            return (src, clause)
    return None


def anywhere_for(g, r, sup):
    """The figures a player with supply `sup` may put on the placed feature with root r
    (ANYWHERE_RULES, in the order of the statements)."""
    k = g.board.seg_kind[r]
    return [gi for gi, may in g.R.ANYWHERE_RULES if sup[gi] > 0 and may(g, r, k)]


def forbidden_at(g, r, gi):
    """(condition, clause) of the first `forbid` that holds for figure gi on the placed feature with
    root r (ANYWHERE_FORBIDS), or None."""
    k = g.board.seg_kind[r]
    for fg, kinds, holds, src, clause in g.R.ANYWHERE_FORBIDS:
        if fg == gi and k in kinds and holds(g, r, k):
            return (src, clause)
    return None


def figure_name(g, gi):
    return g.R.FIGURES[gi].name


def figure_index(g, name):
    """The index of the figure called `name`, or None."""
    for gi, f in enumerate(g.R.FIGURES):
        if f.name == name:
            return gi
    return None


def figure_options(g, o, cell, player=None):
    """(figure, local feature) pairs `player` (default: the current one) may put on o placed at cell."""
    p = g.current if player is None else player
    return options_for(g, o, cell, figure_context(g, cell), g.supply.left[p])


def figure_refusal(g, o, cell, gi, fi, corner=None):
    """None if the current player may put figure gi on local feature fi of o at cell (on
    `corner` for a figure declared `at corner`), else (message, clause): the clause of the
    part of the `figure` statement that refuses it -- its supply, where it may stand, or
    its `when` condition -- or of the `forbid` that takes the option away."""
    R = g.R
    fig = Put(gi, fi) if corner is None else PutCorner(gi, fi, corner)
    if 0 <= fi < len(o.feats) and fig in figure_options(g, o, cell):
        return None
    supply, on, when = R.FIG_CLAUSES[gi]
    fname = R.FIGURES[gi].name
    empty = g.supply.left[g.current][gi] <= 0
    at_corner = gi in R.FIG_CORNER
    if empty:
        return (f"no {fname} left in supply", supply)
    if at_corner != (corner is not None):
        if at_corner:
            return (f"{article(fname)} stands on a corner where four tiles meet, not on a feature", on)
        return (f"{article(fname)} stands on a feature of the tile, not on a corner", on)
    if at_corner:
        why = corner_refusal(g, o, cell, corner, R.FIG_KINDS[gi], fname)
        if why is not None:
            return (why, on)
    if not 0 <= fi < len(o.feats):
        return (f"tile {o.tile.name} has no feature {fi} to put {article(fname)} on", on)
    kind = o.feats[fi].kind
    if kind not in R.FIG_KINDS[gi]:
        return (f"{article(fname)} cannot stand on {article(R.KINDS[kind].name)}", on)
    forbidden = forbidden_by(g, o, cell, neighbour_roots(g.board, cell), gi, fi)
    if forbidden is not None:
        src, clause = forbidden
        return (f"{article(fname)} may not be placed on this {R.KINDS[kind].name}: the rule "
                f"`forbid {fname} on {R.KINDS[kind].name} when {src}` holds", clause)
    if kind not in R.FIGURES[gi].on:  # only an `allow` opens this kind to the figure
        for kinds, src, clause in R.FIG_ALLOWS.get(gi, ()):
            if kind in kinds:
                return (f"{article(fname)} may not be placed on this {R.KINDS[kind].name}: the rule "
                        f"`allow {fname} on {R.KINDS[kind].name} when {src}` does not hold", clause)
    return (f"{article(fname)} may not be placed on this {R.KINDS[kind].name}: "
            f"the rule `{R.FIG_WHEN_SRC[gi]}` does not hold", when)


def anywhere_options(g, player=None):
    """PutAt(figure, cell, root) for every placed feature on which `player` (default: the
    current one) may put a figure that goes anywhere (`on KINDS anywhere`, TOWER-TURN-1).
    Read before the new tile is placed: the features such figures stand on (a tower
    foundation) lie on one tile, so placing a tile elsewhere does not change them.  Where the
    conditions read only `figures` and `count(F)` of the feature (ANYWHERE_PURE, decided in
    lowering), each answer is kept per (figure, kind, the figures on the feature)."""
    R = g.R
    if not R.FIG_ANYWHERE:
        return []
    p = g.current if player is None else player
    sup = g.supply.left[p]
    b = g.board
    parent, seg_cell = b.parent, b.seg_cell
    out = []
    if not R.ANYWHERE_PURE:
        for s in b.anywhere_segs:  # the segments of those kinds, in the order they were placed
            if parent[s] == s:
                for gi in anywhere_for(g, s, sup):
                    out.append(_move(PutAt, ("at", gi, seg_cell[s], s)))
        return out
    memo = _may_memo(R)
    seen = memo.get(-1)  # the answers of ANYWHERE_RULES, beside _asked's (whose keys are never negative)
    if seen is None:
        seen = memo[-1] = {}
    rules = R.ANYWHERE_RULES
    seg_kind, figs = b.seg_kind, b.figs
    for s in b.anywhere_segs:
        if parent[s] == s:
            k = seg_kind[s]
            held = figs[s]
            for gi, may in rules:
                if sup[gi] > 0:
                    if held:  # `figures` counts no figure on a corner: whether any is on the board is read too
                        key = (gi, k, tuple([e[1] for e in held]), b.on_corners > 0)
                    else:
                        key = gi << 16 | k
                    ok = seen.get(key)
                    if ok is None:
                        if len(seen) >= _KEPT:
                            seen.clear()
                        ok = seen[key] = bool(may(g, s, k))
                    if ok:
                        out.append(_move(PutAt, ("at", gi, seg_cell[s], s)))
    return out


def anywhere_refusal(g, gi, cell, seg):
    """None if the current player may put figure gi on the placed feature `seg` at `cell`,
    else (message, clause) naming the statement that refuses it: the figure's own `on` list
    (it goes only on the tile just placed), the statement that says which figures may stand
    on that kind anywhere, the supply, a `forbid`, or the condition of its `anywhere` part."""
    R = g.R
    b = g.board
    r = b.find(seg)
    if PutAt(gi, b.seg_cell[r], r) in anywhere_options(g):
        return None
    supply, on, when = R.FIG_CLAUSES[gi]
    fname = R.FIGURES[gi].name
    k = b.seg_kind[r]
    kind = R.KINDS[k].name
    at = f"[{cell[0]},{cell[1]}]"
    parts = [p for p in R.ANYWHERE_AT.get(gi, ()) if k in p[0]]
    if not parts:
        if k in R.ANYWHERE_KIND_CLAUSE:
            may = [R.FIGURES[g].name for g, ps in R.ANYWHERE_AT.items() if any(k in p[0] for p in ps)]
            return (f"{article(fname)} may not be put on {article(kind)}: only "
                    f"{' or '.join(article(m) for m in may)} may", R.ANYWHERE_KIND_CLAUSE[k])
        if gi not in R.FIG_ANYWHERE or k in R.FIGURES[gi].on:
            return (f"{article(fname)} goes on {article(kind)} only on the tile just placed, "
                    f"not on the tile at {at}", on)
        return (f"{article(fname)} cannot stand on {article(kind)}", R.ANYWHERE_AT[gi][0][2])
    if g.supply.left[g.current][gi] <= 0:
        return (f"no {fname} left in supply", supply)
    forbidden = forbidden_at(g, r, gi)
    if forbidden is not None:
        src, clause = forbidden
        return (f"{article(fname)} may not be placed on the {kind} at {at}: the rule "
                f"`forbid {fname} on {kind} when {src}` holds", clause)
    _, src, _, when_clause = parts[0]
    return (f"{article(fname)} may not be placed on the {kind} at {at}: "
            f"the rule `{src}` does not hold", when_clause)


def recall_options(g):
    """Own figures on the board that a `recall` rule lets the current player take back."""
    if not g.supply.recallable:
        return []
    p = g.current
    seg_cell = g.board.seg_cell
    out = [Recall(gi, seg_cell[seg], seg) for seg, (pl, gi) in g.supply.recallable.items() if pl == p]
    out.sort(key=lambda a: (a.cell, a.figure))
    return out


def put_figure(g, p, gi, seg):
    """Player p puts figure gi from supply on segment seg."""
    b = g.board
    r = b.find(seg)
    b.figs[r] = b.figs[r] + [(p, gi, seg)]
    s = g.supply
    if gi in g.R.RECALLS:
        s.recallable[seg] = (p, gi)
    s.left[p][gi] -= 1


def remove_fig(g, r, p, gi, seg):
    out = list(g.board.figs[r])
    for i, e in enumerate(out):
        if e == (p, gi, seg):
            del out[i]
            break
    return out


def supply_by_name(g):
    R = g.R
    return {g.names[p]: {R.FIGURES[gi].name: n for gi, n in enumerate(g.supply.left[p])} for p in range(g.nplayers)}
