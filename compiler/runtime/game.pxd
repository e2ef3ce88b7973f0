# The compiled kernel's declarations for game.py (issue 41; compiler/native.py builds it): the tile
# turn's hot path as module functions (bound on Game as its methods), so the board's, the listing's
# and scoring's own are called in C.
cimport cython
from .bag cimport draw_next
from .board cimport Board
from .core cimport GameCore, Prisoners
from .geometry cimport Orientation
from .listing cimport Listed, tile_moves
from .scoring cimport _final, _score_completed

@cython.locals(acts=Listed)
cpdef legal_actions_fn(GameCore g)

@cython.locals(pr=Prisoners)
cdef bint _asks(GameCore g) except -1

@cython.locals(apply_turn=dict)
cpdef apply_action_fn(GameCore g, action)

@cython.locals(b=Board, o=Orientation, Rd=dict)
cpdef apply_place_fn(GameCore g, action, bint checked)

cpdef end_turn_fn(GameCore g)

@cython.locals(Rd=dict)
cpdef end_turn_with(GameCore g, tuple cell, touched, put)

cpdef next_turn_fn(GameCore g)
