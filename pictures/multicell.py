"""A tile covering several cells (`tile NAME cells WxH`, dsl/multicell.py) drawn whole.

The tile is one picture of W x H tile boxes (W*100 x H*100), drawn from its declared
features at their numbered places (`N1w`, `E2`, `C3`, ...): each numbered place is
mapped by `tessera.dsl.multicell.locate` to its cell and that cell's one-cell place, so a
feature lies exactly where the engine lays it.  It is drawn as one tile is
(pictures/tile.py), on the tile's whole boundary instead of one cell's:

- half and area kinds: the runs of boundary a feature lies on, the gaps closed by
  curves that leave each end straight into the tile (half a cell deep);
- a line kind: from each side it reaches into that side's cell, then on to the
  other ends (two ends facing each other on one row are joined straight);
- a centre kind on one centre is its emblem there; on several centres, one walled
  area around those cells' centres, which the tile's lines cross.

Faint dashed lines show the cells the tile covers.  Such a tile lies at rotation 0
only (the loader says so), so places are drawn as declared.
"""
from __future__ import annotations

import drawsvg as dw

from tessera.dsl.model import TileType
from tessera.dsl.multicell import locate

from .tile import (FIELD_SHADES, FIGURE_AT, HALF_SPAN, LABEL_AT, LINE_WIDTH, MID, SIDE_SPAN, SIZE, Drawn, Style,
                   _centre_emblem, _feature, _lighter, _shield, attr, draw_symbols, perimeter, places_layer, runs)

INWARD = {"N": (0, 1), "E": (-1, 0), "S": (0, -1), "W": (1, 0)}
DEPTH = MID  # how far into the tile an edge curve leaves a side: half a cell
HULL_PAD = 26  # how far a walled centre area reaches past its cells' centres


class Box:
    """The boundary of a W x H tile, read clockwise from its NW corner as 0..2(W+H)*100."""

    def __init__(self, w: int, h: int):
        self.w, self.h = w, h
        self.W, self.H = w * SIZE, h * SIZE
        self.total = 2 * (self.W + self.H)
        self.corners = (0, self.W, self.W + self.H, 2 * self.W + self.H)

    def xy(self, t: float) -> tuple[float, float]:
        W, H = self.W, self.H
        t %= self.total
        if t <= W:
            return (t, 0.0)
        if t <= W + H:
            return (float(W), t - W)
        if t <= 2 * W + H:
            return (2 * W + H - t, float(H))
        return (0.0, self.total - t)

    def side_at(self, t: float) -> str:
        t %= self.total
        return "NESW"[sum(1 for c in self.corners[1:] if t >= c)]

    def t_of(self, side: str, x: float, y: float) -> float:
        W, H = self.W, self.H
        return {"N": x, "E": W + y, "S": W + H + (W - x), "W": 2 * W + H + (H - y)}[side]

    def locate(self, place: str) -> tuple[tuple[int, int], str] | None:
        return locate(place, self.w, self.h)

    def origin(self, cell: tuple[int, int]) -> tuple[float, float]:
        return cell[0] * SIZE, cell[1] * SIZE

    def span(self, place: str) -> tuple[float, float] | None:
        """The run of the tile's boundary a numbered side or half lies on."""
        loc = self.locate(place)
        if loc is None:
            return None
        cell, local = loc
        one = SIDE_SPAN.get(local) or HALF_SPAN.get(local)
        if one is None:
            return None
        ox, oy = self.origin(cell)
        side = local[0]
        (ax, ay), (bx, by) = perimeter(one[0]), perimeter(one[1])
        return self.t_of(side, ox + ax, oy + ay), self.t_of(side, ox + bx, oy + by)

    def at(self, place: str, table: dict) -> tuple[float, float]:
        """Where `table` (LABEL_AT, FIGURE_AT) puts a numbered place, in the tile's frame."""
        cell, local = self.locate(place) or ((0, 0), "C")
        ox, oy = self.origin(cell)
        x, y = table.get(local, (MID, MID))
        return ox + x, oy + y

    def side_mid(self, place: str) -> tuple[tuple[float, float], tuple[int, int]] | None:
        """A whole numbered side's midpoint and the direction into the tile from it."""
        loc = self.locate(place)
        if loc is None or loc[1] not in INWARD:
            return None
        cell, side = loc
        ox, oy = self.origin(cell)
        mx, my = {"N": (MID, 0), "E": (SIZE, MID), "S": (MID, SIZE), "W": (0, MID)}[side]
        return (ox + mx, oy + my), INWARD[side]


def _runs(box: Box, places: tuple[str, ...], halves: bool) -> list[tuple[float, float]]:
    spans = {}
    for p in places:
        loc = box.locate(p)
        if loc is None or (loc[1] in HALF_SPAN) != halves or loc[1] not in (HALF_SPAN if halves else SIDE_SPAN):
            continue
        spans[p] = box.span(p)
    return runs(tuple(spans), spans, total=box.total)


