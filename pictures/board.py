"""A game record's board, turn by turn, read through the public replay.

`timeline(record)` reads, for every k, the game as the record's first k turns leave it (the
replay answer -- scores, supply, prisoners, outposts, events --, `Game.features()` and the
typed moves the step made, `Game.history`), all in one replay (`replay`'s `on_turn`), so a
step shows exactly what `tessera replay` says about that prefix.  Step 0 is
the start landscape; step k is the board after record entry k-1; the last step
of a record that ends `"final"` includes final scoring.

`board_drawing(tl, step)` draws one step (`tessera draw GAME.json --turn N`);
`board_drawing(tl, None)` draws every step at once, each element tagged with the
steps it is visible in (`data-from`, `data-to`), for the viewer to show by step.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import drawsvg as dw

from ..compiler.runtime import events as E
from ..dsl.model import RuleSet, TileType
from ..dsl.places import rotate

from .sheet import drawn_features
from .tile import FIGURE_AT, SIZE, Style, attr, box_of, done_pattern, draw_tile

PLAYER_COLOURS = {"red": "#d62728", "blue": "#1f5fbf", "green": "#2ca02c", "yellow": "#e6c619",
                  "black": "#222222", "grey": "#8a8a8a", "gray": "#8a8a8a", "white": "#f4f4f4",
                  "pink": "#e377c2", "orange": "#ff7f0e", "purple": "#8e44ad"}
SEAT_COLOURS = ["#d62728", "#1f5fbf", "#2ca02c", "#e6c619", "#222222", "#8e44ad"]
MARGIN = 20


def player_colours(names: list[str]) -> dict[str, str]:
    """A player called by a colour's name plays in that colour; others by seat."""
    out, used = {}, set()
    for n in names:
        c = PLAYER_COLOURS.get(n.lower())
        if c is not None and c not in used:
            out[n] = c
            used.add(c)
    free = [c for c in SEAT_COLOURS if c not in used]
    for n in names:
        if n not in out:
            out[n] = free.pop(0) if free else "#777777"
    return out


class CannotStart(Exception):
    """A record no game of its rules starts from (a player count the rules are not for, a deal the
    rules cannot make, cards they do not print): `error` is replay's answer, {"turn", "message", "clause"}."""

    def __init__(self, error: dict):
        super().__init__(f"{error['message']} [{error['clause']}]")
        self.error = error


@dataclass
class Placed:
    cell: tuple[int, int]
    tile: TileType
    rotation: int
    step: int  # the step it appears at
    whole: TileType | None = None  # a cell of a tile covering several cells: that tile (drawn whole once)
    anchor: tuple[int, int] | None = None  # and the cell its NW cell lies on

    def is_anchor(self) -> bool:
        return self.whole is None or self.cell == self.anchor


@dataclass
class Step:
    index: int
    entry: dict | None  # the record entry played to reach this step (None: the start)
    player: str | None
    scores: dict[str, int]
    events: list[dict]  # events of this step (scoring with clauses, discards)
    features: list[dict]  # Game.features() after this step
    final: bool = False
    supply: dict[str, dict[str, int]] = field(default_factory=dict)  # figures each player has left
    moves: list[dict] = field(default_factory=list)  # the step's moves (pictures/steps.py's moves_of)
    prisoners: dict[str, dict[str, dict[str, int]]] = field(default_factory=dict)  # holder -> owner -> figure -> n
    outposts: dict[str, dict] = field(default_factory=dict)  # the replay answer's `outposts` after this step


@dataclass
class Timeline:
    rs: RuleSet
    players: list[str]
    steps: list[Step]
    tiles: dict[tuple[int, int], Placed]
    answer: dict  # the replay answer of the whole record (what `tessera replay --json` prints)
    error: dict | None = None
    figure_spans: list[tuple[tuple, int, int | None]] = field(default_factory=list)  # (figure key, from, to)
    done_from: dict[tuple[tuple[int, int], int], int] = field(default_factory=dict)  # (cell, feature) -> step
    stacked: set[str] = field(default_factory=set)  # figures drawn as floors (stacked_figures)
    # (cell, place) of a stack -> [(height, builders {player: n}, from, to)]: a tower's floors over the game
    stack_spans: dict[tuple, list[tuple[int, dict, int, int | None]]] = field(default_factory=dict)
    stack_kind: dict[tuple, str] = field(default_factory=dict)  # (cell, place) of a stack -> the feature kind


