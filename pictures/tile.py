"""One tile drawn from the rule set's own geometry (the places of its features), with drawsvg.

A tile is a 100 x 100 square.  Its boundary is read clockwise from the north-west
corner as a perimeter 0..400 (N side 0..100, E 100..200, S 200..300, W 300..400);
every place of ../shared/spec/conventions.md is an interval of it (a side, a half)
or a point (a corner).  How a feature is drawn follows from what the rule set
declares about its kind, never from its name:

- a kind drawn on half-sides (`feature field halves`) and a kind that fills whole
  sides (`edge C = city`) are areas: the runs of boundary they lie on, joined by
  curves through the tile's interior;
- the middle part of a three-part edge (`edge R = field road field`) is a line from
  each side it reaches to the centre (a dead end stops at the junction there);
- a `centre` kind is an emblem in the middle.

A feature that `crosses` another is drawn over it with a dark casing (a bridge).
Places are given in the frame the tile is seen in: a board passes places already
turned by the tile's rotation, so text always stays upright.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import drawsvg as dw

from ..dsl.model import RuleSet
from ..dsl.multicell import locate

SIZE = 100
MID = SIZE / 2

SIDE_SPAN = {"N": (0, 100), "E": (100, 200), "S": (200, 300), "W": (300, 400)}
HALF_SPAN = {"Nw": (0, 50), "Ne": (50, 100), "En": (100, 150), "Es": (150, 200),
             "Se": (200, 250), "Sw": (250, 300), "Ws": (300, 350), "Wn": (350, 400)}
CORNER_AT = {"NW": 0, "NE": 100, "SE": 200, "SW": 300}
CORNER_XY = {"NW": (0, 0), "NE": (SIZE, 0), "SE": (SIZE, SIZE), "SW": (0, SIZE)}
SIDE_MID = {"N": (MID, 0), "E": (SIZE, MID), "S": (MID, SIZE), "W": (0, MID)}

# Where a label, a figure, a shield sits for each place (tile frame, y down).
LABEL_AT = {"N": (50, 9), "E": (91, 50), "S": (50, 92), "W": (9, 50),
            "Nw": (25, 9), "Ne": (75, 9), "En": (91, 25), "Es": (91, 75),
            "Se": (75, 92), "Sw": (25, 92), "Ws": (9, 75), "Wn": (9, 25),
            "NW": (10, 10), "NE": (90, 10), "SE": (90, 91), "SW": (10, 91), "C": (50, 50)}
FIGURE_AT = {"N": (50, 19), "E": (81, 50), "S": (50, 81), "W": (19, 50),
             "Nw": (24, 15), "Ne": (76, 15), "En": (85, 24), "Es": (85, 76),
             "Se": (76, 85), "Sw": (24, 85), "Ws": (15, 76), "Wn": (15, 24),
             "NW": (13, 13), "NE": (87, 13), "SE": (87, 87), "SW": (13, 87), "C": (50, 48)}

# Colours of the kinds the bundled rules declare; any other kind gets one of FALLBACK.
KNOWN = {
    "city": ("#d9a05b", "#8a5a2b"),
    "road": ("#f7f3e8", "#6b6258"),
    "field": ("#9ccc65", "#5d8a35"),
    "river": ("#4a90d9", "#2a5d99"),
    "cloister": ("#b5483b", "#6e2a22"),
    "garden": ("#2e7d32", "#1b4d1e"),
    "fortress": ("#b8b1a3", "#4f4a42"),
}
FALLBACK = [("#9c6ade", "#5c3a8a"), ("#e07b39", "#8a4518"), ("#3bb3b5", "#1d6e70"),
            ("#d94a8c", "#852653"), ("#8d8d8d", "#4a4a4a"), ("#c2b72f", "#6e6817")]
FIELD_SHADES = ("#9ccc65", "#b3d97f", "#86bb4f", "#c5e29a")
LINE_WIDTH = {"river": 12}  # any other line kind: 8
PROBLEM = "#e0201b"
SHIELD = ("#2f5fb3", "#ffffff")


@dataclass(frozen=True)
class SymbolLook:
    """How one printed symbol (`symbols NAME ...` on a tile) is drawn: a badge with a glyph,
    in the colour of what the symbol names (a Siege outpost: the first kind its track is for)."""

    glyph: str  # the shortest prefix that tells it from the rule set's other symbols; "?" for `any`
    fill: str
    stroke: str
    ink: str  # the glyph's colour, dark on a light badge
    meaning: str  # what it names, in words (the sheet's legend, the badge's tooltip)


ANY_SYMBOL = "any"  # the printed "?" (docs/language.md): the drawer chooses
ANY_LOOK = ("#37474f", "#111111", "#ffffff")


def _ink(colour: str) -> str:
    r, g, b = (int(colour[i:i + 2], 16) for i in (1, 3, 5))
    return "#111111" if 0.299 * r + 0.587 * g + 0.114 * b > 150 else "#ffffff"


def _glyphs(names: list[str]) -> dict[str, str]:
    """Each name's shortest prefix that no other name starts with (its first letter, mostly)."""
    out = {}
    for n in names:
        k = 1
        while k < len(n) and any(o != n and o.lower().startswith(n[:k].lower()) for o in names):
            k += 1
        out[n] = n[:1].upper() + n[1:k].lower()
    return out


