"""Tile checks: edge codes, each tile's features and places against its edges, tiles
covering several cells (dsl/multicell.py), printed symbols, each module's stated total,
`placement continues`."""
from __future__ import annotations

from .. import ast as A
from .. import limits, multicell
from ..diagnostics import did_you_mean
from ..places import CENTRE, HALVES, SIDE_HALVES, SIDES, place_type
from . import register


@register("edges")
def edges(b) -> None:
    """Every edge code is drawn with declared feature kinds."""
    rs = b.rs
    for code, e in rs.edges.items():
        for part in e.parts:
            if part not in rs.features:
                b.err(e.span, f"edge `{code}` is drawn with unknown feature kind `{part}`{did_you_mean(part, rs.features)}", "unknown-name", word=part)


@register("tiles")
def tiles(b) -> None:
    """Each tile (once, whatever its variants): its edges, features and places, its symbols."""
    rs = b.rs
    half_kinds = rs.half_kinds()
    seen_tiles: set[str] = set()
    for tt in rs.tiles:
        if tt.decl.name in seen_tiles:
            continue
        seen_tiles.add(tt.decl.name)
        check_tile(b, tt.decl, half_kinds)


@register("totals")
def totals(b) -> None:
    """Each module's stated tile total (`total N`) against its tiles."""
    rs = b.rs
    for modname, tot in rs.totals:
        if modname in rs.overridden_tiles:
            continue  # a house rule recounted this module's tiles: its published total no longer applies
        n = sum(tt.count for tt in rs.tiles if tt.module == modname)
        if n != tot.count:
            b.err(tot.span, f"module `{modname}` states {tot.count} tiles but its tiles add up to {n}", "total")


@register("placement")
def placement(b) -> None:
    """`placement continues KIND` names a feature kind."""
    rs = b.rs
    for p in rs.placement.values():
        if p.kind == "continues" and p.arg not in rs.features:
            b.err(p.span, f"`placement continues` needs a feature kind, not `{p.arg}`{did_you_mean(p.arg or '', rs.features)}", "unknown-name", word=p.arg)


