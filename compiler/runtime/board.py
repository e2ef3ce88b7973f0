"""The board: placed tiles, the frontier, and features merged by union-find.

Every feature of a placed tile is a segment (an integer); segments that meet
across an edge are merged.  Per root the board keeps the quantities rules
read: its cells, shields, open edges, figures, bordered features, completion.
"""
from __future__ import annotations

from .geometry import AROUND, DX, DY, OPP, edge_base, edge_pattern


_SIDES = tuple((d, DX[d], DY[d], OPP[d], 3 * d) for d in range(4))  # side, its neighbour, the side facing back, bit shift
_NO_FIGS = []  # shared by every segment without figures (or borders): never changed in place


class Board:
    """Mixin of Game.  Owns: board, frontier, parent, seg_kind, seg_cell, cells,
    shields, open, figs, borders, done, completed_count, anywhere_segs."""

    def _init_board(self, nkinds):
        self.board = {}  # (x, y) -> (Orientation, segbase)
        # empty cell beside a tile -> its edge code: the edges its neighbours show it, as one integer
        # (geometry.edge_base; `edge_pattern` reads it side by side), kept up to date as tiles are placed
        self.frontier = {}
        self.edge_base = edge_base(self.R.TILES)
        self.parent = []
        self.seg_kind = []
        self.seg_cell = []
        self.cells = []  # root -> set of cells (never changed in place: a merge makes a new set, so clones share them)
        self.shields = []
        self.open = []
        self.figs = []  # root -> list of (player, figure, seg); replaced, never changed in place
        self.borders = []  # root -> list of bordered segs; replaced, never changed in place
        self.done = []  # root -> completed?
        self.anywhere_segs = []  # segments of kinds a figure may stand on anywhere (R.ANYWHERE_KINDS), in order
        self.completed_count = [0] * nkinds

    # ------------------------------------------------------------ union-find
    def find(self, s):
        parent = self.parent
        while parent[s] != s:
            parent[s] = parent[parent[s]]
            s = parent[s]
        return s

    def _union(self, a, b):
        parent = self.parent
        ra = parent[a]  # find(a), find(b): most segments point at their root, or one step short of it
        if parent[ra] != ra:
            ra = self.find(ra)
        rb = parent[b]
        if parent[rb] != rb:
            rb = self.find(rb)
        if ra == rb:
            self.open[ra] -= 2
            return ra
        if len(self.cells[ra]) < len(self.cells[rb]):
            ra, rb = rb, ra
        parent[rb] = ra
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
        parent = self.parent
        base = len(parent)
        board = self.board
        board[cell] = (o, base)
        frontier = self.frontier
        frontier.pop(cell, None)
        n = len(o.kinds)
        parent.extend(range(base, base + n))
        self.seg_kind.extend(o.kinds)
        self.seg_cell.extend([cell] * n)
        self.cells.extend([{cell}] * n)  # one set for the tile's segments: sets are never changed in place
        self.shields.extend(o.shields)
        self.open.extend(o.nopen)
        self.figs.extend([_NO_FIGS] * n)  # lists of figures are replaced, never changed in place
        if o.bordering:
            self.borders.extend([[base + b for b in bs] if bs else _NO_FIGS for bs in o.borders])
        else:
            self.borders.extend([_NO_FIGS] * n)
        self.done.extend([False] * n)
        anywhere = self.R.ANYWHERE_KINDS
        if anywhere:
            for i, k in enumerate(o.kinds):
                if k in anywhere:
                    self.anywhere_segs.append(base + i)
        union = self._union
        faces = o.faces
        own = o.parts
        for d, dx, dy, od, _ in _SIDES:
            nc = (x + dx, y + dy)
            nb = board.get(nc)
            if nb is None:
                frontier[nc] = frontier.get(nc, 0) + faces[d]
                continue
            no, nbase = nb
            theirs = no.parts[od]
            for a, b in zip(own[d], theirs):
                if a >= 0 and b >= 0:
                    union(base + a, nbase + b)
        touched = set()
        for s in range(base, base + n):
            r = parent[s]
            if parent[r] != r:
                r = self.find(r)
            touched.add(r)
        return touched

    def edge_pattern(self, cell):
        """The edge code each side N, E, S, W of empty cell `cell` must show (-1: no neighbour there),
        or None when no placed tile touches it."""
        code = self.frontier.get(cell)
        return None if code is None else edge_pattern(code, self.edge_base)

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

    def _occupied_parts(self, cell):
        """Masks of the parts around an empty cell (side d, part k: bit 3 * d + k) whose features
        hold figures, for rules whose figures compare `figures` and `count(F)` with 0 only
        (FIG_MASKS): (parts with figures that make an owner, then per F of FIG_MASK_COUNTS,
        parts with an F)."""
        x, y = cell
        board = self.board
        parent = self.parent
        figs = self.figs
        counts = self.R.FIG_MASK_COUNTS
        if not counts and not self.on_corners:  # the common case (base): every figure makes an owner
            occ = 0
            for d, dx, dy, od, shift in _SIDES:
                nb = board.get((x + dx, y + dy))
                if nb is not None:
                    no, nbase = nb
                    for p, bits in no.facing[od]:  # each feature on the neighbour's side once
                        s = parent[nbase + p]
                        if parent[s] != s:
                            s = self.find(s)
                        if figs[s]:
                            occ |= bits << shift
            return (occ,)
        corner = self.R.FIG_CORNER if self.on_corners else ()
        occ = 0
        per = [0] * len(counts)
        for d, dx, dy, od, shift in _SIDES:
            nb = board.get((x + dx, y + dy))
            if nb is None:
                continue
            no, nbase = nb
            for p, bits in no.facing[od]:
                s = parent[nbase + p]
                if parent[s] != s:
                    s = self.find(s)
                held = figs[s]
                if held:
                    bits <<= shift
                    for e in held:
                        if e[1] not in corner:
                            occ |= bits
                            break
                    for j, gi in enumerate(counts):
                        for e in held:
                            if e[1] == gi:
                                per[j] |= bits
                                break
        return (occ, *per)

    def _figure_context(self, cell):
        """What figures.options_for reads about the features around an empty cell."""
        return self._occupied_parts(cell) if self.R.FIG_MASKS else self._neighbour_roots(cell)

    def _context_of(self, cell):
        """_figure_context(cell), read once per cell while legal_actions lists (it resets the memo)."""
        memo = self._contexts
        got = memo.get(cell)
        if got is None:
            got = memo[cell] = self._figure_context(cell)
        return got

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
