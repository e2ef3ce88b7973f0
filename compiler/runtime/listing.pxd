# The compiled kernel's declarations for listing.py (issue 41; compiler/native.py builds it).
cimport cython
from .geometry cimport Orientation
from .board cimport Board

cdef Py_ssize_t _KEPT

@cython.locals(b=Board, any_fig=Py_ssize_t, gi=Py_ssize_t, blocks=list, ends=list, n=Py_ssize_t,
               per=Py_ssize_t, side_figs=Py_ssize_t, may=Py_ssize_t, o=Orientation, figs=list,
               kept=dict, fbits=Py_ssize_t, sup=list, corner_kinds=list, frontier=dict, fits=dict)
cpdef tile_moves(g)
