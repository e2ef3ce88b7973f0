"""Lookahead: what a tile placement would do to the scores, without making it.

Players that try moves (the greedy agent, compiler/agents.py) ask these
before paying for a clone and a whole move.  Both answer from the same
candidates `_score_completed` tests, and both err on the side of "it may":
a player that skips a move they call quiet loses nothing, since applying it
would leave every score as it is (tests/test_lookahead.py holds them to that
on every bundled module).
"""
from __future__ import annotations

from .geometry import AROUND, DX, DY, OPP


class Lookahead:
    """Mixin of Game.  Owns nothing: `completes` changes the board and puts it back."""

    def scores_may_change(self, action, cache=None):
        """False only when applying `action` (one `legal_actions` listed now) certainly leaves every
        score as it is.  Points go to a feature's owners when it completes (and by `put`, `join`,
        `recall` and `ransom` rules, and at the end), so a tile placement is quiet when it is not the
        last tile, its figure (if any) has no `put` rule, and either it puts no figure and no figure
        stands on a feature it joins or on a centre feature around it, or it completes nothing and
        joins no figures a `join` rule scores (`self.completes`; `cache`, a dict the caller keeps for
        this very state, keeps its answers by cell and by (cell, rotation) for the next actions there)."""
        if self.pending is not None or len(action) != 3 or not isinstance(action[0], tuple) or not any(self.decks):
            return True  # a capture, pass, ransom or discard; or the last tile, after which the game is scored
        cell, rot, fig = action
        R = self.R
        if fig is not None:
            if fig[0] in ("recall", "at"):
                return True
            if R.SCORE_PUT and any(g == fig[0] for _, g in R.SCORE_PUT):
                return True
        if cache is None:
            return (fig is not None or self._figures_near(cell)) and self.completes(cell, rot)
        if fig is None:
            near = cache.get(cell)
            if near is None:
                near = cache[cell] = self._figures_near(cell)
            if not near:
                return False
        done = cache.get((cell, rot))
        if done is None:
            done = cache[(cell, rot)] = self.completes(cell, rot)
        return done

    def _figures_near(self, cell):
        """Whether a figure stands on a feature a tile at `cell` would join, or on a centre feature around it."""
        x, y = cell
        board = self.board
        figs = self.figs
        find = self.find
        for d in range(4):
            nb = board.get((x + DX[d], y + DY[d]))
            if nb is not None:
                o, base = nb
                for p in o.parts[OPP[d]]:
                    if p >= 0 and figs[find(base + p)]:
                        return True
        for dx, dy in AROUND:
            nb = board.get((x + dx, y + dy))
            if nb is not None:
                o, base = nb
                for i in o.centre:
                    if figs[find(base + i)]:
                        return True
        return False

    def completes(self, cell, rot):
        """Whether placing the drawn tile at `cell` turned `rot` degrees (no figure) would complete a
        feature (by the rules' `complete` conditions, after its `on place` state changes) or join
        figures a `join` rule scores.  The tile is placed, the candidates tested, and everything
        placing it changed is put back."""
        R = self.R
        o = R.ORIENT[self.drawn][rot // 90 % 4]
        x, y = cell
        board = self.board
        parent = self.parent
        keep_parent = parent[:]  # unions and path compression change it anywhere
        n = len(parent)
        roots = set()
        for d in range(4):
            nb = board.get((x + DX[d], y + DY[d]))
            if nb is not None:
                no, nbase = nb
                for p in no.parts[OPP[d]]:
                    if p >= 0:
                        s = parent[nbase + p]  # most segments point at their root already
                        roots.add(s if parent[s] == s else self.find(s))
        cells, shields, open_, figs, borders, done = lists = (self.cells, self.shields, self.open, self.figs,
                                                              self.borders, self.done)
        keep_roots = [(r, cells[r], shields[r], open_[r], figs[r], borders[r], done[r]) for r in roots]
        keep_frontier = self.frontier.copy()  # its order is the order legal_actions lists cells in
        keep_st = self.st[:]
        keep_anywhere = len(self.anywhere_segs)
        joins = len(self.joins)
        try:
            for name_i, val in R.on_place(self, o, cell):
                self.st[name_i] = val
            touched = self._place(o, cell)
            if len(self.joins) > joins:
                return True
            cands = set(touched)
            for dx, dy in AROUND:
                nb = board.get((x + dx, y + dy))
                if nb is not None:
                    no, nbase = nb
                    for i in no.centre:
                        cands.add(self.find(nbase + i))
            seg_kind = self.seg_kind
            complete = R.COMPLETE
            for r in cands:
                if not done[r]:
                    test = complete.get(seg_kind[r])
                    if test is not None and test(self, r):
                        return True
            return False
        finally:
            parent[:] = keep_parent
            for lst in (self.seg_kind, self.seg_cell, *lists):
                del lst[n:]
            for r, c, sh, op, f, b, dn in keep_roots:
                cells[r], shields[r], open_[r], figs[r], borders[r], done[r] = c, sh, op, f, b, dn
            board.pop(cell, None)  # the last key: the order of the others is kept
            self.frontier = keep_frontier
            self.st[:] = keep_st
            del self.anywhere_segs[keep_anywhere:]
            del self.joins[joins:]
