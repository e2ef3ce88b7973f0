"""Lowering: a rule set -> a plain engine specification.

Every decision about what the engine does is made here -- the deck order, the
tile pool, which placement checks a tile needs (deduplicated by what they
emit), the clause each refusal cites, the names of constants, and every rule
expression turned into Python by `pyexpr`.  `codegen` then only writes the
specification out as text (as Jinja2's CodeGenerator writes what its earlier
passes decided), and records where each line came from.

Nothing here is taken from a rule file as Python code: names of kinds, figures
and edge codes become constants only when they are plain upper-case
identifiers that clash with nothing, strings stay data.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from ..dsl import ast as A
from ..dsl import multicell
from ..dsl.model import BUNDLED_RULES, RuleSet
from .pyexpr import Scope, emit, free_names


class CompileError(Exception):
    def __init__(self, span: A.Span, message: str, code: str = "compile"):
        super().__init__(message)
        self.span = span
        self.message = message
        self.code = code


def where(span: A.Span) -> str:
    """`file:line` of a rule, the same wherever the compiler runs: bundled rules as
    `rules/x.tess`, other files relative to the working folder, else by name."""
    path = Path(span.file).resolve()
    for root in (BUNDLED_RULES.parent, Path.cwd().resolve()):
        try:
            return f"{path.relative_to(root).as_posix()}:{span.line}"
        except ValueError:
            continue
    return f"{path.name}:{span.line}"


def _first(cites, default: str = "") -> str:
    return cites[0].clause if cites else default


def _src(e: A.Expr) -> str:
    from ..dsl.fmt import format_expr
    return format_expr(e)


# ----------------------------------------------------------------- the specification
@dataclass(frozen=True)
class Const:
    """A named integer the generated module defines (`ROAD = 5`)."""
    name: str
    value: int
    title: str  # what it stands for, in the rule file's words


@dataclass
class Func:
    """A generated function whose body is one rule expression: `def fn(params): return expr`."""
    name: str
    params: str
    header: str  # the rule, as the rule file says it (a comment)
    span: A.Span  # the statement
    expr: str
    expr_span: A.Span
    bound: str = ""  # a number the game keeps or scores ("points", "state `s`"): checked against MAX_VALUE


@dataclass
class Step:
    """One refusal test of a placement check: `if guard: if not test: return (message, clause)`."""
    header: str
    span: A.Span
    guard: str | None
    test: str
    test_span: A.Span
    message: str
    clause: str


@dataclass
class PlaceCheck:
    name: str
    steps: list[Step]


@dataclass
class FigureCond:
    figure: Const
    header: str
    span: A.Span
    cond: str  # Python over g, o, fi, cell, roots, figures (the figure's own `when`, its `allow`s and `forbid`s)
    corner: bool = False  # `at corner`: tried on each corner of the tile where four tiles meet (the barn)
    used: frozenset = frozenset()  # the names cond reads (roots, figures, count ...)
    mask_cond: str | None = None  # cond over the masks of occupied parts (FIG_MASKS), when it can be
    # the condition the runtime asks (runtime/figures.py options_for): over the masks (g, o, fi, nbr,
    # fmask) when every figure's can be, else over the features it would join (g, o, cell, fi, roots, figures)
    func: Func | None = None


@dataclass
class Forbid:
    """`forbid FIGURE on KINDS when C`: a refusal cites it when it holds."""
    figure: Const
    kinds: tuple  # Consts
    cond: str  # Python over g, o, fi, cell, roots, figures
    src: str  # C as the rule file says it
    clause: str
    span: A.Span
    used: frozenset = frozenset()
    func: Func | None = None  # cond as a function of (g, o, cell, fi, roots, figures): runtime/figures.py forbidden_by


@dataclass
class AnywherePart:
    """One statement that lets a figure stand on KINDS of any placed tile: `figure ... on KINDS
    anywhere` or `allow FIGURE on KINDS anywhere`; a refusal cites its clauses."""
    kinds: tuple  # Consts
    src: str  # its condition as the rule file says it ("" without `when`)
    header: str
    on_clause: str  # where it may stand
    when_clause: str  # its condition
    span: A.Span


@dataclass
class Anywhere:
    """A figure that may go on a feature of any placed tile (TOWER-TURN-1)."""
    figure: Const
    kinds: tuple  # Consts: every kind some part opens
    cond: FigureCond  # Python over g, r, k (the kind of root r): some part holds and no `forbid` does
    parts: tuple  # AnywherePart, in the order the rules declare them
    forbids: tuple  # Forbid, with conditions over g, r


@dataclass
class OnBlock:
    """`on place|complete [of K] [where C]`: state assignments, as (state index, name, expr, span)."""
    header: str
    span: A.Span
    cond: str  # "" when the rule always applies
    sets: list[tuple[int, str, str, A.Span, str | None]]  # ..., the seat (`set NAME of SEAT`) or None
    clause: str
    reads_kinds: bool = False  # cond tests `kinds`, the kinds on the placed tile


@dataclass
class EngineSpec:
    modules: tuple[str, ...]
    players: tuple[int, int]
    players_span: A.Span | None
    kinds: list[tuple[Const, bool, bool]]  # (constant, centre, half)
    edges: list[tuple[Const, str]]  # (constant, title)
    tiles: list  # (index, name, variant, module, copies, edge consts, features, span, symbols)
    tile_ids: dict[str, list[int]]
    tile_clauses: dict[str, str]  # tile name -> the clause of its composition
    figures: list[tuple[Const, object, tuple[Const, ...]]]  # (constant, per player or {players: n}, kinds)
    fig_on: list[tuple[Const, ...]]
    fig_clauses: list[tuple[str, str, str]]  # (supply, where it stands, when)
    fig_when_src: list[str]
    returns: list[Const]
    start: tuple[int, int, int, int] | None
    start_span: A.Span | None
    deck_names: list[str]
    decks: list[list[int]]
    deck_last: list[list[int]]
    deck_clauses: list[str]  # a tile named out of its deck's turn
    last_clauses: list[str]  # a `last` tile named while others of its deck remain
    box_clauses: dict[str, str]  # tile name -> clause of the `box` statement that removed a copy
    clause_bag: str
    clause_end: str
    states: list[tuple[str, Func]]
    discard: bool
    discard_span: A.Span | None
    clauses: dict[str, str]  # discard, adjacent, matching, follow
    place_checks: list[PlaceCheck]
    tile_checks: list[str | None]  # per tile type, its check's name
    complete: list[tuple[Const, Func]]
    score_complete: list[tuple[Const, Func, str]]
    score_end: list[tuple[Const, Func, str]]
    score_by: list[tuple[str, Const, Const, Func, str]]
    owners_most: bool
    owners_span: A.Span | None
    awards: list[tuple[int, Func, str, str]]  # (state index, fn, clause, name)
    recalls: list[tuple[Const, Func, str]]
    figure_conds: list[FigureCond]
    need_roots: bool
    need_figures: bool
    # every figure's condition compares `figures` and `count(F)` with 0 only: whether a feature is
    # free (holds no F) is read from masks of the occupied parts around the cell (FIG_MASKS)
    fig_masks: bool
    mask_counts: list  # the figures F whose `count(F)` a condition reads: a mask each (FIG_MASK_COUNTS)
    # ... and reads nothing else (no state, no players, no completed(K)): which figures may go on a
    # placement is then a function of the tile's orientation, those masks, which figures are in
    # supply and the corners ready at the cell, so the listing keeps it once per such key (FIG_PURE)
    fig_pure: bool
    fig_kinds: list[tuple[Const, ...]]  # per figure, every kind it may stand on (`on` and each `allow`)
    fig_corner: list[Const]  # figures `at corner` (the barn): they make nobody an owner
    score_put: list[tuple[Const, Const, Func, str]]  # `score KIND put FIGURE`: (kind, figure, fn, clause)
    score_join: list[tuple[Const, Const, Func, str]]  # `score KIND join FIGURE`
    forbids: list[Forbid]
    on_place: list[OnBlock]
    on_complete: list[OnBlock]
    # figures that may go on a feature of any placed tile (`on KINDS anywhere`, TOWER-TURN-1)
    anywhere: list[Anywhere] = field(default_factory=list)
    # ... and their conditions (each part's and each `forbid`'s) read only `figures` and `count(F)` of the
    # feature: whether such a figure may go on a placed feature is a function of its kind and the figures
    # on it, so anywhere_options keeps it once per such key (ANYWHERE_PURE)
    anywhere_pure: bool = False
    # per kind opened on any placed tile, the clause a figure refused there cites: that of the
    # last `allow ... anywhere` for it, else of the `figure ... anywhere` (the Tower: TOWER-FIGURES-1)
    anywhere_kind_clause: dict = field(default_factory=dict)
    # per figure, each `allow` (kinds, condition text, clause of the condition): a refusal on a
    # kind only an `allow` opens cites that `allow`, not the figure's own `when`
    fig_allows: dict = field(default_factory=dict)
    # prisoners (the Tower): (after figure, capturable, range fn, clauses (capture, list, range))
    captures: list[tuple[Const, tuple[Const, ...], Func, tuple[str, str, str]]] = field(default_factory=list)
    marks: list[Const] = field(default_factory=list)  # printed marks (`marks NAME`), sorted by name
    # the start landscape beyond its anchor (X12): cells laid (tile, x, y, rotation), then the pieces
    # of one feature of a tile covering several cells to link, and its borders across cells
    start_more: list[tuple[int, int, int, int]] = field(default_factory=list)
    # how a tile placement completes features, read without placing the tile (runtime/lookahead.py),
    # when every `complete` condition is `open == 0` or, on a centre kind, `neighbours == N` /
    # `neighbours >= N`: (kinds that close, {centre kind: (N, exact)}); None: place it to know
    quick_complete: tuple | None = None
    start_links: list[tuple] = field(default_factory=list)
    start_borders: list[tuple] = field(default_factory=list)
    states_each: list[int] = field(default_factory=list)  # states kept per player (`state NAME of each player`)
    # `award most NAME at end = N`: (state index, fn, clause, name)
    awards_most: list[tuple[int, Func, str, str]] = field(default_factory=list)
    exchange: tuple[str, A.Span] | None = None  # (clause, span)
    ransom: tuple[tuple[Const, ...], Func, Func | None, str, str, A.Span] | None = None  # figures, price, when, clause, src
    # outposts (Siege and Defense): (name, kinds, row size per players, pool, catapult capacity,
    # clauses (row, slots), span)
    tracks: list[tuple] = field(default_factory=list)
    # `on put FIGS of KINDS { may put FIGURE on row|pool }`: (figs, kinds or None, figure, slot, clause, span)
    outpost_puts: list[tuple] = field(default_factory=list)
    # `on full|overflow|end|draw of TRACKS { ... }`: (event, track indices, actions, clause, span);
    # an action is ("score", Func) | ("return", figs) | ("catapult",) | ("remove", n, figs, Func | None) | ("put",)
    track_rules: list[tuple] = field(default_factory=list)
    # `on round end [where C] { release FIGS }`: (condition Func | None, figures released, clause, span)
    round_rules: list[tuple] = field(default_factory=list)
    # the tables of the statements declared in one place (dsl/ast.py `Declared.tables`): (name, value, span),
    # each value plain data (numbers, strings, None, tuples of them)
    declared: list[tuple[str, object, A.Span]] = field(default_factory=list)
    players_clause: str = ""  # the clause of `players LO..HI`: a record for another count is refused with it


_RESERVED = {"MODULES", "PLAYERS", "KINDS", "EDGE_CODES", "EDGE_TITLES", "TILES", "TILE_IDS", "TILE_CLAUSES",
             "FIGURES", "FIG_ON", "FIG_CLAUSES", "FIG_WHEN_SRC", "ORIENT", "FITS", "RETURNS", "START", "DECK_NAMES",
             "DECKS", "DECK_LAST", "DECK_CLAUSES", "LAST_CLAUSES", "BOX_CLAUSES", "STATES", "DISCARD",
             "PLACE_CHECKS", "COMPLETE", "SCORE_BY", "SCORE_COMPLETE", "SCORE_END", "OWNERS_MOST", "AWARDS",
             "RECALLS", "RECALL_CLAUSE", "STATES_EACH", "AWARDS_MOST", "START_MORE", "START_LINKS", "START_BORDERS",
             "SOURCE_MAP", "FIG_KINDS", "FIG_CORNER", "SCORE_PUT", "SCORE_JOIN",
             "FIG_ANYWHERE", "ANYWHERE_KINDS", "ANYWHERE_AT", "ANYWHERE_KIND_CLAUSE", "FIG_ALLOWS", "FIG_MASKS",
             "FIG_MASK_COUNTS", "CAPTURES", "EXCHANGE", "EXCHANGE_CLAUSE", "RANSOM", "MARKS",
             "TRACKS", "OUTPOST_PUTS", "TRACK_RULES", "ROUND_RULES", "PUTS", "Put", "PutCorner"}
_RESERVED |= {name for cls in A.DECLARED.values() for name in cls.tables}  # the declared statements' tables
_CONST = re.compile(r"[A-Z][A-Z0-9_]*\Z")


class _Namer:
    """Constant names: the rule file's name in capitals when that is a plain identifier
    no other constant or table uses, else `GROUP_index`."""

    def __init__(self) -> None:
        self.taken: set[str] = set(_RESERVED)

    def __call__(self, group: str, name: str, index: int, prefixed: bool = False) -> Const:
        cand = name.upper()
        if (prefixed or not _CONST.match(cand) or cand in self.taken
                or cand.startswith(("CLAUSE_", "SCORE_", "EDGE_", "KIND_", "FIGURE_", "MARK_"))):
            cand = f"{group}_{name.upper()}"
            if not _CONST.match(cand) or cand in self.taken:
                cand = f"{group}_{index}"
        self.taken.add(cand)
        return Const(cand, index, name)


class Lowering:
    def __init__(self, rs: RuleSet):
        self.rs = rs
        name = _Namer()
        kinds = sorted(rs.features)
        self.kind = {k: name("KIND", k, i) for i, k in enumerate(kinds)}
        self.fig = {f: name("FIGURE", f, i) for i, f in enumerate(rs.figures)}
        self.edge = {c: name("EDGE", c, i, prefixed=True) for i, c in enumerate(sorted(rs.edges))}
        self.state_index = {s: i for i, s in enumerate(rs.states)}
        self.mark = {m: name("MARK", m, i, prefixed=True) for i, m in enumerate(rs.mark_names())}
        self.part_ids: dict[tuple[int, tuple[int, int]], int] = {}  # (tile type, cell) -> engine tile (X10)

    # -- scopes ----------------------------------------------------------
    def _common(self, scope: Scope) -> Scope:
        scope.names.setdefault("players", "g.nplayers")
        scope.names.setdefault("current", "g.current")
        for s, i in self.state_index.items():
            scope.names[s] = f"g.st[{i}]"
        kind = self.kind
        scope.calls["completed"] = lambda args, sc: f"g.board.completed_count[{kind[args[0].name].name}]"
        return scope

    def _count(self, scope: Scope, roots: str) -> Scope:
        """`count(FIGURE)`: figures of that type on the feature (the roots it is made of)."""
        fig = self.fig
        scope.calls["count"] = lambda args, sc: f"g.board.count_on({roots}, {fig[args[0].name].name})"
        mark = self.mark
        # `marks(NAME)`: on the would-be feature, the new tile's own part counts too
        own = "" if roots == "(r,)" else " + (o.feats[fi].marks[{m}] if o.feats[fi].marks else 0)"
        scope.calls["marks"] = lambda args, sc: (f"(g.board.marks_on({roots}, {mark[args[0].name].name})"
                                                 + own.format(m=mark[args[0].name].name) + ")")
        return scope

    def mask_scope(self, counts: list) -> Scope:
        """Names of the feature local feature fi would join, as masks of occupied parts: `figures`
        and `count(F)` are nonzero exactly when the count is (only comparisons with 0 read them)."""
        fig = self.fig

        def count(args, sc):
            c = fig[args[0].name]
            if c not in counts:
                counts.append(c)
            return f"(nbr[{1 + counts.index(c)}] & fmask)"

        sc = self._common(Scope(names={"figures": "(nbr[0] & fmask)"}))
        sc.calls["count"] = count
        return sc

    def feature_scope(self) -> Scope:
        """Names of an existing feature, root r.  `figures` counts only figures that make their
        owner an owner: a figure on a corner (the barn) does not."""
        sc = self._count(self._common(Scope(names={
            "tiles": "len(g.board.cells[r])",
            "shields": "g.board.shields[r]",
            "open": "g.board.open[r]",
            "neighbours": "g.board.neighbours(r)",
            "figures": "g.board.owning(r)" if self.rs.corner_figures() else "len(g.board.figs[r])",
            "completed_cities": "g.board.completed_borders(r)",
        })), "(r,)")
        kind = self.kind
        sc.calls["bordering"] = lambda args, _: f"g.board.bordering(r, {kind[args[0].name].name})"
        return sc

    def place_scope(self) -> Scope:
        kind = self.kind
        sc = self._common(Scope())
        sc.calls["turn"] = lambda args, s: f"g.turn_of(o, cell, {kind[args[0].name].name})"
        return sc

    def game_scope(self) -> Scope:
        return self._common(Scope())

    def figure_scope(self) -> Scope:
        """Names of the feature a figure would join: local feature fi of o at cell, joining `roots`."""
        return self._count(self._common(Scope(names={
            "figures": "figures",
            "tiles": "len(set().union(*(g.board.cells[x] for x in roots)) | {cell})",
            "shields": "(sum(g.board.shields[x] for x in roots) + o.feats[fi].shields)",
        })), "roots")

    def expr(self, e: A.Expr, scope: Scope) -> str:
        try:
            return emit(e, scope)
        except KeyError as missing:
            raise CompileError(e.span, f"`{missing.args[0]}` cannot be computed in this rule", "unsupported") from None

    def func(self, name: str, params: str, decl, header: str, e: A.Expr, scope: Scope, bound: str = "") -> Func:
        return Func(name, params, header, decl.span, self.expr(e, scope), e.span, bound)

    # -- the specification -----------------------------------------------
    def lower(self) -> EngineSpec:
        rs = self.rs
        half = rs.half_kinds()
        kinds = [(self.kind[k], rs.features[k].centre, k in half) for k in sorted(rs.features)]
        edges = [(self.edge[c], rs.edges[c].parts[1] if len(rs.edges[c].parts) == 3 else rs.edges[c].parts[0])
                 for c in sorted(rs.edges)]
        tiles = []
        ids: dict[str, list[int]] = {}
        tile_clauses: dict[str, str] = {}
        extra = []  # the parts of tiles covering several cells beyond their first (X10), after the rest
        for i, t in enumerate(rs.tiles):
            ids.setdefault(t.name, []).append(i)
            tile_clauses.setdefault(t.name, _first(t.decl.cites))
            if t.cells is None:
                feats = tuple((self.kind[f.kind], f.places, f.shields, f.borders, f.crosses, self._marks(f)) for f in t.features)
                tiles.append((i, t.name, t.variant, t.module, t.count, tuple(self.edge[c] for c in t.edges), feats,
                              t.decl.span, t.symbols, None))
                continue
            for k, (part, feats) in enumerate(self._parts(i)):
                idx = i if k == 0 else len(rs.tiles) + len(extra)
                self.part_ids[(i, part.cell)] = idx
                entry = (idx, t.name, None, t.module, t.count if k == 0 else 0,
                         tuple(self.edge[c] if c is not None else None for c in part.edges), feats, t.decl.span,
                         t.symbols if k == 0 else (), (i, *part.cell))
                (tiles if k == 0 else extra).append(entry)
        tiles.extend(extra)
        # a count over `players` is written out per number of players (TOWER-COMP-1)
        figures = [(self.fig[n], f.count if f.count_expr is None else rs.figure_counts(n),
                    tuple(self.kind[k] for k in sorted(f.on, key=lambda k: self.kind[k].value)))
                   for n, f in rs.figures.items()]
        # per kind, the figures that may stand on one of a tile's features of it (`on` and `allow`;
        # a figure `at corner` stands on corners, tried apart)
        corner = set(rs.corner_figures())
        fig_on = [tuple(self.fig[n] for n in rs.figures if k in rs.may_stand(n) and n not in corner)
                  for k in sorted(rs.features)]
        fig_clauses = []
        for f in rs.figures.values():
            first = _first(f.cites)
            fig_clauses.append((_first(f.supply_cites, first), _first(f.on_cites, first), _first(f.when_cites, first)))
        return EngineSpec(
            modules=tuple(rs.names),
            players=rs.player_range(),
            players_span=rs.players.span if rs.players else None,
            players_clause=_first(rs.players.cites) if rs.players else "",
            kinds=kinds, edges=edges, tiles=tiles, tile_ids=ids, tile_clauses=tile_clauses,
            figures=figures, fig_on=fig_on, fig_clauses=fig_clauses,
            fig_when_src=[_src(f.when) if f.when is not None else "" for f in rs.figures.values()],
            returns=sorted((self.fig[f] for f in rs.returns if f in self.fig), key=lambda c: c.value),
            **self._setup(),
            **self._placement(),
            **self._rules(),
            **self._prisoners(),
            **self._outposts(),
            marks=list(self.mark.values()),
            declared=[(name, value, item.span) for items in rs.declared.values() for item in items
                      for name, value in zip(type(item).tables, item.table_values())],
        )

    def _parts(self, i: int) -> list:
        """The covered cells of tile type i (`cells WxH`), each with its features as engine data:
        (kind, one-cell places, shields, local borders, crosses, marks).  A border to a feature
        with no piece on the same cell is laid with the start landscape (`start_borders`)."""
        t = self.rs.tiles[i]
        ps = multicell.parts(t.decl.edges, t.features, *t.cells)
        out = []
        for p in ps:
            local = {pf.feature: li for li, pf in enumerate(p.features)}
            feats = []
            for pf in p.features:
                f = t.features[pf.feature]
                marks = tuple(sum(n for m, n in pf.marks if m == name) for name in self.mark)
                feats.append((self.kind[f.kind], pf.places, pf.shields, tuple(local[b] for b in f.borders if b in local),
                              None, marks if any(marks) else ()))
            out.append((p, tuple(feats)))
        return out

    def _start_landscape(self, first_id: dict[str, int]) -> tuple[list, list, list]:
        """Every cell laid at the start (runtime tile, x, y, rotation), the anchor first; the
        pieces of one feature of a tile covering several cells to link; its borders that cross
        its cells.  Links and borders name (cell, local feature) on the board."""
        rs = self.rs
        laid, links, borders = [], [], []
        for sp in rs.start.places():
            i = first_id[sp.tile]
            t = rs.tiles[i]
            if t.cells is None:
                laid.append((i, sp.x, sp.y, sp.rotation % 360))
                continue
            ps = multicell.parts(t.decl.edges, t.features, *t.cells)
            for p in ps:
                laid.append((self.part_ids[(i, p.cell)], sp.x + p.cell[0], sp.y + p.cell[1], 0))
            at = lambda c: (sp.x + c[0], sp.y + c[1])  # noqa: E731
            for ca, la, cb, lb in multicell.links(ps):
                links.append((at(ca), la, at(cb), lb))
            pieces: dict[int, list[tuple[tuple[int, int], int]]] = {}
            for p in ps:
                for li, pf in enumerate(p.features):
                    pieces.setdefault(pf.feature, []).append((p.cell, li))
            for fi, f in enumerate(t.features):
                for b in f.borders:
                    cells_f = {c for c, _ in pieces.get(fi, [])}
                    if any(c in cells_f for c, _ in pieces.get(b, [])) or fi not in pieces or b not in pieces:
                        continue  # a border on a shared cell is the part's own
                    (ca, la), (cb, lb) = pieces[fi][0], pieces[b][0]
                    borders.append((at(ca), la, at(cb), lb))
        return laid, links, borders

    def _marks(self, f) -> tuple[int, ...]:
        """A feature's printed marks, one count per MARKS entry; () when it prints none."""
        counts = tuple(f.marks_of(m) for m in self.mark)
        return counts if any(counts) else ()

    def _setup(self) -> dict:
        rs = self.rs
        first_id: dict[str, int] = {}
        for i, t in enumerate(rs.tiles):
            first_id.setdefault(t.name, i)
        start = None
        more, links, borders = [], [], []
        if rs.start is not None:
            laid, links, borders = self._start_landscape(first_id)
            start, more = laid[0], laid[1:]
        # Copies of each tile type in the bag: all, minus the start tiles and boxed tiles.
        pool: dict[int, int] = {i: t.count for i, t in enumerate(rs.tiles)}
        removed = [sp.tile for sp in rs.start.places()] if rs.start is not None else []
        removed += [b.tile for b in rs.boxed]
        for name in removed:
            for i, t in enumerate(rs.tiles):
                if t.name == name and pool[i] > 0 and t.variant is None:
                    pool[i] -= 1
                    break
        # Deck order: a deck `before X` comes first.
        ordered = [d for d in rs.decks if d.before is not None] + [d for d in rs.decks if d.before is None]
        named = {n for d in ordered for n in (*d.tiles, *([d.last] if d.last else []))}
        decks, lasts = [], []
        for d in ordered:
            if d.tiles or d.last:
                members = [i for i, t in enumerate(rs.tiles) if t.name in d.tiles or t.name == d.last]
            else:
                members = [i for i, t in enumerate(rs.tiles) if t.name not in named]
            decks.append([i for i in members for _ in range(pool[i])])
            lasts.append(sorted(i for i in members if rs.tiles[i].name == d.last))
        return dict(
            start=start, start_span=rs.start.span if rs.start is not None else None,
            start_more=more, start_links=links, start_borders=borders,
            deck_names=[d.name for d in ordered], decks=decks, deck_last=lasts,
            deck_clauses=[_first(d.before_cites or d.cites) for d in ordered],
            last_clauses=[_first(d.last_cites or d.cites) for d in ordered],
            box_clauses={b.tile: _first(b.cites) for b in rs.boxed},
            clause_bag=_first(rs.decks[0].cites) if rs.decks else "",
            # the game ends when the last deck is drawn: its deck statement's last citation says so
            clause_end=ordered[-1].cites[-1].clause if ordered and ordered[-1].cites else "",
            states=[(name, self.func(f"init_{self.state_index[name]}", "g", st, f"state {name} = {_src(st.init)}",
                                     st.init, self.game_scope(), f"the start value of state `{name}`")) for name, st in rs.states.items()],
            states_each=[self.state_index[name] for name, st in rs.states.items() if st.each],
        )

    def _placement(self) -> dict:
        """Per-tile placement checks beyond edge matching: `placement continues K` and the
        `require`s of `on place of K` rules, for tiles that have a K feature.  Tiles whose
        checks would read the same get the same function."""
        rs = self.rs
        pm = rs.placement
        first_fig = next(iter(rs.figures.values()), None)
        cont = [p for p in pm.values() if p.kind == "continues"]
        ons = [o for o in rs.ons if o.event == "place" and any(isinstance(a, A.Require) for a in o.actions)]
        checks: list[PlaceCheck] = []
        by_steps: dict[tuple, str] = {}
        per_tile: list[str | None] = []
        for t in rs.tiles:
            kinds = {f.kind for f in t.features}
            steps = []
            for p in cont:
                if p.arg in kinds:
                    steps.append(Step(f"placement continues {p.arg}", p.span, None,
                                      f"g.continues(o, cell, {self.kind[p.arg].name})", p.span,
                                      f"its {p.arg} does not continue the {p.arg} on the board", _first(p.cites)))
            for on in ons:
                if on.of is not None and on.of not in kinds:
                    continue
                guard = self.expr(on.where, self.place_scope()) if on.where is not None else None
                for a in on.actions:
                    if isinstance(a, A.Require):
                        steps.append(Step("on place" + (f" of {on.of}" if on.of else ""), on.span, guard,
                                          self.expr(a.test, self.place_scope()), a.span,
                                          a.message or f"the rule `{_src(a.test)}` does not hold", _first(on.cites)))
            if not steps:
                per_tile.append(None)
                continue
            key = tuple((s.guard, s.test, s.message, s.clause, where(s.span), where(s.test_span)) for s in steps)
            if key not in by_steps:
                by_steps[key] = f"place_check_{len(checks) + 1}"
                checks.append(PlaceCheck(by_steps[key], steps))
            per_tile.append(by_steps[key])
        return dict(
            discard="discard" in pm, discard_span=pm["discard"].span if "discard" in pm else None,
            clauses={
                "discard": _first(pm["discard"].cites) if "discard" in pm else "",
                "adjacent": _first(pm["adjacent"].cites) if "adjacent" in pm else "",
                "matching": _first(pm["matching"].cites) if "matching" in pm else "",
                # a figure put where no feature lies breaks where-it-stands of the first figure
                "follow": _first(first_fig.on_cites or first_fig.cites) if first_fig else "",
            },
            place_checks=checks, tile_checks=per_tile + [None] * (len(self.part_ids) - len(
                {i for i, _ in self.part_ids})),
        )

    def _rules(self) -> dict:
        rs = self.rs
        complete = []
        for kind in sorted(rs.complete):
            c = rs.complete[kind]
            complete.append((self.kind[kind], self.func(f"complete_{self.kind[kind].value}", "g, r", c,
                                                         f"complete {kind} when {_src(c.when)}", c.when,
                                                         self.feature_scope())))
        tables: dict[str, list] = {"complete": [], "end": []}
        for (kind, when) in sorted(rs.scores):
            s = rs.scores[(kind, when)]
            fn = self.func(f"score_{when}_{self.kind[kind].value}", "g, r", s, f"score {kind} {when} = {_src(s.value)}",
                           s.value, self.feature_scope(), "points")
            tables[when].append((self.kind[kind], fn, _first(s.cites)))
        by = []
        for (kind, when, fig) in sorted(rs.figure_scores):
            s = rs.figure_scores[(kind, when, fig)]
            fn = self.func(f"score_{when}_{self.kind[kind].value}_by_{self.fig[fig].value}", "g, r", s,
                           f"score {kind} {when} by {fig} = {_src(s.value)}", s.value, self.feature_scope(),
                           "points")
            by.append((when, self.kind[kind], self.fig[fig], fn, _first(s.cites)))
        awards = []
        awards_most = []
        for name in sorted(rs.awards):
            a = rs.awards[name]
            fn = self.func(f"award_{self.state_index[name]}", "g", a,
                           f"award {'most ' if a.most else ''}{name} at end = {_src(a.value)}", a.value, self.game_scope(),
                           "points")
            (awards_most if a.most else awards).append((self.state_index[name], fn, _first(a.cites), name))
        recalls = []
        for name in sorted(rs.recalls):
            rc = rs.recalls[name]
            fn = self.func(f"recall_{self.fig[name].value}", "g, r", rc, f"recall {name} = {_src(rc.value)}",
                           rc.value, self.feature_scope(), "points")
            recalls.append((self.fig[name], fn, _first(rc.cites)))
        ow = rs.owners
        moments: dict[str, list] = {"put": [], "join": []}
        for (kind, when, fig) in sorted(rs.trigger_scores):
            s = rs.trigger_scores[(kind, when, fig)]
            fn = self.func(f"score_{when}_{self.kind[kind].value}_{self.fig[fig].value}", "g, r", s,
                           f"score {kind} {when} {fig} = {_src(s.value)}", s.value, self.feature_scope(),
                           "points")
            moments[when].append((self.kind[kind], self.fig[fig], fn, _first(s.cites)))
        return dict(
            score_put=moments["put"], score_join=moments["join"],
            complete=complete, quick_complete=self._quick_complete(), score_complete=tables["complete"], score_end=tables["end"], score_by=by,
            owners_most=ow is None or ow.mode == "most", owners_span=ow.span if ow else None,
            awards=awards, awards_most=awards_most, recalls=recalls, **self._figure_conds(), **self._ons(),
        )

    def _quick_complete(self) -> tuple | None:
        """(kinds complete when closed, {centre kind: (N, exact)}) when every `complete` condition is
        one the lookahead can decide from the board without placing the tile: `open == 0` (a
        placement closes a feature exactly when its open edges and those of the features it joins
        all meet), or, on a kind lying at the tile's centre, `neighbours == N` or `neighbours >= N`
        (a placement adds one neighbour to each centre around it).  None: some condition reads
        anything else, so the lookahead places the tile and asks the condition itself."""
        rs = self.rs
        closed, surround = [], {}

        def parts(e):
            match e:
                case A.BinOp(op=op, left=A.Var(name=n), right=A.IntLit(value=v)):
                    return op, n, int(v)
                case A.BinOp(op=op, left=A.IntLit(value=v), right=A.Var(name=n)):
                    flipped = {"==": "==", "<=": ">="}.get(op)
                    return (flipped, n, int(v)) if flipped else None
            return None

        for kind in sorted(rs.complete):
            form = parts(rs.complete[kind].when)
            if form is None:
                return None
            op, name, value = form
            if name == "open" and op == "==" and value == 0:
                closed.append(self.kind[kind])
            elif name == "neighbours" and op in ("==", ">=") and rs.features[kind].centre:
                surround[self.kind[kind]] = (value, op == "==")
            else:
                return None
        return closed, surround

    def _kinds(self, names) -> str:
        return "(" + ", ".join(self.kind[k].name for k in sorted(names, key=lambda k: self.kind[k].value)) + ",)"

    def _zero_tests_only(self, e) -> bool:
        """Whether `e` reads the features a figure would join only as `figures` or `count(F)`
        compared with 0 (== 0, != 0, > 0, >= 1), so a mask of occupied parts can answer it: every
        other name and call it reads is one the mask scope has (state, players, completed(K)),
        never one that reads the joined features (tiles, shields, marks(M) ...)."""
        plain = self.mask_scope([])
        names = set(plain.names) - {"figures"}
        calls = (set(plain.calls) - {"count"}) | {"min", "max"}
        def quantity(x):
            return isinstance(x, A.Var) and x.name == "figures" or isinstance(x, A.Call) and x.fn == "count"

        def lit(x, v):
            return isinstance(x, A.IntLit) and int(x.value) == v

        def ok(x) -> bool:
            match x:
                case A.BinOp(op=op, left=l, right=r) if quantity(l) or quantity(r):
                    if quantity(l) and not quantity(r):
                        return (op in ("==", "!=", ">") and lit(r, 0)) or (op == ">=" and lit(r, 1))
                    if quantity(r) and not quantity(l):
                        return (op in ("==", "!=", "<") and lit(l, 0)) or (op == "<=" and lit(l, 1))
                    return False
                case A.Var(name=n):
                    return n in names
                case A.Call(fn="completed"):
                    return True
                case A.Call(fn=fn):
                    return fn in calls and all(map(ok, x.iter_child_nodes()))
                case A.BinOp() | A.Not() | A.Neg() | A.Cond():
                    return all(map(ok, x.iter_child_nodes()))
            return True
        return e is None or ok(e)

    def _figure_conds(self) -> dict:
        """Per figure, whether it may stand on local feature fi, as one condition: (its `on` kinds
        and its `when`) or (an `allow`'s kinds and condition) ..., and no `forbid` holding."""
        rs = self.rs
        corner = set(rs.corner_figures())
        conds = []
        used: set[str] = set()
        kind_of = "o.feats[fi].kind"
        counts: list = []  # figures whose count(F) a mask condition reads
        masks = True
        pure = True  # no condition reads anything but `figures` and `count(F)`
        for name, f in rs.figures.items():
            header = f"figure {name}" + (" ... at corner" if name in corner else "") + \
                (f" ... when {_src(f.when)}" if f.when is not None else "")
            allows = [pm for pm in rs.permits if pm.mode == "allow" and pm.figure == name]
            forbids = [pm for pm in rs.permits if pm.mode == "forbid" and pm.figure == name]
            sc = self.figure_scope()
            maskable = all(self._zero_tests_only(x.when) for x in [f, *allows, *forbids])
            masks = masks and maskable
            pure = pure and all(n == "figures" or n.startswith("count(")
                                for x in [f, *allows, *forbids] if x.when is not None for n in free_names(x.when))
            forms = []
            for scope in (sc, self.mask_scope(counts) if maskable else None):
                if scope is None:
                    forms.append(None)
                    continue
                cond = self.expr(f.when, scope) if f.when is not None else "True"
                if allows:
                    parts = [f"({kind_of} in {self._kinds(f.on)} and ({cond}))"]
                    for pm in allows:
                        c = self.expr(pm.when, scope) if pm.when is not None else "True"
                        parts.append(f"({kind_of} in {self._kinds(pm.on)} and ({c}))")
                    cond = " or ".join(parts)
                for pm in forbids:
                    c = self.expr(pm.when, scope) if pm.when is not None else "True"
                    cond = f"({cond}) and not ({kind_of} in {self._kinds(pm.on)} and ({c}))"
                forms.append(cond)
            conds.append(FigureCond(self.fig[name], header, f.span, forms[0], name in corner, frozenset(sc.used),
                                    forms[1]))
            if name not in corner:
                used |= sc.used
        # masks of at most four counted figures: Board.occupied_parts packs them in one machine integer
        # (more: each condition reads the features it would join, as when a mask cannot answer)
        masks = masks and len(counts) <= 4
        forbids = []
        for pm in rs.permits:
            if pm.mode != "forbid" or pm.figure not in self.fig:
                continue
            sc = self.figure_scope()
            c = self.expr(pm.when, sc) if pm.when is not None else "True"
            forbids.append(Forbid(self.fig[pm.figure], tuple(self.kind[k] for k in pm.on), c,
                                  _src(pm.when) if pm.when is not None else "true", _first(pm.cites), pm.span,
                                  frozenset(sc.used)))
        # where a figure may stand is decided here and asked by the runtime (runtime/figures.py): one
        # function per figure and per forbid, tables in the order of the statements
        for c in conds:
            c.func = Func(f"may_{c.figure.name}", "g, o, fi, nbr, fmask" if masks else "g, o, cell, fi, roots, figures",
                          c.header, c.span, c.mask_cond if masks else c.cond, c.span)
        for i, fb in enumerate(forbids):
            fb.func = Func(f"forbids_{i}", "g, o, cell, fi, roots, figures",
                           f"forbid {fb.figure.title} when {fb.src}", fb.span, fb.cond, fb.span)
        return dict(figure_conds=conds, need_roots=bool(used & {"figures", "tiles", "shields", "count", "marks"}),
                    need_figures="figures" in used, fig_masks=masks, mask_counts=counts if masks else [],
                    fig_pure=masks and pure,
                    forbids=forbids,
                    fig_kinds=[tuple(self.kind[k] for k in sorted(rs.may_stand(n), key=lambda k: self.kind[k].value))
                               for n in rs.figures],
                    fig_corner=[self.fig[n] for n in rs.corner_figures()])

    def _prisoners(self) -> dict:
        """Figures put anywhere, captures, the exchange and the ransom (the Tower)."""
        rs = self.rs
        fig, kind = self.fig, self.kind
        anywhere = []
        pure = True  # no anywhere condition reads anything but `figures` and `count(F)` of the feature
        for name, f in rs.figures.items():
            # the parts that open a kind on any placed tile: `figure ... on KINDS anywhere` and
            # each `allow ... on KINDS anywhere`; a part is (kinds, condition, clauses, span)
            parts = []
            if f.anywhere:
                first = _first(f.cites)
                parts.append((f.on, f.when, _first(f.on_cites, first), _first(f.when_cites, first), f.span,
                              f"figure {name} ... on {', '.join(f.on)} anywhere"))
            for pm in rs.permits:
                if pm.mode == "allow" and pm.anywhere and pm.figure == name:
                    first = _first(pm.cites)
                    parts.append((pm.on, pm.when, _first(pm.on_cites, first), _first(pm.when_cites, first), pm.span,
                                  f"allow {name} on {', '.join(pm.on)} anywhere"))
            if not parts:
                continue
            forbids = [pm for pm in rs.permits if pm.mode == "forbid" and pm.figure == name]
            pure = pure and all(n == "figures" or n.startswith("count(") for when in
                                [*(p[1] for p in parts), *(pm.when for pm in forbids)] if when is not None
                                for n in free_names(when))
            conds, table = [], []
            for on, when, on_clause, when_clause, span, header in parts:
                ks = tuple(sorted((kind[k] for k in on), key=lambda c: c.value))
                c = self.expr(when, self.feature_scope()) if when is not None else "True"
                kset = "(" + ", ".join(k.name for k in ks) + ",)"
                conds.append(f"(k in {kset} and ({c}))")
                table.append(AnywherePart(ks, _src(when) if when is not None else "", header, on_clause,
                                          when_clause, span))
            cond = " or ".join(conds)
            fb = []
            for pm in forbids:
                ks = tuple(sorted((kind[k] for k in pm.on), key=lambda c: c.value))
                c = self.expr(pm.when, self.feature_scope()) if pm.when is not None else "True"
                src = _src(pm.when) if pm.when is not None else "true"
                fb.append(Forbid(fig[name], ks, c, src, _first(pm.cites), pm.span,
                                 func=Func(f"forbids_{fig[name].name}_anywhere_{len(fb)}", "g, r, k",
                                           f"forbid {name} when {src}", pm.span, c, pm.span)))
                cond = f"({cond}) and not (k in ({', '.join(k.name for k in ks)},) and ({c}))"
            span = parts[0][4]
            header = " / ".join(p[5] for p in parts)
            anywhere.append(Anywhere(fig[name], tuple(sorted({k for t in table for k in t.kinds}, key=lambda c: c.value)),
                                     FigureCond(fig[name], header, span, cond,
                                                func=Func(f"may_{fig[name].name}_anywhere", "g, r, k", header, span,
                                                          cond, span)),
                                     tuple(table), tuple(fb)))
        kind_clause = {}
        for f in rs.figures.values():
            if f.anywhere:
                for k in f.on:
                    kind_clause[kind[k]] = _first(f.on_cites, _first(f.cites))
        for pm in rs.permits:
            if pm.mode == "allow" and pm.anywhere and pm.figure in rs.figures:
                for k in pm.on:
                    kind_clause[kind[k]] = _first(pm.on_cites, _first(pm.cites))
        captures = []
        for after, cap in sorted(rs.captures.items()):
            fn = self.func(f"capture_range_{fig[after].value}", "g, r", cap,
                           f"capture ... within {_src(cap.within)} after put {after}", cap.within, self.feature_scope(),
                           "a capture range")
            first = _first(cap.cites)
            clauses = (_first(cap.after_cites, first), _first(cap.figures_cites, first), _first(cap.within_cites, first))
            kinds = tuple(sorted((fig[f] for f in cap.figures if f in fig), key=lambda c: c.value))
            captures.append((fig[after], kinds, fn, clauses))
        ex = (_first(rs.exchange.cites), rs.exchange.span) if rs.exchange is not None else None
        rn = rs.ransom
        ransom = None
        if rn is not None:
            sc = self.game_scope()
            sc.names["points"] = "g.scores[g.current]"
            price = self.func("ransom_price", "g", rn, f"ransom ... = {_src(rn.price)}", rn.price, sc, "a ransom price")
            when = None
            if rn.when is not None:
                sc = self.game_scope()
                sc.names["points"] = "g.scores[g.current]"
                when = self.func("ransom_allowed", "g", rn, f"ransom ... when {_src(rn.when)}", rn.when, sc)
            figs = tuple(sorted((fig[f] for f in rn.figures if f in fig), key=lambda c: c.value))
            ransom = (figs, price, when, _first(rn.cites), _src(rn.when) if rn.when is not None else "", rn.span)
        allows: dict = {}
        for pm in rs.permits:
            if pm.mode == "allow" and pm.figure in rs.figures:
                allows.setdefault(fig[pm.figure], []).append((
                    tuple(sorted((kind[k] for k in pm.on), key=lambda c: c.value)),
                    _src(pm.when) if pm.when is not None else "true", _first(pm.when_cites, _first(pm.cites))))
        return dict(anywhere=anywhere, anywhere_pure=bool(anywhere) and pure, anywhere_kind_clause=kind_clause,
                    captures=captures, exchange=ex, ransom=ransom, fig_allows=allows)

    def track_scope(self) -> Scope:
        """Names of a rule on outpost t, read for player p: `own` is p's figures there."""
        return self._common(Scope(names={"own": "g.own(t, p)"}))

    def _outposts(self) -> dict:
        """The outposts (Siege and Defense): tracks, extra figures put on them, their events."""
        rs = self.rs
        fig, kind = self.fig, self.kind
        order = list(rs.tracks)
        tracks = []
        for name, tr in rs.tracks.items():
            first = _first(tr.cites)
            tracks.append((name, tuple(sorted((kind[k] for k in tr.kinds), key=lambda c: c.value)),
                           rs.track_rows(name), tr.pool, tr.catapult,
                           (_first(tr.row_cites, first), _first(tr.slot_cites, first)), tr.span))

        def figs(names):
            return tuple(sorted((fig[f] for f in names if f in fig), key=lambda c: c.value))

        puts = []
        for op in rs.outpost_puts:
            kinds = tuple(sorted((kind[k] for k in op.kinds), key=lambda c: c.value)) if op.kinds else None
            puts.append((figs(op.figures), kinds, fig[op.figure], op.slot, _first(op.cites), op.span))
        rules = []
        n = 0
        for on in rs.track_ons:
            acts = []
            for a in on.actions:
                match a:
                    case A.ScoreEach(value=v):
                        acts.append(("score", self.func(f"track_score_{n}", "g, t, p", on,
                                                        f"on {on.event} ... {{ score each {_src(v)} }}", v, self.track_scope(), "points")))
                        n += 1
                    case A.ReturnFrom(figures=fs):
                        acts.append(("return", figs(fs)))
                    case A.RemoveCatapult():
                        acts.append(("catapult",))
                    case A.RemoveFigures(count=c, figures=fs, where=w):
                        fn = None
                        if w is not None:
                            fn = self.func(f"track_remove_{n}", "g, t, p", on,
                                           f"on {on.event} ... {{ remove {c} of ... where {_src(w)} }}", w, self.track_scope())
                            n += 1
                        acts.append(("remove", c, figs(fs), fn))
                    case A.PutCatapult():
                        # `on draw of KINDS`: only a drawn tile showing a feature of one of them (() any)
                        acts.append(("put", tuple(sorted((kind[k] for k in on.shows if k in kind),
                                                         key=lambda c: c.value))))
            rules.append((on.event, tuple(order.index(t) for t in on.tracks if t in order), tuple(acts),
                          _first(on.cites), on.span))
        rounds = []
        for j, on in enumerate(rs.all(A.OnRoundDecl)):
            cond = None
            if on.where is not None:
                cond = self.func(f"round_end_{j}", "g", on, f"on round end where {_src(on.where)}", on.where,
                                 self.game_scope())
            released = tuple(f for a in on.actions if isinstance(a, A.Release) for f in a.figures)
            rounds.append((cond, figs(released), _first(on.cites), on.span))
        return dict(tracks=tracks, outpost_puts=puts, track_rules=rules, round_rules=rounds)

    def _ons(self) -> dict:
        places, completes = [], []
        for on in self.rs.ons:
            sets = [a for a in on.actions if isinstance(a, A.SetAction)]
            if not sets:
                continue
            header = f"on {on.event}" + (f" of {on.of}" if on.of else "")
            if on.event == "place":
                sc = self.place_scope()
                conds = [f"{self.kind[on.of].name} in kinds"] if on.of else []
            else:
                sc = self.feature_scope()
                conds = [f"kind == {self.kind[on.of].name}"] if on.of else []
            if on.where is not None:
                conds.append(f"({self.expr(on.where, sc)})")
            block = OnBlock(header, on.span, " and ".join(conds),
                            [(self.state_index[a.name], a.name, self.expr(a.value, sc), a.span,
                              self.expr(a.seat, sc) if a.seat is not None else None) for a in sets],
                            _first(on.cites), on.event == "place" and on.of is not None)
            (places if on.event == "place" else completes).append(block)
        return dict(on_place=places, on_complete=completes)


def lower(rs: RuleSet) -> EngineSpec:
    return Lowering(rs).lower()
