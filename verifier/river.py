"""The river theorem (RIVER-PLACE-2): the river never flows back and never runs into itself.

Everything is read from the RuleSet:

- the river's kind is the one `placement continues KIND` names;
- the deck: every tile with a feature of that kind.  One river side: an end
  (the start tile is the source, the other end the lake, drawn last); two
  opposite sides: a straight; two other sides: a curve, which can be laid
  turning left or right (rotate it);
- the source's flow: the side its river leaves by, turned by the start rotation.  With a
  start landscape of several tiles (SIEGE-SETUP-1) the river is continued where it leaves
  the landscape: the one river side of a laid tile that faces an empty cell (the Siege's:
  the fortress's east end), and the landscape's other cells are cells the river may not
  run into;
- the placement rule: every `on place of KIND` rule, encoded from its AST with
  `turn(KIND)` a symbolic per-step variable (-1 left, 0 straight, 1 right) and
  each state variable a symbolic sequence (its `state` initial value first).
  As in the engine, all rules of a step read the state before the step, a
  `require` that fails makes the placement illegal, and the `set`s follow.

The river is laid at the open end: tile i goes to the cell ahead of tile i-1,
and its heading is the previous heading turned by turn(i).  Over every order of
the deck and every choice of turns the rule allows, z3 proves (or refutes):

- *never flows back*: no heading is opposite to the source's (where it leaves the start);
- *never runs into itself*: the source, the tiles and the lake lie on distinct cells (and
  off the start landscape's cells);
- *never blocked*: whatever the rule remembers, each drawn tile can be laid
  (a curve one way or the other; a straight, and the lake, always).

A refutation comes with the shortest such sequence and a text map.
"""
from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field

import z3

from ..dsl import ast as A
from ..dsl.model import RuleSet
from ..dsl.places import OFFSET, OPPOSITE, SIDES, rotate

from ..dsl.diagnostics import Diagnostic

from .checks import register
from .domain import Domain
from .encode import Env, encode
from .river_layer import start_river
from .solver import Fact, Result, Search, Verdict, find, prove
from .source import cites, line_text, where

HEADINGS = SIDES  # N E S W: +1 is a right turn (clockwise), y grows to the south
ARROW = {"N": "^", "E": ">", "S": "v", "W": "<"}


@dataclass
class RiverDeck:
    kind: str
    source: str
    lake: str | None
    heading: str  # the source's flow
    straights: list[str]  # one entry per copy
    curves: list[str]
    rules: list[A.OnDecl]
    states: dict[str, A.StateDecl]
    domain: Domain = field(default_factory=lambda: Domain(None))
    players: z3.ArithRef = field(default_factory=lambda: z3.Int("players"))  # one number for the whole game
    # where the river leaves the start: the cell whose river side faces an empty cell, and its tile
    # (the source's own cell, or in a start landscape (SIEGE-SETUP-1) another tile's: the fortress's)
    origin: tuple[int, int] = (0, 0)
    origin_tile: str = ""
    start: dict[tuple[int, int], str] = field(default_factory=dict)  # every start cell -> its tile
    source_cell: tuple[int, int] | None = None

    @property
    def landscape(self) -> bool:
        """The start is a landscape of several tiles (SIEGE-SETUP-1)."""
        return len(self.start) > 1

    @property
    def length(self) -> int:
        return len(self.straights) + len(self.curves)


