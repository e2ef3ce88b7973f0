"""Lookahead: what a tile placement would do to the scores, without making it.

Players that try moves (the greedy agent, play/agents.py) ask these
before paying for a clone and a whole move.  Both answer from the same
candidates `_score_completed` tests, and both err on the side of "it may":
a player that skips a move they call quiet loses nothing, since applying it
would leave every score as it is (tests/test_lookahead.py holds them to that
on every bundled module).
"""
from __future__ import annotations

from .classes import Classes
from .geometry import AROUND, DX, DY, KEY, OPP, STEP
from .moves import Place, PutAt, Recall, as_move
from .nearby import _completion_of, _figures_near_of


class Lookahead(Classes):
    """Mixin of Game.  Owns nothing: `completes` changes the board and puts it back.  Which moves
    change the values alike (`score_classes`) is runtime/classes.py's."""

    def standing_points(self):
        """Per player, what stands now is worth by the rules' own terms, beside the score: a figure
        on an outpost, what the outposts' `on end` rules would pay for it were the game to end now
        (SIEGE-END-1); a prisoner that the rules' `ransom` lets its owner buy back, its price now,
        to its holder, and minus its price to its owner (TOWER-RANSOM-1).  Players that try moves
        add it to the score (play/agents.py's greedy), so that a figure sent to an outpost,
        a capture and a ransom show what they set up.  All zeros without outposts and ransoms."""
        R = self.R
        out = [0] * self.nplayers
        if self._siege:
            for event, tracks, acts, _ in R.TRACK_RULES:
                if event != "end":
                    continue
                for t in tracks:
                    if not (self.outposts.rows[t] or self.outposts.pools[t]):
                        continue
                    for act in acts:
                        if act[0] == "score":
                            for p in range(self.nplayers):
                                out[p] += act[1](self, t, p)
        rn = R.RANSOM
        if rn is not None:
            kinds, price = rn[0], rn[1]
            for h, row in enumerate(self.prisoners.held):
                for o, figs in enumerate(row):
                    n = sum(1 for gi in figs if gi in kinds)
                    if n:
                        v = n * price(self)
                        out[h] += v
                        out[o] -= v
        return out

    def scores_may_change(self, action, cache=None):
        """False only when applying `action` (one `legal_actions` listed now) certainly leaves every
        score as it is.  Points go to a feature's owners when it completes (and by `put`, `join`,
        `recall` and `ransom` rules, and at the end), so a tile placement is quiet when it is not the
        last tile, its figure (if any) has no `put` rule, and either it puts no figure and no figure
        stands on a feature it joins or on a centre feature around it, or it completes nothing and
        joins no figures a `join` rule scores (`self.completes`; `cache`, a dict the caller keeps for
        this very state, keeps its answers by cell and by (cell, rotation) for the next actions there)."""
        if type(action) is tuple:  # written as plain tuples
            action = as_move(action)
        if self.prisoners.pending is not None or type(action) is not Place or not any(self.bag.decks):
            return True  # a capture, pass, ransom or discard; or the last tile, after which the game is scored
        cell, rot, fig = action
        R = self.R
        if fig is not None:
            if type(fig) is Recall or type(fig) is PutAt:
                return True
            if R.SCORE_PUT and any(g == fig.figure for _, g in R.SCORE_PUT):
                return True
        if cache is None:
            return (fig is not None or self._figures_near(cell)) and self._completion(cell, rot)[0]
        if fig is None:
            near = cache.get(cell)
            if near is None:
                near = cache[cell] = self._figures_near(cell)
            if not near:
                return False
        done = cache.get((cell, rot))
        if done is None:
            done = cache[(cell, rot)] = self._completion(cell, rot)[0]
        return done

    _figures_near = _figures_near_of  # module functions: typed on the native kernel (lookahead.pxd)
    _completion = _completion_of

    def _joins_figures(self, o, cell):
        """Whether placing o at `cell` would merge two placed features that both hold figures (what a
        `score ... join` rule scores): some feature of the tile, alone or with others of the tile
        through a placed feature, meets two placed features with figures."""
        b = self.board
        x, y = cell
        tiles = b.tiles
        parent = b.parent
        find = b.find
        figs = b.figs
        groups = []  # roots with figures, per group of the tile's features joined through placed ones
        for sides in o.sidefeat:
            roots = set()
            for d, k in sides:
                nb = tiles.get((x + DX[d], y + DY[d]))
                if nb is not None:
                    no, nbase = nb
                    part = no.parts[OPP[d]][k]
                    if part >= 0:
                        s = parent[nbase + part]
                        roots.add(s if parent[s] == s else find(s))
            if not roots:
                continue
            for h in [h for h in groups if h & roots]:
                groups.remove(h)
                roots = roots | h
            groups.append(roots)
        return any(sum(1 for r in g if figs[r]) >= 2 for g in groups)

    def completes(self, cell, rot):
        """Whether placing the drawn tile at `cell` turned `rot` degrees (no figure) would complete a
        feature (by the rules' `complete` conditions, after its `on place` state changes) or join
        figures a `join` rule scores.  The tile is placed, the candidates tested, and everything
        placing it changed is put back."""
        return self._with_tile(cell, rot, lambda o, touched, joins: self._completes_placed(cell, touched, joins))

    def _completes_placed(self, cell, touched, joins):
        b = self.board
        if len(b.joins) > joins:
            return True
        x, y = cell
        tiles = b.tiles
        cands = set(touched)
        for dx, dy in AROUND:
            nb = tiles.get((x + dx, y + dy))
            if nb is not None:
                no, nbase = nb
                for i in no.centre:
                    cands.add(b.find(nbase + i))
        seg_kind = b.seg_kind
        complete = self.R.COMPLETE
        done = b.done
        for r in cands:
            if not done[r]:
                test = complete.get(seg_kind[r])
                if test is not None and test(self, r):
                    return True
        return False

    def _range_on_tile(self, cell, rot, gi, feature, range_fn):
        """The range a `capture` rule gives the drawn tile's feature `feature` with figure gi put on
        it, the tile placed at `cell` turned `rot` (and taken back)."""
        b = self.board
        def ask(o, touched, joins):
            seg = b.tiles[cell][1] + feature
            r = b.find(seg)
            b.figs[r] = b.figs[r] + [(self.current, gi, seg)]  # as `_put_figure` leaves it
            return range_fn(self, r)
        return self._with_tile(cell, rot, ask)

    def _with_tile(self, cell, rot, ask):
        """`ask(o, touched, joins)` with the drawn tile placed at `cell` turned `rot` (after its `on
        place` state changes; `touched`, the roots it touches; `joins`, the joins noted before it);
        then everything placing it changed is put back, the order of the board's cells too."""
        b = self.board
        R = self.R
        o = R.ORIENT[self.bag.drawn][rot // 90 % 4]
        x, y = cell
        tiles = b.tiles
        parent = b.parent
        saved_parent = parent[:]  # unions and path compression change it anywhere
        n = len(parent)
        roots = set()
        for d in range(4):
            nb = tiles.get((x + DX[d], y + DY[d]))
            if nb is not None:
                no, nbase = nb
                for p in no.parts[OPP[d]]:
                    if p >= 0:
                        s = parent[nbase + p]  # most segments point at their root already
                        roots.add(s if parent[s] == s else b.find(s))
        cells, shields, open_, figs, borders, done = lists = (b.cells, b.shields, b.open, b.figs,
                                                              b.borders, b.done)
        saved_roots = [(r, cells[r], shields[r], open_[r], figs[r], borders[r], done[r]) for r in roots]
        saved_frontier = b.frontier.copy()  # (a cell's place in fkeys and fcodes, whose order legal_actions lists)
        fkeys, saved_codes = b.fkeys, b.fcodes[:]  # place appends to fkeys (or makes new lists), changes fcodes
        nkeys = len(fkeys)
        near = b.near
        key = x * KEY + y  # the cell's integer: the board's dicts the hot path reads are keyed by it
        saved_near = [(c, near.get(c)) for c in (key, *(key + d for d in STEP))]
        saved_st = self.st[:]
        saved_anywhere, saved_centres = len(b.anywhere_segs), (b.centres, b.around_centres)
        if o.centre:  # add_centre changes around_centres in place: the tile's try gets a copy
            b.around_centres = b.around_centres.copy()
        joins = len(b.joins)
        saved_ready, b.ready = b.ready, {}  # the corners kept are right again once the tile is taken back
        solo, b.solo = b.solo, False  # the sets of cells saved above stay as they are: the try's merges make new ones
        try:
            for name_i, val in R.on_place(self, o, cell):
                self.st[name_i] = val
            touched = b.place(o, cell)
            return ask(o, touched, joins)
        finally:
            parent[:] = saved_parent
            for lst in (b.seg_kind, b.seg_cell, *lists):
                del lst[n:]
            for r, c, sh, op, f, bs, dn in saved_roots:
                cells[r], shields[r], open_[r], figs[r], borders[r], done[r] = c, sh, op, f, bs, dn
            tiles.pop(cell, None)  # the last key: the order of the others is kept
            b.at.pop(key, None)
            b.ready, b.solo = saved_ready, solo
            b.frontier = saved_frontier
            del fkeys[nkeys:]
            b.fkeys, b.fcodes = fkeys, saved_codes
            for c, was in saved_near:  # placing changed these cells' neighbours only
                if was is None:
                    near.pop(c, None)
                else:
                    near[c] = was
            self.st[:] = saved_st
            del b.anywhere_segs[saved_anywhere:]
            b.centres, b.around_centres = saved_centres  # the kept ones (centres is replaced, never changed in place)
            del b.joins[joins:]
