# The compiled kernel's declarations for placekeys.py (issue 41; compiler/native.py builds it): the keys of a
# tile turn's placements, read from Moves' blocks without building a move per action.
cimport cython
from .board cimport Board
from .listing cimport Listed
from .nearby cimport _completion_of, _figures_near_of
from .core cimport GameCore

@cython.locals(b=Board, out=list, near=dict, done=dict, at=dict, memo=dict, at_info=dict, listed=bint,
               cks=list, orients_of=list, cells=dict, opts=list, k0=Py_ssize_t, extra=list, nblocks=Py_ssize_t, nextra=Py_ssize_t,
               nseq=Py_ssize_t, bi=Py_ssize_t,
               i=Py_ssize_t, k=Py_ssize_t, nk=Py_ssize_t, j=Py_ssize_t, nfk=Py_ssize_t, per=Py_ssize_t,
               twins=bint, sums=bint, scored=set, captors=set, outpost_figs=set, plain=set, only_captors=set,
               only_outposts=set)
cpdef list placement_keys(GameCore g, actions)