def river_deck(rs: RuleSet) -> RiverDeck | None:
    cont = rs.placement.get("continues")
    if cont is None or cont.arg is None or rs.start is None:
        return None
    kind = cont.arg
    # the source is the laid tile with one river side; the river goes on from the start's one open
    # end: the source's own side, or in a start landscape (SIEGE-SETUP-1) wherever it leaves it
    st = start_river(rs, kind)
    if st is None or st.source is None or len(st.opens) != 1:
        return None
    (origin, heading), = st.opens
    laid = Counter(n for n, _, _ in st.laid)
    ends: list[str] = []
    straights: list[str] = []
    curves: list[str] = []
    from .river_deck import river_phase

    phase = river_phase(rs, kind)  # the tiles drawn while the river is laid (one drawn after the lake is never laid)
    for tt in rs.tiles:
        if tt.cells is not None:
            continue  # a tile covering several cells lies in the start landscape, never in the river deck
        if tt.name not in phase.river and tt.name not in laid:
            continue
        feats = [f for f in tt.features if f.kind == kind]
        if not feats:
            continue
        sides = [p for f in feats for p in f.places if p in SIDES]
        copies = max(tt.count - laid[tt.name], 0)  # the copies the start lays are not drawn
        if len(sides) == 1:
            ends.append(tt.name)
        elif len(sides) == 2 and OPPOSITE[sides[0]] == sides[1]:
            straights += [tt.name] * copies
        elif len(sides) == 2:
            curves += [tt.name] * copies
    source = st.source[0]
    lake = next((e for e in ends if e != source and e not in laid), None)
    rules = [on for on in rs.ons if on.event == "place" and on.of == kind]
    return RiverDeck(kind, source, lake, heading, straights, curves, rules, dict(rs.states), Domain(rs),
                     origin=origin, origin_tile=st.cells[origin], start=dict(st.cells), source_cell=st.source[1])


# ---------------------------------------------------------------- encoding
@dataclass
class Course:
    """A symbolic river: turns, headings, cells, the rule's state, step by step."""

    deck: RiverDeck
    steps: int  # tiles between the source and the lake
    turn: list[z3.ArithRef]  # turn[i] of tile i (index 0 unused: the source)
    heading: list[z3.BitVecRef]  # heading after tile i (0 = the source's), 2 bits: N E S W
    x: list[z3.BitVecRef]
    y: list[z3.BitVecRef]
    facts: list[Fact] = field(default_factory=list)
    domain_facts: list[Fact] = field(default_factory=list)  # what the rule set says of players, seats, …
    state: list[dict[str, z3.ExprRef]] = field(default_factory=list)
    legal: list[z3.BoolRef] = field(default_factory=list)  # legal[i - 1]: tile i obeys the rule
    # the start landscape's other cells the river could reach, relative to where it leaves the start
    # (cell 0): the river may not run into them either
    taken: list[tuple[int, int]] = field(default_factory=list)
    blocked_at: tuple | None = None  # a blocked draw z3 found: (the tiles laid before, the shape drawn, players)

    @property
    def cells(self) -> int:  # source + tiles + lake
        return self.steps + 2


def _dx(h, w: int):
    return z3.If(h == 1, z3.BitVecVal(1, w), z3.If(h == 3, z3.BitVecVal(-1, w), z3.BitVecVal(0, w)))


def _dy(h, w: int):
    return z3.If(h == 2, z3.BitVecVal(1, w), z3.If(h == 0, z3.BitVecVal(-1, w), z3.BitVecVal(0, w)))


def _turned(h: z3.BitVecRef, t: z3.ArithRef) -> z3.BitVecRef:
    """The heading turned by t (-1, 0, 1); 2-bit arithmetic is arithmetic modulo 4."""
    return h + z3.If(t == 1, z3.BitVecVal(1, 2), z3.If(t == -1, z3.BitVecVal(3, 2), z3.BitVecVal(0, 2)))


