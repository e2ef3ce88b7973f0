# The compiled kernel's declarations for board.py (issue 41): Cython reads this file beside the
# module when it builds the extension (compiler/native.py); plain Python never sees it.
cimport cython
from .geometry cimport Orientation, cell_key

cdef tuple _SIDES
cdef bint _NATIVE

# C helpers of the compiled board, each the C of a few lines of board.py that the interpreted engine runs instead
# (board.py calls them only where it runs compiled, `_NATIVE`).
cdef extern from *:
    """
    /* Board.find(s) on the list `parent`: the root of s, halving the path as it goes (parent[s] = parent[parent[s]]),
       -1 with an exception set on an index out of range. */
    static Py_ssize_t __tessera_find(PyObject *parent, Py_ssize_t s) {
        Py_ssize_t size = PyList_GET_SIZE(parent), p, pp;
        PyObject *up, *old;
        for (;;) {
            if (s < 0 || s >= size) goto range;
            p = PyLong_AsSsize_t(PyList_GET_ITEM(parent, s));
            if (p == -1 && PyErr_Occurred()) return -1;
            if (p == s) return s;
            if (p < 0 || p >= size) goto range;
            up = PyList_GET_ITEM(parent, p);
            pp = PyLong_AsSsize_t(up);
            if (pp == -1 && PyErr_Occurred()) return -1;
            Py_INCREF(up);
            old = PyList_GET_ITEM(parent, s);
            PyList_SET_ITEM(parent, s, up);
            Py_DECREF(old);
            s = pp;
        }
    range:
        PyErr_SetString(PyExc_IndexError, "list index out of range");
        return -1;
    }

    /* Board.occupied_parts' common case (no FIG_MASK_COUNTS, no figure on a corner): over `around` (the cell's
       entry of Board.near: per placed neighbour (its first segment, ((part, bits), ...), shift)), the bits, shifted,
       of each part whose feature holds a figure (figs[root] true); as an int, or NULL with an exception set. */
    static PyObject *__tessera_occupied(PyObject *around, PyObject *parent, PyObject *figs) {
        Py_ssize_t i, j, nbase, shift, p, bits, s, occ = 0;
        PyObject *e, *facing, *pb;
        int held;
        if (!PyTuple_Check(around) || !PyList_Check(parent) || !PyList_Check(figs)) {
            PyErr_SetString(PyExc_TypeError, "a cell's neighbours are a tuple, the segments' lists lists");
            return NULL;
        }
        for (i = 0; i < PyTuple_GET_SIZE(around); i++) {
            e = PyTuple_GET_ITEM(around, i);
            if (!PyTuple_Check(e) || PyTuple_GET_SIZE(e) != 3 || !PyTuple_Check(PyTuple_GET_ITEM(e, 1))) goto shape;
            nbase = PyLong_AsSsize_t(PyTuple_GET_ITEM(e, 0));
            if (nbase == -1 && PyErr_Occurred()) return NULL;
            shift = PyLong_AsSsize_t(PyTuple_GET_ITEM(e, 2));
            if (shift == -1 && PyErr_Occurred()) return NULL;
            facing = PyTuple_GET_ITEM(e, 1);
            for (j = 0; j < PyTuple_GET_SIZE(facing); j++) {
                pb = PyTuple_GET_ITEM(facing, j);
                if (!PyTuple_Check(pb) || PyTuple_GET_SIZE(pb) != 2) goto shape;
                p = PyLong_AsSsize_t(PyTuple_GET_ITEM(pb, 0));
                if (p == -1 && PyErr_Occurred()) return NULL;
                bits = PyLong_AsSsize_t(PyTuple_GET_ITEM(pb, 1));
                if (bits == -1 && PyErr_Occurred()) return NULL;
                s = nbase + p;  /* s = parent[nbase + p], then its root (find from s, as board.py does) */
                if (s < 0 || s >= PyList_GET_SIZE(parent)) {
                    PyErr_SetString(PyExc_IndexError, "list index out of range");
                    return NULL;
                }
                s = PyLong_AsSsize_t(PyList_GET_ITEM(parent, s));
                if (s == -1 && PyErr_Occurred()) return NULL;
                s = __tessera_find(parent, s);
                if (s < 0) return NULL;
                if (s >= PyList_GET_SIZE(figs)) {
                    PyErr_SetString(PyExc_IndexError, "list index out of range");
                    return NULL;
                }
                held = PyObject_IsTrue(PyList_GET_ITEM(figs, s));
                if (held < 0) return NULL;
                if (held) occ |= bits << shift;
            }
        }
        return PyLong_FromSsize_t(occ);
    shape:
        PyErr_SetString(PyExc_ValueError, "a neighbour's entry is (first segment, ((part, bits), ...), shift)");
        return NULL;
    }

    /* Board.add_centre's loop: the tile o (first segment base) with centre features, at the cell whose integer is
       kx, goes into `around` (Board.around_centres) for each cell kx + steps[i] around it as (k, o, base), k = 7 - i,
       in each cell's tuple in the order of k; 0, or -1 with an exception set. */
    static int __tessera_add_centre(PyObject *around, Py_ssize_t kx, PyObject *steps, PyObject *o, Py_ssize_t base) {
        Py_ssize_t i, j, n, at, k = 8, dk, kk;
        PyObject *b = NULL, *c = NULL, *e = NULL, *there, *now = NULL, *kobj;
        if (!PyDict_Check(around) || !PyTuple_Check(steps)) {
            PyErr_SetString(PyExc_TypeError, "around_centres is a dict, the steps around a cell a tuple");
            return -1;
        }
        b = PyLong_FromSsize_t(base);
        if (b == NULL) return -1;
        for (i = 0; i < PyTuple_GET_SIZE(steps); i++) {
            k -= 1;  /* AROUND is symmetric: the tile lies at AROUND[7 - i] from the i-th cell around it */
            dk = PyLong_AsSsize_t(PyTuple_GET_ITEM(steps, i));
            if (dk == -1 && PyErr_Occurred()) goto bad;
            c = PyLong_FromSsize_t(kx + dk);
            if (c == NULL) goto bad;
            kobj = PyLong_FromSsize_t(k);
            if (kobj == NULL) goto bad;
            e = PyTuple_New(3);
            if (e == NULL) {
                Py_DECREF(kobj);
                goto bad;
            }
            PyTuple_SET_ITEM(e, 0, kobj);
            Py_INCREF(o);
            PyTuple_SET_ITEM(e, 1, o);
            Py_INCREF(b);
            PyTuple_SET_ITEM(e, 2, b);
            there = PyDict_GetItemWithError(around, c);  /* borrowed */
            if (there == NULL && PyErr_Occurred()) goto bad;
            if (there != NULL && !PyTuple_Check(there)) {
                PyErr_SetString(PyExc_TypeError, "an entry of around_centres is a tuple");
                goto bad;
            }
            n = there == NULL ? 0 : PyTuple_GET_SIZE(there);
            at = 0;  /* by k, AROUND's order (no two tiles lie at one k) */
            while (at < n) {
                PyObject *t = PyTuple_GET_ITEM(there, at);
                if (!PyTuple_Check(t) || PyTuple_GET_SIZE(t) < 1) {
                    PyErr_SetString(PyExc_TypeError, "an entry of around_centres holds (k, orientation, segment)");
                    goto bad;
                }
                kk = PyLong_AsSsize_t(PyTuple_GET_ITEM(t, 0));
                if (kk == -1 && PyErr_Occurred()) goto bad;
                if (!(kk < k)) break;
                at++;
            }
            now = PyTuple_New(n + 1);  /* there[:at] + (e,) + there[at:] */
            if (now == NULL) goto bad;
            for (j = 0; j < n; j++) {
                PyObject *t = PyTuple_GET_ITEM(there, j);
                Py_INCREF(t);
                PyTuple_SET_ITEM(now, j < at ? j : j + 1, t);
            }
            PyTuple_SET_ITEM(now, at, e);  /* (its reference moves to the tuple) */
            e = NULL;
            if (PyDict_SetItem(around, c, now) < 0) goto bad;
            Py_CLEAR(now);
            Py_CLEAR(c);
        }
        Py_DECREF(b);
        return 0;
    bad:
        Py_XDECREF(b);
        Py_XDECREF(c);
        Py_XDECREF(e);
        Py_XDECREF(now);
        return -1;
    }
    """
    object _c_occupied "__tessera_occupied"(tuple around, list parent, list figs)
    int _c_add_centre "__tessera_add_centre"(dict around, Py_ssize_t kx, tuple steps, object o, Py_ssize_t base) except -1
