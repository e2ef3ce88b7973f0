"""Classes of moves: which of the moves listed now change the values alike (`score_classes`).

Players that try moves (the greedy agent, play/agents.py) try one move of each class: the
board says, without making a move, when two moves change every score, what stands by the rules
(`standing_points`) and the same player's next decision alike -- by what the tile completes
(runtime/lookahead.py), what a figure's putting starts (a capture, an outpost decision), and
where the figures that may be captured stand; and when a move's change is the sum of its bare
placement's and of the decision its figure opens (a *sum* key).  Tests/test_lookahead.py holds
every class to trying its moves, on every bundled module.
"""
from __future__ import annotations

from .decisions import CaptureOpen
from .geometry import AROUND, DX, DY, OPP
from .moves import Capture, Pass, Place, Put, PutAt
from .placekeys import placement_keys


class Classes:
    """Mixin of Game (through Lookahead).  Owns nothing: it reads the board, and a floor's range
    with the floor put for a moment (`_range_with`)."""

    def score_classes(self, actions):
        """For the actions `legal_actions` listed now, one entry each: None when applying it certainly
        leaves every score as it is (as `scores_may_change` says), else a key; actions with equal keys
        change every score alike, so a player that tries moves need try only one of each key.

        None also means that what stands by the rules (`standing_points`: outposts, prisoners) is
        unchanged.  Equal keys: a tile placement with no figure and the same placement with a figure
        on a feature it does not complete, when the rules read without placing the tile how it
        completes (QUICK_COMPLETE), there is no `score ... join`, and putting that figure starts
        nothing of its own (no `score ... put`, no capture, no outpost): the figure then stands on a
        feature that is not scored this turn (or, put on another placed tile, on a feature of a kind
        no `complete` rule completes).  Placements that complete nothing and put a figure
        that starts something share a key with the others that start the same: a figure that may
        send one more to an outpost, by figure and feature kind (what the outpost decision offers
        depends on nothing else); a floor put on another placed tile's tower, by that put (its
        captures do not depend on the tile, which carries no figure).  Every other action is its
        own key."""
        pr = self.prisoners
        if self.rounds.rules and any(figs for row in pr.held for figs in row):
            return list(actions)  # a round's end may send prisoners home (`on round end`): every action its own key
        if type(pr.pending) is CaptureOpen and any(self.bag.decks) and not (self._siege and self.outposts.decision):
            return self._capture_classes(actions)  # a capture to choose, before the turn's scoring
        if pr.closing and any(self.bag.decks) and self._next_draw_quiet():  # after the turn's scoring
            return [None if type(a) is Pass else a for a in actions]  # the pass scores nothing: the next draws
        if pr.pending is not None or not actions or type(actions[0]) is not Place:
            return list(actions)  # captures, passes, decisions, the discard
        if not any(self.bag.decks):
            return self._last_classes(actions)  # the last tile, after which the game is scored
        return placement_keys(self, actions)  # runtime/placekeys.py

    def _next_draw_quiet(self):
        """Whether drawing the next tile of the bag plays nothing (no `on draw` rule, no siege symbol
        on that tile, or none whose catapult comes under an `on draw of KINDS` rule: SIEGE-ADVANCE-1)."""
        if not self._siege or not self.outposts.draw_rules:
            return True
        for d in self.bag.decks:
            if d:
                return not self.draw_symbols(d[-1])  # the symbols whose catapults come (`on draw of KINDS`)
        return True

    def _last_classes(self, actions):
        """The last tile (BASE-END-1: the game is scored once it is placed): each placement is its own
        key, and shares it with the same placement putting a figure that no rule ever scores where it
        stands -- on a feature of a kind with no `complete` and no end scoring (`score KIND end`, nor a
        `by` rule), the figure starting nothing of its own (no `score ... put`, no outpost, no capture:
        `_captures_nothing`), and no outposts to counterattack at the end.  Every other action is its
        own key."""
        b = self.board
        R = self.R
        if R.TRACKS or R.SCORE_BY:
            return list(actions)
        starters = {g for _, g in R.SCORE_PUT} | {g for r in R.OUTPOST_PUTS for g in r[0]}
        captors = R.CAPTURES
        unscored = {k for k in range(len(R.KINDS)) if k not in R.COMPLETE and k not in R.SCORE_END}
        memo = {}
        out = []
        for a in actions:
            if type(a) is not Place:
                out.append(a)  # a ransom
                continue
            cell, rot, fig = a
            if fig is None:
                out.append(("last", cell, rot))
                continue
            ft = type(fig)
            if ft is Put:
                kind = R.ORIENT[self.bag.drawn][rot // 90 % 4].kinds[fig.feature]
            elif ft is PutAt:
                kind = b.seg_kind[b.find(fig.segment)]
            else:
                out.append(a)  # a recall, a figure on a corner
                continue
            gi = fig.figure
            if kind in unscored and gi not in starters and (gi not in captors or self._captures_nothing(fig, cell, rot, memo)):
                out.append(("last", cell, rot))
            else:
                out.append(a)
        return out

    def _capture_here_key(self, a, done, memo):
        """The key of a figure whose putting opens a capture, put on the drawn tile's centre feature (a
        floor on a tower tile): when the tile completes nothing and its `on place` rules change no
        state, every rotation of the tile at that cell gives the feature the same quantities (one tile,
        no sides, the same neighbours), so the same range and the same captures follow, and nothing
        is scored this turn: one key for them all.  Else the action's own key."""
        cell, rot, fig = a
        o = self.R.ORIENT[self.bag.drawn][rot // 90 % 4]
        if fig.feature not in o.centre:
            return a
        c = done.get((cell, rot))
        if c is None:
            c = done[(cell, rot)] = self._completion(cell, rot)
        if c[0] or not self._state_kept(cell, rot, o, memo):
            return a
        return ("capture here", cell, fig.figure, fig.feature)

    def _state_kept(self, cell, rot, o, memo):
        """Whether the tile's `on place` rules, at `cell` turned `rot`, leave every state as it is."""
        key = ("st", cell, rot)
        same = memo.get(key)
        if same is None:
            st = self.st
            same = memo[key] = all(st[i] == v for i, v in self.R.on_place(self, o, cell))
        return same

    def _captures_nothing(self, fig, cell, rot, memo):
        """Whether putting `fig` (a figure a `capture` rule names: the Tower's floor) with the drawn tile
        at `cell` turned `rot` certainly opens no capture decision (TOWER-CAPTURE-1), read from the board
        without placing the tile: no figure of the kinds it may capture stands in line with the
        feature's tile at any distance; or, on another placed tile's feature (PutAt) that the tile
        neither joins nor stands beside (so its quantities stay as they are) when the tile's `on place`
        rules change no state, none stands in line within the range the rule gives that feature with
        the figure on it (TOWER-CAPTURE-2).  The tile itself carries no figure that may be captured (it
        carries this one).  `memo`, a dict the caller keeps for this very state."""
        b = self.board
        gi = fig.figure
        kinds, range_fn = self.R.CAPTURES[gi][:2]
        spots = memo.get(kinds)
        if spots is None:  # where the figures that may be captured stand: (x, y) each, rows, columns
            seg_cell = b.seg_cell
            at = [seg_cell[seg] + (seg,) for figs in filter(None, b.figs) for _, fgi, seg in figs if fgi in kinds]
            spots = memo[kinds] = (at, {y for _, y, _ in at}, {x for x, _, _ in at})
        at, ys, xs = spots
        if type(fig) is not PutAt:  # on the drawn tile: its new feature's range, read with the tile placed
            tx, ty = cell
            if ty not in ys and tx not in xs:
                return True
            o = self.R.ORIENT[self.bag.drawn][rot // 90 % 4]
            if fig.feature not in o.centre or not self._state_kept(cell, rot, o, memo):
                return False
            key = ("new range", cell, gi, fig.feature)  # one tile, no sides: the same in every rotation
            free = memo.get(key)
            if free is None:
                h = self._range_on_tile(cell, rot, gi, fig.feature, range_fn)
                free = memo[key] = not any((x == tx and abs(y - ty) <= h) or (y == ty and abs(x - tx) <= h)
                                           for x, y, _ in at)
            return free
        seg = fig.segment
        tx, ty = b.seg_cell[seg]
        if ty not in ys and tx not in xs:
            return True
        r = b.find(seg)
        if cell is None:  # whatever the tile: True, False, or None when it depends on the tile
            return None if self._range_free(gi, seg, r, range_fn, at, tx, ty, memo) else False
        x, y = cell
        if any(abs(cx - x) <= 1 and abs(cy - y) <= 1 for cx, cy in b.cells[r]):
            return False  # the tile may join the feature or stand among its neighbours
        if not self._state_kept(cell, rot, self.R.ORIENT[self.bag.drawn][rot // 90 % 4], memo):
            return False
        return self._range_free(gi, seg, r, range_fn, at, tx, ty, memo)

    def _range_free(self, gi, seg, r, range_fn, at, tx, ty, memo):
        """Whether no figure at `at` stands in line within the range the capture rule of figure gi
        gives feature r (of segment seg, at tx, ty) with that figure put on it, the board as it is."""
        key = ("range", gi, seg)
        free = memo.get(key)
        if free is None:
            h = self._range_with(gi, seg, r, range_fn)
            inside = memo[("inside", gi, seg)] = {
                self.board.find(s) for x, y, s in at if (x == tx and abs(y - ty) <= h) or (y == ty and abs(x - tx) <= h)}
            free = memo[key] = not inside
        return free

    def _range_with(self, gi, seg, r, range_fn):
        """The range the capture rule of figure gi gives feature r with that figure put on segment seg."""
        figs = self.board.figs
        keep = figs[r]
        figs[r] = keep + [(self.current, gi, seg)]  # as `_put_figure` leaves it
        try:
            return range_fn(self, r)
        finally:
            figs[r] = keep

    def _capture_apart(self, fig, cell, memo):
        """Whether no figure that putting `fig` on another placed tile (PutAt) may capture stands on a
        feature a tile at `cell` joins, or on a centre feature around it (`_range_free` was asked
        first and found some in range): the tile's completions and the capture then change the values
        apart, each as it would alone."""
        inside = memo.get(("inside", fig.figure, fig.segment))
        if inside is None:
            return False
        touch = memo.get(("touch", cell))
        if touch is None:
            touch = memo[("touch", cell)] = self._roots_near(cell)
        return not (inside & touch)

    def _roots_near(self, cell):
        """The roots of the features a tile at `cell` would join, and of the centre features around it."""
        x, y = cell
        tiles, find = self.board.tiles, self.board.find
        out = set()
        for d in range(4):
            nb = tiles.get((x + DX[d], y + DY[d]))
            if nb is not None:
                o, base = nb
                for p in o.parts[OPP[d]]:
                    if p >= 0:
                        out.add(find(base + p))
        for dx, dy in AROUND:
            nb = tiles.get((x + dx, y + dy))
            if nb is not None:
                o, base = nb
                for i in o.centre:
                    out.add(find(base + i))
        return out

    def _capture_classes(self, actions):
        """The capture decision (TOWER-CAPTURE-1): captures of the same owner's same figure, with the
        same figure back in an exchange, change the scores and the prisoners alike when the feature
        it stands on is not scored this turn (the tile's scoring follows the decision); the pass
        changes no score when the turn's scoring that follows it scores nothing (the tile completes
        nothing, no `score ... put` waits, no outpost row was filled, the next tile drawn plays
        nothing); every other move is its own key."""
        finishing = self._finishing()
        quiet_pass = not finishing and not self.outposts.filled and not (self.prisoners.put_after and self.R.SCORE_PUT) \
            and self._next_draw_quiet()
        out = []
        for a in actions:
            t = type(a)
            if t is Capture and self.board.find(a.segment) not in finishing:
                out.append(("captive", a.owner, a.figure, a.back))
            elif t is Pass and quiet_pass:
                out.append(None)
            else:
                out.append(a)
        return out

    def _finishing(self):
        """The roots of the features the pending placement will complete when its turn is scored
        (the candidates `_score_completed` tests, tested the same way, nothing changed)."""
        b = self.board
        pend = self.prisoners.pending
        cell, touched = pend.cell, pend.touched
        x, y = cell
        cands = set(b.find(r) for r in touched)
        tiles = b.tiles
        for dx, dy in AROUND:
            nb = tiles.get((x + dx, y + dy))
            if nb is not None:
                for i in nb[0].centre:
                    cands.add(b.find(nb[1] + i))
        complete = self.R.COMPLETE
        done = b.done
        seg_kind = b.seg_kind
        out = set()
        for r in cands:
            if not done[r]:
                test = complete.get(seg_kind[r])
                if test is not None and test(self, r):
                    out.add(r)
        return out