def course(deck: RiverDeck) -> Course:
    n = deck.length
    t = [z3.IntVal(0)] + [z3.Int(f"turn{i}") for i in range(1, n + 1)] + [z3.IntVal(0)]  # the lake goes straight on
    h = [z3.BitVecVal(HEADINGS.index(deck.heading), 2)] + [z3.BitVec(f"heading{i}", 2) for i in range(1, n + 2)]
    # cells as bit-vectors wide enough that no coordinate of an (n + 2)-cell river wraps around;
    # cell 0 is where the river leaves the start (the source's cell without a landscape)
    w = (n + 2).bit_length() + 2
    x = [z3.BitVecVal(0, w)] + [z3.BitVec(f"x{i}", w) for i in range(1, n + 2)]
    y = [z3.BitVecVal(0, w)] + [z3.BitVec(f"y{i}", w) for i in range(1, n + 2)]
    c = Course(deck, n, t, h, x, y)
    # tile i lies i steps from cell 0 at most: a start cell farther away is never reached (and
    # leaving it out keeps every coordinate within the bit-vectors)
    ox, oy = deck.origin
    c.taken = sorted((cx - ox, cy - oy) for cx, cy in deck.start
                     if (cx, cy) != deck.origin and abs(cx - ox) + abs(cy - oy) <= n + 1)
    curve = [t[i] != 0 for i in range(1, n + 1)]
    c.facts.append(Fact(z3.And([z3.And(t[i] >= -1, t[i] <= 1) for i in range(1, n + 1)]), "builtin",
                        "each river tile goes straight (0) or turns left (-1) or right (1)"))
    c.facts.append(Fact(z3.Sum([z3.If(k, 1, 0) for k in curve]) == len(deck.curves), "deck",
                        f"the deck holds {len(deck.curves)} curves and {len(deck.straights)} straights"))
    for i in range(1, n + 2):
        c.facts.append(Fact(z3.And(h[i] == _turned(h[i - 1], t[i]),
                                   x[i] == x[i - 1] + _dx(h[i - 1], w), y[i] == y[i - 1] + _dy(h[i - 1], w)),
                            "builtin", "a river tile continues the open end (RIVER-PLACE-1)"))
    # the placement rule, step by step, from its AST, with what the rule set says of its quantities
    c.domain_facts.extend(deck.domain.players(deck.players))
    init_env = _env(deck, "@0")
    c.state = [{k: encode(sd.init, init_env) for k, sd in deck.states.items()}]
    c.domain_facts.extend(init_env.facts)
    for i in range(1, n + 2):
        legal, nxt, facts = rule_step(deck, c.state[-1], t[i], f"@{i}")
        c.domain_facts.extend(facts)
        what = "the lake" if i == n + 1 else f"tile {i}"
        c.legal.append(legal)
        c.facts.append(Fact(legal, where(deck.rules[0].span) if deck.rules else "builtin",
                            f"{'; '.join(line_text(on.span) for on in deck.rules) or 'no rule'}   ({what})"))
        c.state.append(nxt)
    c.facts.extend(c.domain_facts)
    return c


def _env(deck: RiverDeck, tag: str) -> Env:
    """An env of one river step: the game's players, this step's seat and quantities (tessera.verifier.domain)."""
    env = Env(tag=tag, domain=deck.domain, kind=deck.kind)
    env.names["players"] = deck.players
    return env


def rule_step(deck: RiverDeck, prev: dict[str, z3.ExprRef], turn: z3.ArithRef, tag: str,
              each: list[tuple[A.OnDecl, z3.BoolRef]] | None = None
              ) -> tuple[z3.BoolRef, dict[str, z3.ExprRef], list[Fact]]:
    """Every `on place of river` rule for one tile: legal?, the state after, domain facts.

    As in the engine, each rule reads the state before the tile; a later `set` wins.
    `each`, if given, receives every rule with the condition its `require`s impose.
    """
    env = _env(deck, tag)
    env.names.update(prev)
    env.calls["turn"] = lambda args: turn if args and isinstance(args[0], A.Var) and args[0].name == deck.kind else z3.IntVal(0)
    nxt = dict(prev)
    conds = []
    for on in deck.rules:
        fires = encode(on.where, env) if on.where is not None else z3.BoolVal(True)
        mine = []
        for a in on.actions:
            if isinstance(a, A.Require):
                mine.append(z3.Implies(fires, encode(a.test, env)))
            else:
                nxt[a.name] = z3.If(fires, encode(a.value, env), nxt[a.name])
        conds += mine
        if each is not None:
            each.append((on, z3.And(mine) if mine else z3.BoolVal(True)))
    return (z3.And(conds) if conds else z3.BoolVal(True)), nxt, env.facts


def flows_back(c: Course, i: int) -> z3.BoolRef:
    return c.heading[i] == z3.BitVecVal((HEADINGS.index(c.deck.heading) + 2) % 4, 2)


def collides(c: Course, i: int) -> z3.BoolRef:
    """Tile i lies on the cell of an earlier tile (the source's among them) or of the start landscape."""
    if not i:
        return z3.BoolVal(False)
    w = c.x[0].size()
    return z3.Or([z3.And(c.x[i] == c.x[j], c.y[i] == c.y[j]) for j in range(i)]
                 + [z3.And(c.x[i] == z3.BitVecVal(dx, w), c.y[i] == z3.BitVecVal(dy, w)) for dx, dy in c.taken])