def check_tile(b, t: A.TileDecl, half_kinds: set[str]) -> None:
    """One tile: known edge codes, features of known kinds on the right kind of place, no place
    claimed twice, its marks, and each edge's terrain against the features on that side."""
    if id(t) in b.misread:
        check_symbols(b, t)
        return  # its one misspelt place is reported (`Builder._misread_places`); the rest would repeat it
    if t.cells is not None or (t.edges and isinstance(t.edges[0], tuple)):
        check_multi_tile(b, t, half_kinds)
        check_symbols(b, t)
        return
    rs = b.rs
    es = t.edges_span
    if es.end_line > es.line and t.edges and t.edges[-1] not in rs.edges:
        # `edges C R F` then `city N` on the next line: the parser read `city` as the fourth code
        n = len(t.edges) - 1
        b.err(A.Span(es.file, es.line, es.column), f"`edges` takes exactly four edge codes, in the order "
              f"N E S W, but this line has {n}: `{t.edges[-1]}` on line {es.end_line} was read as the "
              f"{['first', 'second', 'third', 'fourth'][min(n, 3)]}", "syntax")
        return  # its features would only repeat the same mistake
    for code in t.edges:
        if code not in rs.edges:
            b.err(t.edges_span, f"tile `{t.name}`: unknown edge code `{code}`{did_you_mean(code, rs.edges)}", "unknown-name", word=code)
    feats = list(t.features) + [f for v in t.variants for f in v.features]
    claimed: dict[str, A.TileFeature] = {}
    misplaced = False  # a feature on the wrong kind of place: its edge complaints would only repeat it
    unknown: set[str] = set()  # places of a feature of a misspelt kind: the edges are not checked there
    for f in feats:
        if f.kind not in rs.features:
            if len(f.kind) <= 3 and f.kind[:1] in "NESWC" and not f.places:
                b.err(f.span, f"`{f.kind}` is not a place; places are {' '.join(SIDES)}, {' '.join(HALVES)}, C and the corners NW NE SE SW", "bad-place", word=f.kind)
            else:
                b.err(f.span, f"tile `{t.name}`: unknown feature kind `{f.kind}`{did_you_mean(f.kind, rs.features)}", "unknown-name", word=f.kind)
            for p in f.places:
                unknown.update((p, *SIDE_HALVES.get(p, ())))
            continue
        fd = rs.features[f.kind]
        if not f.places:
            misplaced = True  # the edge it was meant to lie on would only repeat this
            b.err(f.span, f"tile `{t.name}`: this {f.kind} lies on no place, so no record could name it; give it a place (an inner field may lie at a corner, e.g. NE)", "bad-place", word=f.kind)
        want = "centre" if fd.centre else ("half" if f.kind in half_kinds else "side")
        wrong = []
        for p in f.places:
            pt = place_type(p)
            if pt == "corner" and want == "half":
                pt = "half"  # fields may also lie at corners (inner fields; where barns stand)
            if pt != want:
                wrong.append(p)
        if wrong:
            misplaced = True
            hint = "" if want != "side" or f.kind in half_kinds else \
                f" (to draw a {f.kind} on half-sides, declare `feature {f.kind} halves`)"
            b.err(f.span, f"tile `{t.name}`: a {f.kind} lies on {'the centre C' if want == 'centre' else want + 's'}, "
                          f"not on {' '.join(wrong)}{hint}", "bad-place", word=wrong[0])
        for p in f.places:
            if p == CENTRE and p in claimed and claimed[p].kind != f.kind and fd.centre \
                    and rs.features[claimed[p].kind].centre:
                continue  # two centre features side by side (a cloister and a tower foundation, 003)
            if p in claimed:
                b.err(f.span, f"tile `{t.name}`: place {p} belongs to two features ({claimed[p].kind} and {f.kind})", "place-overlap", word=p)
            claimed[p] = f
        if fd.centre and not f.places:
            b.err(f.span, f"tile `{t.name}`: a {f.kind} must be placed at C", "bad-place")
        if f.shields < 0:
            b.err(f.span, "shields cannot be negative", "range")
        seen_marks: set[str] = set()
        for m, n in f.marks:
            if m in seen_marks:
                b.err(f.span, f"tile `{t.name}`: this {f.kind} prints `marks {m}` twice; write the number once, "
                              f"as in `marks {m} 2`", "duplicate")
            seen_marks.add(m)
            if n < 1:
                b.err(f.span, f"`marks {m} {n}`: a printed mark is there at least once", "range")
    check_symbols(b, t)
    # Edge terrain against the features drawn on each side.
    if len(t.edges) == 4 and not misplaced:
        for side, code in zip(SIDES, t.edges):
            e = rs.edges.get(code)
            if e is None:
                continue
            if len(e.parts) == 3:
                want = {SIDE_HALVES[side][0]: e.parts[0], side: e.parts[1], SIDE_HALVES[side][1]: e.parts[2]}
            elif e.parts[0] in half_kinds:
                want = {SIDE_HALVES[side][0]: e.parts[0], SIDE_HALVES[side][1]: e.parts[0]}
            else:
                want = {side: e.parts[0]}
            for place, kind in want.items():
                got = claimed.get(place)
                if place in unknown:
                    continue  # the feature there has a misspelt kind: reported once
                if got is None:
                    b.err(t.edges_span, f"tile `{t.name}`: its {side} edge is `{code}` ({' '.join(e.parts)}), but no {kind} lies on {place}", "edge-terrain")
                elif got.kind != kind:
                    b.err(got.span, f"tile `{t.name}`: its {side} edge is `{code}` ({' '.join(e.parts)}), so {place} must be {kind}, not {got.kind}", "edge-terrain", word=place)
            # nothing else may claim the side or its halves
            for place in (side, *SIDE_HALVES[side]):
                if place not in want and place in claimed:
                    b.err(claimed[place].span, f"tile `{t.name}`: its {side} edge is `{code}` ({' '.join(e.parts)}), which has no {claimed[place].kind} on {place}", "edge-terrain", word=place)