def region(box: Box, rr: list[tuple[float, float]], **attrs) -> dw.Path:
    """An area on the tile's boundary: each run along it, the gaps closed by curves that
    leave each end straight into the tile (so two areas meeting across a row share a line)."""
    p = dw.Path(**attrs)
    if len(rr) == 1 and rr[0][1] - rr[0][0] >= box.total:
        return p.M(0, 0).L(box.W, 0).L(box.W, box.H).L(0, box.H).Z()
    for i, (a, b) in enumerate(rr):
        if i == 0:
            p.M(*box.xy(a))
        for c in sorted(c + k * box.total for c in box.corners for k in (0, 1)):
            if a < c < b:
                p.L(*box.xy(c))
        bx, by = box.xy(b)
        p.L(bx, by)
        na = rr[(i + 1) % len(rr)][0]
        nx_, ny_ = box.xy(na)
        (ux, uy), (vx, vy) = INWARD[box.side_at(b - 0.5)], INWARD[box.side_at(na + 0.5)]
        p.C(bx + DEPTH * ux, by + DEPTH * uy, nx_ + DEPTH * vx, ny_ + DEPTH * vy, nx_, ny_)
    return p.Z()


def line_path(box: Box, places: tuple[str, ...]) -> dw.Path | None:
    """A line from each side it reaches into that side's cell, the ends joined."""
    ends = [m for m in (box.side_mid(p) for p in places) if m is not None]
    if not ends:
        return None
    path = dw.Path(fill="none", stroke_linecap="butt")
    inner = [(px + DEPTH * dx, py + DEPTH * dy) for (px, py), (dx, dy) in ends]
    if len(ends) == 1:
        return path.M(*ends[0][0]).L(*inner[0])
    if len(ends) == 2:
        return path.M(*ends[0][0]).C(*inner[0], *inner[1], *ends[1][0])
    hx = sum(x for x, _ in inner) / len(inner)
    hy = sum(y for _, y in inner) / len(inner)
    for (pt, _), q in zip(ends, inner):
        path.M(*pt).Q(*q, hx, hy)
    return path


