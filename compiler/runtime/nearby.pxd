# The compiled kernel's declarations for nearby.py (issue 41; compiler/native.py builds it): the
# lookahead's hot reads of the board, module functions bound as Game's methods (binding=True).
cimport cython
from .board cimport Board
from .geometry cimport Orientation
from .core cimport GameCore

cdef tuple _SIDES
cdef Py_ssize_t _KEY
cdef dict _CLOSING
cdef frozenset _NOTHING

@cython.locals(spec=tuple)
cdef tuple _closing(Orientation o, closed)

@cython.locals(b=Board, x=Py_ssize_t, y=Py_ssize_t, tiles=dict, figs=list, parent=list, dx=Py_ssize_t,
               dy=Py_ssize_t, od=Py_ssize_t, o=Orientation, base=Py_ssize_t, p=Py_ssize_t, s=Py_ssize_t,
               i=Py_ssize_t, known=list, nbs=list, d=Py_ssize_t, e=list)
cpdef bint _figures_near_of(GameCore g, tuple cell, dict at=*) except -1

@cython.locals(known=list)
cdef list _known(dict at, tuple cell)

@cython.locals(centres=list)
cdef list _centres(dict at, Board b, quick)

@cython.locals(dx=Py_ssize_t, dy=Py_ssize_t, n=Py_ssize_t)
cdef Py_ssize_t _around(dict tiles, Py_ssize_t x, Py_ssize_t y) except -1

@cython.locals(b=Board, o=Orientation, x=Py_ssize_t, y=Py_ssize_t, tiles=dict, parent=list, open_=list, done=list,
               spec=tuple, shut_any=bint, dk=tuple, nbs=list, groups=list, i=Py_ssize_t, nopen=Py_ssize_t, roots=set,
               shut=bint, left=Py_ssize_t, d=Py_ssize_t, k=Py_ssize_t, no=Orientation, nbase=Py_ssize_t,
               part=Py_ssize_t, s=Py_ssize_t, r=Py_ssize_t, closes=bint, n=Py_ssize_t, dx=Py_ssize_t,
               dy=Py_ssize_t, seg_kind=list, known=list, centres=list, rules=tuple)
cpdef tuple _completion_of(GameCore g, tuple cell, Py_ssize_t rot, dict at=*)

@cython.locals(out=list, seg_kind=list, seg_cell=list, done=list, figs=list, no=Orientation,
               nbase=Py_ssize_t, i=Py_ssize_t, r=Py_ssize_t, sx=Py_ssize_t, sy=Py_ssize_t, cx=Py_ssize_t,
               cy=Py_ssize_t)
cdef list _centre_features(Board b, surround)

@cython.locals(e=list, sx=Py_ssize_t, sy=Py_ssize_t, n=Py_ssize_t)
cdef bint _centre_completes(list centres, Py_ssize_t x, Py_ssize_t y, dict tiles) except -1
