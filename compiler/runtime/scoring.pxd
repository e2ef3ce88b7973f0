# The compiled kernel's declarations for scoring.py (issue 41; compiler/native.py builds it).
cimport cython
from .board cimport Board
from .geometry cimport Orientation

@cython.locals(x=Py_ssize_t, y=Py_ssize_t, cands=list, b=Board, tiles=dict, parent=list, base=Py_ssize_t,
               i=Py_ssize_t, s=Py_ssize_t, r=Py_ssize_t, done=list, seg_kind=list, complete=dict, finished=list,
               kind=Py_ssize_t, dx=Py_ssize_t, dy=Py_ssize_t, no=Orientation)
cpdef _score_completed(g, tuple cell, touched)

@cython.locals(b=Board, parent=list, figs=list, done=list, roots=list, r=Py_ssize_t, kind=Py_ssize_t)
cpdef _final(g)
