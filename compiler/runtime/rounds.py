"""Rounds: the end of each round and what the rules do then (`on round end`, ROUND_RULES).

A round ends when every player has taken one turn, seat by seat from the first: as the turn
passes from the last seat to the first, after that turn's scoring and any ransom paid after it.
A discarded tile is no turn (the same player draws again).  The game's end closes a last round
in which at least one turn was taken but not every player had one, before the outposts' `on end`
rules and final scoring; a round that had just ended when the game ended is not ended twice.

Each rule of ROUND_RULES is (condition or None, figures, clause): when its condition holds (read
in the game context, `current` being the seat whose turn was the round's last), every prisoner of those
figures goes back to its owner's supply, whoever holds it (runtime/prisoners.py, `_release`).
"""
from __future__ import annotations


class Rounds:
    """Mixin of Game.  Owns: rounds, round_open."""

    def _init_rounds(self):
        self._round_rules = getattr(self.R, "ROUND_RULES", ())
        self.rounds = 0  # rounds ended so far
        self.round_open = False  # a turn was taken since the last round ended
        self.round_last = 0  # the seat whose turn ended last

    def _turn_taken(self):
        """A turn has ended and passes on (Game._next_turn, before the next seat): the last seat's
        turn ends the round."""
        self.round_open = True
        self.round_last = self.current
        if self.current == self.nplayers - 1:
            self._round_end()

    def _round_end(self):
        """The rules run with `current` the seat whose turn was the round's last, also when the
        game's end closes the round (when the turn has already passed on)."""
        self.round_open = False
        self.rounds += 1
        saved, self.current = self.current, self.round_last
        try:
            for cond, figs, clause in self._round_rules:
                if cond is None or cond(self):
                    self._release(figs, clause)
        finally:
            self.current = saved

    def _last_round(self):
        """At the game's end: close a round that is not whole (Scoring._final)."""
        if self.round_open and self._round_rules:
            self._round_end()
