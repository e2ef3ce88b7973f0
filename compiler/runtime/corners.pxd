# The compiled kernel's declarations for corners.py (issue 41; compiler/native.py builds it).
cimport cython
from .board cimport Board
from .geometry cimport Orientation, cell_key

cdef dict _CORNERED
cdef tuple _MEETS

cpdef list cornered_flags(Py_ssize_t base)

cpdef ready_corners(Board b, tuple cell, kinds)

@cython.locals(per=dict, got=list, x=Py_ssize_t, y=Py_ssize_t, dx=Py_ssize_t, dy=Py_ssize_t, tiles=dict,
               no=Orientation, meets=tuple)
cpdef ready_at(Board b, tuple cell, kinds)

@cython.locals(out=list)
cpdef list corner_options(Board b, Orientation o, tuple cell, kinds)