def check_multi_tile(b, t: A.TileDecl, half_kinds: set[str]) -> None:
    """A tile covering W x H cells (X10): four edge groups, numbered places, features that
    agree with the perimeter's edge codes."""
    rs = b.rs
    if t.cells is None:
        b.err(t.edges_span, f"tile `{t.name}`: edges in four groups are for a tile covering several cells; "
                            f"say how many, as in `tile {t.name} x1 cells 3x2`", "syntax")
        return
    w, h = t.cells
    if w * h > limits.MAX_CELLS:
        b.err(t.span, f"tile `{t.name}` covers {w * h} cells; the limit is {limits.MAX_CELLS}", "limit")
        return
    groups = t.edges if t.edges and isinstance(t.edges[0], tuple) else ()
    want = (w, h, w, h)
    if len(groups) != 4 or tuple(len(g) for g in groups) != want:
        got = " ".join(str(len(g)) for g in groups) if groups else "4 single codes"
        b.err(t.edges_span, f"tile `{t.name}` covers {w}x{h} cells: its `edges` are four groups of {w}, {h}, "
                            f"{w} and {h} codes, N E S W, each read clockwise, as in "
                            f"`edges ({' '.join(['F'] * w)}) ({' '.join(['F'] * h)}) ({' '.join(['F'] * w)}) "
                            f"({' '.join(['F'] * h)})`; this one has {got}", "syntax")
        return
    for g in groups:
        for code in g:
            if code not in rs.edges:
                b.err(t.edges_span, f"tile `{t.name}`: unknown edge code `{code}`{did_you_mean(code, rs.edges)}", "unknown-name", word=code)
    if t.variants:
        b.err(t.variants[0].span, f"tile `{t.name}` covers several cells: variants of it are not supported", "unsupported")
    claimed: dict[str, A.TileFeature] = {}
    misplaced = False
    for f in t.features:
        if f.kind not in rs.features:
            b.err(f.span, f"tile `{t.name}`: unknown feature kind `{f.kind}`{did_you_mean(f.kind, rs.features)}", "unknown-name", word=f.kind)
            continue
        if f.crosses is not None:
            b.err(f.span, f"tile `{t.name}` covers several cells: `crosses` is not supported on it", "unsupported")
        if not f.places:
            b.err(f.span, f"tile `{t.name}`: this {f.kind} lies on no place", "bad-place")
        fd = rs.features[f.kind]
        want_type = "centre" if fd.centre else ("half" if f.kind in half_kinds else "side")
        for p in (*f.places, *f.borders):
            loc = multicell.locate(p, w, h)
            if loc is None:
                misplaced = True
                b.err(f.span, f"tile `{t.name}` covers {w}x{h} cells: `{p}` is none of its places (sides "
                              f"N1..N{w}, E1..E{h}, S1..S{w}, W1..W{h}, their halves such as N1w, centres "
                              f"C1..C{w * h})", "bad-place")
        for p in f.places:
            loc = multicell.locate(p, w, h)
            if loc is None:
                continue
            pt = place_type(loc[1])
            if pt != want_type:
                misplaced = True
                b.err(f.span, f"tile `{t.name}`: a {f.kind} lies on {'centres' if want_type == 'centre' else want_type + 's'}, "
                              f"not on {p}", "bad-place", word=p)
            if p in claimed and not (fd.centre and rs.features[claimed[p].kind].centre and claimed[p].kind != f.kind):
                b.err(f.span, f"tile `{t.name}`: place {p} belongs to two features ({claimed[p].kind} and {f.kind})", "place-overlap", word=p)
            claimed[p] = f
        if f.shields < 0:
            b.err(f.span, "shields cannot be negative", "range")
    if misplaced:
        return
    for side, g in zip("NESW", groups):
        for k, code in enumerate(g, 1):
            e = rs.edges.get(code)
            if e is None:
                continue
            name = multicell.side_place(side, k)
            halves = (multicell.side_place(side, k, 0), multicell.side_place(side, k, 1))
            if len(e.parts) == 3:
                need = {halves[0]: e.parts[0], name: e.parts[1], halves[1]: e.parts[2]}
            elif e.parts[0] in half_kinds:
                need = {halves[0]: e.parts[0], halves[1]: e.parts[0]}
            else:
                need = {name: e.parts[0]}
            for place, kind in need.items():
                got = claimed.get(place)
                if got is None:
                    b.err(t.edges_span, f"tile `{t.name}`: its side {name} is `{code}` ({' '.join(e.parts)}), but no {kind} lies on {place}", "edge-terrain")
                elif got.kind != kind:
                    b.err(got.span, f"tile `{t.name}`: its side {name} is `{code}` ({' '.join(e.parts)}), so {place} must be {kind}, not {got.kind}", "edge-terrain", word=place)
            for place in (name, *halves):
                if place not in need and place in claimed:
                    b.err(claimed[place].span, f"tile `{t.name}`: its side {name} is `{code}` ({' '.join(e.parts)}), which has no {claimed[place].kind} on {place}", "edge-terrain", word=place)


def check_symbols(b, t: A.TileDecl) -> None:
    """A tile's printed symbols (`symbols ...`): `any` (the "?") or a name of what a symbol
    names, once those are declared (RuleSet.symbol_targets: the Siege's tracks)."""
    if not t.symbols:
        return
    span = t.symbols_span if t.symbols_span.line else t.span
    if span.end_line > span.line:
        # `symbols monks` then `city N` on the next line: the parser read the feature as symbols
        b.err(A.Span(span.file, span.line, span.column), f"tile `{t.name}`: a `symbols` line is one line and "
              f"comes last, after the feature lines; the words on line {span.end_line} were read as "
              f"symbols", "syntax")
        return
    for s in t.symbols:
        if s in b.rs.features or s in SIDES or s in HALVES or s in ("C", "NW", "NE", "SE", "SW"):
            b.err(span, f"tile `{t.name}`: `{s}` is a {'feature kind' if s in b.rs.features else 'place'}, "
                     f"not a symbol: a `symbols` line comes last, after the feature lines", "syntax", word=s)
            return
    targets = b.rs.symbol_targets()
    if targets is None:
        return
    for s in t.symbols:
        if s != "any" and s not in targets:
            b.err(span, f"tile `{t.name}`: symbol `{s}` names nothing these rules declare"
                        f"{did_you_mean(s, targets)} (a symbol is `any`, the \"?\", or one of "
                        f"{', '.join(sorted(targets)) or 'none'})", "unknown-name", word=s)
