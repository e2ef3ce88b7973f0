"""Tile-set checks: the rule set's tiles as a whole.

- `set-counts`: the tiles citing a composition clause against the counts its
  rulebook prints, as a module states them (`composition 72: A x2, ... [BASE-COMP-1]`).
  The rule file is the only place these numbers live: nothing here knows a count.
- `set-edge-kinds`: every edge kind can lie against an edge of another tile.
- `set-fit`: every tile has a rotation that fits beside some tile of its set.

The drawing of each tile is `verifier/topology.py`'s; laying the river is
`verifier/river_layer.py`'s.
"""
from __future__ import annotations

from ..dsl import ast as A
from ..dsl.diagnostics import Diagnostic
from ..dsl.model import RuleSet
from ..dsl.places import SIDES

from .checks import register


# --------------------------------------------------------------- counts
def _decls(rs: RuleSet) -> list[A.TileDecl]:
    return list({t.decl.name: t.decl for t in rs.tiles}.values())


def _variant_list(rs: RuleSet, comp: A.CompositionDecl) -> bool:
    """A composition of a variant's copies: `composition 8: E.garden x1, H.garden x1, ...`, each entry
    a tile's name, a dot and a variant's name (no tile is named so: `siege.fortress` is a tile)."""
    names = {t.name for t in rs.tiles}
    return bool(comp.counts) and all("." in e.tile and e.tile not in names and e.tile.rsplit(".", 1)[0] in names
                                     for e in comp.counts) and len({e.tile.rsplit(".", 1)[1] for e in comp.counts}) == 1


def _compositions(rs: RuleSet) -> dict[str, list[tuple[str, A.CompositionDecl]]]:
    """The compositions the rule set states, by clause (the loader reports those that cite
    no clause or several); a variant's list apart (_variant_compositions)."""
    out: dict[str, list[tuple[str, A.CompositionDecl]]] = {}
    for mod, comp in rs.compositions:
        if len(comp.cites) == 1 and not _variant_list(rs, comp):
            out.setdefault(comp.cites[0].clause, []).append((mod, comp))
    return out


def _variant_compositions(rs: RuleSet) -> list[tuple[str, A.CompositionDecl]]:
    return [(mod, comp) for mod, comp in rs.compositions if len(comp.cites) == 1 and _variant_list(rs, comp)]


def _check_variants(rs: RuleSet, sev: str) -> list[Diagnostic]:
    """A variant's copies as the rulebook counts them: each tile's copies with the variant, no tile with the
    variant that the list does not name, and the total (the gardens of 000 on 8 tiles, not 7 or 9)."""
    out = []
    for mod, comp in _variant_compositions(rs):
        var = comp.counts[0].tile.rsplit(".", 1)[1]
        have: dict[str, int] = {}
        for t in rs.tiles:
            if t.variant == var:
                have[t.name] = have.get(t.name, 0) + t.count
        decl = {d.name: d for d in _decls(rs)}
        listed = set()
        for e in comp.counts:
            name = e.tile.rsplit(".", 1)[0]
            listed.add(name)
            got = have.get(name, 0)
            if got != e.count:
                where = decl[name].span if name in decl else comp.span
                out.append(Diagnostic(where, f"tile {name} has {_copies(got)} with a {var}, but the rulebook counts "
                                             f"{e.count} ({comp.cites[0].clause})", "count", sev))
        for name, got in have.items():
            if name not in listed:
                out.append(Diagnostic(decl[name].span if name in decl else comp.span,
                                      f"tile {name} has {_copies(got)} with a {var}, but the rulebook's tiles with a {var} "
                                      f"are {_names(sorted(listed))} ({comp.cites[0].clause})", "count", sev))
        total = sum(have.values())
        if comp.tiles is not None and total != comp.tiles:
            out.append(Diagnostic(comp.span, f"{total} tiles have a {var}, but the rulebook has {comp.tiles} "
                                             f"({comp.cites[0].clause})", "count", sev))
    return out


def _cite(rs: RuleSet, clause: str) -> list[A.TileDecl]:
    return [d for d in _decls(rs) if any(c.clause == clause for c in d.cites)]


