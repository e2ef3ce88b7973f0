"""Where a tile may go: edge matching (through the fit tables) and the rules' placement checks; a start landscape's tiles."""
from __future__ import annotations

from .geometry import DX, DY, OPP, SIDES

# functions of the game: the legality of a tile's placement, and the quantities placement rules read
# (from the board, `g.board`); Game binds them as its methods
def placements(g, tid):
    """Every (cell, orientation) where the tile may go (BASE-PLACE-1/2 and rule checks), each
    distinct placement once (a symmetric tile's equal rotations: the first)."""
    R = g.R
    fits = R.FITS[tid]
    out = []
    check = R.PLACE_CHECKS[tid]
    b = g.board
    cell_of = b.cell_of  # the frontier's cells by their integers (geometry.KEY), in order, with their codes
    for key, code in zip(b.fkeys, b.fcodes):
        if code == 0:  # filled since
            continue
        cell = cell_of[key]
        for o in fits.get(code, ()):
            if check is None or check(g, o, cell) is None:
                out.append((cell, o))
    return out


def why_not_placed(g, o, cell):
    """None if o may go at cell, else (message, clause)."""
    R = g.R
    head = f"tile {o.tile.name} at [{cell[0]},{cell[1]}] rotation {o.rot}"
    b = g.board
    if cell in b.tiles:
        return (f"{head}: the cell is already taken", R.CLAUSE_ADJACENT)
    pat = b.edge_pattern(cell)
    if pat is None:
        return (f"{head}: it touches no placed tile along an edge", R.CLAUSE_ADJACENT)
    for d in range(4):
        if pat[d] >= 0 and pat[d] != o.edges[d]:
            nc = (cell[0] + DX[d], cell[1] + DY[d])
            return (f"{head}: its {SIDES[d]} side ({R.EDGE_TITLES[o.edges[d]]}) meets the {R.EDGE_TITLES[pat[d]]} "
                    f"on the {SIDES[OPP[d]]} side of [{nc[0]},{nc[1]}]", R.CLAUSE_MATCHING)
    check = R.PLACE_CHECKS[o.tile.index]
    if check is not None:
        why = check(g, o, cell)
        if why is not None:
            return (f"{head}: {why[0]}", why[1])
    return None


# ------------------------------------------------------------ quantities placement rules read
def turn_of(g, o, cell, kind):
    """-1/0/+1: how feature `kind` of o at cell turns along its flow (entering from a placed neighbour)."""
    x, y = cell
    for i, f in enumerate(o.feats):
        if f[0] != kind:
            continue
        sides = [d for d, k in o.sidefeat[i] if k == 0]
        if len(sides) != 2:
            return 0
        a, b = sides
        if (x + DX[a], y + DY[a]) not in g.board.tiles:
            a, b = b, a
        heading = OPP[a]
        if b == heading:
            return 0
        return 1 if b == (heading + 1) % 4 else -1
    return 0


def continues(g, o, cell, kind):
    """Every `kind` feature of o at cell meets the same kind on a placed neighbour."""
    x, y = cell
    tiles = g.board.tiles
    for i, f in enumerate(o.feats):
        if f[0] != kind:
            continue
        ok = False
        for d, k in o.sidefeat[i]:
            nb = tiles.get((x + DX[d], y + DY[d]))
            if nb is not None and nb[0].parts[OPP[d]][k] >= 0:
                ok = True
        if not ok:
            return False
    return True


def lay_landscape(g):
    """The rest of a start landscape (SIEGE-SETUP-1): more cells, then the pieces of each
    feature of a tile covering several cells joined, and its borders across cells."""
    R = g.R
    b = g.board
    for tid, x, y, rot in R.START_MORE:
        b.place(R.ORIENT[tid][rot // 90], (x, y))
    tiles = b.tiles
    for ca, la, cb, lb in R.START_LINKS:
        b.link(tiles[ca][1] + la, tiles[cb][1] + lb)
    for ca, la, cb, lb in R.START_BORDERS:
        a = tiles[ca][1] + la
        r = b.find(a)
        b.borders[r] = b.borders[r] + [tiles[cb][1] + lb]
