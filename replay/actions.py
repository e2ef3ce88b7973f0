"""Actions of a compiled engine as readable turns and as stable integers (docs/engine.md).

A legal action of `Game.legal_actions()` is read as a *turn*, the same object a
`tessera-game/1` record holds (`{"tile", "at", "rotation", "place"|"recall"}` or
`{"tile", "discard": true}`), and numbered by `ActionCodec`:

    id = ((cell * 4 + rotation // 90) * SLOTS + slot)     the discard is the last id

- `cell` numbers the cells within `radius` steps (|dx| + |dy|) of the start
  tile, row by row (dy, then dx, ascending).  The default radius is the number of
  tiles that can still be placed (plus, with a start landscape of several cells,
  how far it reaches), so every legal move of every game has a number.
- `slot` 0 is "no figure"; `1 + figure * 17 + PLACES.index(on)` puts figure
  number `figure` (the rule set's figure order) on the feature that lies on place
  `on` (the record's place name); after those, `1 + figures * 17 + k` recalls the
  k-th own recallable figure (figures in order, each as many slots as its supply,
  own figures of one kind ordered by cell).

- With figures that go on any placed tile (`anywhere`: the Tower's floors and
  the follower on top), after the recalls come `ANY = figures_anywhere *
  TILES_ANY * FEATS_ANY` slots: `any_base + (a * TILES_ANY + k) * FEATS_ANY + j`
  puts the a-th such figure on the j-th feature of an `anywhere` kind of the
  k-th tile placed that has one (the start tile included; TILES_ANY is how many
  tile copies have one, FEATS_ANY the most one tile has).

After the placements (`cells * 4 * SLOTS` ids) and before the discard come, only
in rule sets that have them (so other numberings are unchanged):

- the pass (no capture), one id;
- the captures: `((((o * F + fi) * P + owner) * N + figure) * (N + 1) + back)`,
  `o` the captured figure's tile as an offset from the tower (0: the tower's
  own tile, then distance d = 1 .. 2 * radius in the four directions N, E, S, W:
  `1 + (d - 1) * 4 + direction`), `fi` its local feature on that tile (F: the
  most features a tile has), `owner` its seat (P: the most players), `figure` its
  number (N figures), `back` 0 or 1 + the figure that comes back in an exchange;
- the ransoms: `holder * N + figure`;
- the outposts' extra figure, catapults and removals, then any other kind of move, each in the
  order of runtime/moves.py's `ORDER` and only where the rule set has it (`moves.in_rules`); a
  kind that declares `DOMAINS` is numbered by its fields in mixed radix, the first most
  significant (a ransom: `holder * N + figure`), and described by its field names.

The numbering depends on the rule set only (its figures, supplies and tile
count), never on the state; a number means the same move in every state where
it is legal.  A symmetric tile's rotations that lay the same features on the same
places are one move, listed (and legal as a number) at the first of them only: the
numbers of the others are never in `legal` (docs/engine.md, section 2).  Standard
library only, like the engine.
"""
from __future__ import annotations

import math
import operator
import sys

from .turns import move_record

# Every place name of ../shared/spec/conventions.md, in a fixed order.
PLACES = ("N", "Nw", "Ne", "E", "En", "Es", "S", "Sw", "Se", "W", "Wn", "Ws", "NW", "NE", "SE", "SW", "C")


def _ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


# the kinds of move this codec numbers (and describes) by methods of its own; every other kind after
# the placements is numbered by its fields (its type's DOMAINS) and described by them
_OWN_NUMBERING = frozenset(("pass", "capture", "ransom", "outpost", "catapult", "remove", "discard"))


def _runtime_moves(g):
    """runtime/moves.py of game g's own runtime (a compiled package has its copy)."""
    mod = type(g).__module__  # <package>.runtime.game
    return sys.modules[mod.rsplit(".", 1)[0] + ".moves"]


class OutsideWindow(ValueError):
    """A move onto a cell beyond the codec's radius: it has no number (`legal` masks it out)."""