def _rule_set(record: dict, base: Path | None) -> RuleSet:
    from ..replay.tiles import RuleLoadError, _resolve_rules
    from ..dsl.loader import load_rule_set

    rules, search, confine = _resolve_rules(record, base)
    rs, diags, ws = load_rule_set(rules, search=search, confine=confine)
    if rs is None:
        raise RuleLoadError(diags, ws)
    return rs


def timeline(record: dict, base: Path | None = None) -> Timeline:
    """Every step of the record: the game as each prefix of its turns leaves it, read during one
    replay (raises RecordError / RuleLoadError as `replay` does)."""
    from ..replay.tiles import answer_of, replay

    from .steps import moves_of

    turns = list(record.get("turns", []))
    steps: list[Step] = []
    seen = [0, 0]  # events shown and moves made by the steps so far
    loaded: list = []  # the rule set and its stacked figures, read once the replay has taken the record

    def step(k: int, g, answer: dict, whole: bool) -> None:
        evs = [e for e in g.events if E.is_shown(e)]
        moves = moves_of(g, g.history[seen[1]:], loaded[1])
        entry = turns[k - 1] if k else None
        steps.append(Step(k, entry, None, dict(answer["scores"]), [E.shown_event(e) for e in evs[seen[0]:]],
                          g.features(), final=whole and record.get("end", "final") == "final",
                          supply=answer.get("supply", {}), moves=moves,
                          prisoners=answer.get("prisoners", {}), outposts=answer.get("outposts", {})))
        seen[:] = [len(evs), len(g.history)]

    def each(k: int, g) -> None:
        if not loaded:
            rs = _rule_set(record, base)
            loaded[:] = [rs, stacked_figures(rs)]
        if k < len(turns):  # the whole record's last step is the game as the replay ends it
            step(k, g, answer_of(g), False)

    full = replay(record, base, on_turn=each)
    if full.game is None:  # no game of these rules starts from the record: replay's problem found, nothing to draw
        raise CannotStart(full.error)
    rs, stacked = loaded
    if full.error is None:
        step(len(turns), full.game, full.answer, True)
    players = list(record["players"])
    _who_played(steps, players)
    tl = Timeline(rs, players, steps, {}, full.answer, full.error, stacked=stacked)
    _place_tiles(tl, record, turns)
    _spans(tl)
    return tl


def stacked_figures(rs: RuleSet) -> set[str]:
    """The figures drawn as floors of a stack rather than as figures standing on a feature: those
    whose putting a `capture` rule follows (`after put floor`), that is the figures that build the
    height the capture's range counts (TOWER-CAPTURE-1, -2).  A house rule's own building figure is
    drawn so by saying `capture ... after put` it."""
    return {c.after for c in rs.captures.values() if c.after in rs.figures}


def _who_played(steps: list[Step], players: list[str]) -> None:
    """Seats go round in order; a discard is not a turn of its own (the same player draws again)."""
    seat = 0
    for s in steps[1:]:
        s.player = players[seat % len(players)]
        if not (s.entry or {}).get("discard"):
            seat += 1


def _cell_places(features: list[dict]) -> dict[tuple[int, int], set[tuple[str, str]]]:
    out: dict[tuple[int, int], set[tuple[str, str]]] = {}
    for f in features:
        for cell, place in f["places"]:
            out.setdefault(tuple(cell), set()).add((f["kind"], place))
    return out


def _which(rs: RuleSet, name: str, rot: int, seen: set[tuple[str, str]] | None) -> TileType | None:
    """The tile type (a variant, say with a garden) whose places match what the board has there."""
    cands = rs.tile_types(name)
    for t in cands:
        if seen is not None and {(f.kind, rotate(p, rot)) for f in t.features for p in f.places} == seen:
            return t
    return cands[0] if cands else None


