# The compiled kernel's declarations for figures.py (issue 41; compiler/native.py builds it).
cimport cython
from .board cimport Board
from .geometry cimport Orientation

@cython.locals(out=list, masks=object, side=tuple, puts=tuple, first=Py_ssize_t, fi=Py_ssize_t, gi=Py_ssize_t,
               fmask=Py_ssize_t)
cpdef list options_for(g, Orientation o, tuple cell, nbr, sup)

@cython.locals(b=Board, parent=list, seg_cell=list, out=list, s=Py_ssize_t, gi=Py_ssize_t)
cpdef list anywhere_options(g, player=*)
