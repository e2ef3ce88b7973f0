"""AST of the tessera rules language.

Every node is a frozen dataclass carrying a `Span` (file, line, column) that is
excluded from equality, so `parse(fmt(x)) == parse(x)` compares meaning only.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar, Iterator, Union


@dataclass(frozen=True)
class Span:
    file: str = "<input>"
    line: int = 0
    column: int = 0
    end_line: int = 0
    end_column: int = 0

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


NOWHERE = Span()


def _span() -> Span:
    return field(default=NOWHERE, compare=False, repr=False)  # type: ignore[return-value]


@dataclass(frozen=True)
class Cite:
    clause: str
    span: Span = _span()


# --------------------------------------------------------------- expressions
class Node:
    """An expression node that knows its own sub-expressions (Jinja2's `iter_child_nodes`): `children`
    names the fields that hold an expression or a tuple of them, in the order they are read."""

    __slots__ = ()
    children: ClassVar[tuple[str, ...]] = ()

    def iter_child_nodes(self) -> Iterator["Expr"]:
        for name in self.children:
            value = getattr(self, name)
            if isinstance(value, tuple):
                yield from value
            else:
                yield value


def walk(e: "Expr") -> Iterator["Expr"]:
    """`e` and every expression inside it, parents before children, left to right."""
    todo = [e]
    while todo:
        x = todo.pop()
        yield x
        todo.extend(reversed(tuple(x.iter_child_nodes())))


@dataclass(frozen=True)
class IntLit(Node):
    value: int
    span: Span = _span()


@dataclass(frozen=True)
class BoolLit(Node):
    value: bool
    span: Span = _span()


@dataclass(frozen=True)
class Var(Node):
    name: str
    span: Span = _span()


@dataclass(frozen=True)
class Call(Node):
    children = ("args",)
    fn: str
    args: tuple["Expr", ...]
    span: Span = _span()


@dataclass(frozen=True)
class BinOp(Node):
    children = ("left", "right")
    op: str  # + - * // % == != < <= > >= and or
    left: "Expr"
    right: "Expr"
    span: Span = _span()


@dataclass(frozen=True)
class Not(Node):
    children = ("operand",)
    operand: "Expr"
    span: Span = _span()


@dataclass(frozen=True)
class Neg(Node):
    children = ("operand",)
    operand: "Expr"
    span: Span = _span()


@dataclass(frozen=True)
class Cond(Node):
    children = ("test", "then", "orelse")
    test: "Expr"
    then: "Expr"
    orelse: "Expr"
    span: Span = _span()


@dataclass(frozen=True)
class StateOf(Node):
    """`NAME of SEAT`: a player's value of a state kept per player (0 for a seat not in the game)."""
    children = ("seat",)
    name: str
    seat: "Expr"
    span: Span = _span()


Expr = Union[IntLit, BoolLit, Var, Call, BinOp, Not, Neg, Cond, StateOf]


# ---------------------------------------------------------------- statements
class Declared:
    """A statement (or a line of a statement's block) declared in one place: its class says how the
    parser builds it, how `tessera fmt` lays it out, what an `override` of it replaces, what the
    names in it name (dsl/names.py) and whether the loader keeps it (`RuleSet.all(cls)`), so the
    front end needs no code of its own for it.  What its keywords mean to the editor's hover is its
    section of docs/language.md.  A new statement is then its rule in dsl/grammar.lark and its class
    here (docs/architecture.md, "The path a new construct takes").

    - `rule`: the rule of dsl/grammar.lark whose tree builds it;
    - `parts`: the fields the rule's children fill, in order (its citations, a `cites` child, go to
      `cites`): `"name"` one child (a name token read as text, `"name:int"` as a number), `"*name"`
      every child left, as a tuple (an absent optional one left out);
    - `layout`: its line as `tessera fmt` writes it (its citations after it): `{field}` the field's
      value (an expression formatted, a tuple of names joined with `, `), `[...]` a part written only
      when every field in it has a value;
    - `block`: the field holding the lines of its `{ ... }` block (each line `Declared` too, or an
      action `tessera fmt` already knows), None for a one-line statement;
    - `collect`: the loader keeps it, in order, in `RuleSet.all(cls)` (an `override` of it replaces
      those with the same `override_key`);
    - `repeats`: several with one key may stand (an `on` rule), else a second is a `duplicate`;
    - `roles`: what each name child names (dsl/names.py's `_ROLES`; `*role` declares one);
    - `check(b)`: what the loader reports of a collected one (`b.err(span, message, code)`, as the
      checks of dsl/checks/ do), after the rule set is whole;
    - `tables` and `table_values()`: the constants the compiled engine gets from a collected one,
      plain data (numbers, strings, None, tuples), which its runtime reads (compiler/codegen.py
      writes them; no other compiler code names the statement).
    """

    __slots__ = ()
    rule: ClassVar[str] = ""
    parts: ClassVar[tuple[str, ...]] = ()
    layout: ClassVar[str] = ""
    block: ClassVar[str | None] = None
    collect: ClassVar[bool] = False
    repeats: ClassVar[bool] = True
    roles: ClassVar[tuple[str, ...]] = ()
    tables: ClassVar[tuple[str, ...]] = ()

    def __init_subclass__(cls, **kw):
        super().__init_subclass__(**kw)
        if cls.rule:
            if cls.rule in DECLARED:
                raise TypeError(f"grammar rule {cls.rule!r} is declared twice: {DECLARED[cls.rule]} and {cls}")
            DECLARED[cls.rule] = cls

    @classmethod
    def build(cls, children: list, span: Span) -> "Declared":
        """The node of one parse of `rule`, from its children (dsl/transform.py calls it)."""
        cites: tuple = ()
        rest = []
        for c in children:
            if isinstance(c, tuple) and c and all(isinstance(x, Cite) for x in c):
                cites = c
            else:
                rest.append(c)
        values: dict = {}
        left = iter(rest)
        for part in cls.parts:
            name, _, kind = part.partition(":")
            if name.startswith("*"):
                values[name[1:]] = tuple(x for x in left if x is not None)
                continue
            value = next(left, None)
            if value is not None and type(value).__name__ == "Token":  # a name or a number of the rule
                value = int(value) if kind == "int" else str(value)
            values[name] = value
        if "cites" in cls.__dataclass_fields__:  # type: ignore[attr-defined]
            values["cites"] = cites
        return cls(**values, span=span)  # type: ignore[call-arg]

    def override_key(self) -> tuple:
        """What an `override` of it replaces: the statements of equal key (dsl/model.py)."""
        return (self.rule, tuple(c.clause for c in getattr(self, "cites", ())))

    def check(self, b) -> None:
        """Report what is wrong with it in the rule set `b.rs` (the loader's Builder `b`)."""

    def table_values(self) -> tuple:
        """The values of its `tables`, in order."""
        return ()


DECLARED: dict[str, type[Declared]] = {}  # grammar rule -> the class it builds


@dataclass(frozen=True)
class Requires:
    modules: tuple[str, ...]
    cites: tuple[Cite, ...] = ()
    span: Span = _span()


@dataclass(frozen=True)
class Extends:
    modules: tuple[str, ...]
    cites: tuple[Cite, ...] = ()
    span: Span = _span()


@dataclass(frozen=True)
class Total:
    count: int
    cites: tuple[Cite, ...] = ()
    span: Span = _span()


@dataclass(frozen=True)
class CompositionCount:
    tile: str
    count: int
    span: Span = _span()


@dataclass(frozen=True)
class CompositionDecl:
    """`composition 18 [TOWER-COMP-1]`, `composition: A x2, B x4, ... [BASE-COMP-1]`: the tile
    counts a rulebook prints for its composition clause (the total, and/or per tile where it
    prints a list; without a number the total is the list's sum)."""

    total: int | None
    counts: tuple[CompositionCount, ...] = ()
    cites: tuple[Cite, ...] = ()
    span: Span = _span()

    @property
    def tiles(self) -> int:
        """How many tiles it states."""
        return self.total if self.total is not None else sum(e.count for e in self.counts)


@dataclass(frozen=True)
class Players:
    low: int
    high: int
    cites: tuple[Cite, ...] = ()
    span: Span = _span()


@dataclass(frozen=True)
class EdgeDecl:
    """`edge R = field road field`: an edge code and its cross-section."""

    code: str
    parts: tuple[str, ...]  # 1 part (whole side) or 3 parts (half, middle, half)
    title: str | None = None
    cites: tuple[Cite, ...] = ()
    span: Span = _span()


@dataclass(frozen=True)
class FeatureDecl:
    kind: str
    centre: bool = False
    title: str | None = None
    cites: tuple[Cite, ...] = ()
    span: Span = _span()
    halves: bool = False  # lies on half-sides (fields), not on whole sides


@dataclass(frozen=True)
class FigureDecl:
    """`figure F N per player [supply] on KINDS [where] when COND [condition]`.

    Each part carries the clauses it implements, so a refused placement cites the
    part it breaks; `cites` is all of them, in order."""

    name: str
    count: int
    on: tuple[str, ...]
    when: "Expr | None" = None
    cites: tuple[Cite, ...] = ()
    span: Span = _span()
    supply_cites: tuple[Cite, ...] = ()
    on_cites: tuple[Cite, ...] = ()
    when_cites: tuple[Cite, ...] = ()
    # `figure F (EXPR) per player`: the count depends on the game (only `players` may be read);
    # then `count` is 0 and meaningless -- use `count_expr`.
    count_expr: "Expr | None" = None
    anywhere: bool = False  # `on KINDS anywhere`: on a feature of any placed tile (TOWER-TURN-1)
    at: str | None = None  # "corner": stands where four placed tiles meet (the Barn), not on a tile's feature


@dataclass(frozen=True)
class TileFeature:
    kind: str
    places: tuple[str, ...]
    shields: int = 0
    borders: tuple[str, ...] = ()
    crosses: str | None = None
    span: Span = _span()
    # printed marks (an inn, a cathedral, goods), in the order written: (name, how many)
    marks: tuple[tuple[str, int], ...] = ()


@dataclass(frozen=True)
class TileVariant:
    """Copies of a tile that print extra features (the Abbot's gardens)."""

    name: str
    count: int
    features: tuple[TileFeature, ...]
    cites: tuple[Cite, ...] = ()
    span: Span = _span()


@dataclass(frozen=True)
class TileDecl:
    name: str
    count: int
    edges: tuple[str, str, str, str]
    features: tuple[TileFeature, ...]
    variants: tuple[TileVariant, ...] = ()
    cites: tuple[Cite, ...] = ()
    span: Span = _span()
    edges_span: Span = _span()
    # printed symbols, left to right (siege symbols; `any` is the "?"), and where they are written
    symbols: tuple[str, ...] = ()
    symbols_span: Span = _span()
    cells: tuple[int, int] | None = None  # `cells WxH`: a tile covering W x H cells (X10)

    def edges_flat(self) -> tuple[str, ...]:
        """Every edge code the tile shows: its four, or a tile covering several cells' groups in a row."""
        if self.edges and isinstance(self.edges[0], tuple):
            return tuple(c for g in self.edges for c in g)
        return tuple(self.edges)


@dataclass(frozen=True)
class StartPlace:
    """One more tile of a start landscape (SIEGE-SETUP-1)."""
    tile: str
    x: int
    y: int
    rotation: int = 0
    span: Span = _span()


@dataclass(frozen=True)
class StartDecl:
    tile: str
    x: int
    y: int
    rotation: int = 0
    cites: tuple[Cite, ...] = ()
    span: Span = _span()
    more: tuple[StartPlace, ...] = ()  # the landscape's other tiles, after this anchor

    def places(self) -> tuple[StartPlace, ...]:
        """Every tile of the start landscape, the anchor first."""
        return (StartPlace(self.tile, self.x, self.y, self.rotation, self.span), *self.more)


@dataclass(frozen=True)
class DeckDecl:
    """`deck NAME = tiles a, b last c before other` or `deck NAME = rest`."""

    name: str
    tiles: tuple[str, ...] = ()  # empty: the rest of the tiles
    last: str | None = None
    before: str | None = None
    cites: tuple[Cite, ...] = ()
    span: Span = _span()
    # the clauses each part carries (`cites` is all of them, in order): drawing a tile of a
    # later deck early breaks `before`; naming the `last` tile while others remain breaks `last`
    last_cites: tuple[Cite, ...] = ()
    before_cites: tuple[Cite, ...] = ()


@dataclass(frozen=True)
class BoxDecl:
    """`box D`: one copy of a tile is put back in the box (not in any deck)."""

    tile: str
    cites: tuple[Cite, ...] = ()
    span: Span = _span()


@dataclass(frozen=True)
class PlacementDecl:
    kind: str  # adjacent | matching | continues | discard
    arg: str | None = None
    cites: tuple[Cite, ...] = ()
    span: Span = _span()


@dataclass(frozen=True)
class CompleteDecl:
    kind: str
    when: Expr
    cites: tuple[Cite, ...] = ()
    span: Span = _span()


@dataclass(frozen=True)
class ScoreDecl:
    kind: str
    when: str  # complete | end | put | join
    value: Expr
    cites: tuple[Cite, ...] = ()
    span: Span = _span()
    by: str | None = None  # a figure: how an owner with that figure on the feature scores
    figure: str | None = None  # `put FIGURE` / `join FIGURE`: the figure whose placing or joining triggers it


@dataclass(frozen=True)
class OwnersDecl:
    mode: str  # most | all
    cites: tuple[Cite, ...] = ()
    span: Span = _span()


@dataclass(frozen=True)
class ReturnDecl:
    figure: str
    cites: tuple[Cite, ...] = ()
    span: Span = _span()


@dataclass(frozen=True)
class StateDecl:
    name: str
    init: Expr
    cites: tuple[Cite, ...] = ()
    span: Span = _span()
    each: bool = False  # `state NAME of each player`: one value per player, each starting at init


@dataclass(frozen=True)
class Require:
    test: Expr
    message: str | None = None
    span: Span = _span()


@dataclass(frozen=True)
class SetAction:
    name: str
    value: Expr
    span: Span = _span()
    seat: Expr | None = None  # `set NAME of SEAT = ...` (a state kept per player)


@dataclass(frozen=True)
class Release(Declared):
    """`release FIGS` (in `on round end`): every prisoner of those kinds goes back to its owner's
    supply, whoever holds it."""

    rule: ClassVar[str] = "release"
    parts: ClassVar[tuple[str, ...]] = ("figures",)
    layout: ClassVar[str] = "release {figures}"
    roles: ClassVar[tuple[str, ...]] = ("figure",)

    figures: tuple[str, ...]
    span: Span = _span()


Action = Union[Require, SetAction, Release]


@dataclass(frozen=True)
class OnDecl:
    event: str  # place | complete
    of: str | None
    where: Expr | None
    actions: tuple[Action, ...]
    cites: tuple[Cite, ...] = ()
    span: Span = _span()


@dataclass(frozen=True)
class OnRoundDecl(Declared):
    """`on round end [where C] { release FIGS }`: when every player has taken one turn (the game's
    end closes a last round that is not whole; docs/language.md 2.28)."""

    rule: ClassVar[str] = "on_round_decl"
    parts: ClassVar[tuple[str, ...]] = ("where", "*actions")
    layout: ClassVar[str] = "on round end[ where {where}]"
    block: ClassVar[str | None] = "actions"
    collect: ClassVar[bool] = True

    def override_key(self) -> tuple:
        return ("on", "round end", tuple(c.clause for c in self.cites))

    where: Expr | None
    actions: tuple[Action, ...]
    cites: tuple[Cite, ...] = ()
    span: Span = _span()


@dataclass(frozen=True)
class EndAfterDecl(Declared):
    """`end after N rounds`: the game ends as its N-th round ends (every player has had N turns),
    with tiles left in the bag or not; final scoring follows as at the bag's end (docs/language.md 2.30)."""

    rule: ClassVar[str] = "end_after_decl"
    parts: ClassVar[tuple[str, ...]] = ("rounds:int",)
    layout: ClassVar[str] = "end after {rounds} rounds"
    collect: ClassVar[bool] = True
    repeats: ClassVar[bool] = False
    tables: ClassVar[tuple[str, ...]] = ("ROUND_LIMIT",)  # (N, clause): compiler/runtime/rounds.py

    def override_key(self) -> tuple:
        return ("end after N rounds",)

    def check(self, b) -> None:
        if self.rounds < 1:  # the game would end before its first tile
            b.err(self.span, f"`end after {self.rounds} rounds`: a game has at least one round "
                             f"(write `end after 1 rounds` or more)", "range")

    def table_values(self) -> tuple:
        return ((self.rounds, self.cites[0].clause if self.cites else ""),)

    rounds: int
    cites: tuple[Cite, ...] = ()
    span: Span = _span()


@dataclass(frozen=True)
class AwardDecl:
    state: str
    value: Expr
    cites: tuple[Cite, ...] = ()
    span: Span = _span()
    most: bool = False  # `award most NAME`: every player with the most (above 0) of a per-player state


@dataclass(frozen=True)
class CaptureDecl:
    """`capture N of FIGS in line within RANGE after put FIGURE`: a capture after a figure is put."""

    count: int
    figures: tuple[str, ...]  # the kinds that may be captured
    within: "Expr"  # the range, read on the feature the `after` figure was put on
    after: str  # the figure whose putting allows the capture
    cites: tuple[Cite, ...] = ()  # all of them, in order
    span: Span = _span()
    figures_cites: tuple[Cite, ...] = ()  # what may be captured
    within_cites: tuple[Cite, ...] = ()  # the range
    after_cites: tuple[Cite, ...] = ()  # the capture itself


@dataclass(frozen=True)
class ExchangeDecl:
    """`exchange prisoners`: capturing a figure of a player who holds one of yours swaps them."""

    cites: tuple[Cite, ...] = ()
    span: Span = _span()


@dataclass(frozen=True)
class RansomDecl:
    """`ransom FIGS = PRICE when COND`: free an own prisoner by paying its holder PRICE points."""

    figures: tuple[str, ...]
    price: "Expr"
    when: "Expr | None" = None
    cites: tuple[Cite, ...] = ()
    span: Span = _span()


@dataclass(frozen=True)
class TrackDecl:
    """`track NAME for KINDS row N pool catapult C`: an outpost (Siege and Defense)."""

    name: str
    kinds: tuple[str, ...]  # a figure put on one of these kinds may bring a figure to the row
    row: int  # the row's size, when it is a number
    row_expr: "Expr | None"  # the row's size, when it depends on `players`
    pool: bool  # a follower-shaped slot that holds any number
    catapult: int  # how many catapults the catapult slot holds
    cites: tuple[Cite, ...] = ()  # all of them, in order
    span: Span = _span()
    row_cites: tuple[Cite, ...] = ()  # the row
    slot_cites: tuple[Cite, ...] = ()  # the pool and the catapult slot


@dataclass(frozen=True)
class OnPutDecl:
    """`on put FIGS [of KINDS] { may put FIGURE on row|pool }`: an optional extra figure on an outpost."""

    figures: tuple[str, ...]  # the figures whose putting allows it
    kinds: tuple[str, ...]  # ... on features of these kinds (() = any)
    figure: str  # the figure that goes to the outpost, from supply
    slot: str  # row | pool
    cites: tuple[Cite, ...] = ()
    span: Span = _span()
    action_span: Span = _span()  # `may put FIGURE on row|pool`


@dataclass(frozen=True)
class ScoreEach:
    """`score each EXPR`: every player scores EXPR, read with `own` = their figures on the outpost."""

    value: "Expr"
    span: Span = _span()


@dataclass(frozen=True)
class ReturnFrom:
    """`return FIGS from outpost`: those figures on the outpost go back to their owners' supply."""

    figures: tuple[str, ...]
    span: Span = _span()


@dataclass(frozen=True)
class RemoveCatapult:
    """`remove catapult from outpost`: the outpost's catapults go back to the stock."""

    span: Span = _span()


@dataclass(frozen=True)
class RemoveFigures:
    """`remove N of FIGS where C`: each player for whom C holds, clockwise from the current one,
    removes N of their FIGS standing on a feature of the outpost's kinds, choosing which."""

    count: int
    figures: tuple[str, ...]
    where: "Expr | None" = None
    span: Span = _span()


@dataclass(frozen=True)
class PutCatapult:
    """`put catapult on symbols`: a catapult on the outpost each printed symbol names."""

    span: Span = _span()


TrackAction = Union[ScoreEach, ReturnFrom, RemoveCatapult, RemoveFigures, PutCatapult]


@dataclass(frozen=True)
class OnTrackDecl:
    """`on full|overflow|end of TRACKS { ... }` and `on draw { put catapult on symbols }`."""

    event: str  # full | overflow | end | draw
    tracks: tuple[str, ...]  # () for draw
    actions: tuple[TrackAction, ...]
    cites: tuple[Cite, ...] = ()
    span: Span = _span()
    shows: tuple[str, ...] = ()  # `on draw of KIND, ...`: only a drawn tile showing one of these kinds (() any)


@dataclass(frozen=True)
class PermitDecl:
    """`allow FIGURE on KINDS when C` / `forbid FIGURE on KINDS when C`: a placement option of an
    existing figure, added or taken away without restating its `figure` statement."""

    mode: str  # allow | forbid
    figure: str
    on: tuple[str, ...]
    when: "Expr | None" = None
    cites: tuple[Cite, ...] = ()  # all of them, in order
    span: Span = _span()
    anywhere: bool = False  # `allow ... anywhere`: on a KIND feature of any placed tile
    on_cites: tuple[Cite, ...] = ()  # where it may stand
    when_cites: tuple[Cite, ...] = ()  # its condition


@dataclass(frozen=True)
class RecallDecl:
    figure: str
    value: Expr
    cites: tuple[Cite, ...] = ()
    span: Span = _span()


@dataclass(frozen=True)
class InvariantDecl:
    name: str
    test: Expr
    cites: tuple[Cite, ...] = ()
    span: Span = _span()


@dataclass(frozen=True)
class ExampleDecl:
    name: str
    fields: tuple[tuple[str, object], ...]
    cites: tuple[Cite, ...] = ()
    span: Span = _span()

    def get(self, key: str, default: object = None) -> object:
        for k, v in self.fields:
            if k == key:
                return v
        return default


@dataclass(frozen=True)
class Override:
    decl: "Statement"
    span: Span = _span()


@dataclass(frozen=True)
class AssumeDecl:
    """`assume NAME "text" [CITES]`: a reconstruction the rule file states (lost pictures, silent text)."""

    name: str
    text: str
    cites: tuple[Cite, ...] = ()
    span: Span = _span()


@dataclass(frozen=True)
class ClauseDecl:
    """`clause ID "text"`: a rule file's own clause (a house rule's), citable like a rulebook's."""

    clause: str
    text: str
    span: Span = _span()


@dataclass(frozen=True)
class WithDecl:
    """`with MODULE { ... }`: statements that apply only when MODULE is in the rule set (X13)."""
    module: str
    items: tuple["Statement", ...]
    cites: tuple[Cite, ...] = ()
    span: Span = _span()
    without: bool = False  # `without MODULE { ... }`: only when MODULE is not in the rule set


# ------------------------------------------------- the card game (rulebook 001)
@dataclass(frozen=True)
class ColourDecl:
    """`colour NAME "title"`: a colour of the cards, and the row of that colour."""

    name: str
    title: str | None = None
    cites: tuple[Cite, ...] = ()
    span: Span = _span()


@dataclass(frozen=True)
class CardDecl:
    """`card KIND xN [per colour] [value V] [joker|aside]`: N cards of a kind (N of each colour
    with `per colour`); `joker`: no colour, goes into any row; `aside`: in the box, never dealt."""

    kind: str
    count: int
    per_colour: bool = False
    value: int | None = None
    flag: str | None = None  # joker | aside
    cites: tuple[Cite, ...] = ()
    span: Span = _span()


@dataclass(frozen=True)
class CardsTotal:
    """`cards N`: how many cards the box holds in all."""

    count: int
    cites: tuple[Cite, ...] = ()
    span: Span = _span()


@dataclass(frozen=True)
class LayoutDecl:
    """`layout N`: cards laid into the rows at set-up."""

    count: int
    cites: tuple[Cite, ...] = ()
    span: Span = _span()


@dataclass(frozen=True)
class DealRow:
    players: int
    cards: int
    rounds: int
    span: Span = _span()


@dataclass(frozen=True)
class DealDecl:
    """`deal 2 players 6 cards 10 rounds, ...`: the deal by player count."""

    rows: tuple[DealRow, ...]
    cites: tuple[Cite, ...] = ()
    span: Span = _span()


@dataclass(frozen=True)
class FacedownDecl:
    """`facedown first|none`: the first card played to each row each round goes face down (or none does)."""

    mode: str
    cites: tuple[Cite, ...] = ()
    span: Span = _span()


@dataclass(frozen=True)
class DealerDecl:
    """`dealer last_feudal|first_feudal|left`: who deals the next round (the player to their left begins)."""

    mode: str
    cites: tuple[Cite, ...] = ()
    span: Span = _span()


@dataclass(frozen=True)
class FeudalDecl:
    """`feudal NAME N per player`: the figure a player puts at the end of a row to claim cards."""

    name: str
    count: int
    cites: tuple[Cite, ...] = ()
    span: Span = _span()


@dataclass(frozen=True)
class TakeDecl:
    """`take KINDS to pile|chest|removed`: where taken cards of these kinds go."""

    kinds: tuple[str, ...]
    to: str
    cites: tuple[Cite, ...] = ()
    span: Span = _span()


@dataclass(frozen=True)
class MisplacedDecl:
    """`misplaced = EXPR keep KINDS`: a taken card lying in a row of another colour."""

    value: "Expr"
    keep: tuple[str, ...] = ()
    cites: tuple[Cite, ...] = ()
    span: Span = _span()


@dataclass(frozen=True)
class TableDecl:
    """`table NAME = v0, v1, ...`: a score table, read `NAME(n)`."""

    name: str
    values: tuple[int, ...]
    cites: tuple[Cite, ...] = ()
    span: Span = _span()


@dataclass(frozen=True)
class CardScoreDecl:
    """`score NAME on take = EXPR` / `score NAME at end = EXPR` (the card game)."""

    name: str
    when: str  # take | end
    value: "Expr"
    cites: tuple[Cite, ...] = ()
    span: Span = _span()


@dataclass(frozen=True)
class EndDecl:
    """`end when COND`: the game ends after a round when COND holds (besides an empty deck)."""

    when: "Expr"
    cites: tuple[Cite, ...] = ()
    span: Span = _span()


@dataclass(frozen=True)
class TieDecl:
    """`tie = EXPR`: among the players with the most points, the most of EXPR wins."""

    value: "Expr"
    cites: tuple[Cite, ...] = ()
    span: Span = _span()


@dataclass(frozen=True)
class ParamDecl:
    """`param NAME = VALUE in LOW..HIGH`: a named number with its range; every expression that reads
    NAME reads VALUE (or the value `--set NAME=V` gives); `tessera tune` searches the range."""

    name: str
    value: int
    low: int
    high: int
    cites: tuple[Cite, ...] = ()
    span: Span = _span()


CARD_STATEMENTS = (ColourDecl, CardDecl, CardsTotal, LayoutDecl, DealDecl, FacedownDecl, DealerDecl, FeudalDecl, TakeDecl,
                   MisplacedDecl, TableDecl, CardScoreDecl, EndDecl, TieDecl)


Statement = Union[
    Requires, Extends, Total, CompositionDecl, Players, EdgeDecl, FeatureDecl, FigureDecl, TileDecl,
    StartDecl, DeckDecl, BoxDecl, PlacementDecl, CompleteDecl, ScoreDecl, OwnersDecl, ReturnDecl,
    StateDecl, OnDecl, AwardDecl, RecallDecl, PermitDecl, CaptureDecl, ExchangeDecl, RansomDecl, TrackDecl,
    OnPutDecl, OnTrackDecl, OnRoundDecl, InvariantDecl,
    ExampleDecl, ClauseDecl, AssumeDecl, Override, WithDecl,
    ColourDecl, CardDecl, CardsTotal, LayoutDecl, DealDecl, FacedownDecl, DealerDecl, FeudalDecl, TakeDecl,
    MisplacedDecl, TableDecl, CardScoreDecl, EndDecl, TieDecl, ParamDecl,
]



@dataclass(frozen=True)
class Module:
    name: str
    title: str | None
    items: tuple[Statement, ...]
    cites: tuple[Cite, ...] = ()
    span: Span = _span()
    file: str = field(default="<input>", compare=False)

    def of_type(self, cls: type) -> list:
        return [i for i in self.items if isinstance(i, cls)]