def _place_tiles(tl: Timeline, record: dict, turns: list) -> None:
    final = _cell_places(tl.steps[-1].features)
    rs = tl.rs
    start = record.get("start")
    if isinstance(start, dict):
        sname, sat, srot = start.get("tile"), tuple(start.get("at", (0, 0))), int(start.get("rotation", 0)) % 360
    elif rs.start is not None:
        sname, sat, srot = rs.start.tile, (rs.start.x, rs.start.y), rs.start.rotation % 360
    else:
        sname = None
    if sname is not None:
        t = _which(rs, sname, srot, final.get(sat))
        if t is not None and t.cells is None:
            tl.tiles[sat] = Placed(sat, t, srot, 0)
    if not isinstance(start, dict) and rs.start is not None:  # the rest of a start landscape (SIEGE-SETUP-1)
        from ..dsl.multicell import part_types

        for sp in rs.start.places():
            at, rot = (sp.x, sp.y), sp.rotation % 360
            t = _which(rs, sp.tile, rot, final.get(at))
            if t is None:
                continue
            if t.cells is None:
                tl.tiles.setdefault(at, Placed(at, t, rot, 0))
                continue
            for (i, j), pt in part_types(t):  # a tile covering several cells: each cell is on the board,
                c = (sp.x + i, sp.y + j)     # and the tile is drawn whole from its NW cell
                tl.tiles[c] = Placed(c, pt, 0, 0, whole=t, anchor=at)
    for s in tl.steps[1:]:
        e = s.entry or {}
        if e.get("discard") or "at" not in e:
            continue
        cell = (int(e["at"][0]), int(e["at"][1]))
        rot = int(e.get("rotation", 0)) % 360
        t = _which(rs, e["tile"], rot, final.get(cell))
        if t is not None:
            tl.tiles[cell] = Placed(cell, t, rot, s.index)


def _spans(tl: Timeline) -> None:
    """When each figure stands and when each feature is complete, from the per-step features."""
    open_: dict[tuple, int] = {}
    stacks: dict[tuple, tuple] = {}  # (cell, place) -> (height, builders, from) of the stack shown now
    for s in tl.steps:
        now = set()
        heights: dict[tuple, dict[str, int]] = {}
        for f in s.features:
            for who, fig, cell, place in f["figure_places"]:
                if fig in tl.stacked:  # a floor: counted into its stack, never drawn as a figure
                    b = heights.setdefault((tuple(cell), place), {})
                    tl.stack_kind[(tuple(cell), place)] = f["kind"]
                    b[who] = b.get(who, 0) + 1
                else:
                    now.add((who, fig, tuple(cell), place))
            if f["complete"]:
                for cell, place in f["places"]:
                    p = tl.tiles.get(tuple(cell))
                    if p is None:
                        continue
                    if p.whole is not None:  # a feature of a tile covering several cells, by its numbered places
                        i = _whole_feature(p, place)
                        if i is not None:
                            tl.done_from.setdefault((p.anchor, i), s.index)
                        continue
                    for tf in p.tile.features:
                        if tf.places and rotate(tf.places[0], p.rotation) == place:
                            tl.done_from.setdefault((p.cell, tf.index), s.index)
        for key, builders in heights.items():
            h = sum(builders.values())
            old = stacks.get(key)
            if old is None or old[:2] != (h, builders):
                if old is not None:
                    tl.stack_spans.setdefault(key, []).append((old[0], old[1], old[2], s.index))
                stacks[key] = (h, dict(sorted(builders.items())), s.index)
        for key in [k for k in stacks if k not in heights]:
            old = stacks.pop(key)
            tl.stack_spans.setdefault(key, []).append((old[0], old[1], old[2], s.index))
        for key in now:
            open_.setdefault(key, s.index)
        for key in list(open_):
            if key not in now:
                tl.figure_spans.append((key, open_.pop(key), s.index))
    tl.figure_spans.extend((key, start, None) for key, start in open_.items())
    for key, (h, builders, k0) in stacks.items():
        tl.stack_spans.setdefault(key, []).append((h, builders, k0, None))


def _whole_feature(p: Placed, place: str) -> int | None:
    """The declared feature of a tile covering several cells that lies on `place` of cell p.cell."""
    from ..dsl.multicell import locate

    w, h = p.whole.cells
    at = (p.cell[0] - p.anchor[0], p.cell[1] - p.anchor[1])
    for tf in p.whole.features:
        if any(locate(q, w, h) == (at, place) for q in tf.places):
            return tf.index
    return None


STACK_TOP = 24  # how far above a stack's place a figure on top of it stands
BRICK_W, BRICK_H = 30, 5
BADGE_R = 10  # the height badge's radius: 20 units across, as a printed symbol's badge (docs/pictures.md)
STONE = ("#b9b2a4", "#4a443b")


