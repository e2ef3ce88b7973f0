"""Topology checks with networkx: every tile, and every tile set.

A tile is a square.  Its boundary, read clockwise from the north-west corner,
is the cycle of places

    NW Nw N Ne NE En E Es SE Se S Sw SW Ws W Wn  (and back to NW)

with the centre C inside.  `TopologyGraph` holds one tile's drawing as a
networkx graph: that boundary cycle, an `outside` vertex joined to every
boundary place (so the square's outer face is fixed and everything else must
be drawn inside it), the centre, and one node per feature joined to the places
it lies on (a star).  A road or river that reaches only one side ends inside
the tile, at the junction in the centre, so its star is also joined to C.

What the drawing tells:

- Two features whose places interleave around the boundary cannot both be
  drawn on a flat tile: the graph is not planar.  A tile may declare such a
  pair with `crosses` (the River's bridge, King & Robber's crossing cities, the
  Tower's road through a city, SIEGE-TILE-1); one of the pair is then drawn
  over the other, so each is checked against the rest without its partner.
  A field that interleaves with another feature is cut in two: not connected.
- A field borders a city when they can share a face of the drawing: adding an
  edge field-city keeps the graph planar.  Where a dead-end road stops is not
  declared (the centre, a city wall, the river), so for this test a dead-end
  road separates nothing.  A field whose place lies next to the city's side
  on the boundary (only a corner between them) touches it in every drawing.
  So a declared border that no drawing allows is reported, and so is a city
  the field touches in every drawing but does not declare; anything between
  is accepted as declared.  An inner field (one that touches no edge, named by
  a corner so that a record can name it) is accepted as declared.

The tile-set checks (counts, fits, edges that meet nothing) are in
`verifier/tile_set.py`; laying the river is a search, in `verifier/river_layer.py`.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass
from functools import lru_cache

import networkx as nx

from ..dsl.diagnostics import Diagnostic
from ..dsl.model import Feature, RuleSet, TileType
from ..dsl.places import CORNERS, SIDE_HALVES, SIDES

from .checks import register

BOUNDARY = ("NW", "Nw", "N", "Ne", "NE", "En", "E", "Es", "SE", "Se", "S", "Sw", "SW", "Ws", "W", "Wn")
POS = {p: i for i, p in enumerate(BOUNDARY)}
OUTSIDE = "outside"
CENTRE = "C"
CORNER_BETWEEN = {("W", "N"): "NW", ("N", "E"): "NE", ("E", "S"): "SE", ("S", "W"): "SW"}


# ------------------------------------------------------------------ kinds
@dataclass(frozen=True)
class Kinds:
    """What the rule set says about feature kinds, as far as drawing goes."""

    half: frozenset[str]  # drawn on half-sides: fields
    line: frozenset[str]  # only ever drawn between two halves: roads, rivers (a dead end ends at the junction)
    bordered: frozenset[str]  # what fields border: cities

    @staticmethod
    def of(rs: RuleSet) -> "Kinds":
        half = frozenset(rs.half_kinds())
        whole = {e.parts[0] for e in rs.edges.values() if len(e.parts) == 1}
        line = frozenset(e.parts[1] for e in rs.edges.values() if len(e.parts) == 3) - whole
        bordered = set()
        for t in rs.tiles:
            for f in t.features:
                if f.kind in half:
                    bordered.update(t.features[i].kind for i in f.borders if i < len(t.features))
        if "city" in rs.features:
            bordered.add("city")
        return Kinds(half, line, frozenset(bordered))


def edge_places(rs: RuleSet, side: str, code: str) -> dict[str, str]:
    """The places an edge code draws on a side, and the kind on each (as the loader reads edges)."""
    e = rs.edges.get(code)
    if e is None:
        return {}
    h1, h2 = SIDE_HALVES[side]
    if len(e.parts) == 3:
        return {h1: e.parts[0], side: e.parts[1], h2: e.parts[2]}
    if e.parts[0] in rs.half_kinds():
        return {h1: e.parts[0], h2: e.parts[0]}
    return {side: e.parts[0]}


def describe(f: Feature) -> str:
    return f"{f.kind} {' '.join(f.places)}" if f.places else f"{f.kind} (on no place)"


def the(f: Feature) -> str:
    """`the city on N W`"""
    return f"the {f.kind} on {' '.join(f.places)}" if f.places else f"the {f.kind} on no place"


# ------------------------------------------------------------ the tile graph
class TopologyGraph:
    """One tile's drawing: boundary cycle, outside vertex, centre and feature stars (networkx)."""

    def __init__(self, tile: TileType, kinds: Kinds):
        self.tile = tile
        self.kinds = kinds
        self.features = tile.features
        g = nx.Graph()
        for i, p in enumerate(BOUNDARY):
            g.add_edge(p, BOUNDARY[(i + 1) % len(BOUNDARY)], kind="boundary")
            g.add_edge(OUTSIDE, p, kind="outside")
        g.add_node(CENTRE)
        for f in self.features:
            n = self.node(f.index)
            g.add_node(n, feature=f)
            for p in f.places:
                g.add_edge(n, p, kind="lies-on")
            if self.is_dead_end(f):
                g.add_edge(n, CENTRE, kind="junction")
        self.graph = g
        self.pairs = tuple(sorted({tuple(sorted((f.index, f.crosses))) for f in self.features
                                   if f.crosses is not None and f.crosses != f.index}))

    # -- nodes ---------------------------------------------------------------
    @staticmethod
    def node(index: int) -> tuple[str, int]:
        return ("feature", index)

    def feature(self, index: int) -> Feature:
        return self.features[index]

    def boundary_places(self, index: int) -> list[str]:
        return [p for p in self.features[index].places if p in POS]

    def sides(self, index: int) -> list[str]:
        return [p for p in self.features[index].places if p in SIDES]

    def owners(self, place: str) -> list[Feature]:
        return [self.graph.nodes[n]["feature"] for n in self.graph.neighbors(place)
                if isinstance(n, tuple) and n[0] == "feature"]

    def is_field(self, index: int) -> bool:
        return self.features[index].kind in self.kinds.half

    def is_dead_end(self, f: Feature) -> bool:
        return f.kind in self.kinds.line and len([p for p in f.places if p in SIDES]) == 1

    def drawn(self) -> list[int]:
        """Features that are drawn (lie on a place)."""
        return [f.index for f in self.features if f.places]

    # -- drawings ------------------------------------------------------------
    def drawing(self, keep, junction: bool = True, extra=()) -> nx.Graph:
        """The square with only the features `keep` drawn (and `extra` edges between feature nodes)."""
        keep_nodes = {self.node(i) for i in keep}
        edges = [(u, v) for u, v, k in self.graph.edges(data="kind")
                 if k in ("boundary", "outside")
                 or (k == "lies-on" or (k == "junction" and junction)) and (u in keep_nodes or v in keep_nodes)]
        sub = nx.Graph(edges)
        sub.add_edges_from((self.node(a), self.node(b)) for a, b in extra)
        return sub

    def flat(self, keep, junction: bool = True, extra=()) -> bool:
        """Can these features be drawn on the square without crossing? (networkx planarity)"""
        planar, _ = nx.check_planarity(self.drawing(keep, junction, extra))
        return planar

    def layers(self, fixed=()) -> list[frozenset[int]]:
        """The sets of features drawn together: of each declared crossing pair, one is drawn over
        the other, so each layer leaves out one of the pair (never one of `fixed`)."""
        drawn = set(self.drawn())
        choices = []
        for a, b in self.pairs:
            opts = [x for x in (a, b) if x not in fixed]
            choices.append(opts or [None])
        out = []
        for drop in itertools.product(*choices) if choices else [()]:
            out.append(frozenset(drawn - {d for d in drop if d is not None}))
        return list(dict.fromkeys(out))

    def units(self, keep) -> list[tuple[int, ...]]:
        """Features grouped for blame: the dead ends and centre features meet at the junction."""
        hub = tuple(i for i in keep if self.is_dead_end(self.features[i]) or CENTRE in self.features[i].places)
        rest = [(i,) for i in keep if i not in hub]
        return rest + ([hub] if hub else [])

    # -- boundary ------------------------------------------------------------
    def boundary_sequence(self) -> list[tuple[str, list[int]]]:
        """The owned boundary places in clockwise order, each with its features."""
        out = []
        for p in BOUNDARY:
            own = [f.index for f in self.owners(p)]
            if own:
                out.append((p, own))
        return out

    def beside(self, index: int) -> dict[int, tuple[str, str]]:
        """Features whose place lies next to one of this feature's places on the boundary
        (nothing but a corner between them), with the two places."""
        seq = self.boundary_sequence()
        out: dict[int, tuple[str, str]] = {}
        n = len(seq)
        for k, (p, own) in enumerate(seq):
            if index not in own:
                continue
            for q, qown in (seq[(k - 1) % n], seq[(k + 1) % n]):
                for j in qown:
                    if j != index:
                        out.setdefault(j, (p, q))
        return out

    def arcs(self, index: int) -> list[set[int]]:
        """The boundary positions between consecutive places of a feature (the pieces it cuts the rim into)."""
        cuts = sorted(POS[p] for p in self.boundary_places(index))
        if len(cuts) < 2:
            return []
        out = []
        for a, b in zip(cuts, cuts[1:] + [cuts[0] + len(BOUNDARY)]):
            out.append({k % len(BOUNDARY) for k in range(a + 1, b)})
        return out

    def separator(self, a: int, b: int, among) -> int | None:
        """A feature whose places cut the rim so that `a` and `b` lie on different pieces."""
        pa = {POS[p] for p in self.boundary_places(a)}
        pb = {POS[p] for p in self.boundary_places(b)}
        if not pa or not pb:
            return None
        for x in among:
            if x in (a, b):
                continue
            arcs = self.arcs(x)
            ia = {k for k, arc in enumerate(arcs) if pa & arc}
            ib = {k for k, arc in enumerate(arcs) if pb & arc}
            if len(ia) == 1 and len(ib) == 1 and ia != ib:
                return x
        return None

    def cut(self, field: int, by: tuple[int, ...]) -> tuple[str, str] | None:
        """Two places of `field` that the features `by` put on different pieces of the rim."""
        cuts = sorted({POS[p] for i in by for p in self.boundary_places(i)})
        if not cuts:
            return None
        piece = {}
        for p in self.boundary_places(field):
            k = POS[p]
            piece[p] = sum(1 for c in cuts if c < k) % len(cuts)
        places = list(piece)
        for x, y in itertools.combinations(places, 2):
            if piece[x] != piece[y]:
                return x, y
        return None