# ------------------------------------------------------------------ results
@dataclass
class Placed:
    index: int
    tile: str
    turn: int
    cell: tuple[int, int]
    heading: str
    remembers: str = ""  # the rule's state after this tile ("river_turn=-1")


@dataclass
class Counterexample:
    prop: str  # "flows back" | "runs into itself"
    step: int
    placed: list[Placed]  # placed[0]: the start's cell the river leaves from (the source's, or a landscape's)
    cell: tuple[int, int]  # where it happens
    players: int | None = None  # shown when the rule reads the number of players or the seat
    start: dict[tuple[int, int], str] = field(default_factory=dict)  # the start's cells (a landscape's every cell)
    source_cell: tuple[int, int] | None = None

    @property
    def landscape(self) -> bool:
        return len(self.start) > 1

    def map(self) -> list[str]:
        cells = {p.cell: p for p in self.placed}
        xs = [c[0] for c in cells] + [self.cell[0]] + [c[0] for c in self.start]
        ys = [c[1] for c in cells] + [self.cell[1]] + [c[1] for c in self.start]
        out = []
        for yy in range(min(ys), max(ys) + 1):
            row = []
            for xx in range(min(xs), max(xs) + 1):
                p = cells.get((xx, yy))
                if (xx, yy) == self.cell and self.prop == "runs into itself":
                    row.append("X")
                elif (xx, yy) == self.cell and self.prop == "is blocked":
                    row.append("?")
                elif p is not None and p.index > 0:
                    row.append("!" if (xx, yy) == self.cell else ARROW[p.heading])
                elif (xx, yy) == self.source_cell or (p is not None and not self.landscape):
                    row.append("S")
                elif (xx, yy) in self.start:
                    row.append("#")
                else:
                    row.append(".")
            out.append(" ".join(row))
        return out

    def legend(self, last: str) -> str:
        return "  map (S source, " + ("#: the start landscape, " if self.landscape else "") + "arrows: the flow leaving each tile, " + last + "):"

    def lines(self) -> list[str]:
        if self.prop == "runs into itself":
            owner = next((p for p in self.placed[:-1] if p.cell == self.cell and (p.index or not self.landscape)), None)
            taken = f"tile {owner.index} ({owner.tile})" if owner is not None \
                else f"the start landscape ({self.start.get(self.cell, '?')})"
            what = f"tile {self.step} would need cell {self.cell}, taken by {taken}"
        elif self.landscape:
            what = (f"tile {self.step} at {self.cell} turns the flow {self.placed[-1].heading}, against the "
                    f"{self.placed[0].heading} it leaves the start landscape by")
        else:
            what = f"tile {self.step} at {self.cell} turns the flow {self.placed[-1].heading}, against the source's {self.placed[0].heading}"
        out = [f"counterexample: the river {self.prop}: {what}"]
        if self.players is not None:
            out.append(f"  players={self.players}")
        mem = any(p.remembers for p in self.placed)
        out.append("  #  tile                   turn      cell       heading" + ("  the rule remembers" if mem else ""))
        for p in self.placed:
            turn = ("start" if self.landscape else "source") if p.index == 0 else {-1: "left", 0: "straight", 1: "right"}[p.turn]
            if p.index == self.step and self.prop == "runs into itself":
                out.append(f"  {p.index:<2} {p.tile:<22} {'-':<9} {str(p.cell):<10} (cell taken)")
            else:
                out.append((f"  {p.index:<2} {p.tile:<22} {turn:<9} {str(p.cell):<10} {p.heading:<7}  {p.remembers}"
                            if mem else f"  {p.index:<2} {p.tile:<22} {turn:<9} {str(p.cell):<10} {p.heading}").rstrip())
        out.append(self.legend("X: the taken cell the next tile needs" if self.prop == "runs into itself"
                               else "!: the tile flowing back"))
        out += ["    " + r for r in self.map()]
        return out


