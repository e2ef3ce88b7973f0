"""The outposts' decisions as moves (runtime/moves.py): the extra figure right after the turn's
figure (Outpost or Pass, SIEGE-OUTPOST-2, -3), and the answers to an open decision of the drawn
tile's symbols (Catapult at a "?", SIEGE-ADVANCE-1; Remove during an attack, SIEGE-ATTACK-1).
Functions of the game reading its outposts (`g.outposts`, runtime/outposts.py's component).
"""
from __future__ import annotations

from .decisions import OutpostOpen, TurnEnd
from .errors import IllegalAction
from .figures import remove_fig
from .moves import CATAPULT, OUTPOST, REMOVE, Catapult, Outpost, Pass, Remove
from .outposts import catapult, removal_options, srun
from .prisoners import capture_pending


# ------------------------------------------------------------ the extra figure
def _outpost_options(g, p, gi, seg):
    """Outpost(t, slot) for every place the figure just put lets p add a figure to."""
    op = g.outposts
    R = g.R
    kind = g.board.seg_kind[seg]
    out = []
    for figs, kinds, extra, slot, clause in R.OUTPOST_PUTS:
        if gi not in figs or (kinds is not None and kind not in kinds) or g.supply.left[p][extra] <= 0:
            continue
        for t, tr in enumerate(R.TRACKS):
            if slot == "row":
                if kind in tr[1] and len(op.rows[t]) < op.sizes[t]:
                    out.append(Outpost(t, "row"))
            elif tr[3]:
                out.append(Outpost(t, "pool"))
    return sorted(set(out))


def outpost_pending(g, p, gi, seg, cell, touched, put):
    """After p put figure gi on segment seg: open the extra-figure decision if there is a choice."""
    op = g.outposts
    opts = _outpost_options(g, p, gi, seg)
    if not opts:
        kind = g.board.seg_kind[seg]
        if not (g.open_decisions and any(gi in r[0] and (r[1] is None or kind in r[1]) for r in g.R.OUTPOST_PUTS)):
            return False
    op.cont = (p, gi, seg, cell, touched, put)
    op.decision = OutpostOpen(p, opts)
    return True


def outpost_refusal(g, action):
    """Why Outpost(t, slot) is not allowed now: (message, clause)."""
    op = g.outposts
    R = g.R
    first = R.OUTPOST_PUTS[0][4] if R.OUTPOST_PUTS else ""
    if op.decision is None or op.decision.moment != OUTPOST:
        return ("no figure may go on an outpost now: this turn put no figure that allows one", first)
    p, gi, seg = op.cont[:3]
    t, slot = action.track, action.slot
    if not (isinstance(t, int) and 0 <= t < len(R.TRACKS)) or slot not in ("row", "pool"):
        return ("no such outpost", first)
    tr = R.TRACKS[t]
    kind = g.board.seg_kind[seg]
    rules = [r for r in R.OUTPOST_PUTS if gi in r[0] and (r[1] is None or kind in r[1])]
    same = [r for r in rules if r[3] == slot]
    if not same:
        clause = rules[0][4] if rules else first
        return (f"{'an' if g.figure_name(gi)[:1] in 'aeiou' else 'a'} {g.figure_name(gi)} on "
                f"{'an' if R.KINDS[kind].name[:1] in 'aeiou' else 'a'} {R.KINDS[kind].name} lets no figure go "
                f"to an outpost's {slot}", clause)
    clause = same[0][4]
    if g.supply.left[p][same[0][2]] <= 0:
        return (f"no {g.figure_name(same[0][2])} left in supply", clause)
    if slot == "pool" and not tr[3]:
        return (f"the {tr[0]} outpost has no pool", tr[5][1])
    if slot == "row":
        if kind not in tr[1]:
            return (f"a figure on {'an' if R.KINDS[kind].name[:1] in 'aeiou' else 'a'} {R.KINDS[kind].name} "
                    f"brings a figure to the row of the outpost for it, not to the {tr[0]} outpost", clause)
        if len(op.rows[t]) >= op.sizes[t]:
            return (f"the {tr[0]} row is full ({op.sizes[t]} slots with {g.nplayers} players)", tr[5][0])
    return None


