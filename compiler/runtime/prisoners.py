"""Prisoners (the Tower): captures after a figure is put, the exchange, the ransom.

A capture is a decision of its own: after a turn puts a figure that a `capture`
rule names (a floor), the same player chooses one figure in range to capture, or
passes, before the turn's scoring.  The rules' tables say everything that is
particular: which figures may be captured and how far (CAPTURES), whether a
capture from a player who holds one of yours swaps them (EXCHANGE), and which
prisoners may be bought back at what price and when (RANSOM).

The prisoners are a component of the game (`g.prisoners`, a `Prisoners`, whose class is in runtime/core.py, with its
`clone`): held[h][o] lists the figure indices of player o's figures that player h holds; `pending`
the decision or turn end a placement left open; `closing` the moment after the turn's scoring;
`put_after` the figure a pending capture follows.  The rest of the module is functions of the game
that read the components they need (`Game` binds the public ones, docs/engine.md, as its methods).
"""
from __future__ import annotations

from .errors import IllegalAction
from .figures import remove_fig
from .decisions import CaptureOpen
from .moves import Capture, Ransom


def held_count(g, owner, gi):
    """How many of `owner`'s figures gi other players hold."""
    return sum(h[owner].count(gi) for h in g.prisoners.held)


def prisoners_by_name(g):
    """{holder: {owner: {figure: n}}} for every prisoner held."""
    out = {}
    for h, row in enumerate(g.prisoners.held):
        for o, figs in enumerate(row):
            for gi in figs:
                d = out.setdefault(g.names[h], {}).setdefault(g.names[o], {})
                d[g.figure_name(gi)] = d.get(g.figure_name(gi), 0) + 1
    return out


# ------------------------------------------------------------ capture
def capture_pending(g, p, gi, seg, cell, touched):
    """After player p put figure gi on segment seg: wait for a capture choice if one exists."""
    cap = g.R.CAPTURES.get(gi)
    if cap is None:
        return False
    kinds, range_fn, clause = cap
    r = g.board.find(seg)
    pend = CaptureOpen(p, cell, touched, g.board.seg_cell[seg], range_fn(g, r), clause, kinds)
    g.prisoners.pending = pend
    if not g.open_decisions and not capture_options(g):  # nothing in range: no decision, unless asked
        g.prisoners.pending = None
        return False
    return True


def capture_options(g):
    """Capture(owner, figure, segment, back) for every figure in range, back being the
    figure of the capturer's that comes back in an exchange (None: no exchange)."""
    if g.prisoners.pending is None:
        return []
    pend = g.prisoners.pending
    p, (tx, ty), h, kinds = pend.player, pend.tower, pend.reach, pend.kinds
    out = []
    seg_cell = g.board.seg_cell
    exchange = g.R.EXCHANGE
    for figs in filter(None, g.board.figs):  # the features with figures on them
        for q, fgi, seg in figs:
            if fgi not in kinds:
                continue
            x, y = seg_cell[seg]
            if not ((x == tx and abs(y - ty) <= h) or (y == ty and abs(x - tx) <= h)):
                continue
            backs = sorted(set(g.prisoners.held[q][p])) if exchange and q != p else []
            if backs:
                out.extend(Capture(q, fgi, seg, b) for b in backs)
            else:
                out.append(Capture(q, fgi, seg, None))
    out.sort(key=lambda a: (g.board.seg_cell[a.segment], a.segment, a.owner, a.figure, -1 if a.back is None else a.back))
    return out


def capture_refusal(g, action):
    """None if `action` is a capture the pending player may make, else (message, clause)."""
    if g.prisoners.pending is None:
        return ("nothing may be captured now: no figure was just put that allows a capture",
                next(iter(g.R.CAPTURES.values()), ((), None, ("",)))[2][0])
    if action in capture_options(g):
        return None
    p, _, _, (tx, ty), h, clause, kinds = g.prisoners.pending
    q, fgi, seg, back = action.owner, action.figure, action.segment, action.back
    fname = g.figure_name(fgi) if isinstance(fgi, int) and 0 <= fgi < len(g.R.FIGURES) else str(fgi)
    cap_clause, kinds_clause, range_clause = clause
    if fgi not in kinds:
        return (f"{'an' if fname[:1] in 'aeiou' else 'a'} {fname} may not be captured", kinds_clause)
    if not (isinstance(seg, int) and 0 <= seg < len(g.board.parent)) or \
            (q, fgi, seg) not in (g.board.figs[g.board.find(seg)] or []):
        return (f"no {fname} of that player stands there", cap_clause)
    x, y = g.board.seg_cell[seg]
    if not ((x == tx and abs(y - ty) <= h) or (y == ty and abs(x - tx) <= h)):
        return (f"[{x},{y}] is out of range of the tower at [{tx},{ty}] (height {h}: its own tile and "
                f"up to {h} tiles in a straight line)", range_clause)
    ex = g.R.EXCHANGE_CLAUSE
    if back is None:
        return ("the victim holds a figure of yours: the capture is an exchange; say which comes back", ex)
    return (f"the victim holds no {g.figure_name(back) if isinstance(back, int) else back} of yours to exchange", ex)