@dataclass
class RiverReport:
    deck: RiverDeck | None
    results: dict[str, Result] = field(default_factory=dict)  # property -> proof
    counterexamples: dict[str, Counterexample] = field(default_factory=dict)
    rule_lines: list[str] = field(default_factory=list)
    blocked: list[str] = field(default_factory=list)
    layable: str = "sat"  # "unsat": no order of the deck can be laid at all (the proofs are vacuous)
    culprit: A.OnDecl | None = None  # the rule that refuses a blocked draw
    # the blocked draw as z3 shows it: the tiles laid before it, the shape drawn, the players
    blocked_at: tuple[list, str, int] | None = None
    # property -> tessera.verifier.witness.Search: the engine game that shows a refutation (filled by the
    # registered check: a z3 refutation is printed REFUTED only with such a game, NOT PROVED without)
    witnesses: dict = field(default_factory=dict)

    def verdict(self, prop: str) -> str:
        r = self.results[prop]
        if r.verdict is Verdict.REFUTED and prop in self.witnesses and self.witnesses[prop].witness is None:
            return "not proved"
        return {Verdict.PROVED: "proved", Verdict.REFUTED: "refuted", Verdict.INCONCLUSIVE: "inconclusive"}[r.verdict]

    @property
    def ok(self) -> bool:
        return all(r.proved for r in self.results.values())

    def lines(self) -> list[str]:
        if self.deck is None:
            return ["river: no river in these rules (no `placement continues` with a start tile at its end)"]
        d = self.deck
        where_from = (f"source {d.source}, leaving the start landscape at [{d.origin[0]}, {d.origin[1]}] "
                      f"({d.origin_tile}) flowing {d.heading}" if d.landscape else f"source {d.source} flowing {d.heading}")
        out = [f"river theorem [RIVER-PLACE-2]: {where_from}, "
               f"{len(d.straights)} straights + {len(d.curves)} curves, lake {d.lake} last"]
        if self.rule_lines:
            out += [f"  rule: {r}" for r in self.rule_lines]
        else:
            out.append("  rule: none (no `on place of river` rule)")
        for prop, r in self.results.items():
            v = self.verdict(prop)
            tag = v if v == "proved" else v.upper()
            extra = f" ({r.reason})" if r.verdict is Verdict.INCONCLUSIVE else ""
            out.append(f"  {prop}: {tag}{extra}")
            found = self.witnesses.get(prop)
            if found is not None and found.witness is not None:
                out += ["    " + x for x in found.witness.lines()]
            elif found is not None:
                out.append(f"    no game of the compiled engine follows z3's river: {found.note}; z3's sequence below "
                           f"breaks the theorem in the model only")
            ce = self.counterexamples.get(prop)
            if ce is not None:
                out += ["    " + x for x in ce.lines()]
            if prop == PROPS[2]:
                out += ["    " + x for x in self.blocked]
        return out


PROPS = ("never flows back", "never runs into itself", "never blocked")


def _counterexample(c: Course, prop: str) -> Counterexample | Result:
    """The shortest sequence the rule allows that violates `prop`."""
    d = c.deck
    bad = flows_back if prop == "never flows back" else collides
    last = c.steps + (0 if prop == "never flows back" else 1)
    show = {f"turn{i}": c.turn[i] for i in range(1, c.steps + 1)}
    for i in range(1, c.steps + 2):
        show[f"x{i}"], show[f"y{i}"] = z3.BV2Int(c.x[i], is_signed=True), z3.BV2Int(c.y[i], is_signed=True)
        show[f"h{i}"] = c.heading[i]
    for i, st in enumerate(c.state):  # every input: what the rule remembers after each tile, the players
        for name, v in st.items():
            show[f"state{i}.{name}"] = v
    show["players"] = d.players
    for k in range(1, last + 1):
        # the fewest curves, ties broken lexicographically: the same counterexample every time
        s = find([f.term for f in c.facts] + [bad(c, k)], show, minimize=c.turn[1:c.steps + 1])
        if s.status == "unknown":
            return Result(Verdict.INCONCLUSIVE, reason=s.reason)
        if s.status == "sat":
            m = s.model
            straights, curves = list(d.straights), list(d.curves)
            ox, oy = d.origin
            placed = [Placed(0, d.origin_tile or d.source, 0, d.origin, d.heading)]
            for i in range(1, k + 1):
                if i == c.steps + 1:
                    name, t = d.lake or "lake", 0
                else:
                    t = int(m[f"turn{i}"])
                    name = (curves.pop(0) if curves else "curve") if t else (straights.pop(0) if straights else "straight")
                placed.append(Placed(i, name, t, (ox + int(m[f"x{i}"]), oy + int(m[f"y{i}"])), HEADINGS[int(m[f"h{i}"])]))
            for p in placed:
                p.remembers = ", ".join(f"{n[len(f'state{p.index}.'):]}={v}" for n, v in m.items()
                                        if n.startswith(f"state{p.index}."))
            verb = "flows back" if prop == "never flows back" else "runs into itself"
            ce = Counterexample(verb, k, placed, placed[-1].cell, start=dict(d.start), source_cell=d.source_cell)
            if _reads_players(d):
                ce.players = int(m["players"])
            return ce
    return Result(Verdict.PROVED)


