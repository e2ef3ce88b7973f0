"""The tile sheet of a rule set: every tile type, its name and copy count, problems marked."""
from __future__ import annotations

from collections import defaultdict

import drawsvg as dw

from ..dsl.diagnostics import Diagnostic
from ..dsl.model import RuleSet, TileType

from .tile import BADGE, PROBLEM, SIZE, Drawn, Style, attr, box_of, draw_tile, symbol_badge

COLUMNS = 8
GAP = 18
CAPTION = 30
LEGEND = 34
HEADING = 26


def drawn_features(t: TileType, rotation: int = 0) -> list[Drawn]:
    """A tile type's features as the compiler reads them, turned `rotation` degrees clockwise."""
    from ..dsl.places import rotate

    return [Drawn(f.index, f.kind, tuple(rotate(p, rotation) for p in f.places), f.shields, f.crosses is not None,
                  tuple(f.borders)) for f in t.features]


def tile_problems(rs: RuleSet) -> dict[str, list[Diagnostic]]:
    """The per-tile topology checks (verifier/topology.py), each problem filed under its tile."""
    from ..verifier import topology as T

    found: dict[str, list[Diagnostic]] = defaultdict(list)
    for check in (T.check_edge_places, T.check_connected, T.check_crossings, T.check_field_borders):
        for d in check(rs):
            if d.severity != "error":
                continue
            for t in rs.tiles:
                s = t.decl.span
                if d.span.file == s.file and s.line <= d.span.line <= max(s.end_line, s.line):
                    if d not in found[t.id]:
                        found[t.id].append(d)
    return found


def bad_features(t: TileType, problems: list[Diagnostic]) -> set[int]:
    spans = {d.span for d in problems}
    return {f.index for f in t.features if f.decl.span in spans}


def legend(rs: RuleSet, style: Style) -> tuple[dw.Group, float]:
    """One swatch per declared feature kind (what the sheet's colours mean), and its width."""
    g = dw.Group(class_="legend", font_family="sans-serif", font_size=12)
    x = 0.0
    for kind in rs.features:
        item = dw.Group(class_="legend-item", data_kind=attr(kind))
        item.append(dw.Rectangle(x, 6, 16, 16, fill=style.fill[kind], stroke=style.stroke[kind], stroke_width=1.2))
        item.append(dw.Text(f"{kind} ({style.category[kind]})", 12, x + 21, 19, fill="#222222"))
        g.append(item)
        x += 30 + 7.2 * (len(kind) + len(style.category[kind]) + 3)
    if style.symbols:  # a second row: every symbol a tile prints, as drawn, and what it names
        sg = dw.Group(class_="legend-symbols", transform="translate(0,28)")
        sg.append(dw.Text("printed symbols:", 12, 0, 15, fill="#222222"))
        sx = 7.2 * 17
        for name, look in style.symbols.items():
            item = dw.Group(class_="legend-item legend-symbol", data_symbol=attr(name))
            item.append(symbol_badge(name, look, sx, 1))
            item.append(dw.Text(look.meaning, 12, sx + BADGE + 5, 15, fill="#222222"))
            sg.append(item)
            sx += BADGE + 26 + 5.9 * len(look.meaning)
        g.append(sg)
        x = max(x, sx)
    return g, x


def tile_sheet(rs: RuleSet, places: bool = False, only: list[str] | None = None, columns: int = COLUMNS) -> dw.Drawing:
    """The sheet: a legend of the declared feature kinds, then one cell per tile type."""
    style = Style.of(rs)
    problems = tile_problems(rs)
    tiles = [t for t in rs.tiles if only is None or t.name in only or t.id in only]
    cols = max(1, min(columns, len(tiles)))
    cell_w, cell_h = SIZE + GAP, SIZE + CAPTION + GAP
    titles = {m.name: m.title for m in rs.modules}
    layout = []  # (tile or module heading, x, y): each module's tiles start a row under its name (not in an excerpt)
    y = LEGEND + (LEGEND - 6 if style.symbols else 0)  # the symbols' legend row
    col = 0
    module = None
    wide = GAP  # the widest row of a tile covering several cells
    for t in tiles:
        if t.module != module and only is None:
            if col:
                y += cell_h
            module, col = t.module, 0
            layout.append((module, GAP, y + HEADING - 6))
            y += HEADING
        elif col == cols:
            y += cell_h
            col = 0
        if t.cells is not None:  # a tile covering W x H cells: a row of its own, W x H tile boxes
            if col:
                y += cell_h
            w, h = t.cells
            layout.append((t, GAP, y + GAP / 2))
            y += h * SIZE + CAPTION + GAP
            wide = max(wide, w * SIZE + 2 * GAP)
            col = 0
            continue
        layout.append((t, GAP + col * cell_w, y + GAP / 2))
        col += 1
    lg, lw = legend(rs, style)
    width = max(cols * cell_w + GAP, lw + 2 * GAP, wide)
    height = y + (cell_h if col else 0) + GAP
    d = dw.Drawing(width, height, font_family="sans-serif")
    d.append(dw.Rectangle(0, 0, width, height, fill="#ffffff"))
    d.append(dw.Title(f"tiles of {' + '.join(rs.names)}"))
    lg.args["transform"] = f"translate({GAP},4)"
    d.append(lg)
    for t, x, y in layout:
        if isinstance(t, str):
            n = sum(u.count for u in tiles if u.module == t)
            d.append(dw.Text(f"{t}" + (f": {titles[t]}" if titles.get(t) else "") + f" ({n} tile{'s' if n != 1 else ''})", 13, x, y,
                             font_weight="bold", fill="#4e342e", class_="module", data_module=attr(t)))
            continue
        probs = problems.get(t.id, [])
        cell = dw.Group(transform=f"translate({x},{y})", class_="tile" + (" problem" if probs else ""),
                        data_tile=attr(t.id), data_name=attr(t.name), data_count=t.count, data_module=attr(t.module))
        cell.append(dw.Title(f"{t.id} x{t.count} ({t.module}): edges {' '.join(t.decl.edges_flat())}"
                             + "".join(f"\n{d.span}: {d.message} [{d.code}]" for d in probs)))
        tw, th = SIZE, SIZE  # the tile's picture
        box = box_of(t)  # a tile covering several cells: drawn whole, across its W x H tile boxes
        tw, th = box.W, box.H
        cell.append(draw_tile(drawn_features(t), style, box=box, places=places, bad=bad_features(t, probs),
                              symbols=t.symbols))
        label = t.name if t.variant is None else f"{t.name} + {t.variant}"
        size = f", {t.cells[0]}x{t.cells[1]} cells" if t.cells is not None else ""
        cell.append(dw.Text(f"{label}  ×{t.count}{size}", 11, tw / 2, th + 13, text_anchor="middle", fill="#222222",
                            class_="caption"))
        if probs:
            cell.append(dw.Rectangle(-3, -3, tw + 6, th + 6, fill="none", stroke=PROBLEM, stroke_width=3,
                                     class_="problem-frame"))
            cell.append(dw.Circle(tw, 0, 9, fill=PROBLEM, stroke="#ffffff", stroke_width=1.5))
            cell.append(dw.Text("!", 13, tw, 5, text_anchor="middle", fill="#ffffff", font_weight="bold"))
            codes = sorted({d.code for d in probs})
            cell.append(dw.Text(", ".join(codes), 9, tw / 2, th + 25, text_anchor="middle", fill=PROBLEM,
                                class_="problem-text"))
        d.append(cell)
    return d
