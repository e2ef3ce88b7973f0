"""The card game family (rulebook 001): its statements collected into a `CardGame`, and checked.

The loader hands every card statement (`colour`, `card`, `cards`, `layout`, `deal`, `facedown`, `dealer`,
`feudal`, `take`, `misplaced`, `table`, `score ... on take|at end`, `end when`, `tie`) to
`collect`, and `check` replaces the tile checks for a rule set that holds them
(docs/language.md section 7).  Modules, clauses, `assume`, `players`, `example`, `override`
and `with` are the front-end's own and work the same in both families.

Card expressions read quantities of the player taking cards or being scored:

  taken(K)    cards of kind K in the claim being taken (misplaced cards kept included)
  values(K)   the printed values of those taken cards, added up
  held(K)     cards of kind K the player owns after the take (their pile and chest)
  chest(K)    cards of kind K in the player's chest
  colours(K)  distinct colours among the cards of kind K the player owns
  players, round, best (the highest score; in `end when`), TABLE(n), min, max
"""
from __future__ import annotations

from dataclasses import dataclass, field

from . import ast as A
from .exprtype import Leaves, expect

DESTINATIONS = ("pile", "chest", "removed")  # where taken cards go (`take KINDS to ...`)
FACEDOWN = ("first", "none")
DEALER = ("last_feudal", "first_feudal", "left")  # who deals the next round (`dealer`)
KIND_FUNCTIONS = ("taken", "values", "held", "chest", "colours")
# what each context may read: card functions, plain names
CONTEXTS: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    "take": (frozenset(KIND_FUNCTIONS), frozenset({"players", "round"})),
    "end": (frozenset({"values", "held", "chest", "colours"}), frozenset({"players"})),
    "tie": (frozenset({"values", "held", "chest", "colours"}), frozenset({"players"})),
    "misplaced": (frozenset(), frozenset({"players"})),
    "endwhen": (frozenset(), frozenset({"players", "round", "best"})),
}
CONTEXT_DOC = {"take": "a `score ... on take`", "end": "a `score ... at end`", "tie": "`tie`",
               "misplaced": "`misplaced`", "endwhen": "`end when`"}
NAME_DOC = {"players": "the number of players", "round": "the round being played (1 = the first)",
            "best": "the highest score"}


@dataclass(frozen=True)
class CardType:
    """One printed kind of card: `red.people.2`, `red.city`, `dragon`."""

    name: str
    kind: str
    colour: str | None  # None: a joker (any row) or a card set aside
    value: int
    count: int
    joker: bool
    aside: bool
    decl: A.CardDecl


@dataclass
class CardGame:
    colours: dict[str, A.ColourDecl] = field(default_factory=dict)
    cards: list[A.CardDecl] = field(default_factory=list)
    total: A.CardsTotal | None = None
    layout: A.LayoutDecl | None = None
    deal: A.DealDecl | None = None
    facedown: A.FacedownDecl | None = None
    dealer: A.DealerDecl | None = None
    feudal: A.FeudalDecl | None = None
    takes: list[A.TakeDecl] = field(default_factory=list)
    misplaced: A.MisplacedDecl | None = None
    tables: dict[str, A.TableDecl] = field(default_factory=dict)
    scores: dict[tuple[str, str], A.CardScoreDecl] = field(default_factory=dict)  # (name, take|end)
    end: A.EndDecl | None = None
    tie: A.TieDecl | None = None

    # -- derived ----------------------------------------------------------
    def kinds(self) -> list[str]:
        return list(dict.fromkeys(c.kind for c in self.cards))

    def types(self) -> list[CardType]:
        """Every printed card type, in statement order (per colour: in colour order)."""
        out = []
        valued = {c.kind for c in self.cards if c.value is not None}
        for c in self.cards:
            cols = list(self.colours) if c.per_colour else [None]
            for col in cols:
                parts = ([col] if col else []) + [c.kind] + ([str(c.value)] if c.kind in valued else [])
                out.append(CardType(".".join(parts), c.kind, col, c.value or 0, c.count, c.flag == "joker",
                                    c.flag == "aside", c))
        return out

    def count(self) -> int:
        return sum(t.count for t in self.types())

    def in_play(self) -> int:
        """Cards shuffled into the deck at set-up (all but those set aside)."""
        return sum(t.count for t in self.types() if not t.aside)

    def destination(self, kind: str) -> str:
        """Where a taken card of this kind goes (`take ... to`); the pile when no statement says."""
        for t in self.takes:
            if kind in t.kinds:
                return t.to
        return "pile"

    def deal_for(self, players: int) -> A.DealRow | None:
        for r in (self.deal.rows if self.deal else ()):
            if r.players == players:
                return r
        return None

    def clause_of(self, decl, default: str = "") -> str:
        cites = getattr(decl, "cites", ()) if decl is not None else ()
        return cites[0].clause if cites else default