def _reads_players(d: RiverDeck) -> bool:
    from ..compiler.pyexpr import free_names

    exprs = [e for on in d.rules for e in ([on.where] if on.where is not None else [])
             + [a.test if isinstance(a, A.Require) else a.value for a in on.actions]]
    return any({"players", "current"} & set(free_names(e)) for e in exprs)


def _never_blocked(c: Course) -> tuple[Result, list[str], A.OnDecl | None]:
    """After any legal prefix, the next tile drawn can be laid: a curve one way or the
    other (if a curve is left in the deck), a straight (if one is left), and the lake.

    A refutation shows the shortest such prefix: its tiles, the tile that cannot be
    laid and each turn the rule refuses, the state the rule remembers, and the board.
    """
    t0 = time.perf_counter()
    d = c.deck
    n = c.steps
    base = [f for f in c.facts if f.where == "builtin"] + c.domain_facts  # turns in range, geometry, players
    for i in range(1, n + 2):
        prefix = base + [Fact(c.legal[j - 1], "rule", f"tile {j} obeys the rule") for j in range(1, i)]
        used = z3.Sum([z3.If(c.turn[j] != 0, 1, 0) for j in range(1, i)]) if i > 1 else z3.IntVal(0)
        prefix.append(Fact(z3.And(used <= len(d.curves), (i - 1) - used <= len(d.straights)), "deck", "the prefix comes from the deck"))
        options = []
        for turn, left in ((-1, used < len(d.curves)), (1, used < len(d.curves)), (0, (i - 1) - used < len(d.straights))):
            each: list[tuple[A.OnDecl, z3.BoolRef]] = []
            ok, _, facts = rule_step(d, c.state[i - 1], z3.IntVal(turn), f"@try{i}{turn}", each)
            prefix += facts
            options.append((turn, left, ok, each))
        if i == n + 1:
            claim = options[2][2]  # the lake: straight on
        else:
            claim = z3.And(z3.Implies(options[0][1], z3.Or(options[0][2], options[1][2])),
                           z3.Implies(options[2][1], options[2][2]))
        show: dict[str, z3.ExprRef] = {f"turn{j}": c.turn[j] for j in range(1, i)}
        for j in range(1, i + 1):
            show[f"x{j}"], show[f"y{j}"] = z3.BV2Int(c.x[j], is_signed=True), z3.BV2Int(c.y[j], is_signed=True)
            show[f"h{j}"] = z3.BV2Int(c.heading[j - 1])
        show["players"] = d.players
        for k, v in c.state[i - 1].items():
            show[f"state.{k}"] = v
        for turn, left, ok, each in options:
            show[f"left{turn}"], show[f"ok{turn}"] = left, ok
            for r, (on, cond) in enumerate(each):
                show[f"rule{turn}.{r}"] = cond
        res = prove(claim, prefix, show, minimize=c.turn[1:i], minimal_core=False)
        if not res.proved:
            if not res.refuted:
                return res, [], None
            lines, culprit = _blocked_lines(c, i, res.model, options)
            return res, lines, culprit
    return Result(Verdict.PROVED, seconds=time.perf_counter() - t0), [], None


