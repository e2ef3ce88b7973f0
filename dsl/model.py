"""A rule set: several modules combined, overrides applied, names resolved.

`load_rule_set` is the one entry point the compiler and the verifiers use; the
checker (`dsl.check`) calls the same code and reports what it found.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from . import ast as A
from .evaluate import evaluate
from .diagnostics import Diagnostic

BUNDLED_RULES = Path(__file__).resolve().parent.parent / "rules"
DEFAULT_PLAYERS = (2, 5)  # the seats of a rule set that states no `players` (the base game's)
MOST_PLAYERS = 6  # the most seats any rule set may state


@dataclass(frozen=True)
class Feature:
    """One feature printed on a tile type (rotation 0)."""

    index: int
    kind: str
    places: tuple[str, ...]
    shields: int
    borders: tuple[int, ...]  # indices of features on the same tile
    crosses: int | None
    decl: A.TileFeature

    def marks_of(self, name: str) -> int:
        """How many marks called `name` are printed on this feature (`marks(NAME)`)."""
        return sum(n for m, n in self.decl.marks if m == name)


@dataclass(frozen=True)
class TileType:
    """A drawable kind of tile; a tile's variants are separate types with the same name."""

    id: str  # unique: "E" or "E+garden"
    name: str  # what a game record calls it
    variant: str | None
    module: str
    count: int
    edges: tuple[str, str, str, str]
    features: tuple[Feature, ...]
    decl: A.TileDecl

    @property
    def cells(self) -> tuple[int, int] | None:
        """(W, H) of a tile covering several cells (`cells WxH`), else None."""
        return self.decl.cells

    @property
    def symbols(self) -> tuple[str, ...]:
        """The symbols printed on the tile, left to right (`symbols ...`; `any` is the "?")."""
        return self.decl.symbols


