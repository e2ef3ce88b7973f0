"""Counterexamples as pictures: the river theorem's maps (verifier/river.py) drawn with the real tiles.

`tessera verify --svg DIR` writes one SVG per refuted property beside the text map
it prints: each river tile in the cell and turn the counterexample gives, the
flow as arrows, the tile that goes wrong framed in red.
"""
from __future__ import annotations

import re
from pathlib import Path

import drawsvg as dw

from dsl.model import RuleSet
from dsl.places import OPPOSITE, SIDES, rotate

from .sheet import drawn_features
from .tile import PROBLEM, SIZE, Style, attr, draw_tile

MARGIN = 24
HEAD = 44
ARROW = {"N": (0, -1), "E": (1, 0), "S": (0, 1), "W": (-1, 0)}


def _rotation(rs: RuleSet, name: str, kind: str, sides: set[str]):
    """The tile type and rotation whose river (of `kind`) reaches exactly `sides`."""
    for t in rs.tile_types(name):
        own = {p for f in t.features if f.kind == kind for p in f.places if p in SIDES}
        for rot in (0, 90, 180, 270):
            if {rotate(p, rot) for p in own} == sides:
                return t, rot
    return None, 0


def river_svg(rs: RuleSet, ce, kind: str, lake: str | None, title: str) -> dw.Drawing:
    """One counterexample (verifier.river.Counterexample) as a board of river tiles."""
    style = Style.of(rs)
    cells = [p.cell for p in ce.placed] + [ce.cell]
    x0, x1 = min(c[0] for c in cells), max(c[0] for c in cells)
    y0, y1 = min(c[1] for c in cells), max(c[1] for c in cells)
    lines = ce.lines()
    w = max((x1 - x0 + 1) * SIZE + 2 * MARGIN, 7 * len(lines[0]) + 2 * MARGIN)
    h = (y1 - y0 + 1) * SIZE + 2 * MARGIN + HEAD
    d = dw.Drawing(w, h, font_family="sans-serif")
    d.append(dw.Rectangle(0, 0, w, h, fill="#ffffff"))
    d.append(dw.Title(title))
    d.append(dw.Text(lines[0], 12, MARGIN, 20, fill=PROBLEM, font_weight="bold", class_="headline"))
    d.append(dw.Text(title, 11, MARGIN, 36, fill="#444444"))
    taken = ce.prop == "runs into itself"
    prev = None
    for p in ce.placed:
        x = MARGIN + (p.cell[0] - x0) * SIZE
        y = HEAD + MARGIN + (p.cell[1] - y0) * SIZE
        entry = {OPPOSITE[prev]} if prev is not None else set()
        last = p.index == ce.step
        if p.index == 0:
            sides = {p.heading}
        elif p.tile == lake:
            sides = entry
        else:
            sides = entry | {p.heading}
        t, rot = _rotation(rs, p.tile, kind, sides)
        g = dw.Group(transform=f"translate({x},{y})", class_="river-tile" + (" wrong" if last else ""),
                     data_index=p.index, data_tile=attr(p.tile), data_cell=f"{p.cell[0]},{p.cell[1]}")
        g.append(dw.Title(f"{p.index}: {p.tile} at {p.cell}, flowing {p.heading}"))
        if last and taken:
            g.append(dw.Rectangle(4, 4, SIZE - 8, SIZE - 8, fill="none", stroke=PROBLEM, stroke_width=4,
                                  stroke_dasharray="8 5", class_="clash"))
            g.append(dw.Line(20, 20, 80, 80, stroke=PROBLEM, stroke_width=6))
            g.append(dw.Line(80, 20, 20, 80, stroke=PROBLEM, stroke_width=6))
            g.append(dw.Text(f"{p.index}: {p.tile}?", 10, SIZE / 2, SIZE - 8, text_anchor="middle", fill=PROBLEM,
                             font_weight="bold"))
            d.append(g)
            continue
        if t is not None:
            g.append(draw_tile(drawn_features(t, rot), style))
        else:
            g.append(dw.Rectangle(0, 0, SIZE, SIZE, fill="#dddddd", stroke="#555555"))
            g.append(dw.Text(p.tile, 10, SIZE / 2, SIZE / 2, text_anchor="middle"))
        dx, dy = ARROW[p.heading]
        cx, cy = SIZE / 2, SIZE / 2
        g.append(dw.Line(cx - 14 * dx, cy - 14 * dy, cx + 22 * dx, cy + 22 * dy, stroke="#0d2f5c", stroke_width=3,
                         class_="flow"))
        g.append(dw.Path(fill="#0d2f5c").M(cx + 32 * dx, cy + 32 * dy)
                 .L(cx + 20 * dx - 7 * dy, cy + 20 * dy + 7 * dx).L(cx + 20 * dx + 7 * dy, cy + 20 * dy - 7 * dx).Z())
        g.append(dw.Circle(14, 14, 10, fill="#ffffff", stroke="#0d2f5c"))
        g.append(dw.Text("S" if p.index == 0 else str(p.index), 11, 14, 18, text_anchor="middle", fill="#0d2f5c",
                         font_weight="bold", class_="index"))
        if last:
            g.append(dw.Rectangle(-1, -1, SIZE + 2, SIZE + 2, fill="none", stroke=PROBLEM, stroke_width=4, class_="wrong-frame"))
        d.append(g)
        prev = p.heading
    return d


def slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.+-]+", "-", text).strip("-") or "rules"


def write_counterexamples(rs: RuleSet, failed: set[str], folder: Path, title: str) -> list[Path]:
    """SVG maps of the failed checks that have a board (the river theorem's counterexamples)."""
    written: list[Path] = []
    if "river" not in failed:
        return written
    from verifier.river import check_river

    rep = check_river(rs)
    if rep.deck is None:
        return written
    folder.mkdir(parents=True, exist_ok=True)
    for prop, ce in rep.counterexamples.items():
        path = folder / f"{slug(title)}.river.{slug(ce.prop)}.svg"
        path.write_text(river_svg(rs, ce, rep.deck.kind, rep.deck.lake, f"{title}: {prop} [RIVER-PLACE-2]").as_svg(), encoding="utf-8")
        written.append(path)
    return written
