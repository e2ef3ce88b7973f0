"""The game's own fields: what every turn reads of `g` (the rules, the components, the seats, the turn).

`Game` (runtime/game.py) derives from `GameCore`.  Interpreted, its fields are slots; on the native
kernel (compiler/native.py) `GameCore` is an extension type (core.pxd) and its fields are C fields, so
a compiled function that types its game (`GameCore g` in a .pxd) reads `g.board.parent` or `g.turn`
with no lookup by name: attribute reads on the game were about a twelfth of a compiled base turn.
Whatever else a game holds (what a rule or a caller hangs on it) stays in its instance dict.
"""
from __future__ import annotations

# the fields, in the order Game.__init__ sets them (a snapshot of a game reads them by this tuple)
FIELDS = ("R", "nplayers", "names", "seed", "rng", "scores", "open_decisions", "supply", "prisoners", "_siege",
          "outposts", "rounds", "current", "turn", "events", "history", "st", "board", "ended", "discards", "_listed",
          "_offers", "bag")


class GameCore:
    """The base of Game: its fields (FIELDS), read by the compiled turn without a lookup by name."""

    __slots__ = FIELDS

    def copy_fields(self, c):
        """Game.clone's first step: game c gets this game's fields, its four lists that change copied
        (their items are numbers, tuples, or dicts never changed in place); the components are shared
        until clone replaces each with its own copy."""
        c.R, c.nplayers, c.names, c.seed, c.rng = self.R, self.nplayers, self.names, self.seed, self.rng
        c.scores, c.events, c.history, c.st = self.scores[:], self.events[:], self.history[:], self.st[:]
        c.open_decisions, c._siege, c.current, c.turn = self.open_decisions, self._siege, self.current, self.turn
        c.ended, c.discards, c._listed, c._offers = self.ended, self.discards, self._listed, self._offers
        c.supply, c.prisoners, c.outposts, c.rounds = self.supply, self.prisoners, self.outposts, self.rounds
        c.board, c.bag = self.board, self.bag


def fields_of(g):
    """{field: value} of game g's fields (FIELDS), then what its instance dict holds: everything the
    game holds, by name (a test's snapshot of a game)."""
    out = {k: getattr(g, k) for k in FIELDS if hasattr(g, k)}
    out.update(vars(g))
    return out