def draw_stack(x: float, y: float, height: int, builders: dict[str, int], colours: dict[str, str], kind: str,
               cell, place: str, **attrs) -> dw.Group:
    """A stack of floors at (x, y): grey bricks (one per floor, up to 6 drawn, each with a thin band
    of its builder's colour) and the height as a number in a badge; never a player's figure."""
    g = dw.Group(class_="stack", data_cell=f"{cell[0]},{cell[1]}", data_place=attr(place), data_height=height,
                 **attrs)
    order = [p for p, n in builders.items() for _ in range(n)]
    shown = min(height, 6)
    base = y + 14
    for i in range(shown):
        by = base - (i + 1) * BRICK_H
        g.append(dw.Rectangle(x - BRICK_W / 2, by, BRICK_W, BRICK_H, fill=STONE[0], stroke=STONE[1], stroke_width=1))
        if i < len(order):
            g.append(dw.Rectangle(x - BRICK_W / 2 + 1, by + 1, 4, BRICK_H - 2, fill=colours.get(order[i], "#777777")))
    top = base - shown * BRICK_H
    g.append(dw.Rectangle(x - BRICK_W / 2 - 2, top - 3, BRICK_W + 4, 3, fill=STONE[1]))  # the battlement
    bx = x + BRICK_W / 2 + BADGE_R - 2  # the height in a badge beside the bricks, as large as a printed symbol's
    g.append(dw.Circle(bx, base - BADGE_R + 2, BADGE_R, fill="#ffffff", stroke="#111111", stroke_width=1.5,
                       class_="height-badge"))
    g.append(dw.Text(str(height), 15, bx, base - BADGE_R + 7, text_anchor="middle", font_weight="bold",
                     fill="#111111", class_="height", font_family="sans-serif"))
    who = ", ".join(f"{p} {n}" for p, n in builders.items())
    g.append(dw.Title(f"{kind or 'stack'} on {place} of [{cell[0]},{cell[1]}]: height {height} ({who})"))
    return g


def new_floor_mark(x: float, y: float, shown: int, cell, place: str, **attrs) -> dw.Group:
    """The frame around a stack whose floor was put this step (the orange of "tile laid this step")."""
    base = y + 14
    top = base - shown * BRICK_H - 3
    g = dw.Group(class_="new-floor", data_cell=f"{cell[0]},{cell[1]}", data_place=attr(place), **attrs)
    g.append(dw.Rectangle(x - BRICK_W / 2 - 5, top - 3, BRICK_W + 10 + 2 * BADGE_R, base - top + 6, rx=3,
                          fill="none", stroke="#ff6f00", stroke_width=3))
    return g


def _meeple(x: float, y: float, colour: str, figure: str, first: bool, on_top: bool = False, **attrs) -> dw.Group:
    g = dw.Group(class_=attr(f"figure figure-{figure}" + (" on-top" if on_top else "")), **attrs)
    s = 1.2
    if on_top:  # a figure on top of a stack: a gold ring beneath it tells it from the floors
        g.append(dw.Ellipse(x, y + 9 * s, 11, 3.5, fill="#ffd54f", stroke="#111111", stroke_width=1))
    g.append(dw.Path(fill=colour, stroke="#111111", stroke_width=1.1)
             .M(x - 8 * s, y + 9 * s).L(x - 2.5 * s, y - 1 * s).L(x - 8 * s, y - 2 * s).Q(x - 9 * s, y - 6 * s, x - 4 * s, y - 5 * s)
             .A(4.5 * s, 4.5 * s, 0, 1, 1, x + 4 * s, y - 5 * s).Q(x + 9 * s, y - 6 * s, x + 8 * s, y - 2 * s)
             .L(x + 2.5 * s, y - 1 * s).L(x + 8 * s, y + 9 * s).L(x + 1.5 * s, y + 9 * s).L(x, y + 5 * s)
             .L(x - 1.5 * s, y + 9 * s).Z())
    if not first:  # figures other than the first declared carry their initial
        g.append(dw.Text(figure[:1].upper(), 9, x, y + 8, text_anchor="middle", fill="#ffffff", stroke="#111111",
                         stroke_width=0.6, font_weight="bold", font_family="sans-serif"))
    return g


