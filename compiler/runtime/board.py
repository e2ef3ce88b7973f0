"""The board: placed tiles, the frontier, and features merged by union-find.

Every feature of a placed tile is a segment (an integer); segments that meet
across an edge are merged.  Per root the board keeps the quantities rules
read: its cells, shields, open edges, figures, bordered features, completion.
"""
from __future__ import annotations

from .geometry import AROUND, DX, DY, OPP


_NO_EDGES = (-1, -1, -1, -1)


class Board:
    """Mixin of Game.  Owns: board, frontier, parent, seg_kind, seg_cell, cells,
    shields, open, figs, borders, done, completed_count."""

    def _init_board(self, nkinds):
        self.board = {}  # (x, y) -> (Orientation, segbase)
        self.frontier = {}  # empty cell -> (codes of the 4 neighbouring edges facing it, -1 if none)
        self.parent = []
        self.seg_kind = []
        self.seg_cell = []
        self.cells = []  # root -> set of cells (never changed in place: a merge makes a new set, so clones share them)
        self.shields = []
        self.open = []
        self.figs = []  # root -> list of (player, figure, seg); replaced, never changed in place
        self.borders = []  # root -> list of bordered segs; replaced, never changed in place
        self.done = []  # root -> completed?
        self.completed_count = [0] * nkinds

    # ------------------------------------------------------------ union-find
    def find(self, s):
        parent = self.parent
        while parent[s] != s:
            parent[s] = parent[parent[s]]
            s = parent[s]
        return s

    def _union(self, a, b):
        ra, rb = self.find(a), self.find(b)
        if ra == rb:
            self.open[ra] -= 2
            return ra
        if len(self.cells[ra]) < len(self.cells[rb]):
            ra, rb = rb, ra
        self.parent[rb] = ra
        self.cells[ra] = self.cells[ra] | self.cells[rb]  # a new set: clones share the old ones
        self.shields[ra] += self.shields[rb]
        self.open[ra] += self.open[rb] - 2
        if self.figs[rb]:
            if self.figs[ra] and self.track_joins:  # a `score ... join` rule may apply (runtime/corners.py)
                self.joins.append((self.figs[ra], self.figs[rb], ra))
            self.figs[ra] = self.figs[ra] + self.figs[rb]
        if self.borders[rb]:
            self.borders[ra] = self.borders[ra] + self.borders[rb]
        self.done[ra] = self.done[ra] or self.done[rb]
        self.cells[rb] = None
        self.figs[rb] = None
        return ra

    # ------------------------------------------------------------ placing
    def _place(self, o, cell):
        """Put orientation o on cell: new segments, merged with the neighbours'. Returns touched roots."""
        x, y = cell
        base = len(self.parent)
        self.board[cell] = (o, base)
        self.frontier.pop(cell, None)
        n = len(o.kinds)
        self.parent.extend(range(base, base + n))
        self.seg_kind.extend(o.kinds)
        self.seg_cell.extend([cell] * n)
        self.cells.extend([{cell} for _ in range(n)])
        self.shields.extend(o.shields)
        self.open.extend(o.nopen)
        self.figs.extend([[] for _ in range(n)])
        self.borders.extend([[base + b for b in bs] for bs in o.borders])
        self.done.extend([False] * n)
        touched = set()
        for d in range(4):
            nc = (x + DX[d], y + DY[d])
            nb = self.board.get(nc)
            if nb is None:
                pat = self.frontier.get(nc, _NO_EDGES)
                od = OPP[d]
                self.frontier[nc] = pat[:od] + (o.edges[d],) + pat[od + 1:]
                continue
            no, nbase = nb
            mine = o.parts[d]
            theirs = no.parts[OPP[d]]
            for k in range(3):
                a = mine[k]
                b = theirs[k]
                if a >= 0 and b >= 0:
                    self._union(base + a, nbase + b)
        for s in range(base, base + n):
            touched.add(self.find(s))
        return touched

    def joined_roots(self, o, cell, fi):
        """Roots of placed features that local feature fi would join if o were placed at cell."""
        x, y = cell
        roots = set()
        board = self.board
        for d, k in o.sidefeat[fi]:
            nb = board.get((x + DX[d], y + DY[d]))
            if nb is not None:
                b = nb[0].parts[OPP[d]][k]
                if b >= 0:
                    roots.add(self.find(nb[1] + b))
        return roots

    def _neighbour_roots(self, cell):
        """For each side of an empty cell, the roots of the neighbour's three facing parts (-1: none)."""
        x, y = cell
        board = self.board
        parent = self.parent
        find = self.find
        out = []
        for d in range(4):
            nb = board.get((x + DX[d], y + DY[d]))
            if nb is None:
                out.append(None)
                continue
            no, nbase = nb
            side = []
            for p in no.parts[OPP[d]]:
                if p < 0:
                    side.append(-1)
                    continue
                s = parent[nbase + p]  # most segments point at their root already: no call
                side.append(s if parent[s] == s else find(s))
            out.append(side)
        return out

    # ------------------------------------------------------------ quantities rules read
    def neighbours(self, r):
        x, y = self.seg_cell[r]
        board = self.board
        return sum(1 for dx, dy in AROUND if (x + dx, y + dy) in board)

    def completed_borders(self, r):
        roots = {self.find(s) for s in self.borders[r]}
        return sum(1 for b in roots if self.done[b])

    def marks_on(self, roots, m):
        """Marks number m (an index into MARKS) printed on the features `roots` are made of.
        Read only when a rule asks (`marks(NAME)`), so merging features keeps no count."""
        find = self.find
        board = self.board
        tops = {find(r) for r in roots}
        n = 0
        seen = set()
        for top in tops:
            for cell in self.cells[top]:
                if cell in seen:
                    continue
                seen.add(cell)
                o, base = board[cell]
                for i, f in enumerate(o.feats):
                    if f.marks and f.marks[m] and find(base + i) in tops:
                        n += f.marks[m]
        return n

    def bordering(self, r, kind):
        """Features of `kind` that the field r borders (through `->`), each once, complete or not."""
        find = self.find
        seg_kind = self.seg_kind
        return len({find(s) for s in self.borders[r] if seg_kind[s] == kind})

    def _link(self, a, b):
        """Join two pieces of one feature of a tile covering several cells (no edge closes
        between them, so the open edges add up: `_union` takes 2 off for a joined edge)."""
        if self.find(a) != self.find(b):
            self.open[self.find(a)] += 2
            self._union(a, b)

    def join_figures(self, roots):
        """Figures on the placed features that a new feature would join."""
        figs = self.figs
        n = 0
        for r in roots:
            n += len(figs[r])
        return n

    # ------------------------------------------------------------ views
    def features(self, cells=None):
        """Every feature on the board: kind, cells, places (board frame), figures, completion, open edges.
        With `cells`, only the features that have a piece on one of those cells."""
        R = self.R
        groups = {}
        if cells is None:
            for cell, (o, base) in self.board.items():
                for i in range(len(o.feats)):
                    r = self.find(base + i)
                    groups.setdefault(r, []).append((cell, o.places[i]))
        else:
            board = self.board
            roots = {self.find(base + i) for c in cells if c in board for o, base in (board[c],)
                     for i in range(len(o.feats))}
            for r in sorted(roots):
                members = groups[r] = []
                for cell in sorted(self.cells[r]):
                    o, base = board[cell]
                    for i in range(len(o.feats)):
                        if self.find(base + i) == r:
                            members.append((cell, o.places[i]))
        out = []
        for r, members in groups.items():
            places = frozenset((c, p) for c, ps in members for p in ps)
            out.append({
                "kind": R.KINDS[self.seg_kind[r]].name,
                "cells": frozenset(self.cells[r]),
                "places": places,
                "figures": sorted((self.names[p], R.FIGURES[gi].name) for p, gi, _ in self.figs[r]),
                "figure_places": sorted((self.names[p], R.FIGURES[gi].name, self.seg_cell[seg], self._seg_place(seg))
                                        for p, gi, seg in self.figs[r]),
                "complete": bool(self.done[r]),
                "open": self.open[r],
                "borders": frozenset(self.find(s) for s in self.borders[r]),
                "root": r,
            })
        return out

    def _seg_place(self, seg):
        o, base = self.board[self.seg_cell[seg]]
        ps = o.places[seg - base]
        return ps[0] if ps else None

    def _canon(self, r):
        """Order features the same way whatever ids they got: by kind, then by the cells they cover."""
        cells = self.cells[r]
        return (self.R.KINDS[self.seg_kind[r]].name, min(cells), len(cells), sorted(cells))