# ------------------------------------------------------------ tile analysis
@dataclass(frozen=True)
class Analysis:
    """What the drawing of one tile shows, as feature indices (no spans: shared between equal tiles)."""

    conflicts: tuple[tuple[tuple[int, ...], tuple[int, ...]], ...]  # pairs of units that must cross
    needless: tuple[tuple[int, int], ...]  # declared crossings of features that do not meet
    may: tuple[tuple[int, frozenset[int]], ...]  # field -> features it can touch (declared or bordered kinds)
    must: tuple[tuple[int, tuple[tuple[int, str, str], ...]], ...]  # field -> (feature, own place, its place)


def analyse(tile: TileType, kinds: Kinds) -> Analysis:
    """What the tile's drawing shows.  It reads the kinds only of the tile's own features (is it a field,
    a line, a kind fields border?), so it is worked out under the kinds restricted to those: a tile
    the bundled rule sets share (base's, in every one of them) is analysed once, whatever kinds the
    other modules of each rule set add."""
    own = frozenset(f.kind for f in tile.features)
    return _analyse(tile, Kinds(kinds.half & own, kinds.line & own, kinds.bordered & own))


@lru_cache(maxsize=4096)
def _analyse(tile: TileType, kinds: Kinds) -> Analysis:
    g = TopologyGraph(tile, kinds)
    conflicts: list = []
    for layer in g.layers():
        if g.flat(layer):
            continue
        units = g.units(sorted(layer))
        found = False
        for ua, ub in itertools.combinations(units, 2):
            if not g.flat(set(ua) | set(ub)):
                conflicts.append(tuple(sorted((ua, ub))))
                found = True
        if not found:
            conflicts.append((tuple(sorted(layer)), ()))
    needless = tuple((a, b) for a, b in g.pairs if g.flat({a, b}))
    may: list = []
    must: list = []
    if not conflicts:
        for f in tile.features:
            if f.kind not in kinds.half or not any(p in POS and p not in CORNERS for p in f.places):
                continue  # an inner field (touching no edge; named by a corner) is accepted as declared
            targets = {j for j in f.borders}
            targets |= {o.index for o in tile.features if o.kind in kinds.bordered and o.places}
            can = set()
            for j in sorted(targets):
                if j == f.index or not tile.features[j].places:
                    continue
                if all(g.flat(layer, junction=False, extra=[(f.index, j)]) for layer in g.layers(fixed=(f.index, j))):
                    can.add(j)
            may.append((f.index, frozenset(can)))
            must.append((f.index, tuple((j, p, q) for j, (p, q) in sorted(g.beside(f.index).items()))))
    return Analysis(tuple(dict.fromkeys(conflicts)), needless, tuple(may), tuple(must))


