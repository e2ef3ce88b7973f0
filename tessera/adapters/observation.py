"""One observation tensor for every adapter (docs/engine.md, "Observations").

A flat float32 vector with named views, read from the engine's public answers
(`features()`, `supply_by_name()`, `scores`, the drawn tile), from the point of
view of one player: player rows are rotated so that row 0 is the observer.
"""
from __future__ import annotations

import operator

import numpy as np

# place name -> zone of a cell: the four sides (with their halves), then centre and corners
ZONES = {"N": 0, "Nw": 0, "Ne": 0, "E": 1, "En": 1, "Es": 1, "S": 2, "Sw": 2, "Se": 2,
         "W": 3, "Wn": 3, "Ws": 3, "C": 4, "NW": 4, "NE": 4, "SE": 4, "SW": 4}
SCORE_HIGH = 10_000.0  # a bound for the observation space; no Carcassonne score comes near it


def _window_size(name: str, value, most: int) -> int:
    """A window's size as given by a user: a whole number from 1 to `most`, else ValueError."""
    try:
        n = None if isinstance(value, bool) else operator.index(value)
    except TypeError:
        n = None
    if n is None or not 1 <= n <= most:
        raise ValueError(f"{name} {value!r}: a whole number from 1 to {most} (a wider window holds no more "
                         f"of these rules' games)")
    return n


