# The compiled kernel's declarations for corners.py (issue 41; compiler/native.py builds it).
cimport cython
from .board cimport Board

cdef dict _CORNERED

cpdef list cornered_flags(Py_ssize_t base)

cpdef ready_corners(Board b, tuple cell, kinds)

@cython.locals(cache=dict, got=list, x=Py_ssize_t, y=Py_ssize_t, dx=Py_ssize_t, dy=Py_ssize_t, tiles=dict)
cpdef ready_at(Board b, tuple cell, kinds)