def _tiles(rs: RuleSet):
    """The one-cell tiles; a tile covering several cells is checked by `start-landscape`."""
    kinds = Kinds.of(rs)
    for t in rs.tiles:
        if t.cells is None:
            yield t, kinds


def _graph(t: TileType, kinds: Kinds) -> TopologyGraph:
    return TopologyGraph(t, kinds)


def _crossing_clauses(rs: RuleSet) -> list[str]:
    out = ["BASE-FIELD-1"]
    for t in rs.tiles:
        if any(f.crosses is not None for f in t.features):
            out.extend(c.clause for c in t.decl.cites)
    return out


# ---------------------------------------------------------------- tile checks
@register("tile-edge-places", ["BASE-PLACE-2"], applies=lambda rs: bool(rs.tiles))
def check_edge_places(rs: RuleSet) -> list[Diagnostic]:
    """Every edge place of every tile belongs to exactly one feature."""
    out = []
    for t, kinds in _tiles(rs):
        g = _graph(t, kinds)
        want: dict[str, tuple[str, str, str]] = {}
        for side, code in zip(SIDES, t.edges):
            for p, kind in edge_places(rs, side, code).items():
                want[p] = (kind, side, code)
        for p in BOUNDARY:
            owners = g.owners(p)
            if p in want:
                kind, side, code = want[p]
                if not owners:
                    out.append(Diagnostic(t.decl.edges_span, f"place {p} of tile {t.name} belongs to no feature: its {side} edge `{code}` needs a {kind} there", "edge-place"))
                elif len(owners) > 1:
                    out.append(Diagnostic(owners[1].decl.span, f"place {p} of tile {t.name} belongs to {len(owners)} features ({', '.join(describe(o) for o in owners)}); an edge place belongs to exactly one", "edge-place"))
            elif owners and p not in CORNER_BETWEEN.values():
                side = p if p in SIDES else next(s for s, hs in SIDE_HALVES.items() if p in hs)
                code = t.edges[SIDES.index(side)]
                out.append(Diagnostic(owners[0].decl.span, f"{describe(owners[0])} of tile {t.name} lies on {p}, but its {side} edge `{code}` draws nothing there", "edge-place"))
            elif len(owners) > 1:
                out.append(Diagnostic(owners[1].decl.span, f"corner {p} of tile {t.name} belongs to {len(owners)} features ({', '.join(describe(o) for o in owners)})", "edge-place"))
    return out


