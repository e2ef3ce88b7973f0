"""Scoring: completion, owners, points for owners, returned figures, recalls, final scoring, awards."""
from __future__ import annotations

from .figures import remove_fig
from .geometry import AROUND
from .outposts import final_outposts
from .rounds import last_round


class Scoring:
    """Mixin of Game.  Owns: scores, ended.  Reads the board (`g.board`, runtime/board.py)."""

    def owners(self, r):
        figs = self.board.figs[r]
        if not figs:
            return []
        count = {}
        corner = self.R.FIG_CORNER  # a figure on a corner makes nobody an owner
        for p, gi, seg in figs:
            if gi not in corner:
                count[p] = count.get(p, 0) + 1
        if not count:
            return []
        if not self.R.OWNERS_MOST:
            return sorted(count)
        top = max(count.values())
        return sorted(p for p, c in count.items() if c == top)

    def _award(self, r, kind, when, rule):
        """Score feature r for its owners: by `rule` (fn, clause; None: no plain rule), or by a
        `score ... by FIGURE` rule for an owner whose figure there is that figure.  A FIGURE on a
        corner makes nobody an owner: every player with one there scores by its `by` rule, in
        full.  One event per clause."""
        by = self.R.SCORE_BY
        groups = {}
        for p in self.owners(r):
            fn, clause = rule if rule is not None else (None, None)
            if by:
                for pl, gi, _ in self.board.figs[r]:
                    if pl == p and (when, kind, gi) in by and gi not in self.R.FIG_CORNER:
                        fn, clause = by[(when, kind, gi)]
                        break
            if fn is None:
                continue
            pts = fn(self, r)
            if pts:
                self.scores[p] += pts
                groups.setdefault(clause, {})[self.names[p]] = pts
        if by and self.R.FIG_CORNER:
            seen = set()
            for pl, gi, _ in self.board.figs[r]:
                if gi in self.R.FIG_CORNER and (when, kind, gi) in by and (pl, gi) not in seen:
                    seen.add((pl, gi))
                    fn, clause = by[(when, kind, gi)]
                    pts = fn(self, r)
                    if pts:
                        self.scores[pl] += pts
                        points = groups.setdefault(clause, {})
                        points[self.names[pl]] = points.get(self.names[pl], 0) + pts
        for clause, points in groups.items():
            self.events.append({"turn": self.turn, "kind": "score", "feature": self.R.KINDS[kind].name, "when": when,
                                "tiles": len(self.board.cells[r]), "points": points, "clause": clause})

    def _score_completed(self, cell, touched):
        """Features the tile just placed at cell completed (its own, and centre features around it)."""
        R = self.R
        x, y = cell
        cands = list(touched)
        b = self.board
        tiles = b.tiles
        parent = b.parent
        for dx, dy in AROUND:
            nb = tiles.get((x + dx, y + dy))
            if nb is not None and nb[0].centre:  # a cloister (or garden) around may be complete now
                base = nb[1]
                for i in nb[0].centre:
                    s = parent[base + i]
                    cands.append(s if parent[s] == s else b.find(s))
        done = b.done
        seg_kind = b.seg_kind
        complete = R.COMPLETE
        finished = []
        for r in set(cands):
            if not done[r]:
                test = complete.get(seg_kind[r])
                if test is not None and test(self, r):
                    finished.append(r)
        if len(finished) > 1:
            finished.sort(key=self._canon)  # several in one turn: a canonical order (the King's depends on it)
        for r in finished:
            kind = seg_kind[r]
            done[r] = True
            b.completed_count[kind] += 1
            sc = R.SCORE_COMPLETE.get(kind)
            if sc is not None:
                self._award(r, kind, "complete", sc)
            self._return_figures(r)
            R.on_complete(self, r, kind)

    def _return_figures(self, r):
        """After a scoring, figures with a `return ... when scored` rule go back to supply."""
        R = self.R
        b = self.board
        if b.figs[r]:
            keep = []
            s = self.supply
            for e in b.figs[r]:
                if e[1] in R.RETURNS:
                    s.left[e[0]][e[1]] += 1
                    s.recallable.pop(e[2], None)
                    if b.corner_at.pop(e, None) is not None:
                        b.on_corners -= 1
                else:
                    keep.append(e)
            b.figs[r] = keep

    def _recall(self, p, gi, seg):
        """Player p takes back figure gi standing on segment seg and scores the recall rule."""
        R = self.R
        b = self.board
        r = b.find(seg)
        fn, clause = R.RECALLS[gi]
        pts = fn(self, r)
        b.figs[r] = remove_fig(self, r, p, gi, seg)
        self.supply.recallable.pop(seg, None)
        self.supply.left[p][gi] += 1
        self.scores[p] += pts
        self.events.append({"turn": self.turn, "kind": "score", "feature": R.KINDS[b.seg_kind[seg]].name, "when": "recall",
                            "tiles": len(b.cells[r]), "points": {self.names[p]: pts}, "clause": clause})

    def _final(self):
        R = self.R
        self.ended = True
        last_round(self)  # the game's end closes a round not every player had a turn in (runtime/rounds.py)
        if R.TRACKS:  # every outpost counterattacks before final scoring (SIEGE-END-1)
            final_outposts(self)
        b = self.board
        parent, figs, done = b.parent, b.figs, b.done
        roots = [r for r in range(len(parent)) if parent[r] == r and figs[r] and not done[r]]
        roots.sort(key=self._canon)
        for r in roots:
            kind = b.seg_kind[r]
            sc = R.SCORE_END.get(kind)
            if sc is not None or R.SCORE_BY:
                self._award(r, kind, "end", sc)
        for si, fn, clause, name in R.AWARDS:
            holder = self.st[si]
            if 0 <= holder < self.nplayers:
                pts = fn(self)
                self.scores[holder] += pts
                self.events.append({"turn": self.turn, "kind": "award", "award": name, "when": "end",
                                    "points": {self.names[holder]: pts}, "clause": clause})
        for si, fn, clause, name in R.AWARDS_MOST:
            values = self.st[si]
            top = max(values)
            if top <= 0:
                continue  # nobody has any: nobody has the most
            pts = fn(self)
            won = [p for p in range(self.nplayers) if values[p] == top]  # a tie: each of them scores
            for p in won:
                self.scores[p] += pts
            self.events.append({"turn": self.turn, "kind": "award", "award": name, "when": "end",
                                "points": {self.names[p]: pts for p in won}, "clause": clause})

    def finish(self):
        """End the game now (a record's `"end": "final"`): final scoring."""
        if not self.ended:
            self._final()

    def winners(self):
        top = max(self.scores)
        return [self.names[p] for p in range(self.nplayers) if self.scores[p] == top]