def board_cells(tl: Timeline) -> tuple[int, int, int, int]:
    """The cells the whole game's board spans: (x0, y0, x1, y1); cell (x, y) is drawn at
    (MARGIN + (x - x0) * SIZE, MARGIN + (y - y0) * SIZE)."""
    cells = [p.cell for p in tl.tiles.values()] or [(0, 0)]
    return (min(c[0] for c in cells), min(c[1] for c in cells), max(c[0] for c in cells), max(c[1] for c in cells))


def left_mark(x: float, y: float, ev: dict, colours: dict[str, str], **attrs) -> dw.Group:
    """A ring and a cross where a figure left the board by an event, not by scoring (captured:
    purple, removed: red; each event kind declares its `mark`), with its owner's colour inside."""
    cls, colour, owner_field, title = E.mark_of(ev)
    owner = ev[owner_field]
    g = dw.Group(class_=f"mark {cls}", data_cell=f"{ev['at'][0]},{ev['at'][1]}", data_place=attr(ev.get("on", "")),
                 data_player=attr(owner), **attrs)
    g.append(dw.Circle(x, y, 12, fill=colours.get(owner, "#777777"), fill_opacity=0.55, stroke=colour, stroke_width=3))
    g.append(dw.Line(x - 8, y - 8, x + 8, y + 8, stroke=colour, stroke_width=3))
    g.append(dw.Line(x - 8, y + 8, x + 8, y - 8, stroke=colour, stroke_width=3))
    g.append(dw.Title(f"{title(ev, owner)} [{ev.get('clause', '')}]"))
    return g


def outposts_group(outposts: dict[str, dict], colours: dict[str, str], x: float, y: float,
                   events: list[dict]) -> tuple[dw.Group, float]:
    """The outposts beside the board (`draw`): each one's row of slots (filled in order, in the
    owners' colours), its pool and its catapult slot, and what came to it this step."""
    g = dw.Group(class_="outposts", font_family="sans-serif")
    g.append(dw.Text("outposts", 13, x, y, font_weight="bold", fill="#222222"))
    yy = y + 18
    for name, o in outposts.items():
        g.append(dw.Text(name, 11, x, yy, fill="#222222"))
        came = [e["kind"] for e in events if E.at_outpost(e, name)]
        if came:
            g.append(dw.Text(", ".join(came), 10, x + 70, yy, fill="#c62828", font_weight="bold"))
        yy += 6
        og = dw.Group(class_="outpost", data_outpost=attr(name), data_row=len(o["row"]), data_pool=len(o["pool"]),
                      data_catapults=o["catapults"])
        for i in range(o["slots"]):
            who = o["row"][i] if i < len(o["row"]) else None
            og.append(dw.Rectangle(x + i * 16, yy, 13, 13, fill=colours.get(who, "#777777") if who else "#ffffff",
                                   stroke="#111111", class_="slot"))
        px = x + o["slots"] * 16 + 6
        og.append(dw.Circle(px + 7, yy + 6.5, 7, fill="#ffffff", stroke="#111111", stroke_dasharray="2 2"))
        og.append(dw.Text(str(len(o["pool"])), 9, px + 7, yy + 10, text_anchor="middle", fill="#111111"))
        cx = px + 20
        og.append(dw.Rectangle(cx, yy, 13, 13, fill="#5d4037" if o["catapults"] else "#ffffff", stroke="#111111"))
        og.append(dw.Title(f"{name}: row {', '.join(o['row']) or 'empty'} ({o['slots']} slots); pool "
                           f"{', '.join(o['pool']) or 'empty'}; {o['catapults']} catapult(s)"))
        g.append(og)
        yy += 30
    return g, yy - y


def _panel_height(tl: Timeline, step: int | None) -> float:
    """How tall the scores panel of `step` is (scores, prisoners, outposts, an error line)."""
    s = tl.steps[min(step, len(tl.steps) - 1)] if step is not None else tl.steps[-1]
    h = MARGIN + 40 + 24 * len(tl.players)
    if tl.rs.captures:
        h += 26 + sum(19 + 15 * sum(len(f) for f in s.prisoners.get(p, {}).values()) for p in tl.players)
    if s.outposts:
        h += 18 + 30 * len(s.outposts)
    return h + 30