@dataclass
class RuleSet:
    modules: list[A.Module] = field(default_factory=list)
    edges: dict[str, A.EdgeDecl] = field(default_factory=dict)
    features: dict[str, A.FeatureDecl] = field(default_factory=dict)
    figures: dict[str, A.FigureDecl] = field(default_factory=dict)
    tiles: list[TileType] = field(default_factory=list)
    start: A.StartDecl | None = None
    decks: list[A.DeckDecl] = field(default_factory=list)
    boxed: list[A.BoxDecl] = field(default_factory=list)
    placement: dict[str, A.PlacementDecl] = field(default_factory=dict)
    complete: dict[str, A.CompleteDecl] = field(default_factory=dict)
    scores: dict[tuple[str, str], A.ScoreDecl] = field(default_factory=dict)
    figure_scores: dict[tuple[str, str, str], A.ScoreDecl] = field(default_factory=dict)  # (kind, when, figure)
    # `score KIND put FIGURE` / `score KIND join FIGURE`: (kind, put|join, figure)
    trigger_scores: dict[tuple[str, str, str], A.ScoreDecl] = field(default_factory=dict)
    permits: list[A.PermitDecl] = field(default_factory=list)  # `allow` / `forbid`, in load order
    owners: A.OwnersDecl | None = None
    returns: dict[str, A.ReturnDecl] = field(default_factory=dict)
    states: dict[str, A.StateDecl] = field(default_factory=dict)
    ons: list[A.OnDecl] = field(default_factory=list)
    captures: dict[str, A.CaptureDecl] = field(default_factory=dict)  # by the figure whose putting allows it
    exchange: A.ExchangeDecl | None = None
    ransom: A.RansomDecl | None = None
    # outposts (Siege and Defense): the tracks, the extra figures put on them, what happens on them
    tracks: dict[str, A.TrackDecl] = field(default_factory=dict)
    outpost_puts: list[A.OnPutDecl] = field(default_factory=list)
    track_ons: list[A.OnTrackDecl] = field(default_factory=list)
    # the statements declared in one place (dsl/ast.py `Declared`, `collect`), by class, in load order
    declared: dict[type, list] = field(default_factory=dict)
    awards: dict[str, A.AwardDecl] = field(default_factory=dict)
    recalls: dict[str, A.RecallDecl] = field(default_factory=dict)
    players: A.Players | None = None
    invariants: list[A.InvariantDecl] = field(default_factory=list)
    examples: list[A.ExampleDecl] = field(default_factory=list)
    totals: list[tuple[str, A.Total]] = field(default_factory=list)
    compositions: list[tuple[str, A.CompositionDecl]] = field(default_factory=list)  # (module, its statement)
    overridden_tiles: set[str] = field(default_factory=set)  # modules whose tiles a later module replaced
    overrides: dict[tuple, A.Span] = field(default_factory=dict)  # override key -> the house rule's `override`
    clauses: dict[str, A.ClauseDecl] = field(default_factory=dict)  # the rule files' own clauses (house rules)
    assumptions: list[tuple[str, A.AssumeDecl]] = field(default_factory=list)  # (module, statement)
    withs: list[tuple[str, A.WithDecl]] = field(default_factory=list)  # `with` blocks that applied (module, block)
    # the card game family (rulebook 001): its statements, collected by dsl/cards.py; None for a tile game
    cards: "object | None" = None
    params: dict[str, A.ParamDecl] = field(default_factory=dict)  # `param`s, with the value in force (dsl/params.py)

    def all(self, cls: type) -> list:
        """The statements of a declared class (dsl/ast.py `Declared`) the rule set holds, in load order
        (an `override` of one in the place of those it replaced)."""
        return self.declared.get(cls, [])

    @property
    def family(self) -> "Family":
        """The rule set's game family (dsl/family.py), chosen here once: the card game's when its
        statements are the card game's (dsl/cards.py collected them), else the tile game's."""
        from .family import Family

        return Family.named("cards" if self.cards is not None else "tiles")

    # -- derived facts -----------------------------------------------------
    @property
    def names(self) -> list[str]:
        return [m.name for m in self.modules]

    def half_kinds(self) -> set[str]:
        """Feature kinds drawn on half-sides: declared `halves`, or the outer parts of 3-part edges."""
        out = {k for k, f in self.features.items() if f.halves}
        for e in self.edges.values():
            if len(e.parts) == 3:
                out.add(e.parts[0])
                out.add(e.parts[2])
        return out

    def player_range(self) -> tuple[int, int]:
        """The numbers of players these rules are for: their `players` statement, else DEFAULT_PLAYERS."""
        return (self.players.low, self.players.high) if self.players else DEFAULT_PLAYERS

    def centre_kinds(self) -> set[str]:
        return {k for k, f in self.features.items() if f.centre}

    def side_kinds(self) -> set[str]:
        return set(self.features) - self.half_kinds() - self.centre_kinds()

    def all_scores(self) -> list[A.ScoreDecl]:
        """Every score rule: per feature kind, and per figure (`score K when by F`)."""
        return [*self.scores.values(), *self.figure_scores.values(), *self.trigger_scores.values()]

    def corner_figures(self) -> list[str]:
        """Figures that stand on a corner (`figure ... at corner`): they do not count toward ownership."""
        return [n for n, f in self.figures.items() if f.at == "corner"]

    def may_stand(self, figure: str) -> set[str]:
        """Kinds a figure may stand on: its `on` list and every `allow` for it."""
        fig = self.figures.get(figure)
        out = set(fig.on) if fig else set()
        for p in self.permits:
            if p.mode == "allow" and p.figure == figure:
                out.update(p.on)
        return out

    def figure_counts(self, name: str) -> dict[int, int]:
        """How many of figure `name` each player has, for every number of players the rules allow
        (`figure F N per player`, or `figure F (EXPR) per player` read with `players`)."""
        fig = self.figures[name]
        lo, hi = self.player_range()
        if fig.count_expr is None:
            return {n: fig.count for n in range(lo, hi + 1)}
        return {n: int(evaluate(fig.count_expr, {"players": n})) for n in range(lo, hi + 1)}

    def track_rows(self, name: str) -> dict[int, int]:
        """How many slots the row of track `name` has, for every number of players the rules allow."""
        tr = self.tracks[name]
        lo, hi = self.player_range()
        if tr.row_expr is None:
            return {n: tr.row for n in range(lo, hi + 1)}
        return {n: int(evaluate(tr.row_expr, {"players": n})) for n in range(lo, hi + 1)}

    def mark_names(self) -> list[str]:
        """Every mark some tile prints (`marks NAME`), sorted: what `marks(NAME)` may ask for."""
        return sorted({m for t in self.tiles for f in t.features for m, _ in f.decl.marks})

    def symbol_names(self) -> list[str]:
        """Every symbol some tile prints (`symbols ...`), sorted."""
        return sorted({s for t in self.tiles for s in t.symbols})

    def symbol_targets(self) -> set[str] | None:
        """What a printed symbol may name besides `any`, or None while these rules declare
        nothing a symbol names (then any identifier is accepted).  The Siege's tracks (the
        outposts) extend this: a symbol names a declared track."""
        return set(self.tracks) if self.tracks else None

    def tile_types(self, name: str) -> list[TileType]:
        return [t for t in self.tiles if t.name == name]