class Observer:
    """Builds the observation of a game of one rule set for `players` seats.

    Views (all in one flat `tensor`):
      board    (planes, 2*view+1, 2*view+1) around the codec's window centre (the start tile, or
               with a following window the centre of the placed tiles' bounding box): plane 0 a tile lies
               there; 1 + 5*k + z a feature of kind k lies on zone z (N, E, S, W, centre
               and corners); then one plane "part of a completed feature"; then per
               player (observer first) and figure, how many stand on the cell
      tile     one-hot of the drawn tile's name (all zeros when none is drawn)
      supply   per player and figure: figures left / figures at the start
      scores   per player
      turn     one-hot of who moves now, `current_player()` (observer first): during an
               attack the player removing a figure; before the tile is drawn the
               player whose turn comes
      bag      tiles left / tiles at the start

    Only in rule sets that have them, after those (so other rule sets keep their shapes):
      prisoners  (holder, owner, figure) with captures (the Tower): how many of the owner's
                 figures the holder holds (`prisoners_by_name()`), both observer first
      outposts   (outpost, 2, player) with outposts (Siege and Defense), outposts in the
                 action numbering's order (`codec.tracks`): how many figures each player
                 has in the outpost's row (0) and pool (1) (`outposts_by_name()`)
      catapults  (outpost, 2): catapults in the outpost's catapult slot, free slots left
                 in its row
    """

    def __init__(self, codec, players: int, view: int | None = None):
        R = codec.rules
        self.codec = codec
        self.players = players
        self.kinds = [k.name for k in R.KINDS]
        self.tile_names = sorted(R.TILE_IDS)
        self.view = codec.radius if view is None else _window_size("view", view, codec.full)
        w = 2 * self.view + 1
        nf = len(codec.figures)
        self.planes = 1 + 5 * len(self.kinds) + 1 + players * nf
        shapes = [("board", (self.planes, w, w)), ("tile", (len(self.tile_names),)), ("supply", (players, nf)),
                  ("scores", (players,)), ("turn", (players,)), ("bag", (1,))]
        # the Tower's prisoners and Siege's outposts: views of their own, last, only where the rules have them
        self.prisoners = bool(R.CAPTURES)
        self.tracks = list(codec.tracks)
        if self.prisoners:
            shapes.append(("prisoners", (players, players, nf)))
        if self.tracks:
            shapes += [("outposts", (len(self.tracks), 2, players)), ("catapults", (len(self.tracks), 2))]
        size = sum(int(np.prod(s)) for _, s in shapes)
        self.tensor = np.zeros(size, np.float32)
        self.high = np.ones(size, np.float32)
        self.dict = {}
        at = 0
        for name, shape in shapes:
            n = int(np.prod(shape))
            self.dict[name] = self.tensor[at:at + n].reshape(shape)
            if name == "scores":
                self.high[at:at + n] = SCORE_HIGH
            elif name == "board":
                self.high[at + (self.planes - players * nf) * w * w:at + n] = max(codec.supply)
            elif name == "prisoners":  # no more of a figure can be held than a player has
                self.high[at:at + n] = np.tile(np.array(codec.supply, np.float32), players * players)
            elif name == "outposts":
                self.high[at:at + n] = max(codec.supply)
            elif name == "catapults":  # rules.TRACKS (runtime/outposts.py): a row's size by players, the
                high = self.high[at:at + n].reshape(shape)  # catapult slot's capacity (an attack empties it)
                for t, (_, _, rows, _, cats, _) in enumerate(R.TRACKS):
                    high[t] = (max(1, cats), max(1, rows.get(players, 0)))
            at += n

    # ------------------------------------------------------------ planes
    @property
    def planes_shape(self) -> tuple[int, int, int]:
        """(C, H, W) of `set_planes`: the board's planes, then one constant plane per number of
        every other view, in the flat tensor's order (the drawn tile, supply, scores, turn, bag,
        prisoners, outposts, catapults)."""
        w = 2 * self.view + 1
        return (self.planes + self.tensor.size - self.dict["board"].size, w, w)

    def planes_high(self) -> np.ndarray:
        """The upper bound of every number of `set_planes` (for a gymnasium Box)."""
        board = self.dict["board"].size
        shape = self.planes_shape
        high = np.empty(shape, np.float32)
        high[:self.planes] = self.high[:board].reshape(self.dict["board"].shape)
        high[self.planes:] = self.high[board:, None, None]
        return high

    def plane_views(self, planes: np.ndarray) -> dict:
        """The named views of a (C, H, W) array laid out as `set_planes` fills it: views into it, not
        copies ("board" its first planes, every other view read from its constant planes' first cell)."""
        out = {"board": planes[:self.planes]}
        at = self.planes
        for name, view in self.dict.items():
            if name == "board":
                continue
            out[name] = planes[at:at + view.size, 0, 0].reshape(view.shape)
            at += view.size
        return out

    def set_planes(self, g, player: int, drawn: bool = True, out: np.ndarray | None = None) -> np.ndarray:
        """The observation as planes (C, H, W) (`planes_shape`), the same numbers as `set_from`'s:
        the board's planes as they are, every other number broadcast over a plane of its own."""
        flat = self.set_from(g, player, drawn)
        out = np.empty(self.planes_shape, np.float32) if out is None else out
        out[:self.planes] = self.dict["board"]
        out[self.planes:] = flat[self.dict["board"].size:, None, None]
        return out

    def set_from(self, g, player: int, drawn: bool = True) -> np.ndarray:
        """Fill `tensor` for `player` (0-based seat); `drawn=False` hides the drawn tile."""
        self.tensor.fill(0)
        d = self.dict
        cx, cy = self.codec.window_centre(g)  # the start tile, or the board's centre in a following window
        v = self.view
        P = self.players
        seat = {name: (i - player) % P for i, name in enumerate(g.names)}
        kind_of = {k: i for i, k in enumerate(self.kinds)}
        fig_of = {f: i for i, f in enumerate(self.codec.figures)}
        board = d["board"]
        done_plane = 1 + 5 * len(self.kinds)
        for f in g.features():
            k = kind_of[f["kind"]]
            for (x, y), place in f["places"]:
                col, row = x - cx + v, y - cy + v
                if 0 <= col <= 2 * v and 0 <= row <= 2 * v:
                    board[0, row, col] = 1
                    board[1 + 5 * k + ZONES.get(place, 4), row, col] = 1
                    if f["complete"]:
                        board[done_plane, row, col] = 1
            for name, fig, (x, y), _ in f["figure_places"]:
                col, row = x - cx + v, y - cy + v
                if 0 <= col <= 2 * v and 0 <= row <= 2 * v:
                    board[done_plane + 1 + seat[name] * len(fig_of) + fig_of[fig], row, col] += 1
        name = self.codec.drawn_tile(g) if drawn else None
        if name is not None:
            d["tile"][self.tile_names.index(name)] = 1
        for name, figs in g.supply_by_name().items():
            for fig, n in figs.items():
                d["supply"][seat[name], fig_of[fig]] = n / max(1, self.codec.supply[fig_of[fig]])
        for p, s in enumerate(g.scores):
            d["scores"][seat[g.names[p]]] = s
        if not g.is_terminal():
            # before the tile is drawn (a chance node) the player whose turn it is: asking
            # current_player() would play the siege symbols of a tile not yet chosen
            d["turn"][((g.current_player() if drawn else g.current) - player) % P] = 1
        d["bag"][0] = g.tiles_left() / max(1, self.codec.tiles)
        if self.prisoners:
            pris = d["prisoners"]
            for holder, owners in g.prisoners_by_name().items():
                for owner, figs in owners.items():
                    for fig, n in figs.items():
                        pris[seat[holder], seat[owner], fig_of[fig]] = n
        if self.tracks:
            outs, cats = d["outposts"], d["catapults"]
            for name, o in g.outposts_by_name().items():
                t = self.tracks.index(name)
                for slot, names in enumerate((o["row"], o["pool"])):
                    for who in names:
                        outs[t, slot, seat[who]] += 1
                cats[t] = (o["catapults"], o["slots"] - len(o["row"]))
        return self.tensor