def _blocked_lines(c: Course, i: int, m: dict, options) -> tuple[list[str], A.OnDecl | None]:
    """A blocked draw in words: the prefix, the tile, each refused turn and the rule that refuses it, the board."""
    d = c.deck
    names = {-1: "left", 0: "straight", 1: "right"}
    straights, curves = list(d.straights), list(d.curves)
    ox, oy = d.origin
    placed = [Placed(0, d.origin_tile or d.source, 0, d.origin, d.heading)]
    for j in range(1, i):
        t = int(m[f"turn{j}"])
        name = (curves.pop(0) if curves else "curve") if t else (straights.pop(0) if straights else "straight")
        placed.append(Placed(j, name, t, (ox + int(m[f"x{j}"]), oy + int(m[f"y{j}"])), HEADINGS[int(m[f"h{j + 1}"])]))
    cell = (ox + int(m[f"x{i}"]), oy + int(m[f"y{i}"]))
    seq = ", ".join(names[p.turn] for p in placed[1:])
    if i == c.steps + 1:
        tile, tried = d.lake or "the lake", [0]
    elif m["left0"] and not m["ok0"]:
        tile, tried = (straights[0] if straights else "a straight"), [0]
    else:
        tile, tried = (curves[0] if curves else "a curve"), [-1, 1]
    what = "the lake" if i == c.steps + 1 else f"tile {i}"
    state = ", ".join(f"{k[6:]}={v}" for k, v in m.items() if k.startswith("state.")) or "nothing"
    out = [f"after [{seq}] {what} cannot be laid: the drawn tile is {tile}, at {cell}",
           f"  players={m['players']}; the rule remembers {state}"]
    culprit = None
    for turn, left, ok, each in options:
        if turn not in tried:
            continue
        refusing = [on for r, (on, _) in enumerate(each) if not m.get(f"rule{turn}.{r}", True)]
        culprit = culprit or (refusing[-1] if refusing else None)
        why = "; ".join(f"{where(on.span)}: {line_text(on.span)}" for on in refusing) or "no rule"
        out.append(f"  laid {names[turn]}: refused by {why}")
    ce = Counterexample("is blocked", i, placed, cell, start=dict(d.start), source_cell=d.source_cell)
    out.append(ce.legend("?: the cell of the tile that cannot be laid"))
    out += ["    " + r for r in ce.map()]
    shape = "lake" if i == c.steps + 1 else ("straight" if tried == [0] else "curve")
    c.blocked_at = (placed, shape, int(m["players"]))
    return out, culprit


def check_river(rs: RuleSet) -> RiverReport:
    deck = river_deck(rs)
    rep = RiverReport(deck)
    if deck is None:
        return rep
    rep.rule_lines = [f"{where(on.span)}: {line_text(on.span)}" for on in deck.rules]
    c = course(deck)
    lemmas: list[Fact] = []
    for prop in PROPS[:2]:
        claim = z3.And([z3.Not(flows_back(c, i)) for i in range(1, c.steps + 1)]) if prop == PROPS[0] \
            else z3.And([z3.Not(collides(c, i)) for i in range(1, c.steps + 2)])
        res = prove(claim, c.facts + lemmas, minimal_core=False, bitblast=True)
        if res.proved and prop == PROPS[0]:
            # proved: the collision proof may use it (the river only ever moves forward or sideways)
            lemmas.append(Fact(claim, "lemma", "the river never flows back (proved above)"))
        if res.refuted:
            ce = _counterexample(c, prop)
            if isinstance(ce, Counterexample):
                rep.counterexamples[prop] = ce
            else:  # no shortest counterexample within the limits: inconclusive, never a longer one
                res = ce if not ce.proved else res
        rep.results[prop] = res
    res, why, rep.culprit = _never_blocked(c)
    rep.results[PROPS[2]] = res
    rep.blocked = why
    rep.blocked_at = c.blocked_at
    rep.layable = find([f.term for f in c.facts], {}).status
    return rep