def symbol_looks(rs: RuleSet, fill: dict[str, str], stroke: dict[str, str]) -> dict[str, SymbolLook]:
    """A look for every symbol a tile of `rs` prints, from what the rule set says it names:
    a track (`track knights for city ...`) lends the colour of its first kind; a symbol that
    names nothing declared gets one of the further colours, in the order of its name."""
    names = rs.symbol_names()
    glyphs = _glyphs([n for n in names if n != ANY_SYMBOL])
    looks: dict[str, SymbolLook] = {}
    extra = 0
    for n in names:
        if n == ANY_SYMBOL:
            f, s, ink = ANY_LOOK
            looks[n] = SymbolLook("?", f, s, ink, "any: the player who draws it chooses")
            continue
        track = rs.tracks.get(n)
        kind = next((k for k in (track.kinds if track else ()) if k in fill), None)
        if kind is not None:
            f, s = fill[kind], stroke[kind]
            meaning = f"{n}: the {n} outpost ({', '.join(track.kinds)})"
        else:
            f, s = FALLBACK[extra % len(FALLBACK)]
            extra += 1
            meaning = n
        looks[n] = SymbolLook(glyphs[n], f, s, _ink(f), meaning)
    return looks


@dataclass(frozen=True)
class Style:
    """How each feature kind of a rule set is drawn: its category and colours; and each
    printed symbol of its tiles."""

    category: dict[str, str]  # kind -> "half" | "area" | "line" | "centre"
    fill: dict[str, str]
    stroke: dict[str, str]
    symbols: dict[str, SymbolLook] = field(default_factory=dict)

    @staticmethod
    def of(rs: RuleSet) -> "Style":
        half = rs.half_kinds()
        centre = rs.centre_kinds()
        whole = {e.parts[0] for e in rs.edges.values() if len(e.parts) == 1}
        line = {e.parts[1] for e in rs.edges.values() if len(e.parts) == 3} - whole - half
        cat, fill, stroke = {}, {}, {}
        extra = 0
        for k in sorted(rs.features):
            cat[k] = "half" if k in half else "centre" if k in centre else "line" if k in line else "area"
            if k in KNOWN:
                fill[k], stroke[k] = KNOWN[k]
            else:
                fill[k], stroke[k] = FALLBACK[extra % len(FALLBACK)]
                extra += 1
        return Style(cat, fill, stroke, symbol_looks(rs, fill, stroke))


@dataclass(frozen=True)
class Drawn:
    """One feature of a tile as it is seen: its kind and its places in the frame drawn."""

    index: int
    kind: str
    places: tuple[str, ...]
    shields: int = 0
    crosses: bool = False
    borders: tuple[int, ...] = ()  # indices of the features (cities) a field is declared to border (`-> N`)


def attr(value) -> str:
    """An attribute value as text.  It is escaped where drawsvg writes it, as every attribute
    value is (pictures/__init__.py, `escape`): escaping here too would show `&amp;quot;`."""
    return str(value)


