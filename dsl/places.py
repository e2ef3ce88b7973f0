"""Place names and rotation, exactly as ../shared/spec/conventions.md fixes them."""
from __future__ import annotations

SIDES = ("N", "E", "S", "W")
HALVES = ("Nw", "Ne", "En", "Es", "Se", "Sw", "Ws", "Wn")
CORNERS = ("NW", "NE", "SE", "SW")
CENTRE = "C"
ALL_PLACES = SIDES + HALVES + CORNERS + (CENTRE,)

# Halves of each side, read clockwise (the order of an edge's cross-section).
SIDE_HALVES = {"N": ("Nw", "Ne"), "E": ("En", "Es"), "S": ("Se", "Sw"), "W": ("Ws", "Wn")}
HALF_SIDE = {h: s for s, hs in SIDE_HALVES.items() for h in hs}

# Offsets of the neighbouring cell across each side (y grows to the south).
OFFSET = {"N": (0, -1), "E": (1, 0), "S": (0, 1), "W": (-1, 0)}
OPPOSITE = {"N": "S", "E": "W", "S": "N", "W": "E"}
# A half meets the mirrored half of the neighbour: Nw of a tile meets Sw of the tile north of it.
HALF_OPPOSITE = {"Nw": "Sw", "Ne": "Se", "En": "Wn", "Es": "Ws", "Se": "Ne", "Sw": "Nw", "Ws": "Es", "Wn": "En"}

_ROT90 = {
    "N": "E", "E": "S", "S": "W", "W": "N",
    "Nw": "En", "Ne": "Es", "En": "Se", "Es": "Sw", "Se": "Ws", "Sw": "Wn", "Ws": "Nw", "Wn": "Ne",
    "NW": "NE", "NE": "SE", "SE": "SW", "SW": "NW", "C": "C",
}


def rotate(place: str, rotation: int) -> str:
    """The board-frame name of a tile's `place` when the tile is turned `rotation` degrees clockwise."""
    for _ in range((rotation // 90) % 4):
        place = _ROT90[place]
    return place


def unrotate(place: str, rotation: int) -> str:
    return rotate(place, (360 - rotation) % 360)


def place_type(place: str) -> str:
    if place in SIDES:
        return "side"
    if place in HALVES:
        return "half"
    if place in CORNERS:
        return "corner"
    if place == CENTRE:
        return "centre"
    return "unknown"
