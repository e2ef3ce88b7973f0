# The compiled kernel's declarations for scoring.py (issue 41; compiler/native.py builds it).
cimport cython
from .board cimport Board
from .geometry cimport Orientation
from .core cimport GameCore

@cython.locals(cands=set, b=Board, parent=list, base=Py_ssize_t, i=Py_ssize_t, s=Py_ssize_t, r=Py_ssize_t,
               done=list, seg_kind=list, complete=dict, finished=list, kind=Py_ssize_t, no=Orientation,
               around=tuple, quick=tuple, Rd=dict)
cpdef _score_completed(GameCore g, tuple cell, touched)

@cython.locals(b=Board, parent=list, figs=list, done=list, roots=list, r=Py_ssize_t, kind=Py_ssize_t, seg_kind=list,
               score_end=dict)
cpdef _final(GameCore g)

# final scoring (the greedy player plays it once for every placement of the last tile)
@cython.locals(figs=list, e=tuple, count=dict)
cpdef list owners(GameCore g, Py_ssize_t r)

@cython.locals(b=Board, groups=dict, scores=list, names=list, events=list, tiles=Py_ssize_t, seen=set,
               points=dict)
cpdef _award(GameCore g, Py_ssize_t r, Py_ssize_t kind, when, rule)

@cython.locals(b=Board, cells=list, seg_kind=list, keys=dict, r=Py_ssize_t, n=Py_ssize_t, i=Py_ssize_t,
               j=Py_ssize_t, t=Py_ssize_t, run=list, first=bint, x=Py_ssize_t, y=Py_ssize_t, mx=Py_ssize_t,
               my=Py_ssize_t)
cpdef _canon_sort(GameCore g, list roots)
