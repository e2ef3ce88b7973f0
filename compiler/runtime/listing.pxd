# The compiled kernel's declarations for listing.py (issue 41; compiler/native.py builds it).
cimport cython
from .geometry cimport Orientation
from .board cimport Board
from .corners cimport cornered_flags, ready_at
from .figures cimport anywhere_options, options_for
from .core cimport GameCore, Supply

# C helpers of the compiled listing, each the C of a few lines of listing.py that the interpreted engine runs
# instead (listing.py calls them only where it runs compiled, `_NATIVE`): the same objects, made without the
# calls through Python or the reallocations that the Python lines cost.
cdef extern from *:
    """
    /* tuple.__new__(cls, items) for a subclass cls of tuple (a named tuple: a move), as CPython's
       tuple_subtype_new makes it, without the call through tuple.__new__'s wrapper. */
    static PyObject *__tessera_subtuple(PyObject *cls, PyObject *items) {
        PyTypeObject *tp = (PyTypeObject *)cls;
        Py_ssize_t i, n = PyTuple_GET_SIZE(items);
        PyObject *r = tp->tp_alloc(tp, n);
        if (r == NULL) return NULL;
        for (i = 0; i < n; i++) {
            PyObject *item = PyTuple_GET_ITEM(items, i);
            Py_INCREF(item);
            PyTuple_SET_ITEM(r, i, item);
        }
        if (!PyObject_GC_IsTracked(r)) PyObject_GC_Track(r);
        return r;
    }

    /* An int's value, read directly where CPython keeps a small int in one digit (the edge codes do). */
    static CYTHON_INLINE Py_ssize_t __tessera_ssize(PyObject *o) {
    #if PY_VERSION_HEX >= 0x030C0000 && !defined(Py_LIMITED_API) && !defined(PYPY_VERSION)
        if (PyLong_CheckExact(o) && PyUnstable_Long_IsCompact((PyLongObject *)o))
            return PyUnstable_Long_CompactValue((PyLongObject *)o);
    #elif !defined(Py_LIMITED_API) && !defined(PYPY_VERSION)
        if (PyLong_CheckExact(o) && Py_SIZE(o) >= 0 && Py_SIZE(o) <= 1)
            return Py_SIZE(o) ? (Py_ssize_t)((PyLongObject *)o)->ob_digit[0] : 0;
    #endif
        return PyLong_AsSsize_t(o);
    }

    /* tile_moves' blocks of a turn without figures: for each frontier cell (fkeys[i], fcodes[i]) whose code is not
       0 and whose fit, fits[code], is not None, the cell's integer, that fit (a tuple of orientations) and the
       number of placements so far (n += len(fit)); as (cks, orients, ends), three lists made at their length. */
    static PyObject *__tessera_blocks(PyObject *fkeys, PyObject *fcodes, PyObject *fits) {
        Py_ssize_t i, c, k, m = 0, n = 0, size, nfits, local[3 * 128], *at = local;
        PyObject *cks = NULL, *orients = NULL, *ends = NULL, *found, *e;
        if (!PyList_Check(fkeys) || !PyList_Check(fcodes) || !PyList_Check(fits)) {
            PyErr_SetString(PyExc_TypeError, "the frontier's lists and the fit table are lists");
            return NULL;
        }
        size = PyList_GET_SIZE(fcodes);
        nfits = PyList_GET_SIZE(fits);
        if (PyList_GET_SIZE(fkeys) < size) {
            PyErr_SetString(PyExc_IndexError, "list index out of range");
            return NULL;
        }
        if (size > 128) {  /* per block: the cell's place in the frontier, the placements so far, its fit (owned) */
            at = PyMem_Malloc(3 * size * sizeof(Py_ssize_t));
            if (at == NULL) return PyErr_NoMemory();
        }
        for (i = 0; i < size; i++) {
            c = __tessera_ssize(PyList_GET_ITEM(fcodes, i));  /* the cell's edge code (0: filled since) */
            if (c == 0) continue;
            if (c == -1 && PyErr_Occurred()) goto bad;
            if (c < 0) c += nfits;  /* fits[code], as a list reads it */
            if (c < 0 || c >= nfits) {
                PyErr_SetString(PyExc_IndexError, "list index out of range");
                goto bad;
            }
            found = PyList_GET_ITEM(fits, c);
            if (found == Py_None) continue;
            k = PyTuple_CheckExact(found) ? PyTuple_GET_SIZE(found) : PyObject_Length(found);  /* len(found) */
            if (k < 0) goto bad;
            n += k;
            Py_INCREF(found);
            at[3 * m] = i;
            at[3 * m + 1] = n;
            at[3 * m + 2] = (Py_ssize_t)found;
            m++;
        }
        cks = PyList_New(m);
        orients = PyList_New(m);
        ends = PyList_New(m);
        if (cks == NULL || orients == NULL || ends == NULL) goto bad;
        for (i = 0; i < m; i++) {
            e = PyList_GET_ITEM(fkeys, at[3 * i]);
            Py_INCREF(e);
            PyList_SET_ITEM(cks, i, e);
            PyList_SET_ITEM(orients, i, (PyObject *)at[3 * i + 2]);  /* (its reference moves to the list) */
            at[3 * i + 2] = 0;
            e = PyLong_FromSsize_t(at[3 * i + 1]);
            if (e == NULL) goto bad;
            PyList_SET_ITEM(ends, i, e);
        }
        if (at != local) PyMem_Free(at);
        at = NULL;
        e = PyTuple_New(3);
        if (e == NULL) goto bad;
        PyTuple_SET_ITEM(e, 0, cks);
        PyTuple_SET_ITEM(e, 1, orients);
        PyTuple_SET_ITEM(e, 2, ends);
        return e;
    bad:
        if (at != NULL) {
            for (i = 0; i < m; i++) Py_XDECREF((PyObject *)at[3 * i + 2]);  /* the fits not yet moved to a list */
            if (at != local) PyMem_Free(at);
        }
        Py_XDECREF(cks);
        Py_XDECREF(orients);
        Py_XDECREF(ends);
        return NULL;
    }
    """
    object _c_subtuple "__tessera_subtuple"(object cls, tuple items)
    tuple _c_blocks "__tessera_blocks"(list fkeys, list fcodes, list fits)

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