def perimeter(t: float) -> tuple[float, float]:
    t %= 400
    if t <= 100:
        return (t, 0.0)
    if t <= 200:
        return (100.0, t - 100)
    if t <= 300:
        return (300 - t, 100.0)
    return (0.0, 400 - t)


def runs(places: tuple[str, ...], spans: dict[str, tuple[int, int]], total: int = 400) -> list[tuple[int, int]]:
    """The maximal runs of boundary a feature lies on (clockwise, possibly wrapping past
    `total`, the boundary's length: 400 for one cell)."""
    ivs = sorted(spans[p] for p in places if p in spans)
    if not ivs:
        return []
    merged: list[list[int]] = []
    for a, b in ivs:
        if merged and a <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], b)
        else:
            merged.append([a, b])
    if len(merged) > 1 and merged[-1][1] >= total and merged[0][0] <= 0:  # joined across the NW corner
        last = merged.pop()
        merged[0] = [last[0], merged[0][1] + total]
    return [(a, b) for a, b in merged]


def region_path(rs_: list[tuple[int, int]], **attrs) -> dw.Path:
    """An area: each run along the boundary, the gaps closed by curves bowing towards the centre."""
    p = dw.Path(**attrs)
    if len(rs_) == 1 and rs_[0][1] - rs_[0][0] >= 400:
        return p.M(0, 0).L(SIZE, 0).L(SIZE, SIZE).L(0, SIZE).Z()
    for i, (a, b) in enumerate(rs_):
        x, y = perimeter(a)
        if i == 0:
            p.M(x, y)
        corner = (a // 100 + 1) * 100
        while corner < b:
            p.L(*perimeter(corner))
            corner += 100
        bx, by = perimeter(b)
        p.L(bx, by)
        nx_, ny_ = perimeter(rs_[(i + 1) % len(rs_)][0])
        p.Q(MID, MID, nx_, ny_)  # the same curve a line between those points takes
    return p.Z()


def _lighter(colour: str, t: float = 0.35) -> str:
    """A colour mixed with white: an area drawn over another (crossing) stays readable."""
    r, g, b = (int(colour[i:i + 2], 16) for i in (1, 3, 5))
    return "#%02x%02x%02x" % tuple(round(c + (255 - c) * t) for c in (r, g, b))


def places_layer() -> dw.Group:
    """The group the place names of `--places` are written into (one style for every tile)."""
    return dw.Group(class_="places", font_size=8, font_family="sans-serif", text_anchor="middle",
                    fill="#111111", stroke="#ffffff", stroke_width=2.2, paint_order="stroke")


def _shield(x: float, y: float) -> dw.Group:
    g = dw.Group(class_="shield")
    g.append(dw.Path(fill=SHIELD[0], stroke=SHIELD[1], stroke_width=1.2)
             .M(x - 6, y - 7).L(x + 6, y - 7).L(x + 6, y).Q(x + 6, y + 5, x, y + 8).Q(x - 6, y + 5, x - 6, y).Z())
    return g


BADGE = 20  # a symbol's badge: legible on the sheet and on a board (a tile is 100 across)
BADGE_GAP = 3


def symbol_badge(name: str, look: SymbolLook, x: float, y: float, **attrs) -> dw.Group:
    """One printed symbol: a rounded badge with its glyph, its top-left corner at (x, y)."""
    g = dw.Group(class_="symbol", data_symbol=attr(name), **attrs)
    g.append(dw.Title(f"printed symbol {look.meaning}"))
    g.append(dw.Rectangle(x, y, BADGE, BADGE, rx=4, fill=look.fill, stroke="#ffffff", stroke_width=2.4))
    g.append(dw.Rectangle(x, y, BADGE, BADGE, rx=4, fill="none", stroke=look.stroke, stroke_width=1.2))
    size = 14 if len(look.glyph) == 1 else 10
    g.append(dw.Text(look.glyph, size, x + BADGE / 2, y + BADGE / 2 + size * 0.36, text_anchor="middle",
                     fill=look.ink, font_weight="bold", font_family="sans-serif"))
    return g


def draw_symbols(symbols: tuple[str, ...], style: Style, corner: str = "NW", width: float = SIZE,
                 height: float = SIZE) -> dw.Group:
    """A tile's printed symbols (`symbols ...`), left to right as printed, in a row at `corner`
    of the tile as seen (the tile's NW corner, turned with the tile on a board); the glyphs stay
    upright and the row reads left to right whatever the rotation."""
    g = dw.Group(class_="symbols", data_symbols=attr(" ".join(symbols)))
    row = len(symbols) * BADGE + (len(symbols) - 1) * BADGE_GAP
    x = 3 if corner in ("NW", "SW") else width - 3 - row
    y = 3 if corner in ("NW", "NE") else height - 3 - BADGE
    for n, name in enumerate(symbols):
        look = style.symbols.get(name) or SymbolLook(name[:1].upper(), *FALLBACK[0], "#ffffff", name)
        g.append(symbol_badge(name, look, x + n * (BADGE + BADGE_GAP), y))
    return g


def _centre_emblem(kind: str, style: Style, x: float, y: float, ordinal: int) -> dw.DrawingElement:
    fill, stroke = style.fill[kind], style.stroke[kind]
    g = dw.Group(class_="emblem")
    if kind == "cloister":
        g.append(dw.Path(fill=fill, stroke=stroke, stroke_width=1.5)
                 .M(x - 14, y + 12).L(x - 14, y - 4).L(x, y - 15).L(x + 14, y - 4).L(x + 14, y + 12).Z())
        g.append(dw.Rectangle(x - 3, y + 2, 6, 10, fill=stroke))
    elif kind == "garden":
        g.append(dw.Circle(x, y, 12, fill=fill, stroke=stroke, stroke_width=1.5))
        for dx, dy in ((-4, -3), (4, -3), (0, 4)):
            g.append(dw.Circle(x + dx, y + dy, 4, fill="#66bb6a"))
    else:  # a kind no bundled rule declares: a disc with its initial
        shape = ordinal % 2
        if shape == 0:
            g.append(dw.Circle(x, y, 12, fill=fill, stroke=stroke, stroke_width=1.5))
        else:
            g.append(dw.Path(fill=fill, stroke=stroke, stroke_width=1.5).M(x, y - 13).L(x + 13, y).L(x, y + 13).L(x - 13, y).Z())
        g.append(dw.Text(kind[:1].upper(), 11, x, y + 4, text_anchor="middle", fill="#ffffff", font_weight="bold",
                         font_family="sans-serif"))
    return g


class Box:
    """The cells a tile covers, W x H, and where its places lie: the geometry one drawing
    (`draw_tile`) reads.  A tile covering several cells (`tile NAME cells WxH`, dsl/multicell.py)
    is a box of W x H tile boxes (W*100 x H*100); its numbered places (`N1w`, `E2`, `C3`, ...) are
    mapped by `tessera.dsl.multicell.locate` to their cell and that cell's one-cell place, so a
    feature lies exactly where the engine lays it, and it is drawn on the tile's whole boundary:

    - half and area kinds: the runs of boundary a feature lies on, the gaps closed by curves that
      leave each end straight into the tile (half a cell deep);
    - a line kind: from each side it reaches into that side's cell, then on to the other ends (two
      ends facing each other on one row are joined straight);
    - a centre kind on one centre is its emblem there; on several centres, one walled area around
      those cells' centres, which the tile's lines cross.

    Faint dashed lines show the cells the tile covers.  Such a tile lies at rotation 0 only (the
    loader says so), so places are drawn as declared.  `CELL`, the 1 x 1 box, is the plain tile
    (`Cell`: unnumbered places, its curves through the centre, its junction and corner features)."""

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

    def local(self, place: str) -> str:
        """The one-cell place a place is on its cell ("" for none)."""
        return (self.locate(place) or (0, ""))[1]

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
        """Where `table` (LABEL_AT, FIGURE_AT) puts a place, in the tile's frame."""
        cell, local = self.locate(place) or ((0, 0), "C")
        ox, oy = self.origin(cell)
        x, y = table.get(local, (MID, MID))
        return ox + x, oy + y

    def side_mid(self, place: str) -> tuple[tuple[float, float], tuple[int, int]] | None:
        """A whole side's midpoint and the direction into the tile from it."""
        loc = self.locate(place)
        if loc is None or loc[1] not in INWARD:
            return None
        cell, side = loc
        ox, oy = self.origin(cell)
        mx, my = SIDE_MID[side]
        return (ox + mx, oy + my), INWARD[side]

    def runs(self, places: tuple[str, ...], halves: bool) -> list[tuple[float, float]]:
        """The runs of boundary the places (halves, or whole sides) lie on."""
        spans = {}
        for p in places:
            loc = self.locate(p)
            if loc is None or (loc[1] in HALF_SPAN) != halves or loc[1] not in (HALF_SPAN if halves else SIDE_SPAN):
                continue
            spans[p] = self.span(p)
        return runs(tuple(spans), spans, total=self.total)

    def region(self, rr: list[tuple[float, float]], **attrs) -> dw.Path:
        """An area on the tile's boundary: each run along it, the gaps closed by curves that
        leave each end straight into the tile (so two areas meeting across a row share a line)."""
        p = dw.Path(**attrs)
        if len(rr) == 1 and rr[0][1] - rr[0][0] >= self.total:
            return p.M(0, 0).L(self.W, 0).L(self.W, self.H).L(0, self.H).Z()
        for i, (a, b) in enumerate(rr):
            if i == 0:
                p.M(*self.xy(a))
            for c in sorted(c + k * self.total for c in self.corners for k in (0, 1)):
                if a < c < b:
                    p.L(*self.xy(c))
            bx, by = self.xy(b)
            p.L(bx, by)
            na = rr[(i + 1) % len(rr)][0]
            nx_, ny_ = self.xy(na)
            (ux, uy), (vx, vy) = INWARD[self.side_at(b - 0.5)], INWARD[self.side_at(na + 0.5)]
            p.C(bx + DEPTH * ux, by + DEPTH * uy, nx_ + DEPTH * vx, ny_ + DEPTH * vy, nx_, ny_)
        return p.Z()

    def line_path(self, places: tuple[str, ...]) -> dw.Path | None:
        """A line from each side it reaches into that side's cell, the ends joined."""
        ends = [m for m in (self.side_mid(p) for p in places) if m is not None]
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

    def junction(self, lines: list[Drawn], has_centre: bool) -> bool:
        """Is a junction drawn where lines end?  (On a tile of several cells a line's dead end stops
        half a cell in, at no junction.)"""
        return False

    def centres(self, f: Drawn) -> list[tuple[float, float]]:
        """The cells' centres a centre feature lies on."""
        return [self.at(p, {"C": (MID, MID)}) for p in f.places if self.local(p) == "C"]

    def corner(self, place: str) -> tuple[float, float] | None:
        """Where a feature on a corner only is drawn, as a quarter disc (a plain tile's corners)."""
        return None

    def sides(self, f: Drawn) -> list[str]:
        return [p for p in f.places if self.local(p) in INWARD]

    def shield_at(self, f: Drawn, sides: list[str], k: int) -> tuple[float, float]:
        """Shield k of a feature: in the area, beside where a figure on it stands, within the tile."""
        spots = [self.at(p, FIGURE_AT) for p in sides]
        ax, ay = sum(x for x, _ in spots) / len(spots), sum(y for _, y in spots) / len(spots)
        return min(max(ax + 14 * (k + 1), 8), self.W - 8 - 14 * (f.shields - 1 - k)), min(max(ay - 4, 8), self.H - 9)

    def label_at(self, place: str, crowded: bool) -> tuple[float, float]:
        """Where `--places` writes a place's name (a centre's above a line through the cell's centre)."""
        x, y = self.at(place, LABEL_AT)
        return (x, y - 16) if self.local(place) == "C" else (x, y)

    def border_label(self, text: str, x: float, y: float, kind: str, place: str) -> dw.Text:
        """A field's declared border, beside its first place, towards the tile's middle."""
        dx = 2.4 * len(place) + 4
        right = x < self.W / 2
        return dw.Text(text, 7, x + dx if right else x - dx, y + 3, text_anchor="start" if right else "end",
                       class_="border", data_kind=attr(kind), fill="#1b4d1e")


class Cell(Box):
    """The plain tile, the 1 x 1 box: its places unnumbered (`N`, `Nw`, `C`, `NW`), an area's gaps
    closed by curves bowing towards the centre, a line from each side it reaches to the centre
    (a dead end stops at the junction there)."""

    def __init__(self):
        super().__init__(1, 1)

    def locate(self, place: str) -> tuple[tuple[int, int], str] | None:
        return (0, 0), place

    def at(self, place: str, table: dict) -> tuple[float, float]:
        return table.get(place, (MID, MID))

    def runs(self, places: tuple[str, ...], halves: bool) -> list[tuple[int, int]]:
        return runs(places, HALF_SPAN if halves else SIDE_SPAN)

    def region(self, rr: list[tuple[int, int]], **attrs) -> dw.Path:
        return region_path(rr, **attrs)

    def line_path(self, places: tuple[str, ...]) -> dw.Path | None:
        sides = [p for p in places if p in SIDE_MID]
        if not sides:
            return None
        path = dw.Path(fill="none", stroke_linecap="butt")
        if len(sides) == 2:
            (ax, ay), (bx, by) = SIDE_MID[sides[0]], SIDE_MID[sides[1]]
            return path.M(ax, ay).Q(MID, MID, bx, by)
        for s in sides:
            path.M(*SIDE_MID[s]).L(MID, MID)
        return path

    def junction(self, lines: list[Drawn], has_centre: bool) -> bool:
        # A junction (the base game's crossroads, BASE-ROAD-1) is where two or more lines end.
        # One line reaching three or four sides ends nowhere on the tile (SIEGE-TILE-1 (a): the
        # road "splits into 4 directions"): its arms meet and go on, with no junction drawn.
        return sum(1 for f in lines if len([p for p in f.places if p in SIDE_MID]) == 1) >= 2

    def centres(self, f: Drawn) -> list[tuple[float, float]]:
        return [(MID, MID)]

    def corner(self, place: str) -> tuple[float, float] | None:
        return CORNER_XY.get(place)

    def sides(self, f: Drawn) -> list[str]:
        return [p for p in f.places if p in SIDE_MID]

    def shield_at(self, f: Drawn, sides: list[str], k: int) -> tuple[float, float]:
        ax = sum(FIGURE_AT[s][0] for s in sides) / len(sides)
        ay = sum(FIGURE_AT[s][1] for s in sides) / len(sides)
        return ax + 14 + 14 * k, ay - 4

    def label_at(self, place: str, crowded: bool) -> tuple[float, float]:
        x, y = LABEL_AT.get(place, (MID, MID))
        return (x, y + 20) if place == "C" and crowded else (x, y)

    def border_label(self, text: str, x: float, y: float, kind: str, place: str) -> dw.Text:
        # under the field's first place (`field Wn En -> N`)
        return dw.Text(text, 7, x, y + 11 if y < MID else y - 7, class_="border", data_kind=attr(kind), fill="#1b4d1e")


CELL = Cell()
INWARD = {"N": (0, 1), "E": (-1, 0), "S": (0, -1), "W": (1, 0)}
DEPTH = MID  # how far into a tile of several cells an edge curve leaves a side: half a cell
HULL_PAD = 26  # how far a walled centre area reaches past its cells' centres


def box_of(t) -> Box:
    """The box of a tile type: its W x H cells, or the plain tile."""
    return CELL if t.cells is None else Box(*t.cells)


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


def draw_tile(features: list[Drawn], style: Style, *, box: Box = CELL, places: bool = False,
              bad: set[int] = frozenset(), done: dict[int, dict] | None = None, symbols: tuple[str, ...] = (),
              rotation: int = 0, **attrs) -> dw.Group:
    """A tile's picture as a group in its own frame (0..W*100, 0..H*100 for a box of W x H cells;
    `CELL`, the plain tile, 0..100): fields, areas, lines, centre emblems, and its printed symbols
    (`symbols`, at its NW corner turned by `rotation`).

    `bad`: indices of features to mark as a problem; `done`: completed features
    (index -> attributes of the shading drawn over it with the `done` pattern,
    which the drawing must define: `done_pattern()`)."""
    done = done or {}
    g = dw.Group(**attrs)
    cat = style.category
    halves = sorted(k for k, c in cat.items() if c == "half")
    ground = FIELD_SHADES[0] if "field" in halves else style.fill[halves[0]] if halves else "#e9e4d4"
    g.append(dw.Rectangle(0, 0, box.W, box.H, fill=ground, class_="tile-ground"))
    fields = [(f, box.runs(f.places, True)) for f in features if cat.get(f.kind) == "half"]
    fields = sorted((fr for fr in fields if fr[1]), key=lambda fr: -sum(b - a for a, b in fr[1]))  # small fields on top
    for n, (f, rr) in enumerate(fields):
        base = style.fill[f.kind]
        shades = FIELD_SHADES if base == FIELD_SHADES[0] else (base, _lighter(base, 0.2), _lighter(base, 0.4))
        fill = shades[n % len(shades)]  # the fields of one tile told apart
        g.append(_feature(box.region(rr, fill=fill), f, "half", bad, done))
    for f in sorted((f for f in features if cat.get(f.kind) == "area"), key=lambda f: f.crosses):
        rr = box.runs(f.places, False)
        if not rr:
            continue
        width = 2.5 if f.crosses else 1.2
        fill = _lighter(style.fill[f.kind]) if f.crosses else style.fill[f.kind]
        g.append(_feature(box.region(rr, fill=fill, stroke=style.stroke[f.kind], stroke_width=width),
                          f, "area", bad, done))
    centre = [f for f in features if cat.get(f.kind) == "centre"]
    centres = {f.index: box.centres(f) for f in centre}
    kinds_c = sorted(k for k in cat if cat[k] == "centre")
    for f in centre:  # a centre kind on several cells: one walled area, under the lines that cross it
        pts = centres[f.index]
        if len(pts) > 1:
            x0, x1 = min(x for x, _ in pts) - HULL_PAD, max(x for x, _ in pts) + HULL_PAD
            y0, y1 = min(y for _, y in pts) - HULL_PAD, max(y for _, y in pts) + HULL_PAD
            g.append(_feature(_hull(f.kind, style, x0, y0, x1, y1), f, "centre", bad, done,
                              shade=dw.Path(d=f"M{x0},{y0} L{x1},{y0} L{x1},{y1} L{x0},{y1} Z")))
    lines = [f for f in features if cat.get(f.kind) == "line"]
    junction = box.junction(lines, bool(centre))
    for f in sorted(lines, key=lambda f: f.crosses):
        path = box.line_path(f.places)
        if path is None:
            continue
        width = LINE_WIDTH.get(f.kind, 8)
        grp = dw.Group()
        casing = path.args["d"]
        grp.append(dw.Path(d=casing, fill="none", stroke=style.stroke[f.kind], stroke_width=width + (5 if f.crosses else 2.5)))
        grp.append(dw.Path(d=casing, fill="none", stroke=style.fill[f.kind], stroke_width=width))
        g.append(_feature(grp, f, "line", bad, done))
    if junction and not centre:
        g.append(dw.Rectangle(MID - 7, MID - 7, 14, 14, fill="#8d6e63", stroke="#4e342e", stroke_width=1.2, class_="junction"))
    single = [f for f in centre if len(centres[f.index]) == 1]
    for f in single:  # emblems side by side where several stand on one centre
        at = centres[f.index][0]
        here = [s for s in single if centres[s.index][0] == at]
        n = here.index(f)
        x = at[0] + (n - (len(here) - 1) / 2) * 28
        g.append(_feature(_centre_emblem(f.kind, style, x, at[1], kinds_c.index(f.kind)), f, "centre", bad, done,
                          centre_at=at))
    for f in features:  # features on a corner only (an inner field, a barn's spot): a quarter disc
        if f.places and all(box.corner(p) is not None for p in f.places) and cat.get(f.kind) != "centre":
            grp = dw.Group()
            for p in f.places:
                cx, cy = box.corner(p)
                sx, sy = (1 if cx == 0 else -1), (1 if cy == 0 else -1)
                grp.append(dw.Path(fill=style.fill[f.kind] if style.fill[f.kind] != FIELD_SHADES[0] else FIELD_SHADES[2],
                                   stroke=style.stroke[f.kind], stroke_width=1)
                           .M(cx, cy).L(cx + 20 * sx, cy).A(20, 20, 0, 0, 1 if sx * sy > 0 else 0, cx, cy + 20 * sy).Z())
            g.append(_feature(grp, f, "corner", bad, done))
    for f in features:
        sides = box.sides(f)
        if f.shields and sides:
            for k in range(f.shields):
                g.append(_shield(*box.shield_at(f, sides, k)))
    for i in range(1, box.w):  # the cells the tile covers
        g.append(dw.Line(i * SIZE, 0, i * SIZE, box.H, stroke="#555555", stroke_width=0.6, stroke_dasharray="3 4",
                         stroke_opacity=0.6, pointer_events="none", class_="cell-edge"))
    for j in range(1, box.h):
        g.append(dw.Line(0, j * SIZE, box.W, j * SIZE, stroke="#555555", stroke_width=0.6, stroke_dasharray="3 4",
                         stroke_opacity=0.6, pointer_events="none", class_="cell-edge"))
    if symbols:  # under the place names of --places, which stay readable over them
        from ..dsl.places import rotate

        g.append(draw_symbols(symbols, style, rotate("NW", rotation), box.W, box.H))
    if places:
        lab = places_layer()
        by_index = {f.index: f for f in features}
        for f in features:
            for n, p in enumerate(f.places):
                x, y = box.label_at(p, bool(centre) or junction)
                lab.append(dw.Text(p, 8, x, y + 3, class_="place", data_place=attr(p), data_kind=attr(f.kind)))
                bordered = [by_index[j].places[0] for j in f.borders if j in by_index and by_index[j].places]
                if n == 0 and bordered:
                    lab.append(box.border_label("→" + " ".join(bordered), x, y, f.kind, p))
        g.append(lab)
    g.append(dw.Rectangle(0, 0, box.W, box.H, fill="none", stroke="#555555", stroke_width=1, class_="tile-edge"))
    return g


def _feature(el, f: Drawn, shape: str, bad, done, centre_at: tuple[float, float] = (MID, MID),
             shade: dw.Path | None = None) -> dw.Group:
    """Wrap a feature's drawing with what tests and tooltips read: its kind and index,
    a shading over it if it is in `done` (index -> attributes of the shading), a
    dashed red outline if it is in `bad`.  A centre emblem is shaded by a disc at
    `centre_at`, or over the outline `shade` (a walled area) if given."""
    g = dw.Group(class_=attr(f"feature {shape} kind-{f.kind}" + (" problem" if f.index in bad else "")),
                 data_kind=attr(f.kind), data_index=f.index)
    g.append(dw.Title(f"{f.kind} {' '.join(f.places)}" + (f", {f.shields} shield(s)" if f.shields else "")
                      + (", crosses" if f.crosses else "")
                      + (f", borders {len(f.borders)} feature(s)" if f.borders else "")))
    g.append(el)
    paths = [el] if isinstance(el, dw.Path) else [c for c in getattr(el, "children", []) if isinstance(c, dw.Path)]
    if shade is not None:
        paths = [shade]
    if f.index in done:
        extra = dict(done[f.index])
        if (shape == "centre" and shade is None) or not paths:
            g.append(dw.Circle(*centre_at, 15, fill="url(#done)", class_="done-shade", **extra))
        elif shape == "line":  # along the line itself
            g.append(dw.Path(d=paths[-1].args["d"], fill="none", stroke="url(#done)",
                             stroke_width=paths[-1].args.get("stroke-width", 8), class_="done-shade", **extra))
        else:
            for p in paths:
                g.append(dw.Path(d=p.args["d"], fill="url(#done)", class_="done-shade", **extra))
    if f.index in bad and paths:
        for p in paths:
            g.append(dw.Path(d=p.args["d"], fill="none", stroke=PROBLEM, stroke_width=3, stroke_dasharray="5 3",
                             class_="problem-mark"))
    return g


def done_pattern() -> dw.Pattern:
    """The hatching that shades a completed feature (add it to the drawing's defs)."""
    pat = dw.Pattern(8, 8, id="done", patternUnits="userSpaceOnUse", patternTransform="rotate(45)")
    pat.append(dw.Rectangle(0, 0, 8, 8, fill="#000000", fill_opacity=0.12))
    pat.append(dw.Line(0, 0, 0, 8, stroke="#000000", stroke_width=3, stroke_opacity=0.35))
    return pat