def apply_capture(g, action, checked=False):
    """The capture moment's choice: the capture, then the turn's scoring."""
    why = capture_refusal(g, action)
    if why is not None:
        raise IllegalAction(*why)
    g.history.append((None, action))
    capture(g, action)
    g._end_turn()


def no_capture(g, action, checked=False):
    """The capture moment's pass: nothing is captured; the turn's scoring."""
    g.history.append((None, action))
    g._end_turn()


def capture(g, action):
    p = g.prisoners.pending.player
    q, fgi, seg, back = action.owner, action.figure, action.segment, action.back
    r = g.board.find(seg)
    g.board.figs[r] = remove_fig(g, r, q, fgi, seg)
    g.supply.recallable.pop(seg, None)
    x, y = g.board.seg_cell[seg]
    ev = {"turn": g.turn, "kind": "capture", "player": g.names[p], "victim": g.names[q],
          "figure": g.figure_name(fgi), "at": [x, y], "on": g.board.seg_place(seg), "clause": g.prisoners.pending.clauses[0]}
    if q == p:
        g.supply.left[p][fgi] += 1
        ev["to"] = "supply"
        g.events.append(ev)
    elif back is not None:
        g.supply.left[q][fgi] += 1
        g.prisoners.held[q][p].remove(back)
        g.supply.left[p][back] += 1
        ev["to"] = "exchange"
        g.events.append(ev)
        g.events.append({"turn": g.turn, "kind": "exchange", "player": g.names[p], "victim": g.names[q],
                         "figure": g.figure_name(fgi), "back": g.figure_name(back),
                         "clause": g.R.EXCHANGE_CLAUSE})
    else:
        g.prisoners.held[p][q].append(fgi)
        ev["to"] = "prisoner"
        g.events.append(ev)


# ------------------------------------------------------------ ransom
def ransom_options(g):
    """Ransom(holder, figure) for every own prisoner the current player may buy back now: at each of
    their decisions -- before the tile, before a floor's capture, after the turn's scoring."""
    rn = g.R.RANSOM
    if rn is None or g.ended:
        return []
    kinds, price, allowed, _, _ = rn
    p = g.current
    out = []
    for h, row in enumerate(g.prisoners.held):
        if row[p]:  # most turns nobody holds a prisoner
            for gi in sorted(set(row[p])):
                if gi in kinds and (allowed is None or allowed(g)):
                    out.append(Ransom(h, gi))
    return out


def apply_ransom(g, action, checked=False):
    """A ransom, at any moment of the own turn that offers one (refused with its clause unless it may)."""
    ransom(g, action)
    g.history.append((None, action))


def ransom(g, action):
    R = g.R
    kinds, price, allowed, clause, cond = R.RANSOM if R.RANSOM else ((), None, None, "", "")
    if R.RANSOM is None:
        raise IllegalAction("these rules have no ransom", "")
    h, gi = action.holder, action.figure
    p = g.current
    if not (isinstance(h, int) and 0 <= h < g.nplayers and h != p and isinstance(gi, int) and gi in g.prisoners.held[h][p]):
        raise IllegalAction("that player holds no such figure of yours", clause)
    if gi not in kinds:
        raise IllegalAction(f"{'an' if g.figure_name(gi)[:1] in 'aeiou' else 'a'} {g.figure_name(gi)} "
                            "may not be ransomed", clause)
    if allowed is not None and not allowed(g):
        raise IllegalAction(f"the ransom is refused: `{cond}` does not hold "
                            f"(you have {g.scores[p]} points)", clause)
    n = price(g)
    g.prisoners.held[h][p].remove(gi)
    g.supply.left[p][gi] += 1
    g.scores[p] -= n
    g.scores[h] += n
    g.events.append({"turn": g.turn, "kind": "ransom", "player": g.names[p], "holder": g.names[h],
                     "figure": g.figure_name(gi), "points": {g.names[p]: -n, g.names[h]: n},
                     "clause": clause})


# ------------------------------------------------------------ release (`on round end`)
def release(g, kinds, clause):
    """Every prisoner of the figures `kinds` goes back to its owner's supply, whoever holds it
    (a `release` at the end of a round: runtime/rounds.py); one event per figure."""
    for h, row in enumerate(g.prisoners.held):
        for o, figs in enumerate(row):
            if not figs:
                continue
            kept = []
            for gi in figs:
                if gi in kinds:
                    g.supply.left[o][gi] += 1
                    g.events.append({"turn": g.turn, "kind": "release", "player": g.names[o],
                                     "holder": g.names[h], "figure": g.figure_name(gi),
                                     "clause": clause})
                else:
                    kept.append(gi)
            row[o] = kept