@register("tile-features-connected", ["BASE-FIELD-1", "BASE-FOLLOW-2"], applies=lambda rs: bool(rs.tiles))
def check_connected(rs: RuleSet) -> list[Diagnostic]:
    """Each feature of each tile is one connected piece."""
    out = []
    for t, kinds in _tiles(rs):
        g = _graph(t, kinds)
        for f in t.features:
            if not f.places and not f.borders:
                out.append(Diagnostic(f.decl.span, f"{describe(f)} of tile {t.name} lies nowhere and borders nothing: it is not connected to the tile", "connected"))
        conflicts = analyse(t, kinds).conflicts
        is_field = lambda u: len(u) == 1 and g.is_field(u[0])  # noqa: E731
        cut = {u[0] for pair in conflicts for u, o in (pair, pair[::-1]) if is_field(u) and o and not is_field(o)}
        for ua, ub in conflicts:
            if is_field(ua) and is_field(ub):
                if ua[0] in cut or ub[0] in cut:
                    continue  # both cut by the same feature: said below
                fa, fb = t.features[ua[0]], t.features[ub[0]]
                out.append(Diagnostic(fb.decl.span, f"{describe(fa)} and {describe(fb)} of tile {t.name} cross each other, so neither is connected; redraw them as fields that do not interleave around the tile", "connected"))
                continue
            for field_u, other in ((ua, ub), (ub, ua)):
                if not is_field(field_u) or not other or is_field(other):
                    continue
                f = t.features[field_u[0]]
                by = " and ".join(describe(t.features[i]) for i in other)
                pair = g.cut(f.index, other)
                where = f", with {pair[0]} on one side and {pair[1]} on the other" if pair else ""
                verb = "runs" if len(other) == 1 else "run"
                out.append(Diagnostic(f.decl.span, f"{describe(f)} of tile {t.name} is not connected: {by} {verb} across it{where}; split it into two fields", "connected"))
    return out


