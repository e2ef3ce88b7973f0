"""Rounds: the end of each round and what the rules do then (`on round end`, ROUND_RULES).

A round ends when every player has taken one turn, seat by seat from the first: as the turn
passes from the last seat to the first, after that turn's scoring and any ransom paid after it.
A discarded tile is no turn (the same player draws again).  The game's end closes a last round
in which at least one turn was taken but not every player had one, before the outposts' `on end`
rules and final scoring; a round that had just ended when the game ended is not ended twice.

ROUND_LIMIT (`end after N rounds`: N and its clause; absent, None) ends the game as its N-th round
ends, tiles left in the bag or not: the turn passes on, no tile is drawn, and final scoring follows
as at the bag's end (Game._next_turn).  A move after that is refused with the limit's clause.

Each rule of ROUND_RULES is (condition or None, figures, clause): when its condition holds (read
in the game context, `current` being the seat whose turn was the round's last), every prisoner of those
figures goes back to its owner's supply, whoever holds it (runtime/prisoners.py, `release`).
"""
from __future__ import annotations

from .prisoners import release


def end_reason(g):
    """Why game g has ended, and the clause that says so: its last round (`end after N rounds`) or
    the bag's end (docs/engine.md)."""
    r = g.rounds
    if r.ended == r.limit:
        return f"round {r.limit}, the last, has ended", r.clause or g.R.CLAUSE_END
    return "the bag is empty", g.R.CLAUSE_END


def turn_taken(g):
    """A turn of game g has ended and passes on (Game._next_turn, before the next seat; only where the
    rules count rounds): the last seat's turn ends the round.  True when that was the game's last
    round (`end after N rounds`)."""
    r = g.rounds
    r.open = True
    r.last = g.current
    if g.current == g.nplayers - 1:
        round_end(g)
        return r.ended == r.limit
    return False


def round_end(g):
    """The round's rules run with `current` the seat whose turn was the round's last, also when the
    game's end closes the round (when the turn has already passed on)."""
    r = g.rounds
    r.open = False
    r.ended += 1
    saved, g.current = g.current, r.last
    try:
        for cond, figs, clause in r.rules:
            if cond is None or cond(g):
                release(g, figs, clause)
    finally:
        g.current = saved


def last_round(g):
    """At the game's end: close a round that is not whole (scoring._final)."""
    r = g.rounds
    if r.open and r.rules:
        round_end(g)
