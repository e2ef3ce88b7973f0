"""Which tiles are the river's: the decks in the order the engine draws them, and the tiles carrying the
river that are drawn while it is laid (up to the lake) or only after it.  Read by the river's checks
(river_layer.py, river.py) and by the witness searches (witness.py), which so need no check module."""
from __future__ import annotations

from dataclasses import dataclass

from ..dsl import ast as A
from ..dsl.model import RuleSet


def drawn_decks(rs: RuleSet) -> list[tuple[A.DeckDecl, list[str]]]:
    """The decks in the order the engine draws them (a deck `before X` first: compiler/lower.py) and
    the tile names each holds (`tiles ... last T`, or for `rest` every tile no other deck names)."""
    ordered = [d for d in rs.decks if d.before is not None] + [d for d in rs.decks if d.before is None]
    named = {n for d in ordered for n in (*d.tiles, *([d.last] if d.last else []))}
    out = []
    for d in ordered:
        if d.tiles or d.last:
            names = [t.name for t in rs.tiles if t.name in d.tiles or t.name == d.last]
        else:
            names = [t.name for t in rs.tiles if t.name not in named]
        out.append((d, list(dict.fromkeys(names))))
    return out


@dataclass
class RiverPhase:
    """Which tiles with a river are drawn while the river is being laid, and which only after it.

    The river is laid from its deck (RIVER-TURN-1: river tiles until someone places the lake); the deck
    whose `last` tile carries the river ends it (the lake).  A tile carrying the river in a deck drawn
    after that one (a house rule's tile left in the land deck by `deck land = rest`) is drawn when the
    river is closed at both ends, so `placement continues` can never let it be laid."""

    river: set[str]  # tiles with a river drawn up to the lake: the river tiles (set-river, the theorem)
    late: list[tuple[str, A.DeckDecl, A.DeckDecl]]  # (tile, its deck, the river's deck): drawn after the end
    end: str | None  # the river's last tile (the lake), or None when no deck ends the river


def river_phase(rs: RuleSet, kind: str) -> RiverPhase:
    carries = {t.name for t in rs.tiles if t.cells is None and any(f.kind == kind and f.places for f in t.features)}
    order = drawn_decks(rs)
    for i, (d, names) in enumerate(order):
        if d.last is not None and d.last in carries:
            river = {n for _, ns in order[: i + 1] for n in ns if n in carries}
            late = [(n, dd, d) for dd, ns in order[i + 1:] for n in ns if n in carries]
            return RiverPhase(river, late, d.last)
    return RiverPhase(carries, [], None)
