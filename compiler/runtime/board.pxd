# The compiled kernel's declarations for board.py (issue 41): Cython reads this file beside the
# module when it builds the extension (compiler/native.py); plain Python never sees it.
cimport cython
from .geometry cimport Orientation, cell_key

cdef tuple _SIDES
cdef Py_ssize_t _KEY
cdef list _NO_FIGS
cdef object _MEMOS, _FITS, _SETUP


cdef class Board:
    cdef public dict tiles, at, cell_of, frontier, near, corner_at, contexts, memo, ready, around_centres
    cdef public list fkeys, fcodes, parent, seg_kind, seg_cell, cells, shields, open, figs, borders, done
    cdef public list completed_count, anywhere_segs, joins, fits, centres
    cdef public object edge_base, anywhere_kinds, fig_corner, mask_counts
    cdef public tuple mask_slot
    cdef public Py_ssize_t on_corners
    cdef public bint track_joins, solo

    @cython.locals(c=Board)
    cpdef Board clone(self)

    @cython.locals(parent=list, p=Py_ssize_t)
    cpdef Py_ssize_t find(self, Py_ssize_t s)

    @cython.locals(parent=list, ra=Py_ssize_t, rb=Py_ssize_t, t=Py_ssize_t, cells=list, figs=list, borders=list,
                   done=list, opens=list, mine=set)
    cpdef Py_ssize_t union(self, Py_ssize_t a, Py_ssize_t b)

    @cython.locals(x=Py_ssize_t, y=Py_ssize_t, parent=list, base=Py_ssize_t, n=Py_ssize_t, at=dict, no=Orientation,
                   frontier=dict, d=Py_ssize_t, od=Py_ssize_t, nbase=Py_ssize_t,
                   here=tuple,
                   a=Py_ssize_t, b=Py_ssize_t, i=Py_ssize_t, s=Py_ssize_t, r=Py_ssize_t, faces=tuple, own=tuple,
                   theirs=tuple, mine=tuple, touched=set, near=dict, facing=tuple, k=Py_ssize_t, seg_cell=list,
                   cells=list, figs=list, done=list, own_cells=set, slot=Py_ssize_t, fkeys=list, fcodes=list)
    cpdef set place(self, Orientation o, tuple cell)

    @cython.locals(fkeys=list, fcodes=list, frontier=dict)
    cpdef compact_frontier(self)

    @cython.locals(slot=Py_ssize_t)
    cpdef code_of(self, key)

    @cython.locals(parent=list, figs=list, occ=Py_ssize_t, around=tuple, facing=tuple, shift=Py_ssize_t,
                   nbase=Py_ssize_t, p=Py_ssize_t, bits=Py_ssize_t, s=Py_ssize_t, j=Py_ssize_t, per=Py_ssize_t,
                   slot=tuple, e=tuple, held=list, corner=Py_ssize_t, n=Py_ssize_t)
    cpdef tuple occupied_parts(self, key)


    @cython.locals(around=dict, kx=Py_ssize_t, dk=Py_ssize_t, there=tuple, k=Py_ssize_t, e=tuple,
                   i=Py_ssize_t)
    cpdef add_centre(self, Py_ssize_t x, Py_ssize_t y, Orientation o, Py_ssize_t base)

    @cython.locals(ready=dict, c=tuple, gone=list)
    cpdef forget_corners(self, Py_ssize_t x, Py_ssize_t y)

    @cython.locals(x=Py_ssize_t, y=Py_ssize_t, k=Py_ssize_t, dk=Py_ssize_t, at=dict, n=Py_ssize_t)
    cpdef Py_ssize_t neighbours(self, Py_ssize_t r)
