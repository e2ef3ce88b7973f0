"""Decisions: the open decisions of a turn as stored, typed values, and the moments they open.

A turn pauses for a player's decision (runtime/moves.py's MOMENTS): an outpost's ("catapult":
a drawn "?", "remove": an attack's removals, "outpost": one more figure after the turn's; stored
in `g.outposts.decision`, runtime/outposts.py), a capture right after a floor (`CaptureOpen`, in
`g.prisoners.pending`, runtime/prisoners.py), the closing after the turn's scoring while a ransom may
still come (`g.prisoners.closing`, TOWER-RANSOM-1).  Each is a named tuple read by field, never by index.

`DECISIONS` declares, in the order `Game.moment()` asks them, each kind of decision: the moments
it opens, how a game shows it open (a function of the game reading its stored value; `settle`:
whether the drawn tile's siege symbols may be played first), and how a move it does not offer is
refused at each of its moments (the message and the clause that tests and records check).
`moment()` (runtime/moments.py) is "over" once the game has ended, else the first declared
decision open, else "turn".  A new moment: its name in `moves.MOMENTS`, its stored value here,
and one `Decision(...)` in `DECISIONS` (docs/architecture.md, "The path of a new decision moment",
has a worked example); moments.py names no moment of its own.
"""
from __future__ import annotations

from typing import NamedTuple

from .moves import CAPTURE, CATAPULT, CLOSING, OUTPOST, REMOVE, SIEGE

_new = tuple.__new__


class TurnEnd(NamedTuple):
    """The placed tile's turn, waiting to be scored (`Game._end_turn` reads it): no decision, it
    lives only while the turn is scored."""
    player: int
    cell: tuple
    touched: object


class CaptureOpen(NamedTuple):
    """A capture to choose (or pass), right after `player` put a figure a `capture` rule names on the
    tile at `cell` (`touched`: the feature roots the placement touched, scored once the capture is
    decided); the floor stands at `tower`, captures reach `reach` cells along its row and column,
    `clauses` are the capture rule's clauses (the first is cited) and `kinds` the capturable figures
    (TOWER-CAPTURE-1)."""
    player: int
    cell: tuple
    touched: object
    tower: tuple
    reach: int
    clauses: tuple
    kinds: object
    MOMENT = CAPTURE


def _outpost_decision(name, moment, fields, doc):
    """A named tuple whose first item is its moment (the word `g.outposts.decision[0]` was) and whose constructor takes `fields`."""
    base = NamedTuple(f"_{name}", [("moment", str)] + [(f, object) for f in fields])
    n = len(fields)

    def __new__(cls, *args):
        if len(args) != n:
            raise TypeError(f"{name} takes {n} fields ({', '.join(fields)}), not {len(args)}")
        return _new(cls, (moment,) + args)

    def __getnewargs__(self):
        return tuple(self)[1:]

    return type(name, (base,), {"__slots__": (), "__new__": __new__, "__getnewargs__": __getnewargs__,
                                "__doc__": doc, "__module__": __name__, "__qualname__": name, "MOMENT": moment})


CatapultOpen = _outpost_decision("CatapultOpen", CATAPULT, ("player", "clause"),
                                 "The drawn tile shows a \"?\": `player` chooses the outpost its catapult goes to "
                                 "(SIEGE-ADVANCE-1).")
RemoveOpen = _outpost_decision("RemoveOpen", REMOVE, ("player", "track", "figures", "clause"),
                               "Outpost `track` is attacked: `player` removes one of their `figures` from the board "
                               "(SIEGE-ATTACK-1).")
OutpostOpen = _outpost_decision("OutpostOpen", OUTPOST, ("player", "options"),
                                "Right after the turn's figure: `player` may put one more figure on an outpost "
                                "(`options`, the Outpost moves open), or pass (SIEGE-OUTPOST-2, -3).")


class Decision:
    """One kind of open decision: the moments it opens; `watch`, the Game attribute (or a component's,
    "prisoners.pending") that is true whenever it may be open (its stored value, or the flag of the rule set that can open it: the
    tile turn's fast path asks `moment()` only then); `opened(game, settle)`, its moment now or
    None; and `refuse` {moment: (game, move) -> (message, clause)} for a move it does not offer."""

    __slots__ = ("name", "moments", "watch", "opened", "refuse")

    def __init__(self, name, moments, watch, opened, refuse):
        self.name, self.moments, self.watch = name, tuple(moments), watch
        self.opened, self.refuse = opened, refuse


def _closing(g, settle):
    return CLOSING if g.prisoners.closing else None


def siege_open(g):
    """The outpost decision's watch (`Game.siege_open`): true whenever one may be open -- the drawn tile's
    siege symbols are still to be played (`bag.advanced` false: `siege_ready` plays them) or a decision is
    stored.  While it is false, `_outposts` answers None and changes nothing: moment() need not ask it."""
    return g._siege and (g.outposts.decision is not None or not g.bag.advanced)


def _outposts(g, settle):
    if g._siege:  # the drawn tile's catapults first, then any decision they open
        if settle:
            g.siege_ready()
        d = g.outposts.decision
        if d is not None:
            return d.moment
    return None


def _capture(g, settle):
    return CAPTURE if g.prisoners.pending is not None else None


def _no_decision(g, action):
    """An outpost's move while no outpost decision is open."""
    R = g.R
    return (f"no {action.kind} decision is open now",
            (R.TRACK_RULES[0][3] if R.TRACK_RULES else "") if g._siege else R.CLAUSE_FOLLOW)


def _refuse_at_capture(g, action):
    if g._siege and type(action) in SIEGE:
        return _no_decision(g, action)
    return "a capture (or a pass) comes first: a figure was just put that allows one", g.prisoners.pending.clauses[0]


def _decision_first(g, action):
    return g.siege_refusal(action)  # the open outpost decision first (runtime/outposts.py words it)


# In the order moment() asks them: the closing, an outpost's decision, a capture.
DECISIONS = [
    Decision("closing", (CLOSING,), "prisoners.closing", _closing,
             {CLOSING: lambda g, a: ("the turn is scored: only a ransom, or a pass that ends the turn, may come now",
                                     g.R.RANSOM[3])}),
    Decision("outpost", (CATAPULT, REMOVE, OUTPOST), "siege_open", _outposts,
             {CATAPULT: _decision_first, REMOVE: _decision_first, OUTPOST: _decision_first}),
    Decision("capture", (CAPTURE,), "prisoners.pending", _capture, {CAPTURE: _refuse_at_capture}),
]


def watching(decisions=None):
    """What the tile turn's fast path asks before it asks `moment()`: a function of the game that gives
    the `watch` attribute of each declared decision and, last, `ended` (the game's end is a moment of
    its own), so `any(watched(g))` says whether the moment may be other than the tile turn.  An
    `operator.attrgetter`: reading the attributes costs no call of a Python function."""
    from operator import attrgetter

    return attrgetter(*(d.watch for d in (DECISIONS if decisions is None else decisions)), "ended")