@register("tile-crossings", _crossing_clauses, applies=lambda rs: bool(rs.tiles))
def check_crossings(rs: RuleSet) -> list[Diagnostic]:
    """Features that cross on a flat tile are declared with `crosses` (networkx planarity)."""
    out = []
    for t, kinds in _tiles(rs):
        g = _graph(t, kinds)
        a = analyse(t, kinds)
        for ua, ub in a.conflicts:
            if not ub:
                out.append(Diagnostic(t.decl.span, f"tile {t.name} cannot be drawn flat: its features {', '.join(describe(t.features[i]) for i in ua)} cross each other", "crossing"))
                continue
            if any(len(u) == 1 and g.is_field(u[0]) for u in (ua, ub)):
                continue  # a field cut in two: tile-features-connected says so
            first, second = (t.features[ua[0]], ub) if len(ua) == 1 else (t.features[ub[0]], ua)
            other = " and ".join(describe(t.features[i]) for i in second)
            joined = " (meeting at the centre)" if len(second) > 1 else ""
            out.append(Diagnostic(first.decl.span, f"{describe(first)} and {other}{joined} of tile {t.name} cross, which a flat tile cannot draw; if one passes over the other (a bridge), declare it on that one with `crosses`", "crossing"))
        for i, j in a.needless:
            decl = t.features[i] if t.features[i].crosses == j else t.features[j]
            other = t.features[j] if decl is t.features[i] else t.features[i]
            out.append(Diagnostic(decl.decl.span, f"{describe(decl)} of tile {t.name} is declared to cross {describe(other)}, but they do not meet", "crossing", "warning"))
    return out


@register("tile-field-borders", ["BASE-FIELD-3"], applies=lambda rs: bool(rs.tiles))
def check_field_borders(rs: RuleSet) -> list[Diagnostic]:
    """The cities each field is declared to border are exactly those it touches."""
    out = []
    for t, kinds in _tiles(rs):
        a = analyse(t, kinds)
        if a.conflicts:
            continue  # the drawing is wrong: tile-crossings / tile-features-connected report it
        g = _graph(t, kinds)
        may = dict(a.may)
        must = dict(a.must)
        for f in t.features:
            if f.index not in may:
                continue
            can = may[f.index]
            can_bordered = {j for j in can if t.features[j].kind in kinds.bordered}
            for j in dict.fromkeys(f.borders):
                if j in can:
                    continue
                k = t.features[j]
                sep = g.separator(f.index, j, [x for x in g.drawn() if x not in (f.index, j)])
                why = f": {describe(t.features[sep])} lies between them" if sep is not None else ""
                if not can_bordered:
                    msg = f"{describe(f)} of tile {t.name} is declared to border {the(k)}, but touches none{why}"
                else:
                    msg = f"{describe(f)} of tile {t.name} is declared to border {the(k)}, but cannot touch it{why}"
                out.append(Diagnostic(f.decl.span, msg, "field-border"))
            for j, p, q in must[f.index]:
                k = t.features[j]
                if k.kind not in kinds.bordered or j in f.borders:
                    continue
                out.append(Diagnostic(f.decl.span, f"{describe(f)} of tile {t.name} touches {the(k)} ({p} lies beside {q}) but is not declared to border it; write `-> {k.places[0]}`", "field-border"))
    return out


# ---------------------------------------------------------------- corners (the Barn)
def _corner_clauses(rs: RuleSet) -> list[str]:
    return [c.clause for n in rs.corner_figures() for c in rs.figures[n].on_cites or rs.figures[n].cites]


