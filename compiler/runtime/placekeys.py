"""The keys of a tile turn's placements: `score_classes`' common case (runtime/classes.py), a
module function so that the native kernel types it (placekeys.pxd: a plain class's methods cannot
have typed locals).

`Classes.score_classes` hands it the actions of a tile turn (not the last tile, no capture or
decision open).  They come as `legal_actions` gives them (`Moves`, runtime/listing.py: blocks that
build a move only when it is read) or as a list; from `Moves` it reads the blocks themselves, so
only the moves that are their own key are built (a player that tries moves reads a few of forty).
The keys are the same either way (tests/test_lookahead.py holds that).
"""
from __future__ import annotations

from .listing import Listed
from .moves import Place, Put, PutAt, Recall
from .nearby import _completion_of, _figures_near_of

_move = tuple.__new__  # a move of a known type, without its constructor's checks (as listing.py builds them)


def _holds(held, p):
    """Whether player p holds prisoners (`held`: Prisoners.held, per holder per owner)."""
    for row in held:
        if row[p]:
            return True
    return False


def placement_keys(g, actions):
    """`score_classes(actions)` for a tile turn's actions: one entry each, None or a key (what the
    keys mean: Classes.score_classes)."""
    R = g.R
    b = g.board
    pr = g.prisoners
    twins = R.QUICK_COMPLETE is not None and not R.SCORE_JOIN
    scored = {f for _, f in R.SCORE_PUT}  # a put that scores at once
    captors = set(R.CAPTURES)  # a put that opens a capture
    outpost_figs = {f for r in R.OUTPOST_PUTS for f in r[0]}  # a put that may send one more to an outpost
    plain = scored | captors | outpost_figs  # figures whose putting starts nothing of its own are not in it
    only_captors = captors - scored - outpost_figs  # figures whose putting starts a capture and nothing else
    complete = R.COMPLETE
    only_outposts = outpost_figs - scored - captors  # figures whose putting may only send one more to an outpost
    # a placement's change may be the sum of the tile's and what follows its figure's putting: when
    # completions are read from the board and no decision of the same player follows the turn's scoring
    # (a tile drawn next whose siege symbols move figures would add what it does to both)
    # (nor a ransom decision after the turn's scoring: the player has no prisoner to buy back)
    sums = twins and g._next_draw_quiet() and (R.RANSOM is None or not _holds(pr.held, g.current))
    near = {}
    done = {}
    at = {}  # what _figures_near_of and _completion_of read by cell
    memo = {}  # what `_captures_nothing` read of this state
    at_info = {}  # a figure on another placed tile (PutAt) -> what its putting does, whatever the tile
    out = []
    append = out.append
    pcell = prot = None  # legal_actions lists a placement's actions together: read the tile once for them
    n = c = None
    # the actions one by one: from a list, each (a: the move); from Moves, each block's placements in
    # turn, each one's moves (a: None, built only where the move is its own key), then its tail
    listed = isinstance(actions, Listed)
    seq = actions
    if listed:
        cks = actions.cks  # the blocks (Listed): the cell's integer (geometry.KEY), orientations, k0
        orients_of = actions.orients
        k0s = actions.k0s
        cells = actions.cells  # a block's cell by its integer
        opts = actions.opts
        extra = actions.extra
        seq = actions.tail
        nblocks = len(cks)
    nextra = len(extra) if listed else 0
    nseq = len(seq)
    bi = -1
    i = k = nk = j = nfk = per = 0
    orients = fk = None
    k0 = -1
    cell = rot = None
    while True:
        if listed:
            j += 1
            if j >= per:  # the block's next placement, or the next block's first
                k += 1
                while k >= nk:
                    bi += 1
                    if bi >= nblocks:
                        break
                    cell = cells[cks[bi]]
                    orients = orients_of[bi]
                    k0 = -1 if k0s is None else k0s[bi]
                    nk = len(orients)
                    k = 0
                    n = None  # one block per cell
                if bi >= nblocks:  # the placements are done: the tail (a discard, ransoms) as from a list
                    listed = False
                    continue
                rot = orients[k].rot
                fk = opts[k0 + k] if k0 >= 0 else ()
                nfk = len(fk)
                per = 1 + nfk + nextra
                j = 0
                fig = None
                c = None
            elif j <= nfk:
                fig = fk[j - 1]
            else:
                fig = extra[j - 1 - nfk]
            a = None
        else:
            if i >= nseq:
                break
            a = seq[i]
            i += 1
            if type(a) is not Place:
                append(a)  # a ransom
                continue
            cell, rot, fig = a
            if rot != prot or cell != pcell:  # what was read at the last placement is kept for its next actions
                if n is not None:
                    near[pcell] = n
                if c is not None:
                    done[(pcell, prot)] = c
                if cell != pcell:
                    n = near.get(cell)
                pcell, prot = cell, rot
                c = done.get((cell, rot))
        if fig is None:
            if n is None:
                n = _figures_near_of(g, cell, at)
            if not n:
                append(None)
                continue
            if c is None:
                c = _completion_of(g, cell, rot, at)
            append((cell, rot) if c[0] else None)
            continue
        ft = type(fig)
        if ft is PutAt:
            info = at_info.get(fig)
            if info is None:
                gi = fig.figure
                # (it scores as it is put, it starts something: True, False or None when only the tile
                # can make its capture possible, it may share the tile's key when the tile completes)
                info = at_info[fig] = (gi in scored, gi in plain, b.seg_kind[b.find(fig.segment)] not in complete, None)
                if info[1] and gi in only_captors:
                    free = g._captures_nothing(fig, None, None, memo)
                    # the cells within one of the feature's: a tile there may change its range
                    info = at_info[fig] = (info[0], None if free is None else not free, info[2],
                                           {(cx + dx, cy + dy) for cx, cy in b.cells[b.find(fig.segment)]
                                            for dx in (-1, 0, 1) for dy in (-1, 0, 1)})
            scores_put, starts, unc, beside = info
            if scores_put:
                append(a if a is not None else _move(Place, (cell, rot, fig)))  # a figure that scores as it is put
                continue
            if starts is None:  # it captures nothing unless the tile changes the range (`_captures_nothing`)
                starts = cell in beside or not g._state_kept(cell, rot, R.ORIENT[g.bag.drawn][rot // 90 % 4], memo)
            if unc:  # on a feature no `complete` rule completes (a tower)
                if n is None:
                    n = _figures_near_of(g, cell, at)
                if not n:  # the tile alone changes no score: only what the figure's putting starts counts
                    if not starts:
                        append(None)
                        continue
                    if fig.figure in captors:  # its captures do not depend on this tile
                        append(("capture", fig))
                        continue
            if c is None:
                c = _completion_of(g, cell, rot, at)
            if not c[0]:  # the tile completes nothing: only what the figure's putting starts counts
                if not starts:
                    append(None)
                elif fig.figure in captors:  # its captures do not depend on this tile
                    append(("capture", fig))
                else:  # the outpost decision that follows: by figure and kind
                    append(("outpost", fig.figure, b.seg_kind[b.find(fig.segment)]))
            # on another tile, on a feature no `complete` rule ever completes (a tower's top)
            elif twins and not starts and unc:
                append((cell, rot))
            elif sums and starts and unc and fig.figure in only_captors and not cell in beside \
                    and g._state_kept(cell, rot, R.ORIENT[g.bag.drawn][rot // 90 % 4], memo) \
                    and g._capture_apart(fig, cell, memo):
                # the tile scores what it completes, as alone, and no figure in the range stands on
                # a feature it scores: the change is the tile's plus that of the capture decision
                # (no ransom can follow: the player has no prisoner to buy back)
                append(("sum", (cell, rot), Place(cell, rot, None), ("capture", fig)))
            else:
                append(a if a is not None else _move(Place, (cell, rot, fig)))
            continue
        gi = fig.figure
        starts = gi in plain
        if starts and gi in only_captors and ft is Put and g._captures_nothing(fig, cell, rot, memo):
            starts = False  # a floor with no figure in its range: it captures nothing, so it starts nothing
        if ft is Recall or gi in scored:
            append(a if a is not None else _move(Place, (cell, rot, fig)))  # a recall scores; a figure that scores as it is put
            continue
        if ft is Put and starts and gi in captors:  # a capture from this tile
            if c is not None:
                done[(cell, rot)] = c
            append(g._capture_here_key(a if a is not None else _move(Place, (cell, rot, fig)), done, memo))
            c = done.get((cell, rot))
            continue
        if c is None:
            c = _completion_of(g, cell, rot, at)
        if not c[0]:  # the tile completes nothing: only what the figure's putting starts counts
            if not starts:
                append(None)
            elif gi in captors:
                append(("capture", fig))
            else:  # the outpost decision that follows: by figure and kind
                append(("outpost", gi, R.ORIENT[g.bag.drawn][rot // 90 % 4].kinds[fig.feature]))
        elif twins and not starts and ft is Put and fig.feature not in c[1]:
            append((cell, rot))
        elif sums and ft is Put and gi in only_outposts and fig.feature not in c[1]:
            # the tile scores what it completes, as alone; the figure stands on a feature not scored
            # this turn, and the outpost decision that follows is the one a placement that completes
            # nothing opens (by figure and kind): the change is the sum of those two changes
            okey = ("outpost", gi, R.ORIENT[g.bag.drawn][rot // 90 % 4].kinds[fig.feature])
            if n is None:
                n = _figures_near_of(g, cell, at)
            append(("sum", (cell, rot), Place(cell, rot, None), okey) if n else okey)
        else:
            append(a if a is not None else _move(Place, (cell, rot, fig)))
    return out
