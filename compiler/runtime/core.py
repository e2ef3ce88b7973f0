"""The game's own fields: what every turn reads of `g` (the rules, the components, the seats, the turn).

`Game` (runtime/game.py) derives from `GameCore`.  Interpreted, its fields are slots; on the native
kernel (compiler/native.py) `GameCore` is an extension type (core.pxd) and its fields are C fields, so
a compiled function that types its game (`GameCore g` in a .pxd) reads `g.board.parent` or `g.turn`
with no lookup by name: attribute reads on the game were about a twelfth of a compiled base turn.
Whatever else a game holds (what a rule or a caller hangs on it) stays in its instance dict.
"""
from __future__ import annotations

# the fields, in the order Game.__init__ sets them (a snapshot of a game reads them by this tuple)
FIELDS = ("R", "Rd", "nplayers", "names", "seed", "rng", "scores", "open_decisions", "supply", "prisoners", "_siege",
          "outposts", "rounds", "current", "turn", "events", "history", "st", "board", "ended", "discards", "_listed",
          "_offers", "bag")


class GameCore:
    """The base of Game: its fields (FIELDS), read by the compiled turn without a lookup by name."""

    __slots__ = FIELDS

    def copy_fields(self, c):
        """Game.clone's first step: game c gets this game's fields, its four lists that change copied
        (their items are numbers, tuples, or dicts never changed in place); the components are shared
        until clone replaces each with its own copy."""
        c.R, c.Rd, c.nplayers, c.names, c.seed, c.rng = self.R, self.Rd, self.nplayers, self.names, self.seed, self.rng
        c.scores, c.events, c.history, c.st = self.scores[:], self.events[:], self.history[:], self.st[:]
        c.open_decisions, c._siege, c.current, c.turn = self.open_decisions, self._siege, self.current, self.turn
        c.ended, c.discards, c._listed, c._offers = self.ended, self.discards, self._listed, self._offers
        c.supply, c.prisoners, c.outposts, c.rounds = self.supply, self.prisoners, self.outposts, self.rounds
        c.board, c.bag = self.board, self.bag


# The game's components (`g.bag`, `g.supply`, `g.prisoners`, `g.rounds`): each owns its state and its
# `clone`; the functions of the game that use them are in their own modules (bag.py, figures.py,
# prisoners.py, rounds.py).  They live here, in a module that imports nothing, so that on the native
# kernel they are extension types (core.pxd) whose fields a compiled turn reads as C fields, and
# GameCore's fields are typed by them without a cycle of imports between those modules.


class Bag:
    """Component of Game (`g.bag`): the decks still to draw (drawn from the end), the drawn tile
    (None once the bag is empty), and whether its siege symbols were played (runtime/outposts.py)."""

    __slots__ = ("decks", "drawn", "advanced")

    def __init__(self, decks):
        self.decks = decks
        self.drawn = None
        self.advanced = True  # the drawn tile's siege symbols were played (set False by each draw)

    def clone(self):
        c = Bag.__new__(Bag)  # no __init__ (on the native kernel an extension type: object.__new__ refuses it)
        c.decks = [x[:] for x in self.decks]
        c.drawn, c.advanced = self.drawn, self.advanced
        return c


class Supply:
    """Component of Game (`g.supply`): each player's figures left (`left[p][gi]`), and the figures on
    the board that a `recall` rule may take back (`recallable`: segment -> (player, figure))."""

    __slots__ = ("left", "recallable")

    def __init__(self, R, players):
        self.left = [[f.count_for(players) for f in R.FIGURES] for _ in range(players)]
        self.recallable = {}

    def clone(self):
        c = Supply.__new__(Supply)  # no __init__ (on the native kernel an extension type: object.__new__ refuses it)
        c.left = [s[:] for s in self.left]
        c.recallable = self.recallable.copy()
        return c


class Prisoners:
    """Component of Game (`g.prisoners`): who holds whose figures, and the decision a placement left open."""

    __slots__ = ("held", "pending", "closing", "put_after")

    def __init__(self, players):
        self.held = [[[] for _ in range(players)] for _ in range(players)]
        self.pending = None  # CaptureOpen while a capture is to be chosen; TurnEnd while the turn is scored (runtime/decisions.py)
        self.put_after = None  # the figure a pending capture follows, scored by `score ... put` after it
        # After the turn's scoring, while the player may still pay a ransom (with the points just
        # scored) before passing the turn on (with `open_decisions`, even when none may be paid).
        self.closing = False

    def clone(self):
        c = Prisoners.__new__(Prisoners)  # no __init__ (on the native kernel an extension type: object.__new__ refuses it)
        c.held = [[o[:] for o in h] for h in self.held]
        c.pending, c.closing, c.put_after = self.pending, self.closing, self.put_after  # named tuples, never changed
        return c


class Rounds:
    """Component of Game (`g.rounds`): how far the rounds have come.  Owns its state; what a round's
    end does to the game is the functions below, of the game whose rounds these are."""

    __slots__ = ("rules", "ended", "open", "last", "limit", "clause", "counted")

    def __init__(self, rules, limit=None):
        self.rules = rules  # ROUND_RULES: (condition or None, figures, clause); empty: rounds change nothing
        # ROUND_LIMIT: the game ends as round `limit` ends (None: at the bag's end only), under `clause`
        self.limit, self.clause = limit or (None, "")
        self.counted = bool(rules) or self.limit is not None  # does the game count its rounds at all
        self.ended = 0  # rounds ended so far
        self.open = False  # a turn was taken since the last round ended
        self.last = 0  # the seat whose turn ended last

    def clone(self):
        c = Rounds.__new__(Rounds)  # no __init__ (on the native kernel an extension type: object.__new__ refuses it)
        c.rules, c.ended, c.open, c.last = self.rules, self.ended, self.open, self.last
        c.limit, c.clause, c.counted = self.limit, self.clause, self.counted
        return c


def fields_of(g):
    """{field: value} of game g's fields (FIELDS), then what its instance dict holds: everything the
    game holds, by name (a test's snapshot of a game)."""
    out = {k: getattr(g, k) for k in FIELDS if hasattr(g, k)}
    out.update(vars(g))
    return out
