"""The card game's moves: one type per kind of move (as compiler/runtime/moves.py does for tiles).

Each is a named tuple equal to its written form, a word first: `Play("red.city", "red") ==
("play", "red.city", "red")`, so moves hash, compare and serialize as plain tuples do.  Every
type says its kind as `KIND`; `as_move` is the one place that turns a written tuple or list
(from JSON, or by hand) into its type.  The record <-> move owner is replay/cards.py.
Each type is built by `tagged` (compiler/runtime/tagged.py), the builder of the tile game's moves.
"""
from __future__ import annotations

from .tagged import tagged  # the tile runtime's builder of moves, lent to this runtime (dsl/family.py)

Play = tagged("play", ("card", "row"), "Play `card` from the mover's hand to the end of `row` (CARD-TURN-1).",
              __name__)
Claim = tagged("claim", ("row",), "Put a feudal at the end of `row`: it claims the cards to its left (CARD-TURN-1).",
               __name__)
Lay = tagged("lay", ("row",), "The dealer lays the set-up joker waiting for a row into `row` (CARD-DEAL-1).",
             __name__)
Keep = tagged("keep", ("card",), "Keep the misplaced `card` the rules let its taker keep (CARD-SCORE-1).", __name__)
Discard = tagged("discard", ("card",), "Score the misplaced `card` as misplaced and discard it (CARD-SCORE-1).",
                 __name__)


TYPES = {"play": (Play, 2), "claim": (Claim, 1), "lay": (Lay, 1), "keep": (Keep, 1), "discard": (Discard, 1)}


def as_move(a):
    """A written move (a tuple or list, a word first) as its type; None if it is not a card move."""
    if isinstance(a, (tuple, list)) and a and isinstance(a[0], str) and a[0] in TYPES:
        cls, n = TYPES[a[0]]
        if len(a) == n + 1 and all(isinstance(x, str) for x in a[1:]):
            return cls(*a[1:])
    return None
