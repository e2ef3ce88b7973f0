"""The Game: one game in progress, shaped like OpenSpiel's State.

The turn loop lives here -- listing legal actions, applying one, the events
it records -- and leans on the other modules for the board, the bag, the
figures and scoring.  Public: new_game's Game, current_player,
legal_actions, apply_action, is_terminal, returns, clone, to_json/from_json,
events, scores (docs/engine.md).
"""
from __future__ import annotations

import random

from . import bag as _bag
from .bag import draw_next, init_bag
from . import featureview as _featureview
from .board import Board
from .core import GameCore, Prisoners, Rounds, Supply
from .corners import put_corner, score_joins, score_put
from .decisions import DECISIONS, siege_open, watching
from .errors import IllegalAction
from . import figures as _figures
from .figures import put_figure
from .geometry import START_REACH
from .listing import tile_moves
from .lookahead import Lookahead
from .moments import REFUSE, Moments, applying, listing, refuse_in_turn
from .moves import OFFERED, TURN, Discard, Draw, NotAMove, Place, PutAt, PutCorner, Recall, as_move
from . import placement as _placement
from .placement import lay_landscape
from . import outposts as _outposts
from . import outpost_moves as _outpost_moves
from .outpost_moves import outpost_pending
from .outposts import Outposts, counterattacks, deciding
from . import prisoners as _prisoners
from .prisoners import capture_pending, ransom_options
from . import records as _records
from . import rounds as _rounds
from .rounds import turn_taken
from . import scoring as _scoring
from .scoring import _final, _score_completed

_DISCARD = Discard()


