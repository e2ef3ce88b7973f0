"""Counterexamples as pictures: the river theorem's maps (verifier/river.py) drawn with the real tiles.

`tessera verify --svg DIR` writes one SVG per refuted property beside the text map
it prints: each river tile in the cell and turn the counterexample gives, the
flow as arrows, the tile that goes wrong framed in red.
"""
from __future__ import annotations

import re
from pathlib import Path

import drawsvg as dw

from ..dsl.model import RuleSet
from ..dsl.places import OPPOSITE, SIDES, rotate

from . import write_atomically
from .sheet import drawn_features
from .tile import PROBLEM, SIZE, Style, attr, box_of, draw_tile

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
    """One counterexample (tessera.verifier.river.Counterexample) as a board of river tiles."""
    style = Style.of(rs)
    land = bool(getattr(ce, "landscape", False))  # the river leaves a start landscape (SIEGE-SETUP-1)
    cells = [p.cell for p in ce.placed] + [ce.cell] + (list(ce.start) if land else [])
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
    if land and rs.start is not None:
        _landscape(d, rs, style, x0, y0, ce.source_cell)
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
        if land and p.index == 0:
            pass  # the start landscape's cell the river leaves from: drawn with the landscape
        elif t is not None:
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
        if not (land and p.index == 0):
            g.append(dw.Circle(14, 14, 10, fill="#ffffff", stroke="#0d2f5c"))
            g.append(dw.Text("S" if p.index == 0 else str(p.index), 11, 14, 18, text_anchor="middle", fill="#0d2f5c",
                             font_weight="bold", class_="index"))
        if last:
            g.append(dw.Rectangle(-1, -1, SIZE + 2, SIZE + 2, fill="none", stroke=PROBLEM, stroke_width=4, class_="wrong-frame"))
        d.append(g)
        prev = p.heading
    return d


def _landscape(d: dw.Drawing, rs: RuleSet, style: Style, x0: int, y0: int, source) -> None:
    """The start landscape's tiles where the rule set lays them (a tile covering several cells whole),
    the river's source marked S."""
    for sp in rs.start.places():
        types = rs.tile_types(sp.tile)
        if not types:
            continue
        t = types[0]
        x = MARGIN + (sp.x - x0) * SIZE
        y = HEAD + MARGIN + (sp.y - y0) * SIZE
        attrs = dict(transform=f"translate({x},{y})", data_tile=attr(t.name), data_cell=f"{sp.x},{sp.y}")
        if t.cells is not None:  # drawn whole across its cells, with its printed symbols
            g = draw_tile(drawn_features(t), style, box=box_of(t), symbols=t.symbols,
                          class_="start-landscape multicell", **attrs)
        else:
            g = draw_tile(drawn_features(t, sp.rotation), style, class_="start-landscape", data_rotation=sp.rotation, **attrs)
        g.append(dw.Title(f"{t.name} at [{sp.x},{sp.y}] (the start landscape)"))
        if (sp.x, sp.y) == source:
            g.append(dw.Circle(14, 14, 10, fill="#ffffff", stroke="#0d2f5c"))
            g.append(dw.Text("S", 11, 14, 18, text_anchor="middle", fill="#0d2f5c", font_weight="bold", class_="index"))
        d.append(g)


