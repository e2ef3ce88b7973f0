"""The Game: one game in progress, shaped like OpenSpiel's State.

The turn loop lives here -- listing legal actions, applying one, the events
it records -- and leans on the other modules for the board, the bag, the
figures and scoring.  Public: new_game's Game, current_player,
legal_actions, apply_action, is_terminal, returns, clone, to_json/from_json,
events, scores (docs/engine.md).
"""
from __future__ import annotations

import random

from .bag import Bag
from .board import Board
from .corners import Corners
from .errors import IllegalAction
from .figures import Figures
from .geometry import fit
from .placement import Placement
from .records import Records
from .scoring import Scoring


class Game(Board, Placement, Bag, Figures, Corners, Scoring, Records):
    """One game in progress.  Shaped like OpenSpiel's State."""

    def __init__(self, rules, players=2, seed=0, names=None, start=None):
        lo, hi = rules.PLAYERS
        if not lo <= players <= hi:
            raise ValueError(f"these rules are for {lo} to {hi} players, not {players}")
        self.R = rules
        self.nplayers = players
        self.names = list(names) if names else [f"p{i}" for i in range(players)]
        self.seed = seed
        self.rng = random.Random(seed)
        self.scores = [0] * players
        self._init_figures(players)
        self.current = 0
        self.turn = 0  # index of the record entry being played
        self.events = []
        self.history = []
        self.st = [0] * len(rules.STATES)
        for i, (_, init) in enumerate(rules.STATES):
            self.st[i] = init(self)
        self._init_board(len(rules.KINDS))
        self._init_corners()
        self.ended = False
        self.drawn = None
        self.discards = 0
        st = self._init_bag(start)
        if st is not None:
            tid, x, y, rot = st
            self._place(rules.ORIENT[tid][rot // 90], (x, y))
        self._draw()

    # ------------------------------------------------------------ the state, as OpenSpiel asks
    def current_player(self):
        return -4 if self.ended else self.current

    def is_terminal(self):
        return self.ended

    def returns(self):
        return list(self.scores)

    # ------------------------------------------------------------ legal moves
    def legal_actions(self):
        """Every legal action: (cell, rotation, None | (figure, feature) | (figure, feature, corner)
        | recall), or the discard.

        Per frontier cell, the orientations whose edges fit (cached by edge pattern) and
        that pass the tile's placement check; per orientation, the tile alone, then each
        figure the rules' one legality predicate allows, then each recall."""
        if self.ended or self.drawn is None:
            return []
        R = self.R
        tid = self.drawn
        fits = R.FITS[tid]
        orients = R.ORIENT[tid]
        check = R.PLACE_CHECKS[tid]
        sup = self.supply[self.current]
        any_fig = any(sup)
        options = R.figure_options
        neighbour_roots = self._neighbour_roots
        recalls = self.recall_options()
        acts = []
        append = acts.append
        for cell, pat in self.frontier.items():
            rots = fits.get(pat)
            if rots is None:
                rots = fits[pat] = fit(orients, pat)
            if not rots:
                continue
            nbr = None  # the roots around the cell, once a figure may go there
            for o in rots:
                if check is not None and check(self, o, cell) is not None:
                    continue
                rot = o.rot
                append((cell, rot, None))
                if any_fig:
                    if nbr is None:
                        nbr = neighbour_roots(cell)
                    for fig in options(self, o, cell, nbr, sup):
                        append((cell, rot, fig))
                if recalls:
                    for rc in recalls:
                        append((cell, rot, rc))
        if not acts and R.DISCARD:
            return [("discard",)]
        return acts

    def orientation(self, rot, tid=None):
        """Tile type `tid` (default: the drawn tile) turned by `rot` degrees."""
        return self.R.ORIENT[self.drawn if tid is None else tid][rot // 90 % 4]

    # ------------------------------------------------------------ applying
    def apply_action(self, action):
        R = self.R
        if self.ended:
            raise IllegalAction("the game is over", R.CLAUSE_END)
        if action[0] == "discard":
            if self.placements(self.drawn):
                raise IllegalAction(f"tile {R.TILES[self.drawn].name} can be placed, so it may not be discarded", R.CLAUSE_DISCARD)
            self.history.append((R.TILES[self.drawn].index, action))  # only moves that were made
            self.events.append({"turn": self.turn, "kind": "discard", "tile": R.TILES[self.drawn].name,
                                "player": self.names[self.current], "clause": R.CLAUSE_DISCARD})
            self.discards += 1
            self.turn += 1
            self._draw()
            if self.drawn is None:
                self._final()
            return
        cell, rot, fig = action
        o = R.ORIENT[self.drawn][rot // 90]
        why = self.why_not_placed(o, cell)
        if why is not None:
            raise IllegalAction(*why)
        if fig is not None:
            if fig[0] == "recall":
                if fig not in self.recall_options():
                    raise IllegalAction("no own figure of that kind stands there to recall",
                                        R.RECALL_CLAUSE.get(fig[1], R.CLAUSE_FOLLOW))
            else:
                why = self.figure_refusal(o, cell, *fig)
                if why is not None:
                    raise IllegalAction(*why)
        self.history.append((R.TILES[self.drawn].index, action))  # only moves that were made
        p = self.current
        state_sets = R.on_place(self, o, cell)
        touched = self._place(o, cell)
        for name_i, val in state_sets:
            self.st[name_i] = val
        if fig is not None:
            if fig[0] == "recall":
                self._recall(p, fig[1], fig[3])
            else:
                seg = self.board[cell][1] + fig[1]
                self._put_figure(p, fig[0], seg)
                if len(fig) > 2:
                    self.corner_at[(p, fig[0], seg)] = (cell, fig[2])
                    self.on_corners += 1
        self._score_completed(cell, touched)
        if fig is not None and fig[0] != "recall" and R.SCORE_PUT:
            self._score_put(fig[0], self.board[cell][1] + fig[1])
        if self.joins:
            self._score_joins()
        self.turn += 1
        self.current = (self.current + 1) % self.nplayers
        self._draw()
        if self.drawn is None:
            self._final()

    # ------------------------------------------------------------ views
    def clone(self):
        g = Game.__new__(Game)
        g.__dict__.update(self.__dict__)
        g.rng = random.Random()
        g.rng.setstate(self.rng.getstate())
        for k in ("scores", "st", "parent", "seg_kind", "seg_cell", "shields", "open", "done", "completed_count",
                  "events", "history"):
            setattr(g, k, list(getattr(self, k)))
        g.supply = [list(s) for s in self.supply]
        g.board = dict(self.board)
        g.frontier = dict(self.frontier)
        g.cells = [set(c) if c is not None else None for c in self.cells]
        g.figs = [list(f) if f is not None else None for f in self.figs]
        g.recallable = dict(self.recallable)
        g.corner_at = dict(self.corner_at)
        g.joins = []
        g._ready = (None, {})
        g.borders = [list(b) for b in self.borders]
        g.decks = [list(d) for d in self.decks]
        return g


def random_moves(g, seed, before=None, after=None):
    """Play game g to its end with uniformly random legal moves (every legal action listed
    each turn), chosen by a generator seeded from `seed` -- the one random player of the
    toolchain: `simulate`, `play_random` and the engine check all play through it.

    before(g, action) is called before each move; after(g) after it (a true result stops)."""
    rng = random.Random(seed * 7919 + 17)
    while not g.ended:
        acts = g.legal_actions()
        if not acts:
            g.finish()
            break
        a = acts[rng.randrange(len(acts))]
        if before is not None:
            before(g, a)
        g.apply_action(a)
        if after is not None and after(g):
            break
    return g


def play_random(rules, players=2, seed=0, names=None):
    """One game of uniformly random legal moves: the bag and the moves seeded by `seed`."""
    return random_moves(Game(rules, players, seed, names), seed)
