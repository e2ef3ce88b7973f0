"""The board: placed tiles, the frontier, and features merged by union-find.

Every feature of a placed tile is a segment (an integer); segments that meet across an edge are
merged.  Per root the board keeps what rules read: cells, shields, open edges, figures, bordered
features, completion.  A component of the game (`g.board`: its own slots and `clone`); what needs
only the board is a method (`find`, `union`, `place`, `g.board.open[r]`, `g.board.neighbours(r)`),
what reads the rules' names or the seats a function of the game (runtime/featureview.py).  On the
native kernel (compiler/native.py) it is an extension type: board.pxd types its slots and hot methods.
"""
from __future__ import annotations

from types import FunctionType
from weakref import WeakKeyDictionary

from .geometry import AROUND_STEP, DX, DY, KEY, OPP, STEP, cell_key, cell_table, edge_base, edge_pattern

_KEY = KEY  # a C integer on the native kernel (board.pxd)
_SIDES = tuple((d, STEP[d], OPP[d]) for d in range(4))  # side, its neighbour (a key step: geometry.KEY), the side facing back
_NO_FIGS = []  # shared by every segment without figures (or borders): never changed in place
_MEMOS = WeakKeyDictionary()  # rule set (its generated module) -> the listing's memo of figure options
_FITS = WeakKeyDictionary()  # rule set -> per tile type, its fit table by edge code (geometry.fit_list) once listed
_SETUP = WeakKeyDictionary()  # rule set -> (edge base, mask slots): _setup


def _setup(R):
    """What every board of rule set R reads of its rules' tables, worked out once per rule set (a game's set-up was a tenth
    of a compiled base game): the base of the edge codes, and per figure 1 + its place in FIG_MASK_COUNTS (0: none), times
    2, plus 1 for a figure on corners (occupied_parts)."""
    counts = R.FIG_MASK_COUNTS
    return edge_base(R.TILES), tuple((1 + counts.index(gi) if gi in counts else 0) * 2 + (gi in R.FIG_CORNER)
                                     for gi in range(len(R.FIGURES)))


def options_memo(R):
    """The memo of figure options of rule set R (runtime/listing.py), shared by all its games."""
    return _MEMOS.setdefault(R, {})