def board_drawing(tl: Timeline, step: int | None, scores_panel: bool = True, places: bool = False) -> dw.Drawing:
    """The board after `step` (None: every step, tagged with data-from/data-to for the viewer)."""
    style = Style.of(tl.rs)
    colours = player_colours(tl.players)
    shown = [p for p in tl.tiles.values() if step is None or p.step <= step]
    x0, y0, x1, y1 = board_cells(tl)
    bw, bh = (x1 - x0 + 1) * SIZE, (y1 - y0 + 1) * SIZE
    panel = 190 if scores_panel else 0
    d = dw.Drawing(bw + 2 * MARGIN + panel, max(bh + 2 * MARGIN, 140, _panel_height(tl, step) if scores_panel else 0),
                   font_family="sans-serif")
    d.append_def(done_pattern())
    d.append(dw.Rectangle(0, 0, d.width, d.height, fill="#f3efe6"))
    d.append(dw.Title(f"board of a {' + '.join(tl.rs.names)} game, "
                      + ("every step" if step is None else f"after turn {step}")))

    def at(cell):
        return MARGIN + (cell[0] - x0) * SIZE, MARGIN + (cell[1] - y0) * SIZE

    board = dw.Group(class_="board")
    for p in sorted((p for p in shown if p.is_anchor()), key=lambda p: p.step):
        x, y = at(p.cell)
        done = {}
        for (cell, fi), k in tl.done_from.items():
            if cell == p.cell and (step is None or k <= step):
                done[fi] = {"data_from": k} if step is None else {}
        attrs = {"data_from": p.step} if step is None else {}
        cls = "placed" + (" last" if step is not None and p.step == step and step > 0 else "")
        if p.whole is not None:  # a tile covering several cells: one picture across its cells
            w, h = p.whole.cells
            grp = draw_tile(drawn_features(p.whole), style, box=box_of(p.whole), places=places, done=done,
                            symbols=p.whole.symbols, transform=f"translate({x},{y})",
                            class_=cls + " multicell", data_tile=attr(p.whole.id),
                            data_cell=f"{p.cell[0]},{p.cell[1]}", data_cells=f"{w}x{h}", data_rotation=0, **attrs)
            grp.append(dw.Title(f"{p.whole.id} at [{p.cell[0]},{p.cell[1]}] covering {w}x{h} cells (step {p.step})"))
            board.append(grp)
            continue
        grp = draw_tile(drawn_features(p.tile, p.rotation), style, places=places, done=done, transform=f"translate({x},{y})",
                        class_=cls, symbols=p.tile.symbols, rotation=p.rotation,
                        data_tile=attr(p.tile.id), data_cell=f"{p.cell[0]},{p.cell[1]}", data_rotation=p.rotation, **attrs)
        grp.append(dw.Title(f"{p.tile.id} at [{p.cell[0]},{p.cell[1]}] rotation {p.rotation} (step {p.step})"))
        board.append(grp)
    d.append(board)
    if step is not None and step > 0:
        last = [p for p in shown if p.step == step]
        for p in last:
            x, y = at(p.cell)
            d.append(dw.Rectangle(x - 1, y - 1, SIZE + 2, SIZE + 2, fill="none", stroke="#ff6f00", stroke_width=3,
                                  class_="last-placed"))
    elif step is None:
        for p in tl.tiles.values():
            if p.step:
                x, y = at(p.cell)
                d.append(dw.Rectangle(x - 1, y - 1, SIZE + 2, SIZE + 2, fill="none", stroke="#ff6f00",
                                      stroke_width=3, class_="last-placed", data_step=p.step))
    figs = dw.Group(class_="figures")
    first_fig = next(iter(tl.rs.figures), None)
    for (cell, place), spans in sorted(tl.stack_spans.items()):
        if cell not in tl.tiles:
            continue
        prev_h = 0
        for h, builders, k0, k1 in spans:
            grew, prev_h = h > prev_h, h
            if step is not None and not (k0 <= step and (k1 is None or step < k1)):
                continue
            x, y = at(cell)
            fx, fy = FIGURE_AT.get(place, (SIZE / 2, SIZE / 2))
            attrs = {"data_from": k0} if step is None else {}
            if step is None and k1 is not None:
                attrs["data_to"] = k1
            figs.append(draw_stack(x + fx, y + fy, h, builders, colours, tl.stack_kind.get((cell, place), ""),
                                   cell, place, **attrs))
            if grew and k0 > 0 and (step is None or step == k0):  # the floor put this step: framed as the tile laid is
                figs.append(new_floor_mark(x + fx, y + fy, min(h, 6), cell, place,
                                           **({"data_step": k0} if step is None else {})))
    for (who, fig, cell, place), k0, k1 in sorted(tl.figure_spans, key=lambda s: s[1]):
        if step is not None and not (k0 <= step and (k1 is None or step < k1)):
            continue
        if cell not in tl.tiles:
            continue
        x, y = at(cell)
        fx, fy = FIGURE_AT.get(place, (SIZE / 2, SIZE / 2))
        attrs = {"data_from": k0} if step is None else {}
        if step is None and k1 is not None:
            attrs["data_to"] = k1
        top = (cell, place) in tl.stack_spans  # on a feature that holds a stack: on top of it
        if top:
            fy -= STACK_TOP
        m = _meeple(x + fx, y + fy, colours.get(who, "#777777"), fig, fig == first_fig, data_player=attr(who), data_place=attr(place),
                    data_cell=f"{cell[0]},{cell[1]}", on_top=top, **attrs)
        m.append(dw.Title(f"{who}'s {fig} on {'top of the ' + tl.stack_kind.get((cell, place), '') + ' on ' if top else ''}"
                          f"{place} of [{cell[0]},{cell[1]}]"))
        figs.append(m)
    d.append(figs)
    marks = dw.Group(class_="marks")
    for s_ in tl.steps:
        if step is not None and s_.index != step:
            continue
        for ev in s_.events:
            if E.mark_of(ev) is not None and tuple(ev["at"]) in tl.tiles:
                x, y = at(tuple(ev["at"]))
                fx, fy = FIGURE_AT.get(ev.get("on"), (SIZE / 2, SIZE / 2))
                if (tuple(ev["at"]), ev.get("on")) in tl.stack_spans:  # it stood on top of a stack
                    fy -= STACK_TOP
                marks.append(left_mark(x + fx, y + fy, ev, colours, **({"data_step": s_.index} if step is None else {})))
    d.append(marks)
    if scores_panel:
        s = tl.steps[min(step, len(tl.steps) - 1)] if step is not None else tl.steps[-1]
        px = bw + 2 * MARGIN
        pan = dw.Group(class_="scores", font_family="sans-serif")
        title = "final scores" if s.final else f"scores after turn {s.index}"
        pan.append(dw.Text(title, 14, px, MARGIN + 14, font_weight="bold", fill="#222222"))
        for n, who in enumerate(tl.players):
            yy = MARGIN + 40 + n * 24
            pan.append(dw.Rectangle(px, yy - 12, 14, 14, fill=colours[who], stroke="#111111"))
            pan.append(dw.Text(f"{who}: {s.scores.get(who, 0)}", 13, px + 20, yy, fill="#222222", class_="score",
                               data_player=attr(who), data_score=s.scores.get(who, 0)))
        yy = MARGIN + 40 + len(tl.players) * 24
        if tl.rs.captures:  # prisoners: who holds whose
            pan.append(dw.Text("prisoners", 13, px, yy, font_weight="bold", fill="#222222"))
            yy += 20
            for who in tl.players:
                held = s.prisoners.get(who, {})
                n = sum(sum(f.values()) for f in held.values())
                pan.append(dw.Rectangle(px, yy - 11, 12, 12, fill=colours[who], stroke="#111111"))
                pan.append(dw.Text(f"{who} holds" + ("" if n else " none"), 11, px + 18, yy, fill="#222222",
                                   class_="prisoners", data_player=attr(who), data_count=n))
                yy += 16
                for o, figs in held.items():  # one line per owner: their colour, how many of which figure
                    for f, c in figs.items():
                        pan.append(dw.Circle(px + 24, yy - 4, 5, fill=colours.get(o, "#777777"), stroke="#111111"))
                        pan.append(dw.Text(f"{c} of {o}'s {f}{'s' if c != 1 else ''}", 11, px + 34, yy, fill="#222222",
                                           class_="held", data_player=attr(who), data_owner=attr(o), data_count=c))
                        yy += 15
                yy += 3
            yy += 6
        if s.outposts:
            grp, h = outposts_group(s.outposts, colours, px, yy, s.events)
            pan.append(grp)
            yy += h
        if tl.error is not None and step is not None and step >= len(tl.steps) - 1:
            pan.append(dw.Text(f"stopped: {tl.error['message']}", 10, px, yy + 12, fill="#c62828"))
        d.append(pan)
    return d