def card_key(decl) -> tuple | None:
    """What an `override` of a card statement replaces."""
    match decl:
        case A.ColourDecl(name=n):
            return ("colour", n)
        case A.CardDecl(kind=k, value=v):
            return ("card", k) if v is None else ("card", k, v)
        case A.CardsTotal():
            return ("cards",)
        case A.LayoutDecl():
            return ("layout",)
        case A.DealDecl():
            return ("deal",)
        case A.FacedownDecl():
            return ("facedown",)
        case A.DealerDecl():
            return ("dealer",)
        case A.FeudalDecl():
            return ("feudal",)
        case A.TakeDecl(kinds=k):
            return ("take", *k)
        case A.MisplacedDecl():
            return ("misplaced",)
        case A.TableDecl(name=n):
            return ("table", n)
        case A.CardScoreDecl(name=n, when=w):
            return ("card score", n, "on take" if w == "take" else "at end")
        case A.EndDecl():
            return ("end when",)
        case A.TieDecl():
            return ("tie",)
    return None


def collect(b, item, override: bool) -> None:
    """Add one card statement to the rule set's CardGame (`b` is the loader's Builder; the
    override key was already checked there)."""
    cg = b.rs.cards
    if cg is None:
        cg = b.rs.cards = CardGame()
    match item:
        case A.ColourDecl():
            cg.colours[item.name] = item
        case A.CardDecl():
            key = card_key(item)
            cg.cards = [c for c in cg.cards if card_key(c) != key] + [item] if override else cg.cards + [item]
        case A.CardsTotal():
            cg.total = item
        case A.LayoutDecl():
            cg.layout = item
        case A.DealDecl():
            cg.deal = item
        case A.FacedownDecl():
            cg.facedown = item
        case A.DealerDecl():
            cg.dealer = item
        case A.FeudalDecl():
            cg.feudal = item
        case A.TakeDecl():
            cg.takes = [t for t in cg.takes if t.kinds != item.kinds] + [item]
        case A.MisplacedDecl():
            cg.misplaced = item
        case A.TableDecl():
            cg.tables[item.name] = item
        case A.CardScoreDecl():
            cg.scores[(item.name, item.when)] = item
        case A.EndDecl():
            cg.end = item
        case A.TieDecl():
            cg.tie = item