class Board:
    """Component of Game (`g.board`).  Placed tiles and the frontier (`tiles`: cell -> (orientation, its first segment);
    `frontier`, `fkeys`, `fcodes`: the empty cells beside a tile, their edge codes); per segment its union-find parent, kind
    and cell (`parent`, `seg_kind`, `seg_cell`); per root what the rules read (`cells`, `shields`, `open`, `figs`, `borders`,
    `done`); `completed_count` per kind; `anywhere_segs`; the tiles with centre features (`centres`, and by the cells around
    them `around_centres`); the figures on corners (`corner_at`, `on_corners`) and the figures a tile's unions joined this
    turn (`joins`, runtime/corners.py); memos of the listing (`contexts`, `ready`; the rule set's `memo`, `fits`); and the
    numbers of the rules it reads (`edge_base`, `anywhere_kinds`, `track_joins`, `fig_corner`, `mask_counts`)."""

    __slots__ = ("tiles", "at", "cell_of", "frontier", "fkeys", "fcodes", "near", "parent", "seg_kind", "seg_cell", "cells",
                 "shields", "open", "figs", "borders", "done", "completed_count", "anywhere_segs", "corner_at", "on_corners",
                 "joins", "contexts", "ready", "edge_base", "anywhere_kinds", "track_joins", "fig_corner", "mask_counts",
                 "mask_slot", "memo", "fits", "centres", "around_centres", "solo")

    def __init__(self, R):
        self.tiles = {}  # (x, y) -> (Orientation, segbase)
        # the hot path's dicts of cells are keyed by a cell's integer (geometry.KEY): `at`, the tiles so;
        self.at = {}  # `cell_of`, the cell (x, y) of each integer the frontier has held (geometry.cell_table: shared)
        self.cell_of = cell_table()
        # The empty cells beside a tile as they came (the listing walks them): `fkeys` their integers, `fcodes` their edge
        # codes (geometry.edge_base; 0: filled since, skipped); `frontier`: a cell's integer -> its place in those lists.
        self.frontier, self.fkeys, self.fcodes = {}, [], []
        # empty cell beside a tile (its integer) -> per placed neighbour, (its first segment, the (feature,
        # parts) it shows the cell, the bit shift of the cell's side), as tuples: occupied_parts reads no tile
        self.near = {}
        self.parent, self.seg_kind, self.seg_cell = [], [], []
        # root -> set of cells: a merge makes a new set (clones, the lookahead share them), or while `solo` (never cloned,
        self.cells, self.solo = [], True  # no lookahead trying a tile) adds to the root's own set of 2+ cells (union)
        self.shields, self.open, self.done = [], [], []  # per root; done: completed?
        # per root, a list of (player, figure, seg) in `figs`, of bordered segs in `borders`: replaced, never changed in place
        self.figs, self.borders = [], []
        self.completed_count = [0] * len(R.KINDS)
        self.anywhere_segs = []  # segments of kinds a figure may stand on anywhere (R.ANYWHERE_KINDS), in order
        # (x, y, orientation, first segment) of each placed tile with centre features, in order; and per cell (its
        # integer) around them, theirs as (k, orientation, first segment), the tile at AROUND[k] from the cell, in
        # AROUND's order, for a turn's completions (scoring.py): centres replaced (clones share it), around_centres
        self.centres, self.around_centres = [], {}  # changed in place (a clone copies it: add_centre)
        self.corner_at = {}  # (player, figure, seg) -> (cell, corner): figures on corners (runtime/corners.py)
        self.on_corners = 0  # corner figures on the board (while 0, every figure counts toward ownership)
        self.joins = []  # (figures of one side, figures of the other, a root) merged by this turn's tile
        self.contexts = {}  # cell -> the features around it, while legal_actions lists (context_of)
        self.ready = {}  # cell -> {kinds: corners whose three other tiles qualify} (corners.ready_at)
        self.anywhere_kinds, self.fig_corner, self.mask_counts = R.ANYWHERE_KINDS, R.FIG_CORNER, R.FIG_MASK_COUNTS
        self.track_joins = bool(R.SCORE_JOIN)  # a `score ... join` rule: unions note the figures they join
        self.edge_base, self.mask_slot = _SETUP.get(R) or _SETUP.setdefault(R, _setup(R))
        self.memo = options_memo(R)  # the listing's memo of figure options, one per rule set (runtime/listing.py)
        self.fits = _FITS.get(R) or _FITS.setdefault(R, [None] * len(R.FITS))  # listing.py fills it, one per rule set

    def clone(self):
        """An independent copy: the lists and dicts that change are copied; what is never changed in place (cells,
        figures and borders of a feature, board entries) is shared."""
        c = Board.__new__(Board)
        self.solo = c.solo = False  # both share the sets of cells from now on: a merge makes a new one (union)
        c.tiles = self.tiles.copy()
        c.at, c.cell_of = self.at.copy(), self.cell_of
        c.frontier, c.fkeys, c.fcodes = self.frontier.copy(), self.fkeys[:], self.fcodes[:]
        c.near = self.near.copy()
        c.parent = self.parent[:]
        c.seg_kind = self.seg_kind[:]
        c.seg_cell = self.seg_cell[:]
        c.cells = self.cells[:]
        c.shields = self.shields[:]
        c.open = self.open[:]
        c.figs = self.figs[:]
        c.borders = self.borders[:]
        c.done = self.done[:]
        c.completed_count = self.completed_count[:]
        c.anywhere_segs = self.anywhere_segs[:]
        c.centres, c.around_centres = self.centres, self.around_centres.copy()  # (add_centre changes it in place)
        c.corner_at, c.on_corners = self.corner_at.copy(), self.on_corners
        c.joins, c.contexts, c.ready = [], {}, {}
        c.edge_base, c.anywhere_kinds, c.track_joins = self.edge_base, self.anywhere_kinds, self.track_joins
        c.fig_corner, c.mask_counts, c.mask_slot, c.memo, c.fits = (self.fig_corner, self.mask_counts, self.mask_slot,
                                                                     self.memo, self.fits)
        return c

    def find(self, s):
        parent = self.parent
        while parent[s] != s:
            parent[s] = parent[parent[s]]
            s = parent[s]
        return s

    def union(self, a, b):
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
        cells = self.cells
        if len(cells[ra]) < len(cells[rb]):
            ra, rb = rb, ra
        parent[rb] = ra
        mine = cells[ra]
        if self.solo and len(mine) > 1:  # the root's own set (a tile's one-cell set is shared by its segments)
            mine |= cells[rb]
        else:
            cells[ra] = mine | cells[rb]  # a new set: clones share the old ones
        self.shields[ra] += self.shields[rb]
        self.open[ra] += self.open[rb] - 2
        figs = self.figs
        if figs[rb]:
            if figs[ra] and self.track_joins:  # a `score ... join` rule may apply (runtime/corners.py)
                self.joins.append((figs[ra], figs[rb], ra))
            figs[ra] = figs[ra] + figs[rb]
        borders = self.borders
        if borders[rb]:
            borders[ra] = borders[ra] + borders[rb]
        done = self.done
        done[ra] = done[ra] or done[rb]
        cells[rb] = None
        figs[rb] = None
        return ra

    def place(self, o, cell):
        """Put orientation o on cell: new segments, merged with the neighbours'. Returns touched roots."""
        x, y = cell
        key = x * _KEY + y  # the cell's integer (geometry.KEY), one object for every dict (a dict finds it by identity)
        parent = self.parent
        base = len(parent)
        here = (o, base)
        self.tiles[cell] = here
        at = self.at
        at[key] = here
        frontier = self.frontier
        fkeys, fcodes = self.fkeys, self.fcodes
        slot = frontier.pop(key, -1)
        if slot >= 0:
            fcodes[slot] = 0  # the cell is filled: walks skip it
            if len(fkeys) > len(frontier) + (len(frontier) >> 1) + 8:  # a third filled: the lists keep the empty ones only
                self.compact_frontier()
                fkeys, fcodes = self.fkeys, self.fcodes
        near = self.near  # the cell's own entry stays (never read again): the lookahead's undo keeps the order
        n = len(o.kinds)
        seg_cell, cells, figs, done = self.seg_cell, self.cells, self.figs, self.done
        own_cells = {cell}  # one set for the tile's segments: sets are never changed in place
        for s in range(base, base + n):
            parent.append(s)
            seg_cell.append(cell)
            cells.append(own_cells)
            figs.append(_NO_FIGS)  # lists of figures are replaced, never changed in place
            done.append(False)
        self.seg_kind.extend(o.kinds)
        self.shields.extend(o.shields)
        self.open.extend(o.nopen)
        if o.bordering:
            self.borders.extend([[base + b for b in bs] if bs else _NO_FIGS for bs in o.borders])
        else:
            self.borders.extend([_NO_FIGS] * n)
        anywhere = self.anywhere_kinds
        if anywhere:
            for i, k in enumerate(o.kinds):
                if k in anywhere:
                    self.anywhere_segs.append(base + i)
        if o.centre:  # a cloister (or garden): it completes by the tiles around it (scoring.py)
            self.add_centre(x, y, o, base)
        faces = o.faces
        own = o.parts
        facing = o.facing
        for d, dk, od in _SIDES:
            nk = key + dk
            nb = at.get(nk)
            if nb is None:
                slot = frontier.get(nk, -1)
                if slot < 0:  # a new cell of the frontier
                    frontier[nk] = len(fkeys)
                    fkeys.append(nk)
                    fcodes.append(faces[d])
                    if nk not in self.cell_of:  # (a cell's integer never names another cell: kept from game to game)
                        self.cell_of[nk] = (x + DX[d], y + DY[d])
                else:
                    fcodes[slot] += faces[d]
                near[nk] = near.get(nk, ()) + ((base, facing[d], 3 * od),)
                continue
            no, nbase = nb
            theirs = no.parts[od]
            mine = own[d]
            for k in range(3):  # a side's three parts (geometry.PARTS)
                a = mine[k]
                if a >= 0:
                    b = theirs[k]
                    if b >= 0:
                        self.union(base + a, nbase + b)
        touched = set()
        for s in range(base, base + n):
            r = parent[s]
            if parent[r] != r:
                r = self.find(r)
            touched.add(r)
        if self.ready:
            self.forget_corners(x, y)
        return touched

    def add_centre(self, x, y, o, base):
        """The tile o placed at (x, y) (first segment base) has centre features: `centres` replaced by a copy
        that holds it (clones share it), `around_centres` changed in place (a clone copies it; so does the lookahead)."""
        self.centres = self.centres + [(x, y, o, base)]
        if _NATIVE:  # the loop below in C (board.pxd)
            _c_add_centre(self.around_centres, x * _KEY + y, AROUND_STEP, o, base)
            return
        around = self.around_centres
        kx = x * _KEY + y
        k = 8
        for dk in AROUND_STEP:
            k -= 1  # AROUND is symmetric: the tile lies at AROUND[7 - i] from the i-th cell around it
            c = kx + dk
            there = around.get(c)
            e = (k, o, base)
            if there is None:
                around[c] = (e,)
                continue
            i = 0  # by k, AROUND's order (no two tiles lie at one k)
            while i < len(there) and there[i][0] < k:
                i += 1
            around[c] = there[:i] + (e,) + there[i:]

    def forget_corners(self, x, y):
        """A tile came to cell (x, y): the corners ready around it are read again (ready_at)."""
        ready = self.ready  # the few cornered cells the listing asked about: cheaper than eight lookups
        gone = [c for c in ready if -1 <= c[0] - x <= 1 and -1 <= c[1] - y <= 1]
        for c in gone:
            del ready[c]

    def compact_frontier(self):
        """The frontier's lists without the cells filled since they came (`frontier`'s places renumbered), in order."""
        fkeys, fcodes, frontier = [], [], self.frontier
        for ck, code in zip(self.fkeys, self.fcodes):
            if code:
                frontier[ck] = len(fkeys)
                fkeys.append(ck)
                fcodes.append(code)
        self.fkeys, self.fcodes = fkeys, fcodes

    def code_of(self, key):
        """The edge code of the empty cell whose integer is `key` (geometry.KEY), or None: not on the frontier."""
        slot = self.frontier.get(key, -1)
        return None if slot < 0 else self.fcodes[slot]

    def link(self, a, b):
        """Join two pieces of one feature of a tile covering several cells (no edge closes between them: `union` takes 2 off)."""
        if self.find(a) != self.find(b):
            self.open[self.find(a)] += 2
            self.union(a, b)

    def edge_pattern(self, cell):
        """The edge code each side N, E, S, W of empty cell `cell` must show (-1: none), or None: no tile touches it."""
        code = self.code_of(cell_key(cell))
        return None if code is None else edge_pattern(code, self.edge_base)

    def occupied_parts(self, key):
        """Masks of the parts around an empty cell (its integer `key`; side d, part k: bit 3 * d + k) whose features hold
        figures, for rules whose figures compare `figures` and `count(F)` with 0 only (FIG_MASKS): (parts with figures
        that make an owner, then per F of FIG_MASK_COUNTS, parts with an F)."""
        parent, figs = self.parent, self.figs
        counts = self.mask_counts
        around = self.near.get(key, ())
        if not counts and not self.on_corners:  # the common case (base): every figure makes an owner
            if _NATIVE:  # the loop below in C (board.pxd), with find's path halving
                return (_c_occupied(around, parent, figs),)
            occ = 0
            for nbase, facing, shift in around:
                for p, bits in facing:  # each feature on the neighbour's side once
                    s = parent[nbase + p]
                    if parent[s] != s:
                        s = self.find(s)
                    if figs[s]:
                        occ |= bits << shift
            return (occ,)
        corner = 1 if self.on_corners else 0  # while a figure stands on a corner, such figures make no owner
        slot = self.mask_slot
        occ = 0
        per = 0  # the masks of FIG_MASK_COUNTS, 12 bits each: the j-th at bit 12 * j (lowering: at most 4)
        for nbase, facing, shift in around:
            for p, bits in facing:
                s = parent[nbase + p]
                if parent[s] != s:
                    s = self.find(s)
                held = figs[s]
                if held:
                    bits <<= shift
                    for e in held:
                        j = slot[e[1]]
                        if not j & corner:
                            occ |= bits
                        j >>= 1
                        if j:
                            per |= bits << 12 * (j - 1)
        n = len(counts)  # the tuple built at once: cheaper than from a list
        if n == 0:
            return (occ,)
        if n == 1:
            return (occ, per)
        if n == 2:
            return (occ, per & 4095, per >> 12)
        if n == 3:
            return (occ, per & 4095, per >> 12 & 4095, per >> 24)
        return (occ, per & 4095, per >> 12 & 4095, per >> 24 & 4095, per >> 36)

    def neighbours(self, r):
        x, y = self.seg_cell[r]
        k = x * _KEY + y
        at = self.at
        n = 0
        for dk in AROUND_STEP:
            if k + dk in at:
                n += 1
        return n

    def completed_borders(self, r):
        roots = {self.find(s) for s in self.borders[r]}
        return sum(1 for b in roots if self.done[b])

    def marks_on(self, roots, m):
        """Marks number m (an index into MARKS) printed on the features `roots` are made of.
        Read only when a rule asks (`marks(NAME)`), so merging features keeps no count."""
        find, tiles = self.find, self.tiles
        tops = {find(r) for r in roots}
        n, seen = 0, set()
        for top in tops:
            for cell in self.cells[top]:
                if cell in seen:
                    continue
                seen.add(cell)
                o, base = tiles[cell]
                for i, f in enumerate(o.feats):
                    if f.marks and f.marks[m] and find(base + i) in tops:
                        n += f.marks[m]
        return n

    def bordering(self, r, kind):
        """Features of `kind` that the field r borders (through `->`), each once, complete or not."""
        find, seg_kind = self.find, self.seg_kind
        return len({find(s) for s in self.borders[r] if seg_kind[s] == kind})

    def owning(self, r):
        """Figures on root r that count toward ownership (no corner figure does)."""
        figs = self.figs[r]
        if not self.on_corners or not figs:
            return len(figs)
        corner = self.fig_corner
        return sum(1 for e in figs if e[1] not in corner)

    def count_on(self, roots, gi):
        """Figures of type gi on the given roots (any player)."""
        figs = self.figs
        return sum(1 for r in roots for e in figs[r] if e[1] == gi)

    def seg_place(self, seg):
        """The first place (board frame) of segment seg's feature on its tile, or None."""
        o, base = self.tiles[self.seg_cell[seg]]
        ps = o.places[seg - base]
        return ps[0] if ps else None


_NATIVE = not isinstance(Board.find, FunctionType)  # this module runs compiled (compiler/native.py)