def witnesses(rs: RuleSet, rep: RiverReport, record_dir=None) -> None:
    """For every refuted property, a game of the compiled engine that follows z3's sequence
    (tessera.verifier.witness.river_search): the tile blocked is discarded in it, the river that runs
    into itself leaves its next tile nowhere to go (discarded too), the river that flows back is laid.
    Without such a game the property is *not proved* (rep.witnesses[prop].witness is None)."""
    from .witness import Search, river_search

    todo = [p for p, r in rep.results.items() if r.refuted]
    try:
        from .engines import engine_of

        eng = engine_of(rs)  # the one the examples and records checks compiled for this rule set, if they did
    except Exception as exc:  # rules the engine cannot be built from: no game to show
        for p in todo:
            rep.witnesses[p] = Search(None, 0, 0, note=f"the engine could not be built ({type(exc).__name__}: {exc})")
        return
    if rep.results.get(PROPS[2]) is not None and rep.results[PROPS[2]].proved:
        # z3's river is a line of turns and cells; the engine's tiles also meet what they border with their
        # other edges (a start landscape's fortress, an earlier tile): lay it with the engine too
        from .witness import river_blocked

        try:
            found = river_blocked(rs, eng, record_dir)
        except Exception as exc:  # a rule that crashes the engine: said, never a pass
            found = Search(None, 0, 0, note=f"the engine failed while laying the river ({type(exc).__name__}: {exc})")
            rep.results[PROPS[2]] = Result(Verdict.INCONCLUSIVE, reason=found.note)
        if found.witness is not None:
            rep.results[PROPS[2]] = Result(Verdict.REFUTED)
            rep.witnesses[PROPS[2]] = found
            rep.blocked = ["z3's river (its turns and cells) is never blocked, but the compiled engine's is: a river "
                           "tile's other edges must meet what it borders (the start landscape, an earlier tile), which "
                           "the model of turns does not see; the rule that keeps the river away from it is missing or "
                           "too weak"]
    for prop in todo:
        try:
            if prop == PROPS[2] and rep.blocked_at is not None:
                placed, shape, players = rep.blocked_at
                rep.witnesses[prop] = river_search(rs, "is blocked", placed, shape, players, record_dir, eng)
            elif prop in rep.counterexamples:
                ce = rep.counterexamples[prop]
                if ce.prop == "runs into itself":  # the tile that needs the taken cell can go nowhere
                    rep.witnesses[prop] = river_search(rs, ce.prop, ce.placed[:-1], "any", ce.players, record_dir, eng)
                else:
                    rep.witnesses[prop] = river_search(rs, ce.prop, ce.placed, None, ce.players, record_dir, eng)
        except Exception as exc:  # a rule that crashes the engine: said, never a refutation
            rep.witnesses[prop] = Search(None, 0, 0, note=f"the engine failed while playing ({type(exc).__name__}: {exc})")


def _blame(rs: RuleSet, rep: RiverReport) -> A.Span:
    """Where the river's verdict is reported: the rule that refuses a blocked draw, else the
    designer's own rule (the last module's), else the first rule or the placement line."""
    d = rep.deck
    assert d is not None
    if rep.culprit is not None:
        return rep.culprit.span
    last = rs.modules[-1] if rs.modules else None
    mine = [on.span for on in d.rules if last is not None and on.span.file == last.file]
    # a designer who changed the river's tiles (not its rule) is pointed at the tiles changed
    from .river_deck import river_phase

    river_tiles = river_phase(rs, d.kind).river  # not a tile drawn after the lake (set-river reports it)
    mine += [tt.decl.span for tt in rs.tiles if last is not None and tt.module == last.name
             and tt.name in river_tiles and any(f.kind == d.kind for f in tt.features)]
    if mine:
        return mine[0]
    return d.rules[0].span if d.rules else rs.placement["continues"].span


# --------------------------------------------------------------- registry
@register("river", ["RIVER-PLACE-1", "RIVER-PLACE-2"], applies=lambda rs: river_deck(rs) is not None)
def river(rs: RuleSet) -> list[Diagnostic]:
    """The river never flows back and never runs into itself (RIVER-PLACE-2, z3 over every deck order)."""
    rep = check_river(rs)
    d = rep.deck
    assert d is not None
    witnesses(rs, rep)
    span = _blame(rs, rep)
    text = "\n    ".join(rep.lines())
    out = []
    if rep.layable == "unsat":
        # "never blocked" is the one property a river that cannot be laid breaks: the others hold vacuously
        held = [p for p in PROPS[:2] if rep.results.get(p) is not None and rep.results[p].proved]
        blocked = rep.results.get(PROPS[2]) is not None and rep.results[PROPS[2]].refuted
        out.append(Diagnostic(span, f"no order of the {d.length} river tiles can be laid under these rules: every "
                                    f"sequence breaks a `require`, so "
                                    + (f"`{'` and `'.join(held)}` hold only because no river is ever built"
                                       if held else "no river is ever built")
                                    + ("; a drawn river tile is blocked (below)" if blocked else ""),
                              "degenerate", "warning"))
    if rep.ok:
        return out + [Diagnostic(span, text, "river", "note")]
    return out + [Diagnostic(span, text, "river")]
