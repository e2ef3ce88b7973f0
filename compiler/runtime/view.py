"""What a record's translation may read of a game: a narrow, read-only view (`TurnView`).

A replay translates each record turn into moves (compiler/turns.py's `turn_moves`) and the engine
applies them: `for move in turn_moves(view, turn, i): game.apply_action(move)`.  The translation
never holds the game; between moves it asks this view what it needs, and the view changes nothing
the engine would not (`siege_decision` asks the turn, which plays the drawn tile's siege symbols
as any first question about the turn does: runtime/outposts.py).  What it reads:

- the names of the rule set's things: `names`, `figure_index`, `figure_name`, `track_index`;
- the bag, to pick the copy of a tile a record names: `drawn`, `decks`, `deck_index`;
- the drawn tile's siege symbols and the decisions they open: `draw_symbols`, `siege_decision`,
  `last_attack`, `own`;
- where the record's tile and figure go: `orientation`, `why_not_placed`, `figure_options`,
  `recall_options`, `anywhere_options`, `anywhere_refusal`, `tile_at`, `root`, `figures_on`;
- what the placement opened: `outpost_decision`, `capture`, `held`, `closing`.

Every answer is a value (a number, a tuple, a typed decision, an orientation of the rules);
nothing returned is a list the game keeps.  Copied into every compiled engine with the runtime.
"""
from __future__ import annotations

from .errors import IllegalAction
from . import moves as _moves


class TurnView:
    """The questions a record's translation asks of game `g` (compiler/turns.py), and no more."""

    __slots__ = ("_g", "R", "moves", "names", "IllegalAction")

    def __init__(self, g):
        self._g = g
        self.R = g.R  # the rules' tables (never changed)
        self.moves = _moves  # the move types of this game's own runtime
        self.names = tuple(g.names)
        self.IllegalAction = IllegalAction

    # ------------------------------------------------------------------ names
    def figure_index(self, name):
        return self._g.figure_index(name)

    def figure_name(self, gi):
        return self._g.figure_name(gi)

    def track_index(self, name):
        return self._g.track_index(name)

    # ------------------------------------------------------------------ the bag
    @property
    def drawn(self):
        """The tile type drawn now (None: none)."""
        return self._g.bag.drawn

    def decks(self):
        """The tiles left in each deck, in draw order (the drawn tile not among them)."""
        return tuple(tuple(d) for d in self._g.bag.decks)

    def deck_index(self, tid):
        """The deck tile type `tid` belongs to (runtime/bag.py's deck_of)."""
        d = self._g.deck_of(tid)
        return next(i for i, x in enumerate(self._g.bag.decks) if x is d)

    # ------------------------------------------------------------------ the drawn tile's siege symbols
    def draw_symbols(self, tid=None):
        return tuple(self._g.draw_symbols(tid))

    def siege_decision(self):
        """The open outpost decision, once the drawn tile's symbols are played (as the engine plays them
        when the turn is first asked about, runtime/outposts.py's `deciding`): a CatapultOpen, a
        RemoveOpen, an OutpostOpen, or None."""
        self._g.deciding()
        return self._g.outposts.decision

    def last_attack(self):
        """(outpost, each player's figures there, clause) of the drawn tile's last attack, or None."""
        return self._g.outposts.last_attack

    def own(self, t, p):
        return self._g.own(t, p)

    # ------------------------------------------------------------------ the placement
    def orientation(self, rot):
        """The drawn tile turned `rot` degrees (an orientation of the rules, never changed)."""
        return self._g.orientation(rot)

    def why_not_placed(self, o, cell):
        return self._g.why_not_placed(o, cell)

    def figure_options(self, o, cell):
        return tuple(self._g.figure_options(o, cell))

    def recall_options(self):
        return tuple(self._g.recall_options())

    def anywhere_options(self):
        return frozenset(self._g.anywhere_options())

    def anywhere_refusal(self, gi, at, seg):
        return self._g.anywhere_refusal(gi, at, seg)

    def tile_at(self, cell):
        """(orientation, first segment) of the tile placed at `cell`, or None."""
        return self._g.board.tiles.get(cell)

    def root(self, seg):
        """(the segment that stands for seg's feature, its cell)."""
        b = self._g.board
        r = b.find(seg)
        return r, b.seg_cell[r]

    def figures_on(self, seg):
        """(player, figure, segment) of each figure on the feature of segment `seg`."""
        b = self._g.board
        return tuple(b.figs[b.find(seg)] or ())

    # ------------------------------------------------------------------ what the placement opened
    def outpost_decision(self):
        """The open outpost decision as it is stored (no symbol played), or None."""
        return self._g.outposts.decision

    def capture(self):
        """The capture to choose (a CaptureOpen, runtime/decisions.py), or None."""
        return self._g.prisoners.pending

    def held(self, q, p):
        """The figures of player q that player p holds prisoner."""
        return tuple(self._g.prisoners.held[q][p])

    def closing(self):
        """Is the turn scored, waiting for a ransom or the pass that ends it?"""
        return bool(self._g.prisoners.closing)