def _count_clauses(rs: RuleSet) -> list[str]:
    """The clauses of the compositions checked, in the order the modules state them."""
    comps, variants = _compositions(rs), {id(c) for _, c in _variant_compositions(rs)}
    out = [comp.cites[0].clause for _, comp in rs.compositions if len(comp.cites) == 1
           and (id(comp) in variants or (comp.cites[0].clause in comps and _cite(rs, comp.cites[0].clause)))]
    return list(dict.fromkeys(out))


def _names(names: list[str]) -> str:
    """`the letters A-X` for a run of single letters, else the names."""
    if len(names) > 2 and all(len(n) == 1 and n.isupper() for n in names) \
            and [ord(n) for n in names] == list(range(ord(names[0]), ord(names[0]) + len(names))):
        return f"the letters {names[0]}-{names[-1]}"
    return ", ".join(names)


def _copies(n: int) -> str:
    return f"{n} cop{'y' if n == 1 else 'ies'}"


@register("set-counts", _count_clauses, applies=lambda rs: bool(_count_clauses(rs)))
def check_counts(rs: RuleSet) -> list[Diagnostic]:
    """Tile counts per module match the rulebook's composition."""
    # a house rule that overrides tiles changes the composition on purpose: shown, not failed
    sev = "warning" if rs.overridden_tiles else "error"
    out = _check_variants(rs, sev)
    for clause, comps in _compositions(rs).items():
        decls = _cite(rs, clause)
        if not decls:
            continue
        lists = [(mod, comp) for mod, comp in comps if comp.counts]
        rest_of = next((comp for _, comp in comps if not comp.counts), None)  # counts what no list names
        listed = {e.tile: e for _, comp in lists for e in comp.counts}
        by_name = {d.name: d for d in decls}
        for mod, comp in lists:
            for e in comp.counts:
                d = by_name.get(e.tile)
                if d is None:
                    out.append(Diagnostic(comp.span, f"the rulebook's {mod} tile {e.tile} (x{e.count}) is missing", "count", sev))
                elif d.count != e.count:
                    out.append(Diagnostic(d.span, f"tile {d.name} has {_copies(d.count)}, but the rulebook counts {e.count}", "count", sev))
        rest = [d for d in decls if d.name not in listed]
        if rest_of is not None:
            got = sum(d.count for d in rest)
            if got != rest_of.tiles:
                apart = f" (besides {', '.join(listed)}, counted apart)" if listed else ""
                out.append(Diagnostic(rest_of.span, f"the tiles citing {clause} add up to {got}{apart}, but the rulebook has {rest_of.tiles}", "count", sev))
            continue
        got, want = sum(d.count for d in decls), sum(comp.tiles for _, comp in comps)
        if got != want:
            out.append(Diagnostic(comps[0][1].span, f"the tiles citing {clause} add up to {got}, but the rulebook has {want}", "count", sev))
        mod = lists[0][0]
        for d in rest:
            out.append(Diagnostic(d.span, f"tile {d.name} cites {clause}, but the rulebook's {mod} tiles are {_names(list(listed))}", "count", sev))
    return out


# -- edges meeting -------------------------------------------------------------
def meets(rs: RuleSet, a: str, b: str) -> bool:
    """Can edge `a` lie against edge `b`? Their cross-sections must mirror (read clockwise, each
    tile reads its own side; so one is the other reversed)."""
    ea, eb = rs.edges.get(a), rs.edges.get(b)
    if ea is None or eb is None:
        return False
    return tuple(ea.parts) == tuple(reversed(eb.parts))


def _uses(rs: RuleSet) -> dict[str, list[tuple[A.TileDecl, str]]]:
    uses: dict[str, list[tuple[A.TileDecl, str]]] = {}
    for d in _decls(rs):
        if d.cells is not None:  # a tile covering several cells: its numbered sides (N1, E2, ...)
            for side, g in zip(SIDES, d.edges):
                for k, code in enumerate(g, 1):
                    uses.setdefault(code, []).append((d, f"{side}{k}"))
            continue
        for side, code in zip(SIDES, d.edges):
            uses.setdefault(code, []).append((d, side))
    return uses


