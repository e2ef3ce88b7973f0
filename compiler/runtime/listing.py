"""Listing a turn's tile moves: every placement of the drawn tile and what may go with it.

`Game.legal_actions` lists a turn's placements here.  The moves come in blocks, one per placement
(cell, rotation) in the frontier's order: the tile alone, then each figure the rules' one legality
predicate allows there (`figures.options_for`), then each move that goes with any placement (a recall,
a figure on another tile).  `Moves` keeps those blocks and builds a move only when it is read, so
a player that picks one of forty moves builds one `Place`, not forty; its length, its order and
every item are those of the list the blocks stand for (`list(moves)`), so a choice by index
(`moves[rng.randrange(len(moves))]`) picks the same move as before.
"""
from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from types import FunctionType

from .corners import cornered_flags, ready_at
from .figures import anywhere_options, options_for
from .geometry import cell_key, fit_list
from .moves import TAGGED, Place

_move = tuple.__new__  # a move of a known type, without its constructor's checks (the hot path)
TAGGED_MOVES = frozenset(TAGGED.values())  # the move types with a word first

# options_for(g, o, cell, nbr, sup) of rules whose figure conditions read only masks of occupied
# parts (FIG_PURE, decided in lowering), per (orientation, masks, figures in supply, ready corners):
# the same key always lists the same figures.  The memo is the rule set's (`Board.memo`), emptied
# when it grows past _KEPT keys.  Without ready corners the key is one integer (the orientation's
# uid, then each mask's 12 bits, then the figures in supply): cheaper to build and hash than a tuple.
_KEPT = 1 << 16
# the answers kept in those memos, each once: the figures listed for a key are a tuple of moves (values,
# the same in every rule set), and the memos' keys share one tuple per answer, so the memos' growth over a
# run adds no object the cycle collector must visit (the tuples of moves of a run are few)
_ANSWERS = {}


class Listed:
    """What `Moves` is made of (on the native kernel an extension type, listing.pxd: its length and
    items are then C slots): the legal moves of one turn, read-only: blocks of placements, one per
    cell, then `tail` (a discard, ransoms).  Block b (`blocks[b]` = (key, orientations, k0), kept as
    three lists `cks`, `orients`, `k0s`: no tuple per block), of the cell cells[key] (`Board.cell_of`:
    a cell by its integer, geometry.KEY), lists for each orientation o in turn the placement (cell,
    o.rot) with None, then each of its
    figures (opts[k0 + k] for the k-th orientation; k0 is -1 where no figure may go, and k0s is None
    where none may go in any block), then
    each of `extra`; ends[b] is the index just after the block.  The figures of every block are
    in one list (`opts`): a list per cell made and freed every turn was a twentieth of a compiled turn."""

    __slots__ = ("cks", "orients", "k0s", "cells", "opts", "ends", "extra", "per", "tail", "n", "placed", "last")

    def __init__(self, cks, orients, k0s, cells, opts, ends, extra, tail):
        _fill(self, cks, orients, k0s, cells, opts, ends, extra, tail)

    @property
    def blocks(self):
        """Each block as (the cell's integer, its orientations, k0)."""
        k0s = self.k0s if self.k0s is not None else [-1] * len(self.cks)
        return list(zip(self.cks, self.orients, k0s))

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        if type(i) is not int:
            if isinstance(i, slice):
                return list(self)[i]
            i = i.__index__()
        if i < 0:
            i += self.n
        if i >= self.placed:
            if i >= self.n or i < 0:
                raise IndexError("move index out of range")
            return self.tail[i - self.placed]
        if i < 0:
            raise IndexError("move index out of range")
        self.last = m = _placement(self, i)
        return m

    def __iter__(self):
        extra = self.extra
        opts = self.opts
        cells = self.cells
        for key, orients, k0 in self.blocks:
            cell = cells[key]
            for k, o in enumerate(orients):
                rot = o.rot
                yield _move(Place, (cell, rot, None))
                if k0 >= 0:
                    for fig in opts[k0 + k]:
                        yield _move(Place, (cell, rot, fig))
                for fig in extra:
                    yield _move(Place, (cell, rot, fig))
        yield from self.tail

    def end_with(self, tail):
        """The moves after the placements: a discard, ransoms."""
        self.tail = tail
        self.n = self.placed + len(tail)

    def __contains__(self, a):
        if type(a) is Place:  # its block, found by cell and rotation
            cell, rot, fig = a
            key = cell_key(cell)
            for c, orients, k0 in self.blocks:
                if c == key:
                    for k, o in enumerate(orients):
                        if o.rot == rot:
                            return fig is None or (k0 >= 0 and fig in self.opts[k0 + k]) or fig in self.extra
                    break
            return a in self.tail
        if type(a) in TAGGED_MOVES:  # a move with a word first is never a placement: the tail's
            return a in self.tail
        return any(a == m for m in self)

    def __eq__(self, other):
        if isinstance(other, (list, tuple, Moves)):
            return list(self) == list(other)
        return NotImplemented

    __hash__ = None

    def __add__(self, other):
        return list(self) + list(other)

    def __radd__(self, other):
        return list(other) + list(self)

    def __repr__(self):
        return repr(list(self))


