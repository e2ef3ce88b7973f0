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


# A corner lies between two half-sides (the Barn stands there): NW between Wn and Nw, ...
CORNER_HALVES = {"NW": ("Wn", "Nw"), "NE": ("Ne", "En"), "SE": ("Es", "Se"), "SW": ("Sw", "Ws")}
# The three other cells that meet at a cell's corner, and which of their corners it is.
CORNER_MEETS = {
    "NW": ((-1, 0, "NE"), (-1, -1, "SE"), (0, -1, "SW")),
    "NE": ((1, 0, "NW"), (1, -1, "SW"), (0, -1, "SE")),
    "SE": ((1, 0, "SW"), (1, 1, "NW"), (0, 1, "NE")),
    "SW": ((-1, 0, "SE"), (-1, 1, "NE"), (0, 1, "NW")),
}


def corner_feature(features, corner: str, kinds) -> int | None:
    """The index of the feature that lies on both half-sides beside `corner` (rotation-0 places), if it is
    of one of `kinds`; None if the corner has no such feature, or two different features meet there."""
    a, b = CORNER_HALVES[corner]
    owner = {}
    for i, f in enumerate(features):
        for p in f.places:
            owner.setdefault(p, i)
    ia, ib = owner.get(a), owner.get(b)
    if ia is None or ia != ib or features[ia].kind not in kinds:
        return None
    return ia
