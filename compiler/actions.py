"""Actions of a compiled engine as readable turns and as stable integers (docs/engine.md).

A legal action of `Game.legal_actions()` is read as a *turn*, the same object a
`tessera-game/1` record holds (`{"tile", "at", "rotation", "place"|"recall"}` or
`{"tile", "discard": true}`), and numbered by `ActionCodec`:

    id = ((cell * 4 + rotation // 90) * SLOTS + slot)     the discard is the last id

- `cell` numbers the cells within `radius` steps (|dx| + |dy|) of the start
  tile, row by row (dy, then dx, ascending).  The default radius is the number of
  tiles that can still be placed, so every legal move of every game has a number.
- `slot` 0 is "no figure"; `1 + figure * 17 + PLACES.index(on)` puts figure
  number `figure` (the rule set's figure order) on the feature that lies on place
  `on` (the record's place name); after those, `1 + figures * 17 + k` recalls the
  k-th own recallable figure (figures in order, each as many slots as its supply,
  own figures of one kind ordered by cell).

The numbering depends on the rule set only (its figures, supplies and tile
count), never on the state; a number means the same turn in every state where
it is legal.  Standard library only, like the engine.
"""
from __future__ import annotations

from .simulate import record_turn

# Every place name of ../shared/spec/conventions.md, in a fixed order.
PLACES = ("N", "Nw", "Ne", "E", "En", "Es", "S", "Sw", "Se", "W", "Wn", "Ws", "NW", "NE", "SE", "SW", "C")


def legal_actions(g) -> list:
    """`g.legal_actions()`; a tile that cannot be placed under rules without a discard
    rule ends the game (final scoring), as `tessera simulate` does."""
    acts = g.legal_actions()
    if not acts and not g.is_terminal():
        g.finish()
    return acts


class ActionCodec:
    """The integer numbering of one rule set's actions (see the module docstring)."""

    def __init__(self, engine, radius: int | None = None):
        R = engine.rules
        if R.FIG_ANYWHERE or R.CAPTURES or R.RANSOM is not None:
            # floors on other tiles, captures and ransoms have no integer numbering yet: say so
            # rather than number only part of the legal moves
            raise ValueError("these rules have moves the integer action numbering does not cover yet "
                             "(a figure on another tile, a capture or a ransom: the Tower)")
        if getattr(R, "TRACKS", ()):
            # the outposts' decisions (a "?" catapult, an attack's removals by any player, the extra
            # figure on an outpost) have no integer numbering yet either
            raise ValueError("these rules have moves the integer action numbering does not cover yet "
                             "(an outpost's extra figure, a catapult's outpost or an attack's removal: "
                             "Siege and Defense)")
        lo, _ = engine.rules.PLAYERS
        g = engine.new_game(lo, 0)
        self.rules = engine.rules
        supply = g.supply_by_name()[g.names[0]]
        self.figures = list(supply)  # figure names in the rule set's order
        self.supply = [supply[f] for f in self.figures]
        self.tiles = g.tiles_left()  # tiles still to place once the start tile lies
        cells = [c for f in g.features() for c in f["cells"]]
        self.centre = min(cells) if cells else (0, 0)
        self.radius = self.tiles if radius is None else int(radius)
        if self.radius < 1:
            raise ValueError("the radius is at least 1")
        cx, cy = self.centre
        r = self.radius
        self.cells = [(cx + dx, cy + dy) for dy in range(-r, r + 1) for dx in range(-(r - abs(dy)), r - abs(dy) + 1)]
        self.cell_index = {c: i for i, c in enumerate(self.cells)}
        self.recall_base = [0] * len(self.supply)
        for i in range(1, len(self.supply)):
            self.recall_base[i] = self.recall_base[i - 1] + self.supply[i - 1]
        self.slots = 1 + len(self.figures) * len(PLACES) + sum(self.supply)
        self.discard = len(self.cells) * 4 * self.slots
        self.size = self.discard + 1  # ids are 0 .. size-1
        self._place_slot: dict[tuple, int] = {}  # (tile, rotation, feature) -> place index

    # ------------------------------------------------------------ turns
    def drawn_tile(self, g) -> str | None:
        """The name of the drawn tile (None when the game is over)."""
        return None if g.is_terminal() else g.tile_name()

    def turn(self, g, action) -> dict:
        """The action as a record turn: {"tile", "at", "rotation", "place"/"recall"} or {"tile", "discard"}."""
        return record_turn(g, action)

    def encode_turn(self, g, t: dict) -> int:
        if t.get("discard"):
            return self.discard
        cell = tuple(t["at"])
        if cell not in self.cell_index:
            raise ValueError(f"cell {list(cell)} lies outside radius {self.radius} of the start tile")
        slot = 0
        if "place" in t:
            where = t["place"]["corner"] if "corner" in t["place"] else t["place"]["on"]
            slot = 1 + self.figures.index(t["place"]["figure"]) * len(PLACES) + PLACES.index(where)
        elif "recall" in t:
            fi = self.figures.index(t["recall"]["figure"])
            mine = sorted(tuple(rc) for rc in self._recallable(g, fi))
            slot = 1 + len(self.figures) * len(PLACES) + self.recall_base[fi] + mine.index(tuple(t["recall"]["at"]))
        return (self.cell_index[cell] * 4 + t["rotation"] // 90) * self.slots + slot

    def _recallable(self, g, fi: int) -> list:
        """Cells of the current player's recallable figures of figure number fi."""
        return [list(a[2]) for a in g.recall_options() if a[1] == fi]

    def encode(self, g, action) -> int:
        """The number of a legal action of `g` (its current tile and player)."""
        if action[0] == "discard":
            return self.discard
        cell, rot, fig = action
        if fig is not None and fig[0] == "recall":
            return self.encode_turn(g, self.turn(g, action))
        ci = self.cell_index.get(cell)
        if ci is None:
            raise ValueError(f"cell {list(cell)} lies outside radius {self.radius} of the start tile")
        n = (ci * 4 + rot // 90) * self.slots
        if fig is None:
            return n
        if len(fig) > 2:  # a figure `at corner` (the barn): its slot is the corner's place
            return n + 1 + fig[0] * len(PLACES) + PLACES.index(fig[2])
        # figure (number gi) on feature fi of the drawn tile: the slot of the place the turn names
        key = (g.drawn, rot, fig[1])
        place = self._place_slot.get(key)
        if place is None:
            place = self._place_slot[key] = PLACES.index(self.turn(g, action)["place"]["on"])
        return n + 1 + fig[0] * len(PLACES) + place

    def legal(self, g) -> dict:
        """{number: action} for every legal action of `g`, in ascending order of number."""
        encode = self.encode
        return dict(sorted((encode(g, a), a) for a in legal_actions(g)))

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
        rest, slot = divmod(number, self.slots)
        ci, rq = divmod(rest, 4)
        x, y = self.cells[ci]
        head = f"[{x},{y}] rotation {rq * 90}"
        if slot == 0:
            return head
        slot -= 1
        if slot < len(self.figures) * len(PLACES):
            f, p = divmod(slot, len(PLACES))
            return f"{head}, {self.figures[f]} on {PLACES[p]}"
        slot -= len(self.figures) * len(PLACES)
        fi = max(i for i, b in enumerate(self.recall_base) if b <= slot)
        return f"{head}, recall own {self.figures[fi]} #{slot - self.recall_base[fi] + 1}"