# ------------------------------------------------------------------ checks
def check(b) -> None:
    """Every check of a card game's statements, each mistake a diagnostic (none raises)."""
    from .diagnostics import did_you_mean

    rs, cg = b.rs, b.rs.cards
    where = rs.modules[-1].span if rs.modules else A.Span()
    tile_stuff = rs.tiles or rs.features or rs.figures or rs.start is not None
    if tile_stuff:
        first = (rs.tiles[0].decl.span if rs.tiles else next(iter(rs.features.values())).span if rs.features
                 else next(iter(rs.figures.values())).span if rs.figures else rs.start.span if rs.start else where)
        b.err(first, "these rules mix the tile game with the card game (rulebook 001): a rule set is one game; "
                     "keep the card statements in a module of their own", "family")
    if not cg.colours:
        b.err(where, "a card game needs its colours: `colour NAME \"title\"`, one per row", "missing")
    if not cg.cards:
        b.err(where, "a card game needs its cards: `card KIND xN [per colour] [value V] [joker|aside]`", "missing")
    kinds = set(cg.kinds())
    for c in cg.cards:
        if c.count <= 0:
            b.err(c.span, f"card `{c.kind}`: a count of {c.count}; write at least x1", "range", word=f"x{c.count}")
        if c.per_colour and c.flag is not None:
            b.err(c.span, f"card `{c.kind}`: a `{c.flag}` has no colour, so it cannot be `per colour`", "conflict")
        if c.kind in cg.colours:
            b.err(c.span, f"`{c.kind}` names a colour; a card kind needs another name", "duplicate", word=c.kind)
        if c.value is not None and c.value < 0:
            b.err(c.span, "a card's value cannot be negative", "range")
    seen: dict[str, A.CardDecl] = {}
    for c in cg.cards:  # one kind: all coloured, or all jokers, or all aside
        prev = seen.setdefault(c.kind, c)
        if (prev.per_colour, prev.flag) != (c.per_colour, c.flag):
            b.err(c.span, f"card `{c.kind}` is declared differently at {prev.span}: every card of a kind is "
                          f"`per colour`, or a joker, or aside, alike", "conflict")
        elif prev is not c and prev.value == c.value:
            b.err(c.span, f"card `{c.kind}` with value {c.value} is already declared at {prev.span}; write "
                          f"`override` to replace it", "duplicate")
    if cg.total is not None and cg.cards and cg.count() != cg.total.count:
        parts = ", ".join(f"{t.name} x{t.count}" for t in cg.types()[:4])
        b.err(cg.total.span, f"`cards {cg.total.count}`, but the `card` statements make {cg.count()} "
                             f"({parts}, ...)", "composition")
    if cg.deal is None:
        b.err(where, "a card game needs its deal: `deal 2 players 6 cards 10 rounds, ...`", "missing")
    if cg.feudal is None:
        b.err(where, "a card game needs the figure that claims cards: `feudal NAME 1 per player`", "missing")
    elif cg.feudal.count < 1:
        b.err(cg.feudal.span, "each player needs at least 1 feudal per round, or no card is ever taken", "range")
    if cg.facedown is not None and cg.facedown.mode not in FACEDOWN:
        b.err(cg.facedown.span, f"`facedown {cg.facedown.mode}`: say `facedown first` (the first card of each row "
                                f"each round) or `facedown none`", "unknown-name")
    if cg.dealer is not None and cg.dealer.mode not in DEALER:
        b.err(cg.dealer.span, f"`dealer {cg.dealer.mode}`: say `dealer last_feudal` (the last to put a feudal deals "
                              f"next), `dealer first_feudal` or `dealer left` (the deal passes clockwise)"
                              f"{did_you_mean(cg.dealer.mode, DEALER)}", "unknown-name", word=cg.dealer.mode)
    layout = cg.layout.count if cg.layout else 0
    if layout < 0:
        b.err(cg.layout.span, "a layout cannot be negative", "range")
    lo, hi = rs.player_range()
    if cg.deal is not None:
        counts: dict[int, A.DealRow] = {}
        for r in cg.deal.rows:
            if r.players in counts:
                b.err(r.span, f"the deal for {r.players} players is already given at {counts[r.players].span}", "duplicate")
            counts[r.players] = r
            if r.cards < 1 or r.rounds < 1:
                b.err(r.span, f"{r.players} players: a deal needs at least 1 card and 1 round", "range")
            if not lo <= r.players <= hi:
                b.err(r.span, f"a deal for {r.players} players, but these rules are for {lo} to {hi} players "
                              f"(`players`)", "range")
            elif cg.cards and r.players * r.cards * r.rounds > cg.in_play() - layout:
                b.err(r.span, f"{r.players} players x {r.cards} cards x {r.rounds} rounds is "
                              f"{r.players * r.cards * r.rounds} cards, but the deck holds {cg.in_play() - layout} "
                              f"after the layout", "range")
        _missing_deals(b, rs, cg.deal, counts, lo, hi)
    for t in cg.takes:
        if t.to not in DESTINATIONS:
            b.err(t.span, f"`take ... to {t.to}`: cards go to one of {', '.join(DESTINATIONS)}"
                          f"{did_you_mean(t.to, DESTINATIONS)}", "unknown-name", word=t.to)
        for k in t.kinds:
            if k not in kinds:
                b.err(t.span, f"`take`: no card kind `{k}`{did_you_mean(k, kinds)}", "unknown-name", word=k)
    if cg.misplaced is not None:
        _expr(b, cg.misplaced.value, "misplaced", "int")
        for k in cg.misplaced.keep:
            if k not in kinds:
                b.err(cg.misplaced.span, f"`misplaced ... keep`: no card kind `{k}`{did_you_mean(k, kinds)}", "unknown-name", word=k)
    for t in cg.tables.values():
        if not t.values:
            b.err(t.span, f"table `{t.name}` needs at least one value", "range", word=t.name)
        if t.name in kinds or t.name in KIND_FUNCTIONS or t.name in ("min", "max"):
            b.err(t.span, f"table `{t.name}`: the name is taken (a card kind or a function)", "duplicate", word=t.name)
    for s in cg.scores.values():
        _expr(b, s.value, "take" if s.when == "take" else "end", "int")
    if cg.end is not None:
        _expr(b, cg.end.when, "endwhen", "bool")
    if cg.tie is not None:
        _expr(b, cg.tie.value, "tie", "int")


