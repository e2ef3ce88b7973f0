"""What a tile at an empty cell would meet, read from the board without placing it: the lookahead's
hot reads (runtime/lookahead.py binds them on Game as `_figures_near` and `_completion`), module
functions so that the native kernel types them (nearby.pxd: the locals of a plain class's methods
cannot be typed).  `at`, a dict a caller keeps for one state of the game (score_classes, one per
call), keeps what they read whatever the rotation.
"""
from __future__ import annotations

from .geometry import AROUND, DX, DY, KEY, OPP

_KEY = KEY  # a C integer on the native kernel (nearby.pxd)

_CLOSING: dict = {}  # orientation -> its features of kinds complete when closed: (index, open edges, sides)


def _closing(o, closed):
    spec = _CLOSING.get(o)
    if spec is None:
        spec = _CLOSING[o] = tuple((i, o.nopen[i], o.sidefeat[i]) for i, k in enumerate(o.kinds) if k in closed)
    return spec


_SIDES = tuple((DX[d], DY[d], OPP[d]) for d in range(4))  # per side: its neighbour's offset, the side facing back
_NOTHING = frozenset()  # no local feature completes (_completion_of; never changed)


def _figures_near_of(g, cell, at=None):
    """Whether a figure stands on a feature a tile at `cell` would join, or on a centre feature around it
    (Game._figures_near).  `at`: as _completion_of's."""
    b = g.board
    x, y = cell
    tiles = b.tiles
    figs = b.figs
    parent = b.parent
    if at is not None:
        known = _known(at, cell)
        nbs = known[0]
        if nbs is None:
            nbs = known[0] = [tiles.get((x + dx, y + dy)) for dx, dy, _ in _SIDES]
        for d in range(4):
            nb = nbs[d]
            if nb is not None:
                o, base = nb
                for p in o.parts[_SIDES[d][2]]:
                    if p >= 0:
                        s = parent[base + p]
                        if figs[s if parent[s] == s else b.find(s)]:
                            return True
        if x * _KEY + y in b.around_centres:  # a centre tile around it (else its centre features need not be read)
            for e in _centres(at, b, g.R.QUICK_COMPLETE):
                if e[2] and abs(e[0] - x) <= 1 and abs(e[1] - y) <= 1:
                    return True
        return False
    for dx, dy, od in _SIDES:
        nb = tiles.get((x + dx, y + dy))
        if nb is not None:
            o, base = nb
            for p in o.parts[od]:
                if p >= 0:
                    s = parent[base + p]
                    if figs[s if parent[s] == s else b.find(s)]:
                        return True
    for dx, dy in AROUND:
        nb = tiles.get((x + dx, y + dy))
        if nb is not None:
            o, base = nb
            for i in o.centre:
                s = parent[base + i]
                if figs[s if parent[s] == s else b.find(s)]:
                    return True
    return False


def _known(at, cell):
    """What _completion_of and _figures_near_of read at `cell` whatever the rotation, kept in `at`."""
    known = at.get(cell)
    if known is None:
        known = at[cell] = [None, -1, None]
    return known


def _centres(at, b, quick):
    """The board's centre features (_centre_features), read once for `at`."""
    centres = at.get(None)
    if centres is None:
        centres = at[None] = _centre_features(b, quick[1] if quick is not None else None)
    return centres


def _around(tiles, x, y):
    """How many of the eight cells around (x, y) hold a tile."""
    n = 0
    for dx, dy in AROUND:
        if (x + dx, y + dy) in tiles:
            n += 1
    return n


def _centre_features(b, surround):
    """The centre features of the placed tiles (cloisters), one entry each: [the tile's cell, whether
    figures stand on it, and for one of a kind complete by its neighbours (`neighbours == N`, in
    `surround`) not complete yet: its root's cell, the tiles around that (-1 until _centre_completes
    needs them), (N, exact); else None]."""
    out = []
    seg_kind = b.seg_kind
    seg_cell = b.seg_cell
    done = b.done
    figs = b.figs
    for cx, cy, no, nbase in b.centres:  # the placed tiles with centre features (Board.centres)
        for i in no.centre:
            r = b.find(nbase + i)
            need = None if surround is None else surround.get(seg_kind[r])
            if need is not None and not done[r]:
                sx, sy = seg_cell[r]
                out.append([cx, cy, bool(figs[r]), sx, sy, -1, need])
            else:
                out.append([cx, cy, bool(figs[r]), 0, 0, 0, None])
    return out