def _put_outpost(g, action):
    op = g.outposts
    R = g.R
    p, gi, seg = op.cont[:3]
    t, slot = action.track, action.slot
    kind = g.board.seg_kind[seg]
    rule = next(r for r in R.OUTPOST_PUTS if gi in r[0] and (r[1] is None or kind in r[1]) and r[3] == slot)
    extra = rule[2]
    g.supply.left[p][extra] -= 1
    (op.rows if slot == "row" else op.pools)[t].append((p, extra))
    if slot == "row" and len(op.rows[t]) >= op.sizes[t]:
        op.filled.append(t)
    g.events.append({"turn": g.turn, "kind": "outpost", "player": g.names[p], "figure": g.figure_name(extra),
                     "outpost": R.TRACKS[t][0], "slot": slot, "clause": rule[4]})


# ------------------------------------------------------------ decisions as actions
# The open decision (g.outposts.decision) is the moment (runtime/moves.py's MOMENTS) its moves are
# offered at: game.py lists them with these and applies them with siege_apply.
def catapult_options(g):
    """At a "?" (the moment "catapult"): Catapult(t) for every outpost."""
    d = g.outposts.decision
    return [Catapult(t) for t in range(len(g.R.TRACKS))] if d is not None and d.moment == CATAPULT else []


def remove_options(g):
    """During an attack (the moment "remove"): the deciding player's removals."""
    d = g.outposts.decision
    return removal_options(g, d.player, d.track, d.figures) if d is not None and d.moment == REMOVE else []


def outpost_options(g):
    """Right after the turn's figure (the moment "outpost"): Outpost(t, slot) for each place open
    to one more figure (a Pass declines)."""
    d = g.outposts.decision
    return list(d.options) if d is not None and d.moment == OUTPOST else []


def siege_refusal(g, action):
    """None if `action` answers the open decision, else (message, clause)."""
    d = g.outposts.decision
    kind = type(action)
    if d.moment == OUTPOST:
        if kind is Pass:
            return None
        if kind is not Outpost:
            return (f"{g.names[d.player]} first says whether a figure goes on an outpost (or passes)",
                    g.R.OUTPOST_PUTS[0][4])
        return outpost_refusal(g, action)
    if d.moment == CATAPULT:
        if kind is not Catapult:
            return ("the drawn tile shows a \"?\": its player first chooses the outpost its catapult goes to", d.clause)
        if not (isinstance(action.track, int) and 0 <= action.track < len(g.R.TRACKS)):
            return ("no such outpost", d.clause)
        return None
    p, t, figs, clause = d.player, d.track, d.figures, d.clause
    name = g.R.TRACKS[t][0]
    if kind is not Remove:
        return (f"the {name} outpost is attacked: {g.names[p]} first removes a figure from the board", clause)
    if action in removal_options(g, p, t, figs):
        return None
    return (f"{g.names[p]} has no such figure on the board to remove for the {name} outpost", clause)


def siege_apply(g, action, checked=False):
    """Answer the open decision with `action` (refused with its clause unless it may)."""
    op = g.outposts
    d = op.decision
    why = siege_refusal(g, action)
    if why is not None:
        raise IllegalAction(*why)
    g.history.append((None, action))
    if d.moment == CATAPULT:
        op.decision = None
        catapult(g, action.track, d.clause)
        srun(g)
        return
    if d.moment == REMOVE:
        p, t, clause = d.player, d.track, d.clause
        gi, seg = action.figure, action.segment
        r = g.board.find(seg)
        g.board.figs[r] = remove_fig(g, r, p, gi, seg)
        g.supply.recallable.pop(seg, None)
        g.supply.left[p][gi] += 1
        x, y = g.board.seg_cell[seg]
        g.events.append({"turn": g.turn, "kind": "remove", "player": g.names[p],
                         "figure": g.figure_name(gi), "at": [x, y], "on": g.board.seg_place(seg),
                         "outpost": g.R.TRACKS[t][0], "clause": clause})
        item = op.queue[0]
        op.queue[0] = item[:3] + (item[3][1:],) + item[4:]
        op.decision = None
        srun(g)
        return
    # the extra figure, or none; then the placement goes on (a capture, then scoring)
    if type(action) is Outpost:
        _put_outpost(g, action)
    op.decision = None
    p, gi, seg, cell, touched, put = op.cont
    op.cont = None
    if capture_pending(g, p, gi, seg, cell, touched):
        g.prisoners.put_after = put
        return
    pr = g.prisoners
    pr.pending = TurnEnd(p, cell, touched)
    pr.put_after = put
    g._end_turn()
