"""The named records a generated `rules.py` builds its tables from.

They are tuples (so a table stays plain data and indexing stays fast in the
hot loops) with names for each field, so no reader needs to know a layout.
"""
from __future__ import annotations

from typing import NamedTuple


class Kind(NamedTuple):
    """A feature kind: its name, whether it lies at the tile's centre, whether on half-sides."""
    name: str
    centre: bool
    half: bool


class Feature(NamedTuple):
    """One feature of a tile type, in the tile's own frame."""
    kind: int  # index into KINDS
    places: tuple  # place names (N, Nw, C, ...)
    shields: int
    borders: tuple  # local indices of the features this one borders (a field's cities)
    crosses: object  # local index of the feature it crosses (a bridge), or None
    marks: tuple = ()  # printed marks, one count per MARKS entry (`marks inn`); () when none


class Tile(NamedTuple):
    """A tile type (a variant of a lettered tile is a type of its own)."""
    index: int
    name: str
    variant: object  # str or None
    module: str
    copies: int
    edges: tuple  # edge codes N E S W, indices into EDGE_CODES
    feats: tuple  # Feature records
    symbols: tuple = ()  # printed symbols, left to right (siege symbols; "any" is the "?")
    part: object = None  # (tile type, i, j): cell (i, j) of a tile covering several cells, else None


class Figure(NamedTuple):
    """A figure kind: its name, how many each player has, the kinds it may stand on."""
    name: str
    count: object  # int, or {players: int} when the count depends on the number of players
    on: tuple  # indices into KINDS

    def count_for(self, players):
        """How many each player has in a game of `players` players."""
        return self.count if isinstance(self.count, int) else self.count[players]
