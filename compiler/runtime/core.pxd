# The compiled kernel's declarations for core.py (issue 41; compiler/native.py builds it): the game's
# fields as C fields.  A module that types its game (`GameCore g`) cimports this.
from .board cimport Board


# the game's components (core.py): their fields are C fields, read by a compiled turn without a lookup by name
cdef class Bag:
    cdef public object decks, drawn, advanced


cdef class Supply:
    cdef public object left, recallable


cdef class Prisoners:
    cdef public object held, pending, closing, put_after


cdef class Rounds:
    cdef public object rules, ended, open, last, limit, clause, counted


cdef class GameCore:
    cdef public object R, seed, rng, outposts, _listed
    cdef public Bag bag
    cdef public Supply supply
    cdef public Prisoners prisoners
    cdef public Rounds rounds
    cdef public list names, scores, events, history, st
    cdef public dict _offers, Rd
    cdef public Board board
    cdef public Py_ssize_t nplayers, current, turn, discards
    cdef public bint open_decisions, _siege, ended

    cpdef copy_fields(self, GameCore c)