@register("tile-corners", _corner_clauses, applies=lambda rs: bool(rs.corner_figures()))
def check_corners(rs: RuleSet) -> list[Diagnostic]:
    """A figure `at corner` (the barn) stands where four tiles meet, each with its kind on both
    half-sides beside that corner: some tile of the set must have such a corner, or the figure
    can never be put.  (A corner whose two half-sides belong to two different fields, as on King
    & Robber's GD, is not such a corner: the four tiles would not meet in one field.)"""
    from ..dsl.places import corner_feature

    out: list[Diagnostic] = []
    for name in rs.corner_figures():
        fig = rs.figures[name]
        kinds = set(rs.may_stand(name))
        usable = sum(1 for t in rs.tiles if t.count > 0
                     for corner in CORNER_BETWEEN.values() if corner_feature(t.features, corner, kinds) is not None)
        if usable == 0:
            out.append(Diagnostic(fig.span, f"no tile has {' or '.join(sorted(kinds))} on both half-sides of a corner, "
                                            f"so a {name} can never be put", "corner"))
    return out


# ------------------------------------------------------------ the start landscape (X10, X12)
def _landscape_clauses(rs: RuleSet) -> list[str]:
    out = [c.clause for c in rs.start.cites] if rs.start is not None else []
    for t in rs.tiles:
        if t.cells is not None:
            out.extend(c.clause for c in t.decl.cites)
    return list(dict.fromkeys(out or ["BASE-PLACE-2"]))


def landscape_graph(rs: RuleSet) -> tuple[nx.Graph, dict]:
    """The start landscape as laid: a node per (cell, place) of every feature of every start
    tile (a tile covering several cells through tessera.dsl.multicell), joined inside a feature and
    across touching sides; and the edge code each cell shows on each side."""
    from ..dsl import multicell
    from ..dsl.places import HALF_OPPOSITE, HALF_SIDE, OFFSET, OPPOSITE, rotate

    g = nx.Graph()
    shows: dict[tuple[tuple[int, int], str], tuple[str, str]] = {}  # (cell, side) -> (code, tile)
    first = {}
    for t in rs.tiles:
        first.setdefault(t.name, t)
    for sp in rs.start.places():
        t = first.get(sp.tile)
        if t is None:
            continue
        if t.cells is None:
            for side, code in zip(SIDES, t.edges):
                shows[((sp.x, sp.y), rotate(side, sp.rotation))] = (code, t.name)
            for f in t.features:
                nodes = [((sp.x, sp.y), rotate(p, sp.rotation), f.kind) for p in f.places]
                g.add_nodes_from(nodes)
                nx.add_path(g, nodes)
            continue
        w, h = t.cells
        for name, cell, local in multicell.perimeter(w, h):
            side, k = name[0], int(name[1:])
            shows[((sp.x + cell[0], sp.y + cell[1]), local)] = (t.decl.edges["NESW".index(side)][k - 1], t.name)
        for f in t.features:
            nodes = []
            for p in f.places:
                (i, j), local = multicell.locate(p, w, h)
                nodes.append(((sp.x + i, sp.y + j), local, f.kind))
            g.add_nodes_from(nodes)
            nx.add_path(g, nodes)
    for cell, place, kind in list(g.nodes):
        side = place if place in SIDES else HALF_SIDE.get(place)
        if side is None:
            continue
        dx, dy = OFFSET[side]
        there = (cell[0] + dx, cell[1] + dy)
        mate = OPPOSITE[place] if place in SIDES else HALF_OPPOSITE[place]
        if (there, mate, kind) in g:
            g.add_edge((cell, place, kind), (there, mate, kind))
    return g, shows


@register("start-landscape", _landscape_clauses,
          applies=lambda rs: rs.start is not None and (bool(rs.start.more) or any(t.cells for t in rs.tiles)))
def check_landscape(rs: RuleSet) -> list[Diagnostic]:
    """The start landscape's tiles lie so that their pictures match (SIEGE-SETUP-1): wherever
    two of its cells touch, the two sides show edges that meet (a tile covering several
    cells shows its numbered sides, tessera.dsl.multicell)."""
    from ..dsl.places import OFFSET, OPPOSITE

    from .tile_set import meets

    out = []
    g, shows = landscape_graph(rs)
    for (cell, side), (code, name) in sorted(shows.items()):
        dx, dy = OFFSET[side]
        there = ((cell[0] + dx, cell[1] + dy), OPPOSITE[side])
        if there not in shows or (cell, side) > there:
            continue
        other, oname = shows[there]
        if not meets(rs, code, other):
            out.append(Diagnostic(rs.start.span, f"the start landscape does not match: {name} at [{cell[0]}, {cell[1]}] "
                                                 f"shows `{code}` on its {side} side, against `{other}` of {oname}",
                                  "landscape"))
    return out