# ------------------------------------------------------------ the tile turn's hot path, bound on Game below
def apply_place_fn(g, action, checked):
    """Game._apply_place: put the drawn tile (and what goes with it), then end the turn."""
    R = g.R
    cell, rot, fig = action
    if not checked and (rot not in (0, 90, 180, 270) or type(rot) is not int):
        raise IllegalAction(f"a rotation is 0, 90, 180 or 270, not {rot!r}", R.CLAUSE_MATCHING)
    drawn = g.bag.drawn
    Rd = g.Rd  # the tables the turn reads, by name (Game.__init__)
    o = Rd["ORIENT"][drawn][rot // 90]
    why = None if checked else g.why_not_placed(o, cell)
    if why is not None:
        raise IllegalAction(*why)
    ft = type(fig)
    if fig is not None and not checked:
        if ft is Recall:
            if fig not in g.recall_options():
                raise IllegalAction("no own figure of that kind stands there to recall",
                                    R.RECALL_CLAUSE.get(fig.figure, R.CLAUSE_FOLLOW))
        elif ft is PutAt:
            if not (isinstance(fig.segment, int) and 0 <= fig.segment < len(g.board.parent)
                    and isinstance(fig.figure, int) and 0 <= fig.figure < len(R.FIGURES)):
                raise IllegalAction("no placed feature there", R.CLAUSE_FOLLOW)
            why = g.anywhere_refusal(fig.figure, fig.cell, fig.segment)
            if why is not None:
                raise IllegalAction(*why)
        else:
            why = g.figure_refusal(o, cell, *fig)
            if why is not None:
                raise IllegalAction(*why)
    g.history.append((Rd["TILES"][drawn].index, action))  # only moves that were made
    p = g.current
    state_sets = R.on_place(g, o, cell) if Rd["ON_PLACE_CLAUSE"] else ()  # (no `on place` rule sets a state: none)
    b = g.board
    touched = b.place(o, cell)
    if state_sets:  # an `on place` rule changed a state: its event, as `on complete`'s (rule usage)
        for name_i, val in state_sets:
            g.st[name_i] = val
        g._state_events(state_sets)
    if b.joins:  # a `score ... join` rule scores at once, before the turn's figure (runtime/corners.py)
        score_joins(g, touched)
    put = None  # the figure this turn put: (figure, segment), for `score ... put`
    if fig is not None:
        if ft is Recall:
            g._recall(p, fig.figure, fig.segment)
        else:
            if ft is PutAt:  # on a feature of another placed tile (`anywhere`)
                gi, seg = fig.figure, fig.segment
            else:
                gi, seg = fig.figure, b.tiles[cell][1] + fig.feature
            put_figure(g, p, gi, seg)
            if ft is PutCorner:
                put_corner(g, p, gi, seg, cell, fig.corner)
            put = (gi, seg)
            if Rd["OUTPOST_PUTS"] and outpost_pending(g, p, gi, seg, cell, touched, put):
                return  # the same player may now put one more figure on an outpost, or pass
            if Rd["CAPTURES"].get(gi) is not None and capture_pending(g, p, gi, seg, cell, touched):
                g.prisoners.put_after = put
                return  # the same player now chooses a capture, or none
    # The turn is scored at once: what a TurnEnd (decisions.py) would hold while it waits is passed on
    end_turn_with(g, cell, touched, put)


def end_turn_fn(g):
    """Score the turn that waited (`g.prisoners.pending`: a TurnEnd, or the CaptureOpen just decided), then
    pass the turn on."""
    pr = g.prisoners
    pend = pr.pending
    put, pr.put_after = pr.put_after, None
    pr.pending = None
    end_turn_with(g, pend.cell, pend.touched, put)


def end_turn_with(g, cell, touched, put):
    """Score what the turn's tile (at `cell`, touching the roots `touched`) completed and what its figure's
    putting (`put`: (figure, segment), or None) scores, then pass the turn on."""
    Rd = g.Rd
    if g._siege and g.outposts.filled:  # a row filled this turn counterattacks before features score
        counterattacks(g)  # (SIEGE-COUNTER-1)
    _score_completed(g, cell, touched)
    if put is not None and Rd["SCORE_PUT"]:
        score_put(g, *put)
    if Rd["RANSOM"] is not None and not g.ended and (g.open_decisions or ransom_options(g)):
        g.prisoners.closing = True  # a ransom paid with this turn's points may come now (TOWER-RANSOM-1)
        return
    next_turn_fn(g)


def next_turn_fn(g):
    """Pass the turn on: the next player draws (or the game ends)."""
    g.prisoners.closing = False
    # the last seat's turn ends a round (`on round end`, `end after`: runtime/rounds.py); True: the last
    if g.rounds.counted and turn_taken(g):  # round of `end after N rounds`: no tile is drawn
        g.turn += 1
        g.current = (g.current + 1) % g.nplayers
        g.bag.drawn = None
        _final(g)
        return
    g.turn += 1
    g.current = (g.current + 1) % g.nplayers
    draw_next(g)
    if g.bag.drawn is None:
        _final(g)


def legal_actions_fn(g):
    """Every legal action: (cell, rotation, None | (figure, feature) | (figure, feature, corner)
    | recall), or the discard, then what else the turn offers; at another moment (`moment`), the
    moves offered then.

    Per frontier cell, the orientations whose edges fit (the tile's fit table, read by
    the cell's edge code) and that pass the tile's placement check -- a symmetric tile's
    rotations that lay the same features on the same places once, as the first of them;
    per orientation, the tile alone, then each figure the rules' one legality predicate
    allows (asked only when a figure in supply may stand on one of the tile's kinds),
    then each recall."""
    if g.ended:
        return []
    if _asks(g):  # a declared decision may be open (runtime/decisions.py)
        m = g.moment()
        if m != TURN:  # the moves offered at that moment, in runtime/moves.py's order (OFFERED)
            return [a for options in g._offers[m] for a in options(g)]
    drawn = g.bag.drawn
    if drawn is None:
        return []
    acts = tile_moves(g)
    more = g._offers[TURN]  # after the placements (and the discard): a ransom, every other move of the turn
    if not acts.placed and g.R.DISCARD:
        acts.end_with([_DISCARD] + [a for options in more for a in options(g)] if more else [_DISCARD])
    elif more:
        acts.end_with([a for options in more for a in options(g)])
    g._listed = (g.turn, drawn, acts)  # apply_action need not check these again
    return acts


def _asks(g):
    """Whether moment() must be asked: a declared decision's watch is true (runtime/decisions.py), the
    shipped DECISIONS' read as fields (_SHIPPED below), any other list's by its getter (_watched)."""
    if _watched is not _SHIPPED:
        return any(_watched(g))
    pr = g.prisoners
    if pr.closing or pr.pending:
        return True
    return g._siege and (g.outposts.decision is not None or not g.bag.advanced)


def apply_action_fn(g, action):
    """Play `action`, a move `legal_actions` lists (runtime/moves.py; its written form, a plain
    tuple, is taken too), or raise IllegalAction naming the clause that refuses it: each move
    type offered at this moment (`moment`) goes to the APPLY its type names for it; any other
    is refused as that moment refuses it (moments.REFUSE)."""
    t = type(action)
    if t is not Place:
        try:
            action = as_move(action)
        except NotAMove as exc:
            raise IllegalAction(str(exc), g.R.CLAUSE_FOLLOW) from None
        t = type(action)
        if t is Draw and action.tile == g.bag.drawn and not g.ended:
            return  # chance deals the tile already drawn: nothing changes, whatever decision is open
    if g.ended or _asks(g):  # the game's end, or a declared decision that may be open
        m = g.moment(not t.EARLY)  # a ransom may come before the drawn tile's symbols are played
        if m != TURN:
            run = _APPLY[m].get(t)
            if run is None:
                raise IllegalAction(*REFUSE[m](g, action))
            run(g, action, False)
            return
    # the tile turn's moves: the placement, the discard, a ransom and every other move offered in the turn
    apply_turn = _APPLY_TURN
    run = apply_turn.get(t)
    if run is None:
        raise IllegalAction(*refuse_in_turn(g, action))
    # whether legal_actions listed `action` for this very state (same turn, same tile): not checked again
    listed = g._listed
    checked = (listed is not None and listed[0] == g.turn and listed[1] == g.bag.drawn
               and (action is getattr(listed[2], "last", None) or action in listed[2]))
    if t is Place:  # run is Game._apply_place (Place.APPLY), called in C on the native kernel
        apply_place_fn(g, action, checked)
    else:
        run(g, action, checked)


def discard_fn(g, action, checked):
    """Game._discard: the drawn tile is set aside (it can be placed nowhere), and the next is drawn."""
    R = g.R
    drawn = g.bag.drawn
    if not checked and g.placements(drawn):
        raise IllegalAction(f"tile {R.TILES[drawn].name} can be placed, so it may not be discarded", R.CLAUSE_DISCARD)
    g.history.append((R.TILES[drawn].index, _DISCARD))  # only moves that were made
    g.events.append({"turn": g.turn, "kind": "discard", "tile": R.TILES[drawn].name,
                     "player": g.names[g.current], "clause": R.CLAUSE_DISCARD})
    g.discards += 1
    g.turn += 1
    draw_next(g)
    if g.bag.drawn is None:
        g._final()


class Game(GameCore, Lookahead, Moments):
    """One game in progress.  Shaped like OpenSpiel's State.  Its fields are GameCore's (runtime/core.py)."""

    # the public functions of the components' modules (docs/engine.md), as methods
    held_count, prisoners_by_name = _prisoners.held_count, _prisoners.prisoners_by_name
    capture_options, capture_refusal, ransom_options = (_prisoners.capture_options, _prisoners.capture_refusal,
                                                        _prisoners.ransom_options)
    own, track_index, outposts_by_name, on_outposts = (_outposts.own, _outposts.track_index,
                                                       _outposts.outposts_by_name, _outposts.on_outposts)
    deciding, draw_symbols, removal_options = _outposts.deciding, _outposts.draw_symbols, _outposts.removal_options
    siege_ready, siege_refusal = _outposts.siege_ready, _outpost_moves.siege_refusal  # for runtime/decisions.py
    figure_name, figure_index, figure_options, figure_refusal = (_figures.figure_name, _figures.figure_index,
                                                                 _figures.figure_options, _figures.figure_refusal)
    anywhere_options, anywhere_refusal, recall_options, supply_by_name = (
        _figures.anywhere_options, _figures.anywhere_refusal, _figures.recall_options, _figures.supply_by_name)
    end_reason = _rounds.end_reason
    tile_name, tiles_left, shuffle_bag, draw_refusal, deck_of = (_bag.tile_name, _bag.tiles_left, _bag.shuffle_bag,
                                                                 _bag.draw_refusal, _bag.deck_of)
    features, _canon = _featureview.features, _featureview.canon
    placements, why_not_placed, turn_of, continues = (_placement.placements, _placement.why_not_placed,
                                                      _placement.turn_of, _placement.continues)
    to_json, from_json = _records.to_json, classmethod(_records.from_json)  # tessera-state/1
    owners, winners, finish = _scoring.owners, _scoring.winners, _scoring.finish
    siege_open = property(siege_open)  # the outpost decision's watch (decisions.py)
    _award, _score_completed, _return_figures, _recall, _final = (_scoring._award, _scoring._score_completed,
                                                                  _scoring._return_figures, _scoring._recall,
                                                                  _scoring._final)

    def __init__(self, rules, players=2, seed=0, names=None, start=None):
        lo, hi = rules.PLAYERS
        if not lo <= players <= hi:
            raise ValueError(f"these rules are for {lo} to {hi} players, not {players}")
        self.R = rules
        self.Rd = vars(rules)  # the rules' tables by name: one dict read each, where R.X looks up a module's attribute
        self.nplayers = players
        self.names = list(names) if names else [f"p{i}" for i in range(players)]
        self.seed = seed
        self.rng = random.Random(seed)
        self.scores = [0] * players
        # True: every decision a rule opens (a capture after a floor, one more figure for an outpost, the
        # closing after a scored turn) is put to the caller even when there is nothing to choose; the
        # caller then passes it, or a move it names is refused with the clause that says why.  A replay
        # plays records so (replay/tiles.py): a decision a record does not mention is passed
        # explicitly.  False (play): a decision with nothing to choose is skipped.
        self.open_decisions = False
        self.supply = Supply(rules, players)  # a component (runtime/core.py; its functions: runtime/figures.py)
        self.prisoners = Prisoners(players)  # a component (runtime/core.py; its functions: runtime/prisoners.py)
        self._siege = bool(rules.TRACKS)  # read on the hot paths instead of the rules' table
        self.outposts = Outposts(rules, players)  # a component: runtime/outposts.py
        self.rounds = Rounds(getattr(rules, "ROUND_RULES", ()), getattr(rules, "ROUND_LIMIT", None))  # runtime/rounds.py
        self.current = 0
        self.turn = 0  # index of the record entry being played
        self.events = []
        self.history = []
        self.st = [0] * len(rules.STATES)
        for i, (_, init) in enumerate(rules.STATES):
            self.st[i] = init(self)
            if i in rules.STATES_EACH:  # `state NAME of each player`: one value per seat
                self.st[i] = (self.st[i],) * self.nplayers
        self.board = Board(rules)  # a component: runtime/board.py (the figures on corners too: runtime/corners.py)
        self.ended = False
        self.discards = 0
        self._listed = None  # (turn, tile, actions) of the last legal_actions
        # moment -> what lists the moves these rules offer then (runtime/moves.py's OFFERED, in its order)
        self._offers = _offers(rules)
        if start is not None and not all(-START_REACH <= v <= START_REACH for v in start[1:3]):
            raise ValueError(f"a start tile lies at most {START_REACH} cells from [0,0] across and down, not at {list(start[1:3])}")
        st = init_bag(self, start)  # the bag, a component: runtime/bag.py
        if st is not None:
            tid, x, y, rot = st
            self.board.place(rules.ORIENT[tid][rot // 90], (x, y))
            if start is None:  # the rules' own start landscape (a record's `start` is one tile)
                lay_landscape(self)
        draw_next(self)

    # ------------------------------------------------------------ the state, as OpenSpiel asks
    def current_player(self):
        if self.ended:
            return -4
        if self._siege:  # an attack's removal may be another player's decision (SIEGE-ATTACK-1)
            d = deciding(self)
            if d is not None:
                return d
        return self.current

    def decides(self, p):
        """Whether seat p makes the next decision of its own turn: the turn in progress is p's and
        its next decision is p's.  Unlike current_player(), it never plays the siege symbols of a
        tile drawn for another seat's turn (SIEGE-ADVANCE-1): a player looking ahead from its own
        move has not seen that tile (play/agents.py)."""
        return not self.ended and self.current == p and self.current_player() == p

    def is_terminal(self):
        return self.ended

    def returns(self):
        return list(self.scores)

    # ------------------------------------------------------------ legal moves
    legal_actions = legal_actions_fn  # module functions: typed on the native kernel (game.pxd)

    def orientation(self, rot, tid=None):
        """Tile type `tid` (default: the drawn tile) turned by `rot` degrees."""
        return self.R.ORIENT[self.bag.drawn if tid is None else tid][rot // 90 % 4]

    # ------------------------------------------------------------ applying
    apply_action, _discard = apply_action_fn, discard_fn
    _apply_place = apply_place_fn  # module functions: typed on the native kernel (game.pxd)

    def _state_events(self, state_sets):
        """One `state` event per `on place` rule's clause, with the values it set."""
        R = self.R
        by: dict = {}
        for si, val in state_sets:
            by.setdefault(R.ON_PLACE_CLAUSE.get(si, ""), {})[R.STATES[si][0]] = val
        for clause, sets in by.items():
            self.events.append({"turn": self.turn, "kind": "state", "set": sets, "clause": clause})

    _end_turn, _next_turn = end_turn_fn, next_turn_fn

    # ------------------------------------------------------------ views
    def clone(self):
        """An independent copy.  Cheap: each component copies what changes (`Board.clone`, ...); what
        is never changed in place (the listed actions, the rules) is shared; the bag's random
        generator is only used while the game is set up, so it is shared too."""
        g = Game.__new__(Game)
        g.__dict__.update(self.__dict__)
        self.copy_fields(g)
        g.supply = self.supply.clone()
        g.board = self.board.clone()
        g.bag = self.bag.clone()
        g.rounds = self.rounds.clone()
        g.prisoners = self.prisoners.clone()
        g.outposts = self.outposts.clone()
        return g


# per moment, the move types offered then (runtime/moves.py's WHEN) and what applies each (runtime/moments.py)
_OFFERED = OFFERED
_APPLY = applying(Game, _OFFERED)
_APPLY_TURN = _APPLY[TURN]
_watched = watching()  # each declared decision's watch and `ended`: moment() is asked only when one is true
# The shipped DECISIONS' watch (closing, outpost, capture), read as fields by legal_actions and apply_action
_SHIPPED = _watched if tuple(d.watch for d in DECISIONS) == ("prisoners.closing", "siege_open", "prisoners.pending") else None


def _offers(R):
    """{moment: what lists the moves rule set R offers then} (moments.listing keeps it per rule set)."""
    return listing(Game, _OFFERED, R)
