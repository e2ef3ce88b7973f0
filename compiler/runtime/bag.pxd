# The compiled kernel's declarations for bag.py (issue 41; compiler/native.py builds it): the shuffle's
# indices are C integers, so a shuffled item costs one call of rng.getrandbits and no Python frame.
cimport cython

from .core cimport Bag, GameCore


@cython.locals(i=Py_ssize_t, n=Py_ssize_t, k=Py_ssize_t, j=Py_ssize_t)
cpdef shuffle(rng, list x)


# the next tile drawn, called in C by the turn's end (game.py)
@cython.locals(b=Bag)
cpdef draw_next(GameCore g)
