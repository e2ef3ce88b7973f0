# The compiled kernel's declarations for core.py (issue 41; compiler/native.py builds it): the game's
# fields as C fields.  A module that types its game (`GameCore g`) cimports this.
from .board cimport Board


cdef class GameCore:
    cdef public object R, seed, rng, supply, prisoners, outposts, rounds, _listed, bag
    cdef public list names, scores, events, history, st
    cdef public dict _offers
    cdef public Board board
    cdef public Py_ssize_t nplayers, current, turn, discards
    cdef public bint open_decisions, _siege, ended

    cpdef copy_fields(self, GameCore c)