def _centre_completes(centres, x, y, tiles):
    """Whether a tile at (x, y) would complete a centre feature of a tile around it (`centres`:
    _centre_features, of the board whose `tiles` these are)."""
    for e in centres:
        need = e[6]
        if need is not None and abs(e[0] - x) <= 1 and abs(e[1] - y) <= 1:
            sx = e[3]
            sy = e[4]
            n = e[5]
            if n < 0:  # read once, for the first cell that asks
                n = e[5] = _around(tiles, sx, sy)
            n += abs(sx - x) <= 1 and abs(sy - y) <= 1
            if n == need[0] if need[1] else n >= need[0]:
                return True
    return False


def _completion_of(g, cell, rot, at=None):
    """(whether placing the drawn tile at `cell` turned `rot` would complete a feature or join
    figures a `join` rule scores, the tile's local features that would complete -- or None when
    not known).  Read from the board when the rules allow (QUICK_COMPLETE), else `completes`
    (Game._completion).  `at`, a dict the caller keeps for this very state, keeps what does not
    depend on the rotation by cell: [the four neighbours (None: not read yet), the tiles around (-1:
    not read yet), whether a centre feature around completes (None: not read yet)], under None
    the centre features that may complete (_centre_features), under 0 the rules' QUICK_COMPLETE and
    the drawn tile's orientations."""
    b = g.board
    rules = None if at is None else at.get(0)
    if rules is None:
        R = g.R
        rules = (R.QUICK_COMPLETE, R.ORIENT[g.bag.drawn])
        if at is not None:
            at[0] = rules
    quick = rules[0]
    if quick is None:
        return g.completes(cell, rot), None
    closed, surround = quick
    o = rules[1][rot // 90 % 4]
    x, y = cell
    tiles = b.tiles
    parent = b.parent
    open_ = b.open
    done = b.done
    local = None  # a set, once a feature completes
    known = [None, -1, None] if at is None else _known(at, cell)
    spec = _closing(o, closed)
    if spec:
        nbs = known[0]
        if nbs is None:
            nbs = known[0] = [tiles.get((x + dx, y + dy)) for dx, dy, _ in _SIDES]
        shut_any = False  # a feature with no side toward an empty cell (else none closes: no group is shut)
        for _, _, sides in spec:
            for dk in sides:
                if nbs[dk[0]] is None:
                    break
            else:
                shut_any = True
                break
        groups = []  # [features, roots, shut: no side toward an empty cell, open edges left]
        for i, nopen, sides in spec if shut_any else ():
            roots = set()
            shut = True
            left = nopen
            for d, k in sides:
                nb = nbs[d]
                if nb is None:
                    shut = False
                    continue
                no, nbase = nb
                part = no.parts[OPP[d]][k]
                if part < 0:
                    continue
                s = parent[nbase + part]
                roots.add(s if parent[s] == s else b.find(s))
                left -= 2  # each edge that meets one takes two open edges away
            grp = [{i}, roots, shut, left]
            for h in [h for h in groups if h[1] & roots]:  # features joined through a placed feature
                groups.remove(h)
                grp = [grp[0] | h[0], grp[1] | h[1], grp[2] and h[2], grp[3] + h[3]]
                roots = grp[1]
            groups.append(grp)
        for feats, roots, shut, left in groups:
            if not shut:
                continue
            closes = True
            for r in roots:
                left += open_[r]
                if done[r]:
                    closes = False
            if closes and left == 0:
                if local is None:
                    local = set()
                local |= feats
    if surround:
        for i in o.centre:
            need = surround.get(o.kinds[i])
            if need is not None:
                n = known[1]
                if n < 0:
                    n = known[1] = _around(tiles, x, y)
                if n == need[0] if need[1] else n >= need[0]:
                    if local is None:
                        local = set()
                    local.add(i)
        if not local:
            hit = known[2]
            if hit is None:
                hit = False
                if x * _KEY + y in b.around_centres:  # a centre tile around it (else none completes, nothing to read)
                    centres = _centre_features(b, surround) if at is None else _centres(at, b, quick)
                    hit = _centre_completes(centres, x, y, tiles)
                known[2] = hit
            if hit:
                return True, _NOTHING
    if local is None:
        return b.track_joins and g._joins_figures(o, cell), _NOTHING
    return True, local
