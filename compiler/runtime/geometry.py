"""Board geometry: sides, rotations, a tile type at one rotation, edge-pattern fits.

Sides are listed in board order; a side's three parts (side, half, half) are
listed so that part k of side d meets part k of the opposite side of the
neighbour.
"""
from __future__ import annotations

SIDES = ("N", "E", "S", "W")
DX = (0, 1, 0, -1)
DY = (-1, 0, 1, 0)
OPP = (2, 3, 0, 1)
PARTS = (("N", "Nw", "Ne"), ("E", "En", "Es"), ("S", "Sw", "Se"), ("W", "Wn", "Ws"))
AROUND = ((-1, -1), (0, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (0, 1), (1, 1))
ROTATIONS = (0, 90, 180, 270)
# A cell (x, y) as one integer, x * KEY + y: the board's dicts of cells that the hot path reads (Board.at,
# frontier, near, around_centres) are keyed by it, since an integer hashes and compares in a few
# instructions and a tuple of two in hundreds.  Two cells of one game never share it: every cell lies
# within REACH of the origin: a start tile's coordinates are at most START_REACH in size (a rule file's
# numbers are at most dsl/limits.py's MAX_NUMBER, the same), and a game has at most MAX_TILES more tiles.
# An integer's hash is itself and a dict's slot its lowest bits, so KEY is odd with mixed low bits: a
# power of two would put every cell of one row in one slot.
KEY = (1 << 22) + 40503
REACH = 1 << 21  # below KEY / 2: two cells whose rows differ have integers at least KEY - 2 * REACH apart
START_REACH = 1_000_000
STEP = tuple(DX[d] * KEY + DY[d] for d in range(4))  # the key of side d's neighbour, less the cell's
AROUND_STEP = tuple(dx * KEY + dy for dx, dy in AROUND)
# A corner lies between two half-sides (where a barn stands): NW between Wn and Nw, ...
CORNER_HALVES = {"NW": ("Wn", "Nw"), "NE": ("Ne", "En"), "SE": ("Es", "Se"), "SW": ("Sw", "Ws")}
# The three other cells that meet at a cell's corner (dx, dy), and which of their corners it is.
CORNER_MEETS = {
    "NW": ((-1, 0, "NE"), (-1, -1, "SE"), (0, -1, "SW")),
    "NE": ((1, 0, "NW"), (1, -1, "SW"), (0, -1, "SE")),
    "SE": ((1, 0, "SW"), (1, 1, "NW"), (0, 1, "NE")),
    "SW": ((-1, 0, "SE"), (-1, 1, "NE"), (0, 1, "NW")),
}
_ROT90 = {
    "N": "E", "E": "S", "S": "W", "W": "N",
    "Nw": "En", "Ne": "Es", "En": "Se", "Es": "Sw", "Se": "Ws", "Sw": "Wn", "Ws": "Nw", "Wn": "Ne",
    "NW": "NE", "NE": "SE", "SE": "SW", "SW": "NW", "C": "C",
}


def rotate(place, rotation):
    for _ in range((rotation // 90) % 4):
        place = _ROT90[place]
    return place


class Orientation:
    """A tile type at one rotation, in the board frame.

    tile      the Tile record;  rot  0, 90, 180 or 270;  uid  4 * tile index + rot // 90
    edges     edge code shown on board side N, E, S, W
    parts     per board side, the local feature on each of its three parts (-1: none)
    feats     the tile's Feature records (local index = position)
    places    per local feature, its places in the board frame
    centre    local features that lie at the centre (they complete by neighbours)
    sidefeat  per local feature, the (side, part) pairs where it meets a neighbour
    figfeats  (local feature, figures that may stand on its kind, its sidefeat, its parts as a 12-bit mask),
              for kinds some figure may take
    fmasks    per local feature, the parts it meets as a 12-bit mask (side d, part k: bit 3 * d + k)
    figmask   bit gi set when figure gi may stand on some feature of the tile (its kinds, corners included):
              while no figure of the mask is in supply, the tile's figure options need not be asked
    kinds, shields, nopen, borders   per local feature: what a new board segment starts with
    bordering  whether some feature borders others (a field its cities)
    corners   corner -> the local feature on both half-sides beside it (board frame), where one is
    facing    per board side d, (local feature, the parts k of the side it lies on as bits 1 << k)
    faces     per board side d, what this tile adds to the edge code of the empty cell beyond d
    layout    what the tile lays where (edges, and each feature's kind, places and shields): two
              rotations of a symmetric tile with equal layouts are one and the same placement
    """

    __slots__ = ("tile", "rot", "uid", "edges", "parts", "feats", "places", "centre", "sidefeat", "figfeats",
                 "fmasks", "figmask", "kinds", "shields", "nopen", "borders", "bordering", "corners", "faces", "facing", "layout")

    def __init__(self, tile, rot, kinds, fig_on, fig_kinds=(), base=0):
        self.tile = tile
        self.rot = rot
        self.uid = 4 * tile.index + rot // 90  # one integer per orientation of the rule set (listing's keys)
        edges = tile.edges
        feats = tile.feats
        # board side d shows the tile's side that rotation moved there
        self.edges = tuple(edges[(d - rot // 90) % 4] for d in range(4))
        owner = {}
        for i, f in enumerate(feats):
            for p in f.places:
                owner[rotate(p, rot)] = i
        self.parts = tuple(tuple(owner.get(p, -1) for p in PARTS[d]) for d in range(4))
        self.feats = feats
        self.places = tuple(tuple(rotate(p, rot) for p in f.places) for f in feats)
        self.centre = tuple(i for i, f in enumerate(feats) if kinds[f.kind].centre)
        self.sidefeat = tuple(tuple((d, k) for d in range(4) for k in range(3) if self.parts[d][k] == i)
                              for i in range(len(feats)))
        # per feature some figure may take: (its index, those figures, its sidefeat, its parts as a mask:
        # side d, part k is bit 3 * d + k, as in Board.occupied_parts)
        self.fmasks = tuple(sum(1 << (3 * d + k) for d, k in sf) for sf in self.sidefeat)
        self.figfeats = tuple((i, fig_on[f.kind], self.sidefeat[i], self.fmasks[i])
                              for i, f in enumerate(feats) if fig_on[f.kind])
        self.corners = {c: owner[a] for c, (a, b) in CORNER_HALVES.items()
                        if owner.get(a) is not None and owner.get(a) == owner.get(b)}
        self.kinds = tuple(f.kind for f in feats)
        self.shields = tuple(f.shields for f in feats)
        self.nopen = tuple(len(s) for s in self.sidefeat)
        self.borders = tuple(f.borders for f in feats)
        self.bordering = any(self.borders)
        self.figmask = 0
        for gi, ks in enumerate(fig_kinds):
            if any(f.kind in ks for f in feats):
                self.figmask |= 1 << gi
        for f in feats:
            for gi in fig_on[f.kind]:
                self.figmask |= 1 << gi
        self.faces = tuple((e + 1) * base ** OPP[d] for d, e in enumerate(self.edges))
        self.facing = tuple(tuple((p, sum(1 << k for k in range(3) if self.parts[d][k] == p))
                                  for p in sorted({q for q in self.parts[d] if q >= 0}))
                            for d in range(4))
        self.layout = (self.edges, frozenset((f.kind, frozenset(ps), f.shields) for f, ps in zip(feats, self.places)))

    def feature_at(self, place, kinds=None):
        """The local feature lying on `place` (board frame), or None.  Two centre features
        may share C (a cloister beside a tower foundation): `kinds` (kind indices) picks one."""
        found = [i for i, ps in enumerate(self.places) if place in ps]
        if kinds is not None and len(found) > 1:
            found = [i for i in found if self.feats[i].kind in kinds] or found
        return found[0] if found else None


_KEY, _REACH = KEY, REACH  # C integers on the native kernel (geometry.pxd)


def cell_key(cell):
    """The integer of cell (x, y) (KEY), or None for a cell no game reaches (its integer could be another's)."""
    if type(cell) is tuple and len(cell) == 2 and type(cell[0]) is int and type(cell[1]) is int:
        try:
            return _int_key(cell[0], cell[1])
        except OverflowError:  # (the native kernel: beyond a C integer, so beyond REACH)
            return None
    try:
        x, y = cell
        return x * KEY + y if -REACH < y < REACH and -REACH < x < REACH else None
    except (TypeError, ValueError):
        return None


def _int_key(x, y):
    """cell_key of two integers (C integers on the native kernel, geometry.pxd)."""
    return x * _KEY + y if -_REACH < x < _REACH and -_REACH < y < _REACH else None


# The cells (x, y) by their integers, shared by the boards made since it was begun (`Board.cell_of`): an integer
# names one cell in every game, so a game adds only the cells no game reached before.  Past _KEPT_CELLS cells, new
# boards begin another (a board keeps its own to its end: what it added stays there).
_CELLS = [{}]
_KEPT_CELLS = 1 << 16


def cell_table():
    """The shared table of cells by their integers, for a new board (see _CELLS)."""
    if len(_CELLS[0]) >= _KEPT_CELLS:
        _CELLS[0] = {}
    return _CELLS[0]


def edge_base(tiles):
    """The base of the edge codes of empty cells: side d of a cell whose neighbour shows edge e
    adds (e + 1) * base ** d (0: no neighbour on that side), so a cell's four sides are one integer."""
    return max((e for t in tiles for e in t.edges), default=0) + 2


def orientations(tiles, kinds, fig_on, fig_kinds=()):
    """ORIENT[tile][r]: every tile type at its four rotations (r = rotation // 90)."""
    base = edge_base(tiles)
    return tuple(tuple(Orientation(t, r, kinds, fig_on, fig_kinds, base) for r in ROTATIONS) for t in tiles)


def edge_pattern(code, base):
    """The edge code on each side N, E, S, W of an empty cell's code (-1: no neighbour there)."""
    out = []
    for _ in range(4):
        code, e = divmod(code, base)
        out.append(e - 1)
    return tuple(out)


def fit_tables(orient):
    """Per tile type, a cell's edge code -> the orientations that fit it, each distinct placement
    once: of rotations with equal layouts (a symmetric tile) only the first is listed.  Complete
    (every code some orientation fits is a key), built once when the rules are imported."""
    base = edge_base([rots[0].tile for rots in orient])
    tables = []
    for rots in orient:
        distinct = []
        for o in rots:
            if all(o.layout != d.layout for d in distinct):
                distinct.append(o)
        table = {}
        for o in distinct:
            # every subset of sides that may have a neighbour: the code of those sides shows o's edges
            for subset in range(16):
                code = 0
                for d in range(4):
                    if subset >> d & 1:
                        code += (o.edges[d] + 1) * base ** d
                table.setdefault(code, []).append(o)
        tables.append({code: tuple(os) for code, os in table.items()})
    return tuple(tables)


def fit_list(table, base):
    """A fit table (fit_tables: edge code -> the orientations that fit) as a list indexed by the code,
    None where nothing fits: a cell's code is below base ** 4 (four sides, each a digit of `base`)."""
    out = [None] * base ** 4
    for code, found in table.items():
        out[code] = found
    return out


def fit(orients, pat):
    """The orientations (of one tile type) whose edges match pattern `pat` (-1: no neighbour)."""
    out = []
    for o in orients:
        if all(p < 0 or p == e for p, e in zip(pat, o.edges)):
            out.append(o)
    return out
