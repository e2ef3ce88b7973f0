"""The board's features as the rules name them: every feature as a dict (`features`: kind, cells,
places, figures, completion, open edges) and the order that names features alike whatever ids they
got (`canon`).  Functions of the game (`Game.features`, `Game._canon`): they read the rules' names
and the seats, which the board (runtime/board.py) does not know.
"""
from __future__ import annotations


def features(g, cells=None):
    """Every feature on the board: kind, cells, places (board frame), figures, completion, open edges.
    With `cells`, only the features that have a piece on one of those cells."""
    R = g.R
    b = g.board
    find = b.find
    groups = {}
    if cells is None:
        for cell, (o, base) in b.tiles.items():
            for i in range(len(o.feats)):
                r = find(base + i)
                groups.setdefault(r, []).append((cell, o.places[i]))
    else:
        tiles = b.tiles
        roots = {find(base + i) for c in cells if c in tiles for o, base in (tiles[c],)
                 for i in range(len(o.feats))}
        for r in sorted(roots):
            members = groups[r] = []
            for cell in sorted(b.cells[r]):
                o, base = tiles[cell]
                for i in range(len(o.feats)):
                    if find(base + i) == r:
                        members.append((cell, o.places[i]))
    out = []
    for r, members in groups.items():
        places = frozenset((c, p) for c, ps in members for p in ps)
        out.append({
            "kind": R.KINDS[b.seg_kind[r]].name,
            "cells": frozenset(b.cells[r]),
            "places": places,
            "figures": sorted((g.names[p], R.FIGURES[gi].name) for p, gi, _ in b.figs[r]),
            "figure_places": sorted((g.names[p], R.FIGURES[gi].name, b.seg_cell[seg], b.seg_place(seg))
                                    for p, gi, seg in b.figs[r]),
            "complete": bool(b.done[r]),
            "open": b.open[r],
            "borders": frozenset(find(s) for s in b.borders[r]),
            "root": r,
        })
    return out


def canon(g, r):
    """Order features the same way whatever ids they got: by kind, then by the cells they cover."""
    b = g.board
    cells = b.cells[r]
    return (g.R.KINDS[b.seg_kind[r]].name, min(cells), len(cells), sorted(cells))
