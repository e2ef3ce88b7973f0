# The compiled kernel's declarations for figures.py (issue 41; compiler/native.py builds it).
cimport cython
from .board cimport Board
from .geometry cimport Orientation, cell_key
from .corners cimport corner_options
from .core cimport GameCore

cdef object _MAY
cdef list _LAST
cdef bint _NATIVE
cdef Py_ssize_t _KEPT, _KEY

@cython.locals(x=Py_ssize_t, y=Py_ssize_t, k=Py_ssize_t, at=dict, parent=list, d=Py_ssize_t, nbase=Py_ssize_t,
               p=Py_ssize_t, s=Py_ssize_t, out=list, side=list)
cpdef list neighbour_roots(Board b, tuple cell)

cpdef dict _may_memo(R)

cpdef tuple _tables(R)

@cython.locals(ck=Py_ssize_t, j=Py_ssize_t, m=Py_ssize_t)
cpdef bint _asked(dict seen, may, GameCore g, Orientation o, Py_ssize_t fi, tuple nbr, Py_ssize_t fmask, Py_ssize_t gi,
                  Py_ssize_t kind) except -1

@cython.locals(out=list, masks=object, side=tuple, puts=tuple, first=Py_ssize_t, fi=Py_ssize_t, gi=Py_ssize_t,
               fmask=Py_ssize_t, seen=dict, feats=tuple, pure=bint, corner_rules=tuple, fig_kinds=object)
cpdef list options_for(GameCore g, Orientation o, tuple cell, nbr, sup, bint corners=*)

@cython.locals(b=Board, parent=list, seg_cell=list, out=list, s=Py_ssize_t, gi=Py_ssize_t, memo=dict, seen=dict,
               rules=tuple, seg_kind=list, figs=list, k=Py_ssize_t, held=list)
cpdef list anywhere_options(GameCore g, player=*)
