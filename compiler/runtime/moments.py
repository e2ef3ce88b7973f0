"""The moments of a turn: which one the game is in, what each offers, applies and refuses.

A turn has moments (runtime/moves.py's MOMENTS): the drawn tile's placement ("turn"); an
outpost's decision ("catapult", "remove", "outpost": runtime/outposts.py); the capture a floor
just built allows ("capture": runtime/prisoners.py); after the turn's scoring, while a ransom may
still come ("closing", TOWER-RANSOM-1); "over" once the game has ended.  `Moments.moment()` says
which is now: "over" once the game has ended, else the first open decision that
runtime/decisions.py declares (each reads its stored, typed value), else "turn".  Each move type says at which moments it is offered (its WHEN) and what lists and
applies it there (OPTIONS, APPLY); from those, `applying` and `listing` build game.py's tables,
so `legal_actions` and `apply_action` name no move but the tile turn's own (the placement and the
discard).  `REFUSE` says, per moment, how a move it does not offer is refused: the message and the
clause that tests and records check (each decision declares its moments' entries).
"""
from __future__ import annotations

from importlib import import_module
from weakref import WeakKeyDictionary

from .decisions import DECISIONS, _no_decision
from .errors import IllegalAction
from .moves import CHANCE, OVER, SIEGE, TURN, Capture, Pass, in_rules
from .rounds import end_reason


def moment_of(decisions):
    """`Game.moment` for the declared decisions (runtime/decisions.py's DECISIONS), asked in their
    order: "over" once the game has ended, else the first one open, else "turn".  A decision whose
    `watch` attribute is false is not open, so its `opened` is not called (the tile turn asks this
    once or twice a move)."""
    from operator import attrgetter

    asked = tuple((attrgetter(d.watch), d.opened) for d in decisions)

    def moment(self, settle=True):
        """Which moment of the turn the game is in (runtime/moves.py's MOMENTS; each move type is
        offered at the moments its WHEN names): "over" once the game has ended; "closing" after the
        turn's scoring while a ransom may still come (TOWER-RANSOM-1); an outpost's open decision,
        "catapult", "remove" or "outpost" (runtime/outposts.py; the drawn tile's siege symbols are
        played first, unless `settle` is False); "capture" right after a figure that allows one
        (runtime/prisoners.py); else "turn", the drawn tile's placement.  The decisions and their
        order are runtime/decisions.py's DECISIONS, each read from its stored value."""
        if self.ended:
            return OVER
        for watch, opened in asked:
            if watch(self):
                m = opened(self, settle)
                if m is not None:
                    return m
        return TURN
    return moment


class Moments:
    """Mixin of Game: which moment of the turn it is, and the closing moment's pass."""

    moment = moment_of(DECISIONS)

    def _pass_on(self, action, checked=False):
        """The closing moment's pass: the scored turn ends, the next player draws."""
        self.history.append((None, action))
        self._next_turn()


def _method(cls, name):
    """What a move type names by its APPLY or OPTIONS: a method of class `cls` (the Game); a
    function of the game in a runtime module, "module.function" (the module of a component,
    e.g. "prisoners.apply_capture"); or, for a move that needs no runtime module of its own,
    the function in runtime/moves.py."""
    if callable(name):
        return name
    if "." in name:
        module, function = name.split(".")
        return getattr(import_module(f".{module}", __package__), function)
    return getattr(cls, name)


def _at(declared, m):
    """What a type declares (its APPLY or OPTIONS) for moment m: one for all its moments, or one per moment."""
    return declared.get(m) if isinstance(declared, dict) else declared


def _offered(cls, T, m):
    """Applying a move the generic path checks (its type's CHECKS is False) at moment m: refused
    unless its OPTIONS list it now (the clause: the rules constant its CLAUSE names), then its APPLY."""
    apply, options = _method(cls, _at(T.APPLY, m)), _method(cls, _at(T.OPTIONS, m))

    def run(g, action, checked):
        if not checked and (not in_rules(T, g.R) or action not in options(g)):
            raise IllegalAction(*not_now(g, action))
        apply(g, action)
    return run


def applying(cls, offered, chance=CHANCE):
    """{moment: {move type: what applies it then}} for the types `offered` (moves.offered) names at
    each moment: its APPLY for that moment (a method of `cls`), behind the generic check unless the
    type checks itself (CHECKS); and chance's moves (moves.CHANCE: the tile drawn), never listed,
    at the moments of their WHEN.  Each is called (game, move, checked)."""
    out = {m: {T: _method(cls, _at(T.APPLY, m)) if T.CHECKS else _offered(cls, T, m) for T in types}
           for m, types in offered.items()}
    for T in chance:
        for m in T.WHEN:
            out[m][T] = _method(cls, _at(T.APPLY, m))
    return out


def listing(cls, offered, R):
    """{moment: the functions that list, in order, the moves rule set R offers then}: each type
    offered at the moment that R has (moves.in_rules) and that declares OPTIONS (the placements
    and the discard are the tile turn's own: legal_actions lists them first).  Kept per rule set
    (working it out every game was 4% of a compiled base game), while `cls`, `offered` and whether
    each table of R that in_rules reads is there are as they were: a move type may be declared, or
    a table given to the rules, between two games (tests/test_moves.py)."""
    got = _LISTED.get(R)
    if got is not None and got[0] is cls and got[1] is offered and _there(R, got[2]) == got[3]:
        return got[4]
    names = sorted({n for types in offered.values() for T in types for n in T.RULES or ()})
    out = {m: tuple(_method(cls, _at(T.OPTIONS, m)) for T in types
                    if _at(T.OPTIONS, m) is not None and in_rules(T, R))
           for m, types in offered.items()}
    _LISTED[R] = (cls, offered, names, _there(R, names), out)
    return out


def _there(R, names):
    """Whether each table `names` names is in rule set R and not empty (what in_rules reads)."""
    return [bool(getattr(R, n, None)) for n in names]


_LISTED = WeakKeyDictionary()  # rule set -> (cls, offered, the tables read, their truth, listing's answer)


# ------------------------------------------------------------ a move not offered at the moment
# What each moment says of a move it does not offer: the moment's own decision comes first, or, in
# the tile turn, the move's own moment is not now.
def not_now(g, action):
    """A move offered at no moment the game is in: its type's CLAUSE names the rules constant."""
    T = type(action)
    clause = getattr(g.R, T.CLAUSE, None)
    return f"no {T.KIND} {tuple(action)[1:]} may be played now", clause if isinstance(clause, str) else g.R.CLAUSE_FOLLOW


def refuse_in_turn(g, action):
    t = type(action)
    if t is Capture or t is Pass:
        return ("nothing may be captured now: no figure was just put that allows a capture",
                next(iter(g.R.CAPTURES.values()), ((), None, ("",)))[2][0])
    if t in SIEGE:
        return _no_decision(g, action)
    return not_now(g, action)


REFUSE = {TURN: refuse_in_turn}
for _d in DECISIONS:
    REFUSE.update(_d.refuse)
REFUSE[OVER] = lambda g, a: ("the game is over", end_reason(g)[1])