class WindowExceeded(ValueError):
    """A following window (`ActionCodec(..., follow=True)`) that the board outgrew: a legal move lies
    outside it, so the game within the window is no longer the game of the rules.  `legal` raises
    it rather than leave the move out or end the game; `.reason` says which move and how far."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


def default_radius(tiles: int) -> int:
    """The following window's default radius for a rule set of `tiles` tiles to place:
    ceil(1.5 * sqrt(tiles)), 13 for the base game's 71 (docs/engine.md, section 6, "The window",
    gives the boards random games reach: a margin over the widest of 200 per rule set)."""
    return max(1, math.ceil(1.5 * math.sqrt(tiles)))


def window_centre(g) -> tuple[int, int]:
    """The centre of the placed tiles' bounding box (the start tile or landscape included),
    rounded down: the centre of a following window."""
    xs = [c[0] for c in g.board.tiles]
    ys = [c[1] for c in g.board.tiles]
    if not xs:
        return (0, 0)
    return ((min(xs) + max(xs)) // 2, (min(ys) + max(ys)) // 2)


def legal_actions(g) -> list:
    """`g.legal_actions()`; a tile that cannot be placed under rules without a discard
    rule ends the game (final scoring), as `tessera simulate` does."""
    acts = g.legal_actions()
    if not acts and not g.is_terminal():
        g.finish()
    return acts


class ActionCodec:
    """The integer numbering of one rule set's actions (see the module docstring)."""

    def __init__(self, engine, radius: int | None = None, follow: bool = False):
        R = engine.rules
        lo, _ = engine.rules.PLAYERS
        g = engine.new_game(lo, 0)
        self.rules = engine.rules
        supply = g.supply_by_name()[g.names[0]]
        self.figures = list(supply)  # figure names in the rule set's order
        self.supply = [supply[f] for f in self.figures]
        self.tiles = g.tiles_left()  # tiles still to place once the start tile lies
        cells = [c for f in g.features() for c in f["cells"]]
        self.centre = min(cells) if cells else (0, 0)
        # a start landscape of several cells (SIEGE-SETUP-1) reaches that far before the first tile
        reach = max((abs(x - self.centre[0]) + abs(y - self.centre[1]) for x, y in g.board.tiles), default=0)
        # a following window (docs/engine.md, section 6, "The window"): a square of side 2 * radius + 1
        # centred on the placed tiles' bounding box, recentred as the board grows; its cells are offsets
        # (dx, dy) from that centre, so a number names a move relative to the board, not the start tile
        self.follow = bool(follow)
        given = radius
        if radius is None:
            radius = default_radius(self.tiles) if self.follow else self.tiles + reach
        self.full = self.tiles + reach  # no game of these rules leaves a window this wide
        try:
            radius = None if isinstance(radius, bool) else operator.index(radius)
        except TypeError:
            radius = None
        if radius is None or not 1 <= radius <= self.full:
            raise ValueError(f"radius {given!r}: a whole number from 1 to {self.full} (a wider window "
                             f"holds no more of these rules' games)")
        self.radius = radius
        r = self.radius
        if self.follow:
            self.centre = (0, 0)
            self.cells = [(dx, dy) for dy in range(-r, r + 1) for dx in range(-r, r + 1)]
        else:
            cx, cy = self.centre
            self.cells = [(cx + dx, cy + dy) for dy in range(-r, r + 1)
                          for dx in range(-(r - abs(dy)), r - abs(dy) + 1)]
        self._wc = (None, -1, (0, 0))  # (game, board size, centre) of the last window_centre asked
        self.cell_index = {c: i for i, c in enumerate(self.cells)}
        self.recall_base = [0] * len(self.supply)
        for i in range(1, len(self.supply)):
            self.recall_base[i] = self.recall_base[i - 1] + self.supply[i - 1]
        nf = len(self.figures)
        # figures on any placed tile (the Tower): which tiles and features can hold them
        any_kinds = R.ANYWHERE_KINDS if R.FIG_ANYWHERE else frozenset()
        self.any_figs = list(R.FIG_ANYWHERE) if any_kinds else []
        self.any_tiles = sum(t.copies for t in R.TILES if any(f.kind in any_kinds for f in t.feats))
        self.any_feats = max((sum(1 for f in t.feats if f.kind in any_kinds) for t in R.TILES), default=0)
        self.any_base = 1 + nf * len(PLACES) + sum(self.supply)
        self.slots = self.any_base + len(self.any_figs) * self.any_tiles * self.any_feats
        self.placements = len(self.cells) * 4 * self.slots
        # captures, the pass and ransoms (the Tower): blocks of their own after the placements
        self.reach = 2 * self.radius if R.CAPTURES else 0  # two cells within the radius are at most this far apart
        self.feats = max(len(t.feats) for t in R.TILES) if R.CAPTURES else 0
        self.seats = R.PLAYERS[1]
        tracks = getattr(R, "TRACKS", ())
        self.tracks = [t[0] for t in tracks]
        self.ransom = R.RANSOM is not None
        nt = len(self.tracks)
        self.most = max(self.supply, default=0)
        # the blocks after the placements, one per move type in runtime/moves.py's ORDER (the discard
        # last), each only in rule sets that have that move (moves.in_rules), so other numberings are
        # unchanged: a type that declares DOMAINS is numbered by its fields in mixed radix
        # (_fields_number); the captures and removals have numberings of their own
        M = _runtime_moves(g)
        self.domain = {"seat": self.seats, "figure": nf, "track": nt}
        self.blocks = []  # (kind, base, size, type), in number order
        self.base = {}
        n = self.placements
        for T in M.ORDER[1:]:
            self.base[T.KIND] = n  # where its block starts (or would, in rules that have it)
            if not M.in_rules(T, R):
                continue
            if T.KIND == "capture":
                size = (1 + 4 * self.reach) * self.feats * self.seats * nf * (nf + 1)
            elif T.KIND == "remove":  # an attack's removal: (outpost, figure, the remover's k-th such figure by cell)
                size = nt * nf * self.most
            elif T.DOMAINS is None:
                raise ValueError(f"move {T.KIND!r} declares no DOMAINS: the action codec cannot number it")
            else:
                size = 1
                for d in T.DOMAINS:
                    size *= self._domain_size(d)
            self.blocks.append((T.KIND, n, size, T))
            n += size
        had = {k for k, _, _, _ in self.blocks}
        self.pass_id = self.base["pass"] if "pass" in had else None  # no capture, no extra figure, no ransom after scoring
        self.capture_base = self.base["capture"]
        self.ransom_base = self.base["ransom"]
        self.outpost_base = self.base["outpost"]
        self.catapult_base = self.base["catapult"]
        self.remove_base = self.base["remove"]
        self.discard = self.base["discard"]
        self._generic = {k: T for k, _, _, T in self.blocks if k not in _OWN_NUMBERING}  # kinds numbered by fields only
        self.size = self.discard + 1  # ids are 0 .. size-1
        # the most moves a game can take: a tile each, a capture (or pass) after each, a ransom per prisoner
        # and the pass that ends a turn where one could be paid after its scoring;
        # with outposts an extra figure (or pass), two catapults and a removal by every seat twice
        self.max_moves = self.tiles * (1 + bool(R.CAPTURES) + 2 * (R.RANSOM is not None)
                                       + ((3 + 2 * self.seats) if nt else 0))
        # moves masked out because their cell lies beyond the radius, and games ended because every
        # placement of the drawn tile did (both counted since the codec was made; docs/engine.md, section 6)
        self.masked = 0
        self.ended_by_window = 0
        self._place_slot: dict[tuple, int] = {}  # (tile, rotation, feature) -> place index
        self._any_order = (None, 0, {})  # (game, board size, {cell: k}) of the last numbering

    # ------------------------------------------------------------ turns
    def drawn_tile(self, g) -> str | None:
        """The name of the drawn tile (None when the game is over)."""
        return None if g.is_terminal() else g.tile_name()

    def turn(self, g, action) -> dict:
        """The action as a record turn: {"tile", "at", "rotation", "place"/"recall"} or {"tile", "discard"};
        a capture or a ransom as the key it adds to a turn ({"capture": ...}, {"ransom": [...]}:
        docs/records.md says which turn holds it); a pass adds nothing ({}).  replay/turns.py
        writes it: this is `turns.move_record`."""
        return move_record(g, action)

    def encode_turn(self, g, t: dict) -> int:
        if t.get("discard"):
            return self.discard
        ci = self.cell_number(g, tuple(t["at"]))
        slot = 0
        if "place" in t:
            where = t["place"]["corner"] if "corner" in t["place"] else t["place"]["on"]
            slot = 1 + self.figures.index(t["place"]["figure"]) * len(PLACES) + PLACES.index(where)
        elif "recall" in t:
            fi = self.figures.index(t["recall"]["figure"])
            mine = sorted(tuple(rc) for rc in self._recallable(g, fi))
            slot = 1 + len(self.figures) * len(PLACES) + self.recall_base[fi] + mine.index(tuple(t["recall"]["at"]))
        return (ci * 4 + t["rotation"] // 90) * self.slots + slot

    def window_centre(self, g) -> tuple[int, int]:
        """The cell the window is centred on in game g: the start tile's cell for a fixed window, the
        centre of the placed tiles' bounding box for a following one (`window_centre`)."""
        if not self.follow:
            return self.centre
        last, n, c = self._wc
        if last is not g or n != len(g.board.tiles):
            c = window_centre(g)
            self._wc = (g, len(g.board.tiles), c)
        return c

    def cell_number(self, g, cell) -> int:
        """The index of a board cell among the window's cells in game g; OutsideWindow if it lies beyond."""
        key = cell
        if self.follow:
            cx, cy = self.window_centre(g)
            key = (cell[0] - cx, cell[1] - cy)
        ci = self.cell_index.get(key)
        if ci is None:
            if self.follow:
                raise OutsideWindow(f"cell {list(cell)} lies outside the window: {max(map(abs, key))} cells from "
                                    f"its centre {list(self.window_centre(g))}, radius {self.radius}")
            raise OutsideWindow(f"cell {list(cell)} lies outside radius {self.radius} of the start tile")
        return ci

    def _recallable(self, g, fi: int) -> list:
        """Cells of the current player's recallable figures of figure number fi."""
        return [list(a.cell) for a in g.recall_options() if a.figure == fi]

    def _any_tiles(self, g) -> dict:
        """{cell: k}: the placed tiles with a feature of an `anywhere` kind, in the order they were placed."""
        last_g, n, order = self._any_order
        if last_g is g and n == len(g.board.tiles):
            return order
        kinds = g.R.ANYWHERE_KINDS
        order = {}
        for cell, (o, _) in g.board.tiles.items():  # a dict keeps the order tiles were placed in
            if any(k in kinds for k in o.kinds):
                order[cell] = len(order)
        self._any_order = (g, len(g.board.tiles), order)
        return order

    def _anywhere_slot(self, g, gi, seg) -> int:
        r = g.board.find(seg)
        cell = g.board.seg_cell[r]
        o, base = g.board.tiles[cell]
        kinds = g.R.ANYWHERE_KINDS
        j = [i for i, k in enumerate(o.kinds) if k in kinds].index(r - base)
        k = self._any_tiles(g)[cell]
        return self.any_base + (self.any_figs.index(gi) * self.any_tiles + k) * self.any_feats + j

    def _capture_id(self, g, action) -> int:
        q, gi, seg, back = action.owner, action.figure, action.segment, action.back
        tx, ty = g.prisoners.pending.tower
        x, y = g.board.seg_cell[seg]
        dx, dy = x - tx, y - ty
        d = abs(dx) + abs(dy)
        o = 0 if d == 0 else 1 + (d - 1) * 4 + ((0 if dy < 0 else 2) if dx == 0 else (1 if dx > 0 else 3))
        fi = seg - g.board.tiles[(x, y)][1]
        nf = len(self.figures)
        return self.capture_base + ((((o * self.feats + fi) * self.seats + q) * nf + gi) * (nf + 1)
                                    + (0 if back is None else 1 + back))

    def encode(self, g, action) -> int:
        """The number of a legal action of `g` (its current tile and player)."""
        kind = action.KIND
        if kind == "place":
            return self._encode_place(g, action)
        T = self._generic.get(kind)
        if T is not None:
            return self.base[kind] + self._fields_number(T, action)
        if kind == "discard":
            return self.discard
        if kind == "pass":
            return self.pass_id
        if kind == "capture":
            return self._capture_id(g, action)
        if kind == "ransom":
            return self.ransom_base + action.holder * len(self.figures) + action.figure
        if kind == "outpost":
            return self.outpost_base + 2 * action.track + (action.slot == "pool")
        if kind == "catapult":
            return self.catapult_base + action.track
        if kind == "remove":  # the remover's k-th figure of that kind (by cell) that the attack may take
            t, gi = action.track, action.figure
            d = g.outposts.decision
            mine = [a for a in g.removal_options(d.player, t, d.figures) if a.figure == gi]
            return self.remove_base + (t * len(self.figures) + gi) * self.most + mine.index(action)
        raise ValueError(f"no number for a {kind!r} move in these rules")

    def _domain_size(self, d) -> int:
        return len(d) if isinstance(d, tuple) else self.domain[d]

    def _fields_number(self, T, action) -> int:
        """A move's number within its block: its fields in mixed radix, the first most significant."""
        n = 0
        for d, v in zip(T.DOMAINS, action[1:]):
            n = n * self._domain_size(d) + (d.index(v) if isinstance(d, tuple) else v)
        return n

    def _encode_place(self, g, action) -> int:
        cell, rot, fig = action
        fk = None if fig is None else fig.KIND
        if fk == "recall":
            return self.encode_turn(g, self.turn(g, action))
        if fk == "at":  # a figure on another placed tile (`anywhere`)
            ci = self.cell_number(g, cell)
            return (ci * 4 + rot // 90) * self.slots + self._anywhere_slot(g, fig.figure, fig.segment)
        n = (self.cell_number(g, cell) * 4 + rot // 90) * self.slots
        if fig is None:
            return n
        if fk == "corner":  # a figure `at corner` (the barn): its slot is the corner's place
            return n + 1 + fig.figure * len(PLACES) + PLACES.index(fig.corner)
        # figure (number gi) on feature fi of the drawn tile: the slot of the place the turn names
        key = (g.bag.drawn, rot, fig.feature)
        place = self._place_slot.get(key)
        if place is None:
            place = self._place_slot[key] = PLACES.index(self.turn(g, action)["place"]["on"])
        return n + 1 + fig.figure * len(PLACES) + place

    def legal(self, g) -> dict:
        """{number: action} for every legal action of `g` that has a number, in ascending order of
        number.  A move onto a cell beyond the radius has none: it is left out (counted in
        `masked`); when that leaves no move at all, the tile cannot be placed within the window
        and the game ends there with final scoring, as when it cannot be placed at all
        (counted in `ended_by_window`).

        A following window (`follow=True`) leaves nothing out and ends nothing: a legal move beyond it
        raises WindowExceeded (the board outgrew the window, the game is no longer the game of the
        rules); an adapter ends the episode as truncated, with the reason, or refuses to go on."""
        encode = self.encode
        out = []
        masked = 0
        acts = legal_actions(g)
        for a in acts:
            try:
                out.append((encode(g, a), a))
            except OutsideWindow as e:
                if self.follow:
                    raise WindowExceeded(f"the board outgrew the window (radius {self.radius}): the rules offer "
                                         f"{self.turn(g, a)}, but {e}; play with a larger radius") from None
                masked += 1
        if masked:
            self.masked += masked
            if not out and not g.is_terminal():
                g.finish()
                self.ended_by_window += 1
        return dict(sorted(out))

    def decode(self, g, number: int):
        """The legal action of `g` with this number; ValueError if none is legal."""
        acts = self.legal(g)
        if number not in acts:
            raise ValueError(f"action {number} is not legal now ({self.describe(number)})")
        return acts[number]

    def describe(self, number: int) -> str:
        """What a number means in any state, e.g. `[1,-2] rotation 90, follower on Nw`."""
        number = int(number)
        if not 0 <= number < self.size:
            return f"no action {number} (ids are 0..{self.size - 1})"
        if number == self.discard:
            return "discard"
        for kind, base, size, T in self.blocks:
            if kind in self._generic and base <= number < base + size:
                vals = []
                rest = number - base
                for d in reversed(T.DOMAINS):
                    rest, v = divmod(rest, self._domain_size(d))
                    vals.append(d[v] if isinstance(d, tuple) else
                                {"seat": v, "figure": self.figures[v] if v < len(self.figures) else v,
                                 "track": self.tracks[v] if v < len(self.tracks) else v}[d])
                fields = T._fields[1:]
                return " ".join([kind] + [f"{f} {v}" for f, v in zip(fields, reversed(vals))])
        nf = len(self.figures)
        if number == self.pass_id:
            if self.ransom:  # a pass also ends a turn where a ransom could follow its scoring (TOWER-RANSOM-1)
                return "pass (capture nothing, or pay no ransom and end the turn)" if not self.tracks else \
                    "pass (no capture, no figure on an outpost, or pay no ransom and end the turn)"
            return "capture nothing" if not self.tracks else "pass (no capture, no figure on an outpost)"
        if number >= self.remove_base:
            rest, k = divmod(number - self.remove_base, self.most)
            t, f = divmod(rest, nf)
            return f"remove own {self.figures[f]} #{k + 1} from the board (an attack on {self.tracks[t]})"
        if number >= self.catapult_base:
            return f"the \"?\" catapult goes on {self.tracks[number - self.catapult_base]}"
        if number >= self.outpost_base:
            t, pool = divmod(number - self.outpost_base, 2)
            return f"a follower on the {self.tracks[t]} outpost's {'pool' if pool else 'row'}"
        if number >= self.ransom_base:
            holder, f = divmod(number - self.ransom_base, nf)
            return f"ransom own {self.figures[f]} from seat {holder}"
        if number >= self.capture_base:
            rest, back = divmod(number - self.capture_base, nf + 1)
            rest, f = divmod(rest, nf)
            rest, owner = divmod(rest, self.seats)
            o, fi = divmod(rest, self.feats)
            where = "on the tower's tile" if o == 0 else \
                f"{(o - 1) // 4 + 1} {'tile' if o <= 4 else 'tiles'} {'NESW'[(o - 1) % 4]} of the tower"
            return (f"capture seat {owner}'s {self.figures[f]} on feature {fi} {where}"
                    + (f", {self.figures[back - 1]} back in exchange" if back else ""))
        rest, slot = divmod(number, self.slots)
        ci, rq = divmod(rest, 4)
        x, y = self.cells[ci]
        head = (f"[{x:+d},{y:+d}] from the window's centre" if self.follow else f"[{x},{y}]") + f" rotation {rq * 90}"
        if slot == 0:
            return head
        slot -= 1
        if slot < len(self.figures) * len(PLACES):
            f, p = divmod(slot, len(PLACES))
            return f"{head}, {self.figures[f]} on {PLACES[p]}"
        if slot + 1 >= self.any_base:
            rest, j = divmod(slot + 1 - self.any_base, self.any_feats)
            a, k = divmod(rest, self.any_tiles)
            name = self.figures[self.any_figs[a]]
            return f"{head}, {name} on feature {j + 1} of the {_ordinal(k + 1)} placed tile that can hold one anywhere"
        slot -= len(self.figures) * len(PLACES)
        fi = max(i for i, b in enumerate(self.recall_base) if b <= slot)
        return f"{head}, recall own {self.figures[fi]} #{slot - self.recall_base[fi] + 1}"