@register("set-edge-kinds", ["BASE-PLACE-2"], applies=lambda rs: bool(rs.tiles))
def check_edge_kinds(rs: RuleSet) -> list[Diagnostic]:
    """Every edge kind on a tile can meet an edge of another tile."""
    out = []
    uses = _uses(rs)
    for code, where in uses.items():
        ok = False
        for other, owhere in uses.items():
            if not meets(rs, code, other):
                continue
            for d, _ in where:
                if any(od.name != d.name or d.count > 1 for od, _ in owhere):
                    ok = True
                    break
            if ok:
                break
        if ok:
            continue
        e = rs.edges.get(code)
        if e is None:
            continue
        per_tile: dict[str, list[str]] = {}
        for d, side in where:
            per_tile.setdefault(d.name, []).append(side)
        sides = "; ".join(f"{name} {' '.join(ss)}" for name, ss in per_tile.items())
        mate = " ".join(reversed(e.parts))
        out.append(Diagnostic(e.span, f"edge `{code}` ({' '.join(e.parts)}) can meet nothing: no other tile has an edge drawn {mate} to lie against it, so these sides never touch a neighbour: {sides}", "orphan-edge"))
    return out


@register("set-fit", ["BASE-PLACE-1", "BASE-PLACE-2"], applies=lambda rs: bool(rs.tiles))
def check_fit(rs: RuleSet) -> list[Diagnostic]:
    """Every tile has a rotation that fits beside some tile of its set."""
    out = []
    decls = _decls(rs)
    for d in decls:
        if d.cells is not None:
            continue  # a tile covering several cells lies in the start landscape: it is never placed
        fits = any(meets(rs, a, b) for od in decls if od.name != d.name or d.count > 1
                   for a in d.edges for b in od.edges_flat())
        if not fits:
            out.append(Diagnostic(d.span, f"tile {d.name} fits beside no tile of the set: none of its edges ({' '.join(d.edges)}) can meet an edge of another tile, in any rotation", "fit"))
    # a tile that fits only beside copies of itself (or of other such tiles) is never laid either: the first
    # copy needs a neighbour already on the board.  What can be laid grows from the start (BASE-PLACE-2).
    unfit = {dg.message.split()[1] for dg in out}
    for d in never_laid(rs):
        if d.name not in unfit:
            mates = sorted({od.name for od in decls if od.cells is None and od.name not in laid_names(rs)
                            and any(meets(rs, a, b) for a in d.edges for b in od.edges_flat())})
            out.append(Diagnostic(d.span, f"tile {d.name} can never be laid: none of its edges ({' '.join(d.edges)}) can "
                                          f"meet an edge of the start or of a tile that can be laid"
                                          + (f" (only of {', '.join(mates)}, which cannot be laid first either)" if mates else "")
                                          + f", so every copy ({d.count}) is discarded when drawn [BASE-PLACE-3]", "fit"))
    return out


def laid_names(rs: RuleSet) -> set[str]:
    """The tiles that can be laid at some point: from the start's tiles, every tile with an edge that can
    meet an edge of one already in, until nothing more joins.  Without `placement matching` every tile."""
    decls = _decls(rs)
    if "matching" not in rs.placement:
        return {d.name for d in decls}
    st = rs.start
    have = {st.tile, *(m.tile for m in st.more)} if st is not None else set()
    if not have:
        return {d.name for d in decls}
    by_name = {d.name: d for d in decls}
    grew = True
    while grew:
        grew = False
        edges = {b for n in have if n in by_name for b in by_name[n].edges_flat()}
        for d in decls:
            if d.cells is None and d.name not in have and any(meets(rs, a, b) for a in d.edges for b in edges):
                have.add(d.name)
                grew = True
    return have


def never_laid(rs: RuleSet) -> list[A.TileDecl]:
    """The tiles of the deck (not the start's) that can never be laid (laid_names)."""
    ok = laid_names(rs)
    return [d for d in _decls(rs) if d.cells is None and d.name not in ok]