def _placement(moves, i):
    """The placement at index i (0 <= i < moves.placed) of Listed `moves`: its block, then the
    orientation and the figure (Listed.__getitem__; a module function, typed in listing.pxd)."""
    ends = moves.ends
    if _NATIVE:  # compiled: bisect_right's search in C (calling it is a call through Python, dearer than the search)
        b = 0
        hi = len(ends)
        while b < hi:
            mid = (b + hi) >> 1
            e = ends[mid]
            if i < e:
                hi = mid
            else:
                b = mid + 1
    else:
        b = bisect_right(ends, i)
    j = i - (ends[b - 1] if b else 0)
    key = moves.cks[b]
    orients = moves.orients[b]
    k0 = -1 if moves.k0s is None else moves.k0s[b]
    per = moves.per
    if k0 < 0:
        k = j // per
        j -= k * per
        got = ()
    else:
        opts = moves.opts
        k = 0
        while True:  # the orientation whose moves hold index j (one always does)
            got = opts[k0 + k]
            size = per + len(got)
            if j < size:
                break
            j -= size
            k += 1
    if j == 0:
        fig = None
    else:
        n = len(got)
        fig = got[j - 1] if j <= n else moves.extra[j - 1 - n]
    o = orients[k]
    if _NATIVE:  # the named tuple made in C, as tuple.__new__ makes it (listing.pxd: a call through Python was a
        return _c_subtuple(Place, (moves.cells[key], o.rot, fig))  # fiftieth of a compiled base game)
    return _move(Place, (moves.cells[key], o.rot, fig))


_NATIVE = not isinstance(_placement, FunctionType)  # this module runs compiled (compiler/native.py)


class Moves(Listed, Sequence):
    """The legal moves of one turn (`Listed`), a read-only Sequence."""

    __slots__ = ()




def _fill(m, cks, orients, k0s, cells, opts, ends, extra, tail):
    """Listed m's fields (see Listed): tile_moves makes a `Moves` so, with no call of its class."""
    m.cks = cks
    m.orients = orients
    m.k0s = k0s
    m.cells = cells
    m.opts = opts
    m.ends = ends
    m.extra = extra
    m.per = 1 + len(extra)  # moves of a placement besides its figures
    m.tail = tail
    m.placed = ends[-1] if ends else 0  # how many moves place the tile
    m.n = m.placed + len(tail)
    m.last = None  # the last placement read by index: apply_action knows it was listed
    return m