# where each place name is drawn in a cell's 3 x 3 block (row, column)
_AT = {"N": (0, 1), "Nw": (0, 1), "Ne": (0, 1), "E": (1, 2), "En": (1, 2), "Es": (1, 2),
       "S": (2, 1), "Sw": (2, 1), "Se": (2, 1), "W": (1, 0), "Wn": (1, 0), "Ws": (1, 0),
       "C": (1, 1), "NW": (0, 0), "NE": (0, 2), "SE": (2, 2), "SW": (2, 0)}


def kind_letters(kinds) -> dict[str, str]:
    """A letter per feature kind: the first letter of its name not taken by an earlier kind."""
    out: dict[str, str] = {}
    for k in kinds:
        out[k] = next((ch for ch in k.lower() if ch.isalpha() and ch not in out.values()), "?")
    return out


def board_text(g, centre=(0, 0), view: int | None = None) -> str:
    """The board as text a person reads: each cell a 3 x 3 block (its sides, centre and corners) with
    the letter of the feature kind lying there (upper case once the feature is complete), a
    figure as its owner's seat number (1, 2, ...); `.` for an empty cell; rows north to south.
    Cells beyond `view` (max(|dx|, |dy|) from `centre`) are left out.  A legend line follows."""
    feats = g.features()
    letters = kind_letters(sorted({f["kind"] for f in feats}))
    seat = {name: i + 1 for i, name in enumerate(g.names)}
    cx, cy = centre
    blocks: dict[tuple, list] = {}

    def inside(x, y):
        return view is None or max(abs(x - cx), abs(y - cy)) <= view

    marks = []  # (priority, cell, place, character): a side's halves first, the side itself over them, figures last
    for f in feats:
        ch = letters[f["kind"]].upper() if f["complete"] else letters[f["kind"]]
        marks += [(len(place) == 2 and place[1].islower(), (x, y), place, ch) for (x, y), place in f["places"]]
        marks += [(2, (x, y), place, str(seat.get(name, "?"))) for name, _, (x, y), place in f["figure_places"]]
    for _, (x, y), place, ch in sorted(marks, key=lambda m: {True: 0, False: 1, 2: 2}[m[0]]):
        if inside(x, y):
            r, c = _AT.get(place, (1, 1))
            blocks.setdefault((x, y), [[" "] * 3 for _ in range(3)])[r][c] = ch
    if not blocks:
        return "(empty board)"
    xs = [x for x, _ in blocks]
    ys = [y for _, y in blocks]
    lines = [f"x {min(xs)}..{max(xs)}, y {min(ys)}..{max(ys)} (north up)"]
    for y in range(min(ys), max(ys) + 1):
        for r in range(3):
            row = []
            for x in range(min(xs), max(xs) + 1):
                b = blocks.get((x, y))
                row.append("".join(b[r]) if b else (" . " if r == 1 else "   "))
            lines.append("|".join(row).rstrip())
    lines.append("legend: " + ", ".join(f"{v} {k}" for k, v in letters.items())
                 + "; upper case: complete; digits: figures by seat (1 = " + g.names[0] + ")")
    return "\n".join(lines)