cdef Py_ssize_t _KEY
cdef list _NO_FIGS
cdef object _MEMOS, _FITS, _SETUP


cdef class Board:
    cdef public dict tiles, at, cell_of, frontier, near, corner_at, contexts, memo, ready, around_centres
    cdef public list fkeys, fcodes, parent, seg_kind, seg_cell, cells, shields, open, figs, borders, done
    cdef public list completed_count, anywhere_segs, joins, fits, centres
    cdef public object edge_base, anywhere_kinds, fig_corner, mask_counts
    cdef public tuple mask_slot
    cdef public Py_ssize_t on_corners
    cdef public bint track_joins, solo

    @cython.locals(c=Board)
    cpdef Board clone(self)

    @cython.locals(parent=list, p=Py_ssize_t)
    cpdef Py_ssize_t find(self, Py_ssize_t s)

    @cython.locals(parent=list, ra=Py_ssize_t, rb=Py_ssize_t, t=Py_ssize_t, cells=list, figs=list, borders=list,
                   done=list, opens=list, mine=set)
    cpdef Py_ssize_t union(self, Py_ssize_t a, Py_ssize_t b)

    @cython.locals(x=Py_ssize_t, y=Py_ssize_t, parent=list, base=Py_ssize_t, n=Py_ssize_t, at=dict, no=Orientation,
                   frontier=dict, d=Py_ssize_t, od=Py_ssize_t, nbase=Py_ssize_t,
                   here=tuple,
                   a=Py_ssize_t, b=Py_ssize_t, i=Py_ssize_t, s=Py_ssize_t, r=Py_ssize_t, faces=tuple, own=tuple,
                   theirs=tuple, mine=tuple, touched=set, near=dict, facing=tuple, k=Py_ssize_t, seg_cell=list,
                   cells=list, figs=list, done=list, own_cells=set, slot=Py_ssize_t, fkeys=list, fcodes=list)
    cpdef set place(self, Orientation o, tuple cell)

    @cython.locals(fkeys=list, fcodes=list, frontier=dict)
    cpdef compact_frontier(self)

    @cython.locals(slot=Py_ssize_t)
    cpdef code_of(self, key)

    @cython.locals(parent=list, figs=list, occ=Py_ssize_t, around=tuple, facing=tuple, shift=Py_ssize_t,
                   nbase=Py_ssize_t, p=Py_ssize_t, bits=Py_ssize_t, s=Py_ssize_t, j=Py_ssize_t, per=Py_ssize_t,
                   slot=tuple, e=tuple, held=list, corner=Py_ssize_t, n=Py_ssize_t)
    cpdef tuple occupied_parts(self, key)


    @cython.locals(around=dict, kx=Py_ssize_t, dk=Py_ssize_t, there=tuple, k=Py_ssize_t, e=tuple,
                   i=Py_ssize_t)
    cpdef add_centre(self, Py_ssize_t x, Py_ssize_t y, Orientation o, Py_ssize_t base)

    @cython.locals(ready=dict, c=tuple, gone=list)
    cpdef forget_corners(self, Py_ssize_t x, Py_ssize_t y)

    @cython.locals(x=Py_ssize_t, y=Py_ssize_t, k=Py_ssize_t, dk=Py_ssize_t, at=dict, n=Py_ssize_t)
    cpdef Py_ssize_t neighbours(self, Py_ssize_t r)
