"""Figures: each player's supply, where a figure may go, recalls, and why a figure is refused.

Whether a figure may stand on a feature is decided in ONE place: the rules'
generated `figure_options(g, o, cell, nbr, sup)`, which lists the (figure,
local feature) pairs allowed on a tile about to be placed -- each figure's
supply, the kinds it may stand on and its `when` condition.  `legal_actions`
lists those pairs, `apply_action` accepts exactly those, and a refusal names
the part of the `figure` statement that failed.
"""
from __future__ import annotations

from .errors import article
from .moves import Put, PutAt, PutCorner, Recall


class Figures:
    """Mixin of Game.  Owns: supply, recallable."""

    def _init_figures(self, players):
        self.supply = [[f.count_for(players) for f in self.R.FIGURES] for _ in range(players)]
        self.recallable = {}  # seg -> (player, figure) for figures that a `recall` rule may take back

    def figure_name(self, gi):
        return self.R.FIGURES[gi].name

    def figure_index(self, name):
        """The index of the figure called `name`, or None."""
        for gi, f in enumerate(self.R.FIGURES):
            if f.name == name:
                return gi
        return None

    def figure_options(self, o, cell, player=None):
        """(figure, local feature) pairs `player` (default: the current one) may put on o placed at cell."""
        p = self.current if player is None else player
        return self.R.figure_options(self, o, cell, self._figure_context(cell), self.supply[p])

    def figure_refusal(self, o, cell, gi, fi, corner=None):
        """None if the current player may put figure gi on local feature fi of o at cell (on
        `corner` for a figure declared `at corner`), else (message, clause): the clause of the
        part of the `figure` statement that refuses it -- its supply, where it may stand, or
        its `when` condition -- or of the `forbid` that takes the option away."""
        R = self.R
        fig = Put(gi, fi) if corner is None else PutCorner(gi, fi, corner)
        if 0 <= fi < len(o.feats) and fig in self.figure_options(o, cell):
            return None
        supply, on, when = R.FIG_CLAUSES[gi]
        fname = R.FIGURES[gi].name
        empty = self.supply[self.current][gi] <= 0
        at_corner = gi in R.FIG_CORNER
        if empty:
            return (f"no {fname} left in supply", supply)
        if at_corner != (corner is not None):
            if at_corner:
                return (f"{article(fname)} stands on a corner where four tiles meet, not on a feature", on)
            return (f"{article(fname)} stands on a feature of the tile, not on a corner", on)
        if at_corner:
            why = self.corner_refusal(o, cell, corner, R.FIG_KINDS[gi], fname)
            if why is not None:
                return (why, on)
        if not 0 <= fi < len(o.feats):
            return (f"tile {o.tile.name} has no feature {fi} to put {article(fname)} on", on)
        kind = o.feats[fi].kind
        if kind not in R.FIG_KINDS[gi]:
            return (f"{article(fname)} cannot stand on {article(R.KINDS[kind].name)}", on)
        forbidden = R.figure_forbidden(self, o, cell, self._neighbour_roots(cell), gi, fi)
        if forbidden is not None:
            src, clause = forbidden
            return (f"{article(fname)} may not be placed on this {R.KINDS[kind].name}: the rule "
                    f"`forbid {fname} on {R.KINDS[kind].name} when {src}` holds", clause)
        if kind not in R.FIGURES[gi].on:  # only an `allow` opens this kind to the figure
            for kinds, src, clause in R.FIG_ALLOWS.get(gi, ()):
                if kind in kinds:
                    return (f"{article(fname)} may not be placed on this {R.KINDS[kind].name}: the rule "
                            f"`allow {fname} on {R.KINDS[kind].name} when {src}` does not hold", clause)
        return (f"{article(fname)} may not be placed on this {R.KINDS[kind].name}: "
                f"the rule `{R.FIG_WHEN_SRC[gi]}` does not hold", when)

    def anywhere_options(self, player=None):
        """PutAt(figure, cell, root) for every placed feature on which `player` (default: the
        current one) may put a figure that goes anywhere (`on KINDS anywhere`, TOWER-TURN-1).
        Read before the new tile is placed: the features such figures stand on (a tower
        foundation) lie on one tile, so placing a tile elsewhere does not change them."""
        R = self.R
        if not R.FIG_ANYWHERE:
            return []
        p = self.current if player is None else player
        sup = self.supply[p]
        parent, seg_cell = self.parent, self.seg_cell
        options = R.figure_options_at
        out = []
        for s in self.anywhere_segs:  # the segments of those kinds, in the order they were placed
            if parent[s] == s:
                for gi in options(self, s, sup):
                    out.append(PutAt(gi, seg_cell[s], s))
        return out

    def anywhere_refusal(self, gi, cell, seg):
        """None if the current player may put figure gi on the placed feature `seg` at `cell`,
        else (message, clause) naming the statement that refuses it: the figure's own `on` list
        (it goes only on the tile just placed), the statement that says which figures may stand
        on that kind anywhere, the supply, a `forbid`, or the condition of its `anywhere` part."""
        R = self.R
        r = self.find(seg)
        if PutAt(gi, self.seg_cell[r], r) in self.anywhere_options():
            return None
        supply, on, when = R.FIG_CLAUSES[gi]
        fname = R.FIGURES[gi].name
        k = self.seg_kind[r]
        kind = R.KINDS[k].name
        at = f"[{cell[0]},{cell[1]}]"
        parts = [p for p in R.ANYWHERE_AT.get(gi, ()) if k in p[0]]
        if not parts:
            if k in R.ANYWHERE_KIND_CLAUSE:
                may = [R.FIGURES[g].name for g, ps in R.ANYWHERE_AT.items() if any(k in p[0] for p in ps)]
                return (f"{article(fname)} may not be put on {article(kind)}: only "
                        f"{' or '.join(article(m) for m in may)} may", R.ANYWHERE_KIND_CLAUSE[k])
            if gi not in R.FIG_ANYWHERE or k in R.FIGURES[gi].on:
                return (f"{article(fname)} goes on {article(kind)} only on the tile just placed, "
                        f"not on the tile at {at}", on)
            return (f"{article(fname)} cannot stand on {article(kind)}", R.ANYWHERE_AT[gi][0][2])
        if self.supply[self.current][gi] <= 0:
            return (f"no {fname} left in supply", supply)
        forbidden = R.figure_forbidden_at(self, r, gi)
        if forbidden is not None:
            src, clause = forbidden
            return (f"{article(fname)} may not be placed on the {kind} at {at}: the rule "
                    f"`forbid {fname} on {kind} when {src}` holds", clause)
        _, src, _, when_clause = parts[0]
        return (f"{article(fname)} may not be placed on the {kind} at {at}: "
                f"the rule `{src}` does not hold", when_clause)

    def recall_options(self):
        """Own figures on the board that a `recall` rule lets the current player take back."""
        if not self.recallable:
            return []
        p = self.current
        out = [Recall(gi, self.seg_cell[seg], seg) for seg, (pl, gi) in self.recallable.items() if pl == p]
        out.sort(key=lambda a: (a.cell, a.figure))
        return out

    def _put_figure(self, p, gi, seg):
        r = self.find(seg)
        self.figs[r] = self.figs[r] + [(p, gi, seg)]
        if gi in self.R.RECALLS:
            self.recallable[seg] = (p, gi)
        self.supply[p][gi] -= 1

    def _remove_fig(self, r, p, gi, seg):
        out = list(self.figs[r])
        for i, e in enumerate(out):
            if e == (p, gi, seg):
                del out[i]
                break
        return out

    def supply_by_name(self):
        R = self.R
        return {self.names[p]: {R.FIGURES[g].name: n for g, n in enumerate(self.supply[p])} for p in range(self.nplayers)}
