# The compiled kernel's declarations for listing.py (issue 41; compiler/native.py builds it).
cimport cython
from .geometry cimport Orientation
from .board cimport Board
from .corners cimport cornered_flags, ready_at
from .figures cimport anywhere_options, options_for
from .core cimport GameCore, Supply

cdef Py_ssize_t _KEPT
cdef dict _ANSWERS
cdef bint _NATIVE

@cython.locals(b=Board, any_fig=Py_ssize_t, gi=Py_ssize_t, cks=list, orients=list, k0s=list, ends=list, n=Py_ssize_t,
               per=Py_ssize_t, side_figs=Py_ssize_t, may=Py_ssize_t, o=Orientation,
               kept=dict, fbits=Py_ssize_t, sup=list, corner_kinds=list, frontier=dict, fits=list,
               code=Py_ssize_t, small=bint, cornered=list, low=Py_ssize_t, shift=Py_ssize_t, j=Py_ssize_t, nbr=tuple,
               opts=list, k0=Py_ssize_t, cell_of=dict, supply=Supply, Rd=dict, fkeys=list, fcodes=list,
               i=Py_ssize_t)
cpdef tile_moves(GameCore g)

cdef class Listed:
    cdef public list cks, orients, opts, ends, extra
    cdef public object k0s
    cdef public dict cells
    cdef public object tail, last
    cdef public Py_ssize_t per, n, placed

cdef Listed _fill(Listed m, list cks, list orients, k0s, dict cells, list opts, list ends, list extra, tail)

@cython.locals(ends=list, b=Py_ssize_t, hi=Py_ssize_t, mid=Py_ssize_t, e=Py_ssize_t, j=Py_ssize_t, k=Py_ssize_t,
               per=Py_ssize_t, size=Py_ssize_t, n=Py_ssize_t, opts=list, k0=Py_ssize_t, o=Orientation)
cpdef _placement(Listed moves, Py_ssize_t i)
