"""Laying the river (`set-river`): a search, not a graph check.

Can the tiles carrying the river be laid as one river from the start tile (its
source) to the deck's `last` tile (the lake), each continuing the open end,
every touching edge matching and, where a rule limits the turns, never turning
twice the same way (RIVER-PLACE-2)?  `RiverLayer` searches for such a laying
(depth first, memoised, with a budget) and, when there is none, reports the
longest laying it found and the tiles that cannot continue it.

The z3 river theorem (`verifier/river.py`) proves what every laying the rule
allows does; this check only asks whether one laying exists.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from ..dsl import ast as A
from ..dsl import multicell
from ..dsl.diagnostics import Diagnostic
from ..dsl.model import RuleSet, TileType
from ..dsl.places import OFFSET, OPPOSITE, SIDES, rotate, unrotate

from .checks import register
from .river_deck import RiverPhase, drawn_decks, river_phase  # noqa: F401  (this module's names before)
from .tile_set import meets


def _continues(rs: RuleSet) -> A.PlacementDecl | None:
    return next((p for p in rs.placement.values() if p.kind == "continues" and p.arg), None)


Cell = tuple[int, int]


@dataclass
class StartRiver:
    """The start as laid (one tile, or a landscape of several: SIEGE-SETUP-1), as the river sees it:
    every cell it covers, the edge each covered cell shows on each side, its one-cell tiles, and
    where the river leaves it: a river side of a laid tile that faces an empty cell."""

    cells: dict[Cell, str]  # covered cell -> the tile covering it
    shows: dict[tuple[Cell, str], str]  # (cell, side) -> the edge it shows (none between two parts of a tile)
    laid: list[tuple[str, Cell, int]]  # the one-cell tiles laid: (name, cell, rotation)
    opens: list[tuple[Cell, str]]  # (cell, side): the river's open ends, in the order the start lists its tiles
    source: tuple[str, Cell, int] | None  # the first laid one-cell tile with a single river side

    @property
    def landscape(self) -> bool:
        return len(self.cells) > 1


def start_river(rs: RuleSet, kind: str) -> StartRiver | None:
    """The start tile or landscape of `rs` and the open ends of its `kind` (a tile covering
    several cells through tessera.dsl.multicell: its numbered sides on the cells they lie on)."""
    if rs.start is None:
        return None
    first: dict[str, TileType] = {}
    for t in rs.tiles:
        first.setdefault(t.name, t)
    cells: dict[Cell, str] = {}
    shows: dict[tuple[Cell, str], str] = {}
    laid: list[tuple[str, Cell, int]] = []
    sides: list[tuple[Cell, str]] = []
    source = None
    for sp in rs.start.places():
        t = first.get(sp.tile)
        if t is None:
            continue
        if t.cells is None:
            at = (sp.x, sp.y)
            cells[at] = t.name
            for side, code in zip(SIDES, t.edges):
                shows[(at, rotate(side, sp.rotation))] = code
            laid.append((t.name, at, sp.rotation))
            own = [rotate(p, sp.rotation) for f in t.features if f.kind == kind for p in f.places if p in SIDES]
            sides += [(at, s) for s in own]
            if len(own) == 1 and source is None:
                source = (t.name, at, sp.rotation)
            continue
        w, h = t.cells
        for i in range(w):
            for j in range(h):
                cells[(sp.x + i, sp.y + j)] = t.name
        for name, cell, local in multicell.perimeter(w, h):
            side, k = name[0], int(name[1:])
            shows[((sp.x + cell[0], sp.y + cell[1]), local)] = t.decl.edges["NESW".index(side)][k - 1]
        for f in t.features:
            if f.kind != kind:
                continue
            for p in f.places:
                loc = multicell.locate(p, w, h)
                if loc is not None and loc[1] in SIDES:
                    sides.append(((sp.x + loc[0][0], sp.y + loc[0][1]), loc[1]))
    opens = [(c, s) for c, s in dict.fromkeys(sides) if (c[0] + OFFSET[s][0], c[1] + OFFSET[s][1]) not in cells]
    return StartRiver(cells, shows, laid, opens, source)


@dataclass
class Laying:
    ok: bool
    laid: list[tuple[str, tuple[int, int], int]]  # the best (longest) laying found
    total: int
    problems: list[str] | None = None


class RiverLayer:
    """Search whether the tiles carrying `kind` can be laid as one river from the start tile
    (its source) to the end (the deck's `last` tile, the lake), each continuing the river's
    open end (`placement continues`), every touching edge matching (`placement matching`)
    and, with `alternate`, never turning twice in the same direction (RIVER-PLACE-2)."""

    def __init__(self, rs: RuleSet, kind: str, alternate: bool, budget: int = 200_000):
        self.rs = rs
        self.kind = kind
        self.alternate = alternate
        self.budget = budget
        self.types: dict[str, TileType] = {}
        counts: Counter = Counter()
        # the river tiles: those drawn while the river is laid (a tile carrying the river drawn only after
        # the lake is a tile that can never be laid, reported apart: RiverPhase)
        self.phase = river_phase(rs, kind)
        st0 = start_river(rs, kind)
        started = {n for n, _, _ in (st0.laid if st0 else [])}  # the source: laid by the start, in no river deck
        for t in rs.tiles:
            # a tile covering several cells lies in the start landscape, never in the river deck
            if t.cells is None and (t.name in self.phase.river or t.name in started) \
                    and any(f.kind == kind and f.places for f in t.features):
                self.types.setdefault(t.name, t)
                counts[t.name] += t.count
        self.counts = counts
        self.start = start_river(rs, kind)
        # the river tiles the start lays (the source): laid already, so not in the deck
        self.in_start: Counter = Counter(n for n, _, _ in (self.start.laid if self.start else []) if n in self.types)
        last = None
        for deck in rs.decks:
            if deck.last and deck.last in self.types:
                last = deck.last
        self.last = last
        self.order = list(self.types)
        for deck in rs.decks:  # try tiles in deck order: the search finds a laying sooner
            for n in deck.tiles:
                if n in self.types:
                    self.order.remove(n)
                    self.order.append(n)

    def river_sides(self, name: str) -> list[tuple[str, ...]]:
        return [tuple(p for p in f.places if p in SIDES) for f in self.types[name].features if f.kind == self.kind]

    def edge_at(self, name: str, rot: int, side: str) -> str:
        return self.types[name].edges[SIDES.index(unrotate(side, rot))]

    def _origin(self) -> str:
        """What the river starts from, in a sentence: the start tile, or the start landscape."""
        st = self.start
        return "the start landscape" if st is not None and st.landscape else (self.rs.start.tile if self.rs.start else "?")

    def precheck(self) -> list[str]:
        rs = self.rs
        start, st = rs.start, self.start
        if start is None or st is None:
            return [f"the {self.kind} has no source: the rule set has no start tile"]
        if not st.landscape and start.tile not in self.types:
            return [f"the {self.kind} has no source: the start tile {start.tile} has no {self.kind}"]
        if st.landscape and not st.opens:
            return [f"the {self.kind} has no open end in the start landscape: no {self.kind} side of its tiles "
                    f"faces an empty cell, so no {self.kind} tile can continue it"]
        opens = len(st.opens)
        origin = self._origin()
        ends, forks = [], []
        for name in self.order:
            sides = sum(len(s) for s in self.river_sides(name))
            copies = self.counts[name] - self.in_start[name]
            if copies <= 0:
                continue
            if sides == 1:
                ends += [name] * copies
            elif sides > 2:
                forks.append(name)
                opens += (sides - 2) * copies
        probs = []
        if forks:
            probs.append(f"the {self.kind} forks on {', '.join(forks)} (more than two {self.kind} sides): one {self.kind} cannot pass through")
        if not ends:
            probs.append(f"the {self.kind} never ends: no {self.kind} tile but the source has a single {self.kind} side (a lake)")
        elif len(ends) > opens and not forks:
            probs.append(f"the {self.kind} has {len(ends)} ends besides its source ({', '.join(ends)}), but one {self.kind} from {origin} ends {'once' if opens == 1 else f'{opens} times'}: it would end before every {self.kind} tile is laid")
        elif len(ends) < opens and not forks:
            probs.append(f"the {self.kind} from {origin} has {opens} open ends but only {len(ends)} tile{'s' if len(ends) != 1 else ''} to end them ({', '.join(ends)})")
        if self.last is not None and sum(len(s) for s in self.river_sides(self.last)) != 1:
            probs.append(f"{self.last} is laid last, but the {self.kind} does not end on it")
        return probs

    def lay(self) -> Laying:
        rs = self.rs
        probs = self.precheck()
        total = sum(self.counts.values())
        if probs:
            return Laying(False, [], total, problems=probs)
        st = self.start
        assert st is not None
        # the start's cells (a landscape's every cell) show their own edges (StartRiver.shows)
        board: dict[tuple[int, int], tuple[str, int]] = {c: ("", 0) for c in st.cells}
        remaining = Counter(self.counts)
        remaining.subtract(self.in_start)
        opens = list(st.opens)
        begun = [(n, c, r) for n, c, r in st.laid if n in self.types]  # the source
        best: list = [list(begun)]
        self.nodes = 0
        memo: set = set()
        laid = list(begun)

        # Curves that alternate never turn the river back, so it never meets its own tiles, nor a
        # start cell behind where it leaves the start: then where it lies does not matter.
        behind = len(st.opens) == 1 and all(
            (c[0] - st.opens[0][0][0]) * OFFSET[st.opens[0][1]][0] + (c[1] - st.opens[0][0][1]) * OFFSET[st.opens[0][1]][1] <= 0
            for c in st.cells)

        def key(opens, last_turn):
            rem = tuple(sorted((n, c) for n, c in remaining.items() if c))
            ends = tuple(sorted(self._open_code(board, c, s) for c, s in opens))
            if self.alternate and len(opens) <= 1 and behind:
                return (rem, ends, last_turn)
            return (rem, ends, last_turn, frozenset(board.items()), tuple(opens))

        def fits(cell, name, rot) -> bool:
            for side in SIDES:
                dx, dy = OFFSET[side]
                nb = board.get((cell[0] + dx, cell[1] + dy))
                if nb is None:
                    continue
                if not meets(rs, self.edge_at(name, rot, side), self._edge(board, (cell[0] + dx, cell[1] + dy), OPPOSITE[side])):
                    return False
            return True

        def search(opens, last_turn) -> bool:
            if not any(remaining.values()):
                return not opens
            if not opens:
                return False
            self.nodes += 1
            if self.nodes > self.budget:
                return False
            k = key(opens, last_turn)
            if k in memo:
                return False
            (cell, side), rest = opens[0], opens[1:]
            dx, dy = OFFSET[side]
            target = (cell[0] + dx, cell[1] + dy)
            if target in board:
                memo.add(k)
                return False
            entry = OPPOSITE[side]
            names = [n for n in self.order if remaining[n] > 0]
            if self.last is not None and sum(remaining.values()) > remaining[self.last]:
                names = [n for n in names if n != self.last]  # the lake comes last
            tried = set()
            for name in names:
                for rot in (0, 90, 180, 270):
                    sides_rot = [tuple(rotate(s, rot) for s in sides) for sides in self.river_sides(name)]
                    through = next((s for s in sides_rot if entry in s), None)
                    if through is None:
                        continue
                    sig = (tuple(self.edge_at(name, rot, s) for s in SIDES), tuple(map(tuple, map(sorted, sides_rot))))
                    if (name, sig) in tried:
                        continue
                    tried.add((name, sig))
                    if not fits(target, name, rot):
                        continue
                    exits = [s for s in through if s != entry]
                    turn = 0
                    if len(exits) == 1:
                        d = (SIDES.index(exits[0]) - SIDES.index(side)) % 4
                        turn = {1: 1, 3: -1}.get(d, 0)
                    if self.alternate and turn != 0 and turn == last_turn:
                        continue
                    new_opens = [(target, s) for s in exits]
                    new_opens += [(target, s) for sides in sides_rot if sides is not through for s in sides]
                    if any((target[0] + OFFSET[s][0], target[1] + OFFSET[s][1]) in board for _, s in new_opens):
                        continue  # the river would run into a laid tile
                    board[target] = (name, rot)
                    remaining[name] -= 1
                    laid.append((name, target, rot))
                    if len(laid) > len(best[0]):
                        best[0] = list(laid)
                    if search(rest + new_opens, turn if turn != 0 else last_turn):
                        return True
                    laid.pop()
                    remaining[name] += 1
                    del board[target]
            memo.add(k)
            return False

        ok = search(opens, 0)
        if ok:
            return Laying(True, list(laid), total)
        return Laying(False, best[0], total, problems=None)

    def _edge(self, board, cell, side) -> str:
        """The edge a laid cell shows on `side`: a start cell's own, else its river tile's."""
        st = self.start
        if st is not None and cell in st.cells:
            return st.shows.get((cell, side), "")
        name, rot = board[cell]
        return self.edge_at(name, rot, side)

    def _open_code(self, board, cell, side) -> str:
        return self._edge(board, cell, side)


def _mentions_turn(e, kind: str) -> bool:
    return any(isinstance(x, A.Call) and x.fn == "turn" and any(isinstance(a, A.Var) and a.name == kind for a in x.args)
               for x in A.walk(e))


def _turn_rule(rs: RuleSet, kind: str) -> bool:
    """Is a rule in force that forbids some turns of the river (RIVER-PLACE-2)?"""
    for on in rs.ons:
        if on.event != "place" or on.of != kind or on.where == A.BoolLit(False):
            continue
        if any(isinstance(act, A.Require) and _mentions_turn(act.test, kind) for act in on.actions):
            return True
    return False


def _river_clauses(rs: RuleSet) -> list[str]:
    p = _continues(rs)
    out = [c.clause for c in p.cites] if p else []
    for d in rs.decks:
        if d.last:
            out.extend(c.clause for c in d.cites)
    if p is not None and _turn_rule(rs, p.arg or ""):
        out.extend(c.clause for on in rs.ons if on.of == p.arg and on.event == "place" for c in on.cites)
    return out


def lay_river(rs: RuleSet, kind: str) -> tuple[RiverLayer, Laying]:
    """Search a laying of the `kind` tiles as one river (`set-river`; `tessera verify --svg` draws it)."""
    # A laying whose curves alternate left and right obeys every reading of RIVER-PLACE-2 and,
    # as it never turns back, never runs into itself: that search is exact and fast.  Only when
    # no rule limits the turns is a laying of any shape searched for (with a budget).
    layer = RiverLayer(rs, kind, alternate=True)
    res = layer.lay()
    if not res.ok and not res.problems and not _turn_rule(rs, kind):
        layer = RiverLayer(rs, kind, alternate=False)
        res = layer.lay()
    return layer, res


# With a start landscape of several tiles (SIEGE-SETUP-1) the river continues from where it
# leaves the landscape (StartRiver.opens), past the landscape's cells.
@register("set-river", _river_clauses, applies=lambda rs: _continues(rs) is not None)
def check_set_river(rs: RuleSet) -> list[Diagnostic]:
    """The river tiles can be laid as one river from the source to the lake."""
    p = _continues(rs)
    assert p is not None and p.arg
    layer, res = lay_river(rs, p.arg)
    if res.ok:
        return _late_tiles(rs, p, layer)
    at = p.span
    if res.problems:
        return [Diagnostic(at, f"the {p.arg} tiles cannot be laid as one {p.arg}: {msg}", "river") for msg in res.problems]
    src = layer._origin()
    end = f" to {layer.last}" if layer.last else ""
    steps = ", ".join(f"{n} at [{c[0]},{c[1]}] rotation {r}" for n, c, r in res.laid)
    left = Counter(layer.counts)
    for n, _, _ in res.laid:
        left[n] -= 1
    rest = ", ".join(n if c == 1 else f"{n} x{c}" for n, c in left.items() if c > 0)
    single = sum(c for c in left.values() if c > 0) == 1
    then = f"{rest} cannot continue it" if single else f"none of {rest} can continue it"
    gave_up = " (the search gave up)" if layer.nodes > layer.budget else ""
    return [Diagnostic(at, f"the {p.arg} tiles cannot be laid as one {p.arg} from {src}{end}{gave_up}: at best {len(res.laid)} of {res.total} tiles are laid ({steps}); then {then}", "river")]


def _late_tiles(rs: RuleSet, p: A.PlacementDecl, layer: RiverLayer) -> list[Diagnostic]:
    """A tile carrying the river in a deck drawn after the river's deck has laid the river to its end
    (RiverPhase.late) can never be laid: `placement continues` needs an open end of the river to
    continue, and the river from the source to the lake has none left.  Every copy is discarded
    (BASE-PLACE-3); an engine game shows it (witness.discard_game)."""
    out = []
    phase = layer.phase
    if phase.end is None:
        return out
    shown: set[str] = set()
    for name, deck, river in phase.late:
        t = next((t for t in rs.tiles if t.name == name), None)
        copies = sum(tt.count for tt in rs.tiles if tt.name == name)  # its variants are types of the same name
        if t is None or name in shown or copies <= 0 or name in layer.in_start:
            continue
        shown.add(name)
        msg = (f"tile {name} can never be laid: it carries the {p.arg}, which `placement continues {p.arg}` lets be laid "
               f"only where it continues the {p.arg} on the board, but it is in deck `{deck.name}`, drawn after deck "
               f"`{river.name}` has laid the {p.arg} from the source to its end ({phase.end}, drawn last), when no end "
               f"of the {p.arg} is open; so every copy ({copies}) is discarded when drawn [BASE-PLACE-3]")
        try:
            from .witness import discard_game

            found = discard_game(rs, name)
        except Exception as exc:  # an engine that cannot be built or fails: the error stands, with no game
            found = None
            msg += f"\n    (no game shows it: the engine failed: {type(exc).__name__}: {exc})"
        if found is not None and found.witness is not None:
            msg += "\n    " + "\n    ".join(found.witness.lines())
        elif found is not None:
            msg += f"\n    (no game shows it: {found.note})"
        out.append(Diagnostic(t.decl.span if getattr(t, "decl", None) is not None else p.span, msg, "fit"))
    return out
