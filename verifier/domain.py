"""What z3 may assume about every built-in quantity: the one place every z3 check asks.

The invariants, the river theorem and the worked examples all read quantities
(`tiles`, `shields`, `players`, `completed(city)`, …) as z3 variables.  A
variable with no facts ranges over every integer, and z3 then "refutes" claims
with values no game can reach (a completed city of one tile, -3 completed
cities).  `Domain` gives each quantity its facts, and says where each comes from:

- the quantity's range in `tessera.dsl.builtins` (`tiles >= 1`, `0 <= neighbours <= 8`, …);
- the rule set: `players` lies in its `players LOW..HIGH` range (2..6 without
  one), `current` is a seat of the game (`0 <= current < players`);
- the tile set, per feature kind (`KindFacts`, derived from the tiles the rule
  set declares, never from constants): the fewest tiles a feature of that kind
  with no open edge can cover, the most shields one tile adds to it (0: the kind
  never has shields), and the most neighbours a tile can have (8, fewer if the
  tile set is smaller);
- the rule set's figures and outposts (`Domain.capturable`, `Domain.full_row`): a
  figure no `capture` names is never a prisoner (the Tower's floors); a row that has
  just filled holds the figures that filled it;
- the game's course (`Domain.completed_start`, `Domain.completed_step`): `completed(K)`
  starts at 0 and grows by 1 for each K that completes, counted before the feature's
  scoring and its `on complete` rules;
- the examples' inputs (`Domain.pinned`): a quantity the tile set fixes (the shields
  of a kind no tile prints a shield on) need not be given by an example.

`docs/verifier.md` lists these facts.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import z3

from ..dsl.builtins import FUNCTIONS, QUANTITIES
from ..dsl.model import DEFAULT_PLAYERS, RuleSet
from ..dsl.places import CORNERS

from .solver import Fact
from .source import line_text, where


@dataclass(frozen=True)
class KindFacts:
    """What the tile set says about features of one kind."""

    kind: str
    min_closed_tiles: int  # fewest tiles of a feature of this kind with no open edge
    closed_why: str
    max_shields: int  # most shields one tile adds to a feature of this kind
    shields_at: str  # where that tile is declared ("tile set" when no tile has shields)


def _edge_places(places) -> bool:
    return any(p != "C" and p not in CORNERS for p in places)


class Domain:
    """The domain facts of one rule set's quantities."""

    def __init__(self, rs: RuleSet | None):
        self.rs = rs

    # ---------------------------------------------------------------- rule set
    def players_range(self) -> tuple[int, int, str, str]:
        """(low, high, where, text) of the number of players: the rule set's one range (RuleSet.player_range)."""
        rs = self.rs
        if rs is not None and rs.players is not None:
            return rs.players.low, rs.players.high, where(rs.players.span), line_text(rs.players.span)
        low, high = rs.player_range() if rs is not None else DEFAULT_PLAYERS
        return low, high, "builtin", f"players {low}..{high} (no `players` range in these rules)"

    def players(self, n: z3.ArithRef) -> list[Fact]:
        low, high, w, text = self.players_range()
        return [Fact(z3.And(n >= low, n <= high), w, text)]

    @staticmethod
    def current(c: z3.ArithRef, n: z3.ArithRef) -> list[Fact]:
        return [Fact(z3.And(c >= 0, c < n), "builtin", "current is a seat of the game (0 <= current < players)")]

    # ---------------------------------------------------------------- tile set
    @cached_property
    def kinds(self) -> dict[str, KindFacts]:
        out: dict[str, KindFacts] = {}
        rs = self.rs
        if rs is None:
            return out
        matching = "matching" in rs.placement  # without it an edge may face a tile that does not continue it
        for kind in rs.features:
            closed, why = 2, (f"every {kind} of the tile set reaches a tile edge, and a placed tile continues "
                              f"it there (placement matching), so one with no open edge spans 2 tiles or more")
            if not matching:
                closed, why = 1, "no `placement matching`: an edge may face a tile that does not continue it"
            best, at = 0, "tile set"
            for tt in rs.tiles:
                if tt.count <= 0:
                    continue
                feats = [f for f in tt.features if f.kind == kind]
                if matching and any(not _edge_places(f.places) for f in feats):
                    closed, why = 1, f"a {kind} of tile {tt.name} reaches no tile edge"
                total = sum(f.shields for f in feats)
                if total > best:
                    best, at = total, where(next(f for f in feats if f.shields).decl.span)
            out[kind] = KindFacts(kind, closed, why, best, at)
        return out

    @cached_property
    def most_neighbours(self) -> tuple[int, str]:
        if self.rs is None:
            return 8, "the 8 cells around a tile"
        n = sum(max(tt.count, 0) for tt in self.rs.tiles)
        if n - 1 >= 8:
            return 8, "the 8 cells around a tile"
        return max(n - 1, 0), f"the tile set has {n} tiles, so a tile has at most {max(n - 1, 0)} neighbours"

    def fewest_neighbours(self, kind: str | None) -> tuple[int, str]:
        """(1, why) when every feature of `kind` lies on a tile laid during the game beside another
        (`placement adjacent`, BASE-PLACE-1; the kind is a centre feature, on one tile, and no tile
        of the start carries it): neighbours >= 1 there.  (0, "") otherwise."""
        rs = self.rs
        if rs is None or kind is None or "adjacent" not in rs.placement:
            return 0, ""
        feats = [(tt, f) for tt in rs.tiles if tt.count > 0 for f in tt.features if f.kind == kind]
        if not feats or any(tuple(f.places) != ("C",) for _, f in feats):
            return 0, ""
        start = {p.tile for p in rs.start.places()} if rs.start is not None else set()
        if any(tt.name in start for tt, _ in feats) or any(
                f.kind == kind for tt in rs.tiles if tt.name in start for f in tt.features):
            # a start tile carries one: it has a neighbour too once any tile is laid, and every rule that
            # reads `neighbours` runs after a tile is laid (a completion, a figure put on the tile just laid
            # and its scorings; the end scores only a feature with a figure on it, put after a tile).  With
            # one start tile the first tile laid touches it; in a landscape of several, a start tile with
            # another start cell around it has that neighbour from the start.
            if not self._start_has_neighbour(kind):
                return 0, ""
            return 1, (f"a {kind} lies on a tile laid beside another (placement adjacent), or on a start tile, "
                       f"which has a neighbour once any tile is laid: neighbours >= 1")
        return 1, (f"a {kind} lies on a tile laid beside another (placement adjacent), "
                   f"and no start tile has one: neighbours >= 1")

    def _start_has_neighbour(self, kind: str) -> bool:
        """Every start tile carrying `kind` has a neighbour whenever a rule reads it (fewest_neighbours)."""
        rs = self.rs
        places = rs.start.places()
        if len(places) == 1:
            return True
        by_name = {t.name: t for t in rs.tiles}
        covered: list[tuple[int, int, str]] = []
        for p in places:
            t = by_name.get(p.tile)
            w, h = (t.cells if t is not None and t.cells is not None else (1, 1))
            covered += [(p.x + i, p.y + j, p.tile) for i in range(w) for j in range(h)]
        for i, p in enumerate(places):
            t = by_name.get(p.tile)
            if t is None or not any(f.kind == kind for f in t.features):
                continue
            mine = {(p.x, p.y)}
            if not any((x, y) not in mine and max(abs(x - p.x), abs(y - p.y)) == 1 for x, y, _ in covered):
                return False
        return True

    # ------------------------------------------------------------- quantities
    def quantity(self, name: str, v: z3.ArithRef, kind: str | None, get) -> list[Fact]:
        """The facts of quantity `name` (variable v) of a feature of `kind`; `get(other)` gives
        the variable of another quantity of the same feature (for facts that relate two)."""
        q = QUANTITIES.get(name)
        if q is None:
            return []
        facts: list[Fact] = []
        low, high, text = q.low, q.high, f"{name} in {q.low}..{'' if q.high is None else q.high} ({q.doc})"
        if name == "neighbours":
            high, why = self.most_neighbours
            low, lwhy = self.fewest_neighbours(kind)
            text = f"{low} <= neighbours <= {high} ({why}" + (f"; {lwhy})" if low else ")")
        if name in ("players", "current"):
            return []  # facts of the game (see `players`, `current`)
        conds = [v >= low] + ([v <= high] if high is not None else [])
        facts.append(Fact(z3.And(conds), "builtin", text))
        kf = self.kinds.get(kind or "")
        if kf is None:
            return facts
        if name == "shields":
            m = kf.max_shields
            text = (f"a {kind} has at most {m} shield{'s' if m != 1 else ''} per tile (the tile set)" if m
                    else f"no tile of the tile set prints a shield on a {kind}: shields == 0")
            facts.append(Fact(v <= m * get("tiles"), kf.shields_at, text))
        if name == "tiles" and kf.min_closed_tiles > 1:
            facts.append(Fact(z3.Implies(get("open") == 0, v >= kf.min_closed_tiles), "tile set",
                              f"a {kind} with no open edge covers at least {kf.min_closed_tiles} tiles ({kf.closed_why})"))
        return facts

    # ------------------------------------------------- figures, outposts, the game
    def capturable(self, fig: str) -> tuple[bool, str]:
        """Can figure `fig` be held as a prisoner?  Only a figure some `capture` names can."""
        rs = self.rs
        if rs is None:
            return True, "no rule set"
        for cap in rs.captures.values():
            if fig in cap.figures:
                return True, where(cap.span)
        named = sorted({f for cap in rs.captures.values() for f in cap.figures})
        return False, (f"no `capture` names {fig}s (only {', '.join(named) or 'nothing'}): "
                       f"a {fig} is never held as a prisoner")

    def full_row(self, tracks, held: z3.ArithRef, row_size) -> list[Fact]:
        """`on full of TRACKS`: the outpost's row has just filled, so the figures on that outpost
        (`held`, all seats) are at least as many as its row has slots (SIEGE-COUNTER-1).  `row_size(track)`:
        the z3 term of a track's row size (the encoder's: a row may be an expression of a parameter)."""
        rs = self.rs
        if rs is None:
            return []
        sizes = [row_size(rs.tracks[t]) for t in tracks if t in rs.tracks]
        if not sizes:
            return []
        first = rs.tracks[next(t for t in tracks if t in rs.tracks)]
        return [Fact(z3.Or([held >= n for n in sizes]), where(first.span),
                     f"a full row holds the figures that filled it: the outpost holds at least its row's "
                     f"slots ({line_text(first.span)})")]

    @staticmethod
    def completed_start(v: z3.ArithRef, kind: str) -> Fact:
        """The engine counts a feature when a placed tile completes it: 0 at the start."""
        return Fact(v == 0, "engine", f"completed({kind}) is 0 at the start (the engine counts a {kind} "
                                      f"when a placed tile completes it)")

    @staticmethod
    def completed_step(before: z3.ArithRef, after: z3.ArithRef, kind: str, completes: bool) -> Fact:
        """completed(K) after a step: one more when a K completes, else the same."""
        if completes:
            return Fact(after == before + 1, "engine", f"completed({kind}) counts the {kind} that completes, "
                                                       f"before its scoring and its `on complete` rules")
        return Fact(after == before, "engine", f"completed({kind}) changes only when a {kind} completes")

    def pinned(self, name: str, kind: str | None) -> int | None:
        """The one value the tile set allows quantity `name` on a feature of `kind`, if it fixes it
        (a kind no tile prints a shield on: shields == 0); None if it does not."""
        kf = self.kinds.get(kind or "")
        if kf is not None and name == "shields" and kf.max_shields == 0:
            return 0
        return None

    @staticmethod
    def function(fn: str, key: str, v: z3.ArithRef) -> list[Fact]:
        f = FUNCTIONS.get(fn)
        if f is None:
            return []
        conds = [v >= f.low] + ([v <= f.high] if f.high is not None else [])
        return [Fact(z3.And(conds), "builtin", f"{key} in {f.low}..{'' if f.high is None else f.high} ({f.doc})")]
