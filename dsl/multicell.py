"""Tiles covering several cells (language.md 2.6, X10: the Siege's fortress).

A tile `cells WxH` covers W x H cells; its cell (i, j) lies i cells east and j cells
south of the tile's anchor (its NW cell).  Its places are numbered along each side,
clockwise, as its `edges` groups are:

- `N1`..`NW` the north sides, west to east; `E1`..`EH` the east sides, north to south;
  `S1`..`SW` the south sides, east to west; `W1`..`WH` the west sides, south to north;
- a half adds its direction, as on one cell: `N1w` `N1e`, `E1n` `E1s`, `S1e` `S1w`, `W1s` `W1n`;
- `C1`..`C(W*H)` the cells' centres, in rows from the NW cell.

The engine lays such a tile as one ordinary cell per covered cell (its *parts*): each
part shows the perimeter sides it has and nothing on the sides between two parts, and
every feature the tile declares is one feature, so its pieces in several parts are
*linked* when the tile is laid.  Each covered cell counts as a placed tile, for
`neighbours` too (SIEGE-PLACE-1).  This module is the one place that maps the numbered
places to cells; the loader checks with it, the compiler lays parts with it and the
engine check rebuilds the board with it.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from .places import SIDE_HALVES

_PLACE = re.compile(r"([NESW])([1-9][0-9]*)([nesw]?)\Z|C([1-9][0-9]*)\Z")
# the half letter of a side's two halves, in the order of SIDE_HALVES (clockwise)
_HALF_LETTERS = {"N": ("w", "e"), "E": ("n", "s"), "S": ("e", "w"), "W": ("s", "n")}


def is_multi_place(place: str) -> bool:
    return _PLACE.match(place) is not None


def side_length(side: str, w: int, h: int) -> int:
    return w if side in "NS" else h


def locate(place: str, w: int, h: int) -> tuple[tuple[int, int], str] | None:
    """((i, j), the place on that cell) of a numbered place of a W x H tile, or None if it
    names no place of it (a number too large, a half letter of another side, a one-cell name)."""
    m = _PLACE.match(place)
    if m is None:
        return None
    if m.group(4) is not None:
        k = int(m.group(4))
        if k > w * h:
            return None
        return ((k - 1) % w, (k - 1) // w), "C"
    side, k, half = m.group(1), int(m.group(2)), m.group(3)
    if k > side_length(side, w, h):
        return None
    if side == "N":
        cell = (k - 1, 0)
    elif side == "E":
        cell = (w - 1, k - 1)
    elif side == "S":
        cell = (w - 1 - (k - 1), h - 1)
    else:
        cell = (0, h - 1 - (k - 1))
    if not half:
        return cell, side
    letters = _HALF_LETTERS[side]
    if half not in letters:
        return None
    return cell, SIDE_HALVES[side][letters.index(half)]


def perimeter(w: int, h: int) -> list[tuple[str, tuple[int, int], str]]:
    """Every numbered side, clockwise from the NW corner: (name, cell, the cell's side)."""
    out = []
    for side in "NESW":
        for k in range(1, side_length(side, w, h) + 1):
            name = f"{side}{k}"
            cell, local = locate(name, w, h)  # type: ignore[misc]
            out.append((name, cell, local))
    return out


def side_place(side: str, k: int, half: int | None = None) -> str:
    """The numbered name of side `side` number k (half 0/1: its halves, clockwise)."""
    return f"{side}{k}" + ("" if half is None else _HALF_LETTERS[side][half])


@dataclass(frozen=True)
class PartFeature:
    """The piece of one declared feature that lies on one covered cell."""

    feature: int  # index of the declared feature (TileType.features)
    kind: str
    places: tuple[str, ...]  # one-cell place names on this cell
    shields: int  # printed once: on the feature's first part only
    marks: tuple[tuple[str, int], ...]


@dataclass(frozen=True)
class Part:
    cell: tuple[int, int]
    edges: tuple[str | None, str, str, str] | tuple  # N E S W codes; None between two parts
    features: tuple[PartFeature, ...]


def parts(edges, features, w: int, h: int) -> list[Part]:
    """The covered cells of a W x H tile, in rows from the NW cell: what each shows.
    `edges` are the four groups (N1..NW) (E1..EH) (S1..SW) (W1..WH); `features` the
    declared features (anything with kind, places, shields and decl.marks or marks)."""
    codes = {}
    for g, side in zip(edges, "NESW"):
        for k, code in enumerate(g, 1):
            codes[f"{side}{k}"] = code
    side_code: dict[tuple[tuple[int, int], str], str] = {}
    for name, cell, local in perimeter(w, h):
        if name in codes:
            side_code[(cell, local)] = codes[name]
    seen: set[int] = set()
    out = []
    for j in range(h):
        for i in range(w):
            cell = (i, j)
            pfs = []
            for fi, f in enumerate(features):
                local = tuple(loc for loc in (locate(p, w, h) for p in f.places) if loc is not None and loc[0] == cell)
                if not local:
                    continue
                first = fi not in seen
                seen.add(fi)
                marks = getattr(f, "marks", None)
                if marks is None or not isinstance(marks, tuple):
                    marks = f.decl.marks
                pfs.append(PartFeature(fi, f.kind, tuple(p for _, p in local), f.shields if first else 0,
                                       tuple(marks) if first else ()))
            out.append(Part(cell, tuple(side_code.get((cell, s)) for s in "NESW"), tuple(pfs)))
    return out


def links(ps: list[Part]) -> list[tuple[tuple[int, int], int, tuple[int, int], int]]:
    """Pairs of part pieces of one declared feature to join when the tile is laid:
    (cell, local index in its part, cell, local index), each piece to the feature's first."""
    first: dict[int, tuple[tuple[int, int], int]] = {}
    out = []
    for p in ps:
        for li, pf in enumerate(p.features):
            if pf.feature in first:
                out.append((*first[pf.feature], p.cell, li))
            else:
                first[pf.feature] = (p.cell, li)
    return out


def part_types(tt) -> list[tuple[tuple[int, int], object]]:
    """Each covered cell of tile type `tt` as a one-cell TileType of its own (what a picture of
    the tile or a board draws per cell): (cell, type), its features in one-cell places."""
    from .model import Feature, TileType

    out = []
    for p in parts(tt.decl.edges, tt.features, *tt.cells):
        local = {pf.feature: li for li, pf in enumerate(p.features)}
        feats = tuple(Feature(li, pf.kind, pf.places, pf.shields,
                              tuple(local[b] for b in tt.features[pf.feature].borders if b in local), None,
                              tt.features[pf.feature].decl)
                      for li, pf in enumerate(p.features))
        out.append((p.cell, TileType(f"{tt.id}@{p.cell[0]},{p.cell[1]}", tt.name, None, tt.module, 0,
                                     tuple(c or "" for c in p.edges), feats, tt.decl)))
    return out