def _expr(b, e: A.Expr, ctx: str, want: str) -> str:
    """The type of a card expression in context `ctx` (CONTEXTS), checked by the one type checker
    (dsl/exprtype.py) with the card game's leaves."""
    return expect(b, e, ctx, want, CARD_LEAVES)


class CardLeaves(Leaves):
    """The card game's leaves: the names and kind functions of context `ctx`, its tables, min and max."""

    def var(self, b, e: A.Var, ctx: str) -> str:
        from .diagnostics import did_you_mean

        n = e.name
        _, names = CONTEXTS[ctx]
        if n in names:
            return "int"
        if n in NAME_DOC:
            b.err(e.span, f"`{n}` ({NAME_DOC[n]}) has no meaning in {CONTEXT_DOC[ctx]}", "context")
        else:
            b.err(e.span, f"unknown name `{n}` in {CONTEXT_DOC[ctx]}{did_you_mean(n, sorted(names))}", "unknown-name")
        return "?"

    def call(self, b, e: A.Call, ctx: str) -> str:
        from .diagnostics import did_you_mean

        cg = b.rs.cards
        fns, _ = CONTEXTS[ctx]
        fn, args = e.fn, e.args
        if fn in ("min", "max") or fn in cg.tables:
            want = 2 if fn in ("min", "max") else 1
            if len(args) != want:
                b.err(e.span, f"`{fn}` takes {want} argument{'s' if want > 1 else ''}, not {len(args)}", "arity")
            for a in args:
                _expr(b, a, ctx, "int")
            return "int"
        if fn in KIND_FUNCTIONS:
            if fn not in fns:
                b.err(e.span, f"`{fn}(...)` has no meaning in {CONTEXT_DOC[ctx]}", "context")
            kinds = cg.kinds()
            if len(args) != 1 or not isinstance(args[0], A.Var) or args[0].name not in kinds:
                nm = args[0].name if len(args) == 1 and isinstance(args[0], A.Var) else "this"
                b.err(e.span, f"`{fn}` takes a card kind, and `{nm}` is not one{did_you_mean(nm, kinds)}",
                      "unknown-name", word=nm if nm != "this" else None)
            return "int"
        b.err(e.span, f"unknown function `{fn}`{did_you_mean(fn, [*KIND_FUNCTIONS, *cg.tables, 'min', 'max'])}",
              "unknown-name", word=fn)
        return "?"

    def state(self, b, e: A.StateOf, ctx: str) -> str:
        b.err(e.span, "a card game keeps no `state`: its quantities are read with taken(K), held(K), ...", "context")
        return "?"


CARD_LEAVES = CardLeaves()


def table_value(values: tuple[int, ...], n: int) -> int:
    """A score table read at n: its entry, the last one beyond its end, the first below 0."""
    if not values:
        return 0
    return values[max(0, min(n, len(values) - 1))]


def _missing_deals(b, rs, deal: A.DealDecl, counts: dict, lo: int, hi: int) -> None:
    """The player counts of `lo..hi` without a deal, as one error (never one per count: an
    `override players 2..1000000` is one mistake, not 999,995) at the line that made them:
    the `players` statement when a later module than the deal's set it, else the deal."""
    given = sorted(n for n in counts if lo <= n <= hi)
    runs, start = [], lo
    for n in [*given, hi + 1]:  # the gaps between the counts given
        if n > start:
            runs.append((start, n - 1))
        start = max(start, n + 1)
    if not runs:
        return
    missing = sum(b2 - a + 1 for a, b2 in runs)
    order = {m.file: i for i, m in enumerate(rs.modules)}
    players = rs.players
    blame_players = players is not None and order.get(players.span.file, -1) > order.get(deal.span.file, -1)
    shown = ", ".join(f"{a}" if a == b2 else f"{a}..{b2}" for a, b2 in runs[:6]) + (", ..." if len(runs) > 6 else "")
    whose = (f"`players {lo}..{hi}` here, but the deal at {deal.span} gives "
             f"{', '.join(str(n) for n in sorted(counts)) or 'none'}" if blame_players
             else f"these rules are for {lo} to {hi}")
    if missing == 1:
        what = f"no deal for {runs[0][0]} players ({whose})"
    else:
        what = f"{missing:,} player counts have no deal: {shown} ({whose})"
    b.err(players.span if blame_players else deal.span, what, "missing")