def _hull(kind: str, style: Style, x0: float, y0: float, x1: float, y1: float) -> dw.Group:
    """A walled area from (x0, y0) to (x1, y1): a wall with towers at its corners and
    battlements along its top, in the kind's colours."""
    fill, stroke = style.fill[kind], style.stroke[kind]
    g = dw.Group(class_="emblem hull")
    g.append(dw.Path(fill=fill, stroke=stroke, stroke_width=3)
             .M(x0, y0).L(x1, y0).L(x1, y1).L(x0, y1).Z())
    g.append(dw.Rectangle(x0 + 7, y0 + 7, x1 - x0 - 14, y1 - y0 - 14, fill=_lighter(fill, 0.25), stroke=stroke,
                          stroke_width=1, rx=4))
    n = max(2, int((x1 - x0) // 16))
    step = (x1 - x0) / n
    for k in range(n):  # battlements along the top wall
        if k % 2 == 0:
            g.append(dw.Rectangle(x0 + k * step, y0 - 5, step, 5, fill=stroke))
    for cx, cy in ((x0, y0), (x1, y0), (x1, y1), (x0, y1)):
        g.append(dw.Circle(cx, cy, 8, fill=fill, stroke=stroke, stroke_width=2, class_="tower"))
    kx, ky = (x0 + x1) / 2, y0 + (y1 - y0) * 0.38  # the keep
    g.append(dw.Rectangle(kx - 22, ky - 16, 44, 32, fill=fill, stroke=stroke, stroke_width=1.5, class_="keep"))
    for k in range(5):
        if k % 2 == 0:
            g.append(dw.Rectangle(kx - 22 + k * 8.8, ky - 21, 8.8, 5, fill=stroke))
    g.append(dw.Path(fill=stroke).M(kx - 6, ky + 16).L(kx - 6, ky + 4).A(6, 6, 0, 0, 1, kx + 6, ky + 4)
             .L(kx + 6, ky + 16).Z())
    return g


def draw_multicell(tt: TileType, style: Style, *, places: bool = False, bad: set[int] = frozenset(),
                   done: dict[int, dict] | None = None, **attrs) -> dw.Group:
    """The picture of a tile covering W x H cells, in its own frame (0..W*100, 0..H*100).

    `bad` and `done` are as for draw_tile, by the index of the declared feature."""
    done = done or {}
    w, h = tt.cells
    box = Box(w, h)
    cat = style.category
    features = [Drawn(f.index, f.kind, tuple(f.places), f.shields, False, tuple(f.borders)) for f in tt.features]
    g = dw.Group(**attrs)
    halves = sorted(k for k, c in cat.items() if c == "half")
    ground = FIELD_SHADES[0] if "field" in halves else style.fill[halves[0]] if halves else "#e9e4d4"
    g.append(dw.Rectangle(0, 0, box.W, box.H, fill=ground, class_="tile-ground"))
    fields = [(f, _runs(box, f.places, True)) for f in features if cat.get(f.kind) == "half"]
    fields = sorted((fr for fr in fields if fr[1]), key=lambda fr: -sum(b - a for a, b in fr[1]))
    for n, (f, rr) in enumerate(fields):
        base = style.fill[f.kind]
        shades = FIELD_SHADES if base == FIELD_SHADES[0] else (base, _lighter(base, 0.2), _lighter(base, 0.4))
        g.append(_feature(region(box, rr, fill=shades[n % len(shades)]), f, "half", bad, done))
    for f in features:
        if cat.get(f.kind) != "area":
            continue
        rr = _runs(box, f.places, False)
        if rr:
            g.append(_feature(region(box, rr, fill=style.fill[f.kind], stroke=style.stroke[f.kind], stroke_width=1.2),
                              f, "area", bad, done))
    centres = {f.index: [box.at(p, {"C": (MID, MID)}) for p in f.places if (box.locate(p) or (0, ""))[1] == "C"]
               for f in features if cat.get(f.kind) == "centre"}
    kinds_c = sorted(k for k in cat if cat[k] == "centre")
    for f in features:  # a centre kind on several cells: one walled area, under the lines that cross it
        pts = centres.get(f.index, [])
        if len(pts) > 1:
            x0, x1 = min(x for x, _ in pts) - HULL_PAD, max(x for x, _ in pts) + HULL_PAD
            y0, y1 = min(y for _, y in pts) - HULL_PAD, max(y for _, y in pts) + HULL_PAD
            g.append(_feature(_hull(f.kind, style, x0, y0, x1, y1), f, "centre", bad, done,
                              shade=dw.Path(d=f"M{x0},{y0} L{x1},{y0} L{x1},{y1} L{x0},{y1} Z")))
    for f in features:
        if cat.get(f.kind) != "line":
            continue
        path = line_path(box, f.places)
        if path is None:
            continue
        width = LINE_WIDTH.get(f.kind, 8)
        grp = dw.Group()
        d = path.args["d"]
        grp.append(dw.Path(d=d, fill="none", stroke=style.stroke[f.kind], stroke_width=width + 2.5))
        grp.append(dw.Path(d=d, fill="none", stroke=style.fill[f.kind], stroke_width=width))
        g.append(_feature(grp, f, "line", bad, done))
    for f in features:
        pts = centres.get(f.index, [])
        if len(pts) == 1:
            (x, y), = pts
            g.append(_feature(_centre_emblem(f.kind, style, x, y, kinds_c.index(f.kind)), f, "centre", bad, done,
                              centre_at=(x, y)))
    for f in features:
        sides = [p for p in f.places if (box.locate(p) or (0, ""))[1] in INWARD]
        if f.shields and sides:  # in the area, beside where a figure on it stands, within the tile
            spots = [box.at(p, FIGURE_AT) for p in sides]
            ax, ay = sum(x for x, _ in spots) / len(spots), sum(y for _, y in spots) / len(spots)
            for k in range(f.shields):
                x = min(max(ax + 14 * (k + 1), 8), box.W - 8 - 14 * (f.shields - 1 - k))
                g.append(_shield(x, min(max(ay - 4, 8), box.H - 9)))
    for i in range(1, w):  # the cells the tile covers
        g.append(dw.Line(i * SIZE, 0, i * SIZE, box.H, stroke="#555555", stroke_width=0.6, stroke_dasharray="3 4",
                         stroke_opacity=0.6, pointer_events="none", class_="cell-edge"))
    for j in range(1, h):
        g.append(dw.Line(0, j * SIZE, box.W, j * SIZE, stroke="#555555", stroke_width=0.6, stroke_dasharray="3 4",
                         stroke_opacity=0.6, pointer_events="none", class_="cell-edge"))
    if tt.symbols:  # printed symbols: at its NW corner, as on a one-cell tile, under --places
        g.append(draw_symbols(tt.symbols, style, "NW", box.W, box.H))
    if places:
        lab = places_layer()
        by_index = {f.index: f for f in features}
        for f in features:
            for n, p in enumerate(f.places):
                x, y = box.at(p, LABEL_AT)
                if (box.locate(p) or (0, ""))[1] == "C":
                    y -= 16  # above a line through the cell's centre
                lab.append(dw.Text(p, 8, x, y + 3, class_="place", data_place=attr(p), data_kind=attr(f.kind)))
                bordered = [by_index[j].places[0] for j in f.borders if j in by_index and by_index[j].places]
                if n == 0 and bordered:  # beside the field's first place, towards the tile's middle
                    dx = 2.4 * len(p) + 4
                    right = x < box.W / 2
                    lab.append(dw.Text("→" + " ".join(bordered), 7, x + dx if right else x - dx, y + 3,
                                       text_anchor="start" if right else "end",
                                       class_="border", data_kind=attr(f.kind), fill="#1b4d1e"))
        g.append(lab)
    g.append(dw.Rectangle(0, 0, box.W, box.H, fill="none", stroke="#555555", stroke_width=1, class_="tile-edge"))
    return g
