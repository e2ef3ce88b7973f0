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

from tessera.dsl import ast as A
from tessera.dsl.diagnostics import Diagnostic
from tessera.dsl.model import RuleSet
from tessera.dsl.places import SIDES

from .checks import register


# --------------------------------------------------------------- counts
def _decls(rs: RuleSet) -> list[A.TileDecl]:
    return list({t.decl.name: t.decl for t in rs.tiles}.values())


def _compositions(rs: RuleSet) -> dict[str, list[tuple[str, A.CompositionDecl]]]:
    """The compositions the rule set states, by clause (the loader reports those that cite
    no clause or several)."""
    out: dict[str, list[tuple[str, A.CompositionDecl]]] = {}
    for mod, comp in rs.compositions:
        if len(comp.cites) == 1:
            out.setdefault(comp.cites[0].clause, []).append((mod, comp))
    return out


def _cite(rs: RuleSet, clause: str) -> list[A.TileDecl]:
    return [d for d in _decls(rs) if any(c.clause == clause for c in d.cites)]


def _count_clauses(rs: RuleSet) -> list[str]:
    return [c for c in _compositions(rs) if _cite(rs, c)]


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
    out = []
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
    return out