# ----------------------------------------------------------------- keys
def override_key(decl: object) -> tuple | None:
    """What an `override` replaces: statements with the same key."""
    if isinstance(decl, A.Declared):
        return decl.override_key() if decl.collect else None
    match decl:
        case A.FigureDecl(name=n):
            return ("figure", n)
        case A.CompleteDecl(kind=k):
            return ("complete", k)
        case A.ScoreDecl(kind=k, when=w, by=by, figure=fig) if fig is not None:
            return ("score", k, w, fig)
        case A.ScoreDecl(kind=k, when=w, by=by):
            return ("score", k, w) if by is None else ("score", k, w, by)
        case A.PermitDecl(mode=m, figure=f, cites=c):
            return (m, f, tuple(x.clause for x in c))
        case A.OwnersDecl():
            return ("owners",)
        case A.CaptureDecl(after=a):
            return ("capture", a)
        case A.RansomDecl():
            return ("ransom",)
        case A.OnDecl(event=e, of=o, cites=c):
            return ("on", e, o, tuple(x.clause for x in c))
        case A.AwardDecl(state=s):
            return ("award", s)
        case A.TrackDecl(name=n):
            return ("track", n)
        case A.OnPutDecl(figures=f, kinds=k, cites=c):
            return ("on", "put", f, k, tuple(x.clause for x in c))
        case A.OnTrackDecl(event=e, tracks=t, cites=c):
            return ("on", e, t, tuple(x.clause for x in c))
        case A.RecallDecl(figure=f):
            return ("recall", f)
        case A.StateDecl(name=n):
            return ("state", n)
        case A.Players():
            return ("players",)
        case A.ParamDecl(name=n):
            return ("param", n)
        case A.ReturnDecl(figure=f):
            return ("return", f)
        case A.StartDecl():
            return ("start",)
        case A.DeckDecl(name=n):
            return ("deck", n)
    if isinstance(decl, A.CARD_STATEMENTS):
        from .cards import card_key

        return card_key(decl)
    return None


def describe_key(key: tuple) -> str:
    head, *rest = key
    if head == "score":
        if rest[1] in ("put", "join"):
            return f"score {rest[0]} {rest[1]} {rest[2]}"
        return f"score {rest[0]} {rest[1]}" + (f" by {rest[2]}" if len(rest) > 2 else "")
    if head in ("allow", "forbid"):
        return f"{head} {rest[0]}" + (f" [{', '.join(rest[1])}]" if rest[1] else "")
    if head == "on" and rest[0] == "put":
        return f"on put {', '.join(rest[1])}" + (f" of {', '.join(rest[2])}" if rest[2] else "")
    if head == "on":
        of = ", ".join(rest[1]) if isinstance(rest[1], tuple) else rest[1]
        return f"on {rest[0]}" + (f" of {of}" if of else "")
    return " ".join([head, *[str(r) for r in rest if r is not None]])
