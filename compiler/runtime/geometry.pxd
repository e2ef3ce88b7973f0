# The compiled kernel's declarations for geometry.py (issue 41; compiler/native.py builds it).
cdef Py_ssize_t _KEY, _REACH

cpdef object cell_key(object cell)

cdef object _int_key(Py_ssize_t x, Py_ssize_t y)

cdef class Orientation:
    cdef public object tile, layout
    cdef public dict corners
    cdef public Py_ssize_t rot, uid, figmask
    cdef public tuple edges, parts, feats, places, centre, sidefeat, figfeats, fmasks
    cdef public tuple kinds, shields, nopen, borders, faces, facing
    cdef public bint bordering