def tile_moves(g):
    """The drawn tile's placements, with what may go with each, as `Moves` (no tail yet)."""
    R = g.R
    b = g.board
    drawn = g.bag.drawn
    fits = b.fits[drawn]  # edge code -> the orientations that fit a cell with that code (never ()), or None
    if fits is None:  # the tile's first listing in this rule set (Board.fits)
        fits = b.fits[drawn] = fit_list(R.FITS[drawn], b.edge_base)
    Rd = g.Rd  # the rules' tables by name (Game.__init__)
    check = Rd["PLACE_CHECKS"][drawn]
    supply = g.supply
    sup = supply.left[g.current]
    any_fig = 0  # figures in supply, one bit each
    for gi in range(len(sup)):
        if sup[gi] > 0:
            any_fig |= 1 << gi
    # after each placement (and its figures): each recall, then each figure on another tile
    extra = g.recall_options() if supply.recallable else []
    if any_fig and b.anywhere_kinds:
        extra = extra + anywhere_options(g)
    cks = []  # the blocks (Listed), as three lists: the cells' integers, orientations, k0s
    orients = []
    ends = []
    n = 0
    cell_of = b.cell_of  # the frontier's cells by their integers (Board.at)
    fkeys = b.fkeys  # the frontier's cells in order: their integers (geometry.KEY) and codes (0: filled, skipped)
    fcodes = b.fcodes
    if not any_fig and check is None and not extra:  # no figure to put, nothing else: placements only
        if _NATIVE:  # the same loop in C (listing.pxd): three lists made at their length, where lists grown by
            cks, orients, ends = _c_blocks(fkeys, fcodes, fits)  # appends from empty were reallocated a dozen times
        else:  # interpreted, the loop by zip (no index read) and bound appends
            add, add_o, end = cks.append, orients.append, ends.append
            for ck, code in zip(fkeys, fcodes):
                if code:
                    found = fits[code]
                    if found is not None:
                        n += len(found)
                        add(ck)
                        add_o(found)
                        end(n)
        return _fill(Listed.__new__(Moves), cks, orients, None, cell_of, [], ends, extra, ())
    options = options_for
    # the features around a cell: a mask, read for each cell where a figure may go; or the
    # neighbours' roots, read by options_for itself only where it needs them (once per cell)
    masks = Rd["FIG_MASKS"]
    b.contexts = {}
    # figures on corners (the barn) in supply: they may go only where a corner is ready
    fig_corner = Rd["FIG_CORNER"]
    fig_kinds = Rd["FIG_KINDS"]
    corner_kinds = [fig_kinds[gi] for gi in fig_corner if any_fig >> gi & 1]
    side_figs = any_fig
    for gi in fig_corner:
        side_figs &= ~(1 << gi)
    cornered = cornered_flags(b.edge_base) if corner_kinds else None  # by edge code: a corner may be ready
    per = 1 + len(extra)  # moves of a placement besides its figures
    opts = []  # per orientation listed, the figures that may go with it (Listed.opts)
    k0s = []
    kept = b.memo if Rd["FIG_PURE"] else None
    fbits = len(sup)  # bits of the figures in supply, at the end of an integer key
    # whether that key (the orientation's uid, 12 bits per mask, the figures) stays below 2 ** 62
    small = (4 * len(b.fits)).bit_length() + 12 * (1 + len(b.mask_counts)) + fbits <= 62
    for i in range(len(fcodes)):
        code = fcodes[i]
        if code == 0:
            continue
        found = fits[code]  # the orientations that fit the cell (never an empty tuple), or None
        if found is None:
            continue
        ck = fkeys[i]
        cell = None  # the cell (x, y), read from cell_of only where something asks with it
        if check is not None:
            cell = cell_of[ck]
            found = [o for o in found if check(g, o, cell) is None]
            if not found:
                continue
        nbr = None  # the mask of occupied parts around the cell, once a figure may go there
        low = -1  # the integer key's masks and figures in supply, the same for every orientation at the cell
        shift = 0  # and where the orientation's uid goes above them
        corners = None  # whether a corner figure in supply has a corner ready at the cell
        ready = None  # the corners ready at the cell for each corner figure in supply (FIG_PURE's key)
        k0 = len(opts)  # where the cell's orientations' figures start in opts
        for o in found:
            may = any_fig & o.figmask
            if may and not may & side_figs:  # only corner figures could go on this tile
                if corners is None:
                    corners = False
                    if cornered is not None and cornered[code]:
                        for kinds in corner_kinds:
                            if ready_at(b, cell_of[ck], kinds):
                                corners = True
                may = corners
            if may:
                if nbr is None and masks:
                    nbr = b.occupied_parts(ck)
                if kept is None:
                    if cell is None:
                        cell = cell_of[ck]
                    got = options(g, o, cell, nbr, sup)
                else:
                    if ready is None:
                        ready = 0  # no corner ready (or no corner figure in supply)
                        if cornered is not None and cornered[code]:
                            rc = tuple([tuple(ready_at(b, cell_of[ck], kinds)) for kinds in corner_kinds])
                            if any(rc):
                                ready = rc
                    if ready == 0:
                        if small:  # the key fits a machine integer: the same number, without big ints
                            if low < 0:
                                low = 0
                                shift = fbits
                                if nbr is not None:
                                    for j in range(len(nbr)):
                                        low = low << 12 | nbr[j]
                                    shift += 12 * len(nbr)
                                low = low << fbits | any_fig
                            key = o.uid << shift | low
                        else:
                            key = o.uid
                            if nbr is not None:
                                for m in nbr:
                                    key = key << 12 | m
                            key = key << fbits | any_fig
                    else:
                        key = (o.uid, nbr, any_fig, ready)
                    got = kept.get(key)
                    if got is None:
                        if len(kept) >= _KEPT:
                            kept.clear()
                        if len(_ANSWERS) >= _KEPT:
                            _ANSWERS.clear()
                        got = tuple(options_for(g, o, cell_of[ck], nbr, sup, ready != 0))
                        got = kept[key] = _ANSWERS.setdefault(got, got)
                n += per + len(got)
                opts.append(got)
            else:
                n += per
                opts.append(())
        cks.append(ck)
        orients.append(found)
        k0s.append(k0)
        ends.append(n)
    return _fill(Listed.__new__(Moves), cks, orients, k0s, cell_of, opts, ends, extra, ())