def laying_svg(rs: RuleSet, laying, kind: str, left: dict[str, int], title: str) -> dw.Drawing:
    """The tile-set check's best laying of the river tiles (verifier/river_layer.py `set-river`), the
    open end where none of the tiles left can continue marked."""
    from ..dsl.places import OFFSET

    style = Style.of(rs)
    board = {cell: (name, rot) for name, cell, rot in laying.laid}
    name, cell, rot = laying.laid[-1]
    t = next(iter(rs.tile_types(name)), None)
    opens = []
    if t is not None:
        for f in t.features:
            if f.kind == kind:
                for p in f.places:
                    if p in SIDES:
                        side = rotate(p, rot)
                        nb = (cell[0] + OFFSET[side][0], cell[1] + OFFSET[side][1])
                        if nb not in board:
                            opens.append(nb)
    cells = list(board) + opens
    x0, x1 = min(c[0] for c in cells), max(c[0] for c in cells)
    y0, y1 = min(c[1] for c in cells), max(c[1] for c in cells)
    rest = ", ".join(n if c == 1 else f"{n} x{c}" for n, c in left.items() if c > 0)
    head = f"at best {len(laying.laid)} of {laying.total} {kind} tiles are laid; then {rest or 'nothing'} cannot continue"
    w = max((x1 - x0 + 1) * SIZE + 2 * MARGIN, 7 * len(head) + 2 * MARGIN)
    h = (y1 - y0 + 1) * SIZE + 2 * MARGIN + HEAD
    d = dw.Drawing(w, h, font_family="sans-serif")
    d.append(dw.Rectangle(0, 0, w, h, fill="#ffffff"))
    d.append(dw.Title(title))
    d.append(dw.Text(head, 12, MARGIN, 20, fill=PROBLEM, font_weight="bold", class_="headline"))
    d.append(dw.Text(title, 11, MARGIN, 36, fill="#444444"))
    for i, (name, cell, rot) in enumerate(laying.laid):
        x = MARGIN + (cell[0] - x0) * SIZE
        y = HEAD + MARGIN + (cell[1] - y0) * SIZE
        g = dw.Group(transform=f"translate({x},{y})", class_="river-tile", data_index=i, data_tile=attr(name),
                     data_cell=f"{cell[0]},{cell[1]}", data_rotation=rot)
        g.append(dw.Title(f"{i}: {name} at {cell} rotation {rot}"))
        t = next(iter(rs.tile_types(name)), None)
        if t is not None:
            g.append(draw_tile(drawn_features(t, rot), style))
        g.append(dw.Circle(14, 14, 10, fill="#ffffff", stroke="#0d2f5c"))
        g.append(dw.Text(str(i), 11, 14, 18, text_anchor="middle", fill="#0d2f5c", font_weight="bold", class_="index"))
        d.append(g)
    for cell in opens:
        x = MARGIN + (cell[0] - x0) * SIZE
        y = HEAD + MARGIN + (cell[1] - y0) * SIZE
        g = dw.Group(transform=f"translate({x},{y})", class_="stuck", data_cell=f"{cell[0]},{cell[1]}")
        g.append(dw.Rectangle(4, 4, SIZE - 8, SIZE - 8, fill="none", stroke=PROBLEM, stroke_width=4, stroke_dasharray="8 5"))
        g.append(dw.Text("?", 40, SIZE / 2, SIZE / 2 + 14, text_anchor="middle", fill=PROBLEM, font_weight="bold"))
        d.append(g)
    return d


def slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.+-]+", "-", text).strip("-") or "rules"


def write_counterexamples(rs: RuleSet, failed: set[str], folder: Path, title: str) -> list[Path]:
    """SVG maps of the failed checks that have a board (the river theorem's counterexamples)."""
    written: list[Path] = []
    if "set-river" in failed:
        written += _laying(rs, folder, title)
    if "river" not in failed:
        return written
    from ..verifier.river import check_river

    rep = check_river(rs)
    if rep.deck is None:
        return written
    folder.mkdir(parents=True, exist_ok=True)
    for prop, ce in rep.counterexamples.items():
        path = folder / f"{slug(title)}.river.{slug(ce.prop)}.svg"
        write_atomically(path, river_svg(rs, ce, rep.deck.kind, rep.deck.lake, f"{title}: {prop} [RIVER-PLACE-2]").as_svg())
        written.append(path)
    return written


def _laying(rs: RuleSet, folder: Path, title: str) -> list[Path]:
    """The best laying `set-river` found (verifier/river_layer.py), the very search that check runs."""
    from collections import Counter

    from ..verifier.river_layer import _continues, lay_river

    p = _continues(rs)
    if p is None or not p.arg:
        return []
    layer, res = lay_river(rs, p.arg)
    if res.ok or res.problems or not res.laid:  # no board to show: the message says it all
        return []
    left = Counter(layer.counts)
    for n, _, _ in res.laid:
        left[n] -= 1
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{slug(title)}.set-river.svg"
    write_atomically(path, laying_svg(rs, res, p.arg, dict(left), f"{title}: the river tiles cannot be laid as one river").as_svg())
    return [path]
