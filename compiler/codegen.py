"""RuleSet -> Python source of an engine's `rules.py` (Jinja2-style code generator).

The generator writes lines with `indent()`/`outdent()` and records, for every
generated function, the rule-file line it came from (as a comment and in
`SOURCE_MAP`).  Output is deterministic: the same rule set gives
byte-identical source.  Identifiers are never taken from rule files: names
become indices and data, and strings are emitted with `repr`.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from dsl import ast as A
from dsl.model import BUNDLED_RULES, RuleSet
from .pyexpr import Scope, emit


class CompileError(Exception):
    def __init__(self, span: A.Span, message: str, code: str = "compile"):
        super().__init__(message)
        self.span = span
        self.message = message
        self.code = code


def _where(span: A.Span) -> str:
    """`file:line` of a rule, the same wherever the compiler runs: bundled rules as
    `rules/x.tess`, other files relative to the working folder, else by name."""
    from dsl.untrusted import printable  # a file name's undecodable bytes (and line breaks) as escapes

    path = Path(span.file).resolve()
    for root in (BUNDLED_RULES.parent, Path.cwd().resolve()):
        try:
            return printable(f"{path.relative_to(root).as_posix()}:{span.line}")
        except ValueError:
            continue
    return printable(f"{path.name}:{span.line}")


def _tuple(items: list[str]) -> str:
    """Python source of a tuple of already-emitted expressions (any length)."""
    return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"


def _first_cite(cites, default: str) -> str:
    return cites[0].clause if cites else default


def _src(e: A.Expr) -> str:
    from dsl.fmt import format_expr
    return format_expr(e)


class CodeGenerator:
    def __init__(self, rs: RuleSet):
        self.rs = rs
        self.lines: list[str] = []
        self._indent = 0
        self.source_map: list[tuple[int, str]] = []  # generated line -> rule-file position
        self.kinds = sorted(rs.features)
        self.kind_index = {k: i for i, k in enumerate(self.kinds)}
        self.codes = sorted(rs.edges)
        self.code_index = {c: i for i, c in enumerate(self.codes)}
        self.figs = list(rs.figures)
        self.fig_index = {f: i for i, f in enumerate(self.figs)}
        self.states = list(rs.states)
        self.state_index = {s: i for i, s in enumerate(self.states)}
        self._n = 0

    # -- writer ----------------------------------------------------------
    def writeline(self, line: str = "", span: A.Span | None = None) -> None:
        if span is not None:
            self.source_map.append((len(self.lines) + 1, _where(span)))
        self.lines.append(("    " * self._indent + line) if line else "")

    def indent(self) -> None:
        self._indent += 1

    def outdent(self) -> None:
        self._indent -= 1

    def fresh(self, stem: str) -> str:
        self._n += 1
        return f"_{stem}_{self._n}"

    # -- scopes ----------------------------------------------------------
    def _common(self, scope: Scope) -> Scope:
        scope.names.setdefault("players", "g.nplayers")
        scope.names.setdefault("current", "g.current")
        for s, i in self.state_index.items():
            scope.names[s] = f"g.st[{i}]"
        ki = self.kind_index
        scope.calls["completed"] = lambda args, sc: f"g.completed_count[{ki[args[0].name]}]"
        return scope

    def feature_scope(self) -> Scope:
        """Names of an existing feature, root r."""
        return self._common(Scope(names={
            "tiles": "len(g.cells[r])",
            "shields": "g.shields[r]",
            "open": "g.open[r]",
            "neighbours": "g.neighbours(r)",
            "figures": "len(g.figs[r])",
            "completed_cities": "g.completed_borders(r)",
        }))

    def place_scope(self) -> Scope:
        ki = self.kind_index
        sc = self._common(Scope())
        sc.calls["turn"] = lambda args, s: f"g.turn_of(o, cell, {ki[args[0].name]})"
        return sc

    def game_scope(self) -> Scope:
        return self._common(Scope())

    def rule_function(self, fn: str, params: str, decl, header: str, e: A.Expr, scope: Scope) -> str:
        """Emit `def fn(params): return <e>`, headed by the rule-file line it came from."""
        w = self.writeline
        w(f"# {_where(decl.span)}: {header}", decl.span)
        w(f"def {fn}({params}):")
        self.indent()
        w(f"return {self.expr(e, scope)}", e.span)
        self.outdent()
        w("")
        return fn

    def expr(self, e: A.Expr, scope: Scope) -> str:
        try:
            return emit(e, scope)
        except KeyError as missing:
            raise CompileError(e.span, f"`{missing.args[0]}` cannot be computed in this rule", "unsupported") from None

    # -- the module ------------------------------------------------------
    def generate(self) -> str:
        rs = self.rs
        w = self.writeline
        w('"""Engine rules generated by tessera from: ' + ", ".join(m.name for m in rs.modules) + '.')
        w("")
        w("Do not edit: edit the rule files and compile again.  Every function names")
        w("the rule-file line it came from.")
        w('"""')
        w("from .runtime.geometry import fit_caches, orientations")
        w("from .runtime.ops import _div, _mod")
        w("from .runtime.tables import Feature, Figure, Kind, Tile")
        w("")
        w(f"MODULES = {tuple(m.name for m in rs.modules)!r}")
        pl = rs.players
        w(f"PLAYERS = {(pl.low, pl.high) if pl else (2, 5)!r}", pl.span if pl else None)
        # kinds: (name, centre?, half?)
        half = rs.half_kinds()
        w("# feature kinds: (name, lies at the centre, lies on half-sides)")
        w(f"KINDS = {_tuple([f'Kind({k!r}, {rs.features[k].centre!r}, {k in half!r})' for k in self.kinds])}")
        # what a side shows, in words: the middle of a 3-part edge, else its one part
        titles = tuple(rs.edges[c].parts[1] if len(rs.edges[c].parts) == 3 else rs.edges[c].parts[0] for c in self.codes)
        w(f"EDGE_CODES = {tuple(self.codes)!r}")
        w(f"EDGE_TITLES = {titles!r}")
        self._tiles()
        self._figures()
        self._setup()
        self._states()
        self._placement()
        self._completion()
        self._scoring()
        self._events()
        self._figure_options()
        return "\n".join(self.lines) + "\n"

    def _tiles(self) -> None:
        rs = self.rs
        w = self.writeline
        w("")
        w("# tiles: (index, name, variant, module, copies, edge codes N E S W,")
        w("#         features: (kind, places, shields, borders, crosses))")
        w("TILES = (")
        self.indent()
        for i, t in enumerate(rs.tiles):
            feats = _tuple([f"Feature({self.kind_index[f.kind]}, {f.places!r}, {f.shields!r}, {f.borders!r}, {f.crosses!r})"
                            for f in t.features])
            edges = tuple(self.code_index[c] for c in t.edges)
            w(f"Tile({i}, {t.name!r}, {t.variant!r}, {t.module!r}, {t.count}, {edges!r}, {feats}),", t.decl.span)
        self.outdent()
        w(")")
        ids: dict[str, list[int]] = {}
        for i, t in enumerate(rs.tiles):
            ids.setdefault(t.name, []).append(i)
        w(f"TILE_IDS = {ids!r}")

    def _figures(self) -> None:
        rs = self.rs
        w = self.writeline
        w("")
        w("# figures: (name, per player, kinds it may stand on)")
        figs = []
        for name in self.figs:
            f = rs.figures[name]
            figs.append((name, f.count, frozenset(self.kind_index[k] for k in f.on)))
        w(f"FIGURES = {_tuple([f'Figure({n!r}, {c!r}, {tuple(sorted(k))!r})' for n, c, k in figs])}")
        fig_on = [tuple(gi for gi, (_, _, ks) in enumerate(figs) if ki in ks) for ki in range(len(self.kinds))]
        w(f"FIG_ON = {tuple(fig_on)!r}")
        w("")
        w("# every tile type at its four rotations; per tile type, edge pattern -> fitting orientations")
        w("ORIENT = orientations(TILES, KINDS, FIG_ON)")
        w("FITS = fit_caches(TILES)")
        # the clause a refused placement breaks: (empty supply, cannot stand there, `when` fails)
        clauses = []
        for n in self.figs:
            f = rs.figures[n]
            first = _first_cite(f.cites, "")
            clauses.append((_first_cite(f.supply_cites, first), _first_cite(f.on_cites, first), _first_cite(f.when_cites, first)))
        w(f"FIG_CLAUSES = {tuple(clauses)!r}")
        srcs = [_src(rs.figures[name].when) if rs.figures[name].when is not None else "" for name in self.figs]
        w(f"FIG_WHEN_SRC = {tuple(srcs)!r}")
        rets = frozenset(self.fig_index[f] for f in rs.returns if f in self.fig_index)
        w(f"RETURNS = {rets!r}")

    def _setup(self) -> None:
        rs = self.rs
        w = self.writeline
        w("")
        ids: dict[str, int] = {}
        for i, t in enumerate(rs.tiles):
            ids.setdefault(t.name, i)
        start = None
        if rs.start is not None:
            start = (ids[rs.start.tile], rs.start.x, rs.start.y, rs.start.rotation % 360)
            w(f"START = {start!r}", rs.start.span)
        else:
            w("START = None")
        # Copies of each tile type, minus the start tile and boxed tiles.
        pool: dict[int, int] = {i: t.count for i, t in enumerate(rs.tiles)}
        removed = [rs.start.tile] if rs.start is not None else []
        removed += [b.tile for b in rs.boxed]
        for name in removed:
            for i, t in enumerate(rs.tiles):
                if t.name == name and pool[i] > 0 and t.variant is None:
                    pool[i] -= 1
                    break
        # Order decks: a deck `before X` comes before X.
        decks = list(rs.decks)
        ordered: list[A.DeckDecl] = []
        for d in decks:
            if d.before is not None:
                ordered.append(d)
        for d in decks:
            if d.before is None:
                ordered.append(d)
        named = {n for d in ordered for n in (*d.tiles, *([d.last] if d.last else []))}
        lists = []
        lasts = []
        for d in ordered:
            if d.tiles or d.last:
                members = [i for i, t in enumerate(rs.tiles) if t.name in d.tiles or t.name == d.last]
            else:
                members = [i for i, t in enumerate(rs.tiles) if t.name not in named]
            lst = [i for i in members for _ in range(pool[i])]
            lists.append(lst)
            lasts.append(frozenset(i for i in members if rs.tiles[i].name == d.last))
        w(f"DECK_NAMES = {tuple(d.name for d in ordered)!r}")
        w(f"_DECKS = {tuple(tuple(x) for x in lists)!r}")
        w(f"DECK_LAST = {tuple(lasts)!r}")
        # the clause a deck's order enforces: a tile named out of its deck's turn breaks it
        w(f"DECK_CLAUSES = {tuple(_first_cite(d.cites, '') for d in ordered)!r}")
        w("")
        w("def deck_lists():")
        self.indent()
        w("return _DECKS")
        self.outdent()
        bag_clause = _first_cite(rs.decks[0].cites, "") if rs.decks else ""
        w(f"CLAUSE_BAG = {bag_clause!r}")
        # the game ends when the last deck is drawn: its deck statement's last citation says so
        end_clause = ordered[-1].cites[-1].clause if ordered and ordered[-1].cites else ""
        w(f"CLAUSE_END = {end_clause!r}")

    def _states(self) -> None:
        rs = self.rs
        w = self.writeline
        w("")
        fns = []
        for name in self.states:
            st = rs.states[name]
            fn = self.rule_function(f"init_{self.state_index[name]}", "g", st, f"state {name} = {_src(st.init)}",
                                    st.init, self.game_scope())
            fns.append(f"({name!r}, {fn})")
        w(f"STATES = {_tuple(fns)}")

    def _placement(self) -> None:
        rs = self.rs
        w = self.writeline
        w("")
        pm = rs.placement
        w(f"DISCARD = {'discard' in pm!r}", pm['discard'].span if 'discard' in pm else None)
        for kind in ("discard", "adjacent", "matching"):
            w(f"CLAUSE_{kind.upper()} = {_first_cite(pm[kind].cites, '') if kind in pm else ''!r}")
        # a figure put where no feature lies breaks where-it-stands of the first figure
        first = next(iter(rs.figures.values()), None)
        w(f"CLAUSE_FOLLOW = {_first_cite(first.on_cites or first.cites, '') if first else ''!r}")
        # Per-tile placement checks beyond edge matching: `placement continues K` and
        # the `require`s of `on place of K` rules, for tiles that have a K feature.
        checks: list[str] = []
        cont = [p for p in pm.values() if p.kind == "continues"]
        ons = [o for o in rs.ons if o.event == "place"]
        cache: dict[frozenset[str], str] = {}
        for t in rs.tiles:
            kinds = {f.kind for f in t.features}
            relevant_cont = [p for p in cont if p.arg in kinds]
            relevant_on = [o for o in ons if o.of is None or o.of in kinds]
            relevant_on = [o for o in relevant_on if any(isinstance(a, A.Require) for a in o.actions)]
            if not relevant_cont and not relevant_on:
                checks.append("None")
                continue
            key = frozenset(kinds)
            if key in cache:
                checks.append(cache[key])
                continue
            fn = self.fresh("place_check")
            w("")
            w(f"def {fn}(g, o, cell):")
            self.indent()
            for p in relevant_cont:
                w(f"# {_where(p.span)}: placement continues {p.arg}", p.span)
                w(f"if not g.continues(o, cell, {self.kind_index[p.arg]}):")
                self.indent()
                w(f"return ({'its ' + p.arg + ' does not continue the ' + p.arg + ' on the board'!r}, {_first_cite(p.cites, '')!r})")
                self.outdent()
            for on in relevant_on:
                sc = self.place_scope()
                w(f"# {_where(on.span)}: on place" + (f" of {on.of}" if on.of else ""), on.span)
                if on.where is not None:
                    w(f"if {self.expr(on.where, sc)}:", on.where.span)
                else:
                    w("if True:")
                self.indent()
                for a in on.actions:
                    if isinstance(a, A.Require):
                        msg = a.message or f"the rule `{_src(a.test)}` does not hold"
                        w(f"if not ({self.expr(a.test, sc)}):", a.span)
                        self.indent()
                        w(f"return ({msg!r}, {_first_cite(on.cites, '')!r})")
                        self.outdent()
                w("pass")
                self.outdent()
            w("return None")
            self.outdent()
            cache[key] = fn
            checks.append(fn)
        w("")
        w(f"PLACE_CHECKS = {_tuple(checks)}")

    def _completion(self) -> None:
        rs = self.rs
        w = self.writeline
        w("")
        entries = []
        for kind in sorted(rs.complete):
            c = rs.complete[kind]
            fn = self.rule_function(f"complete_{self.kind_index[kind]}", "g, r", c,
                                    f"complete {kind} when {_src(c.when)}", c.when, self.feature_scope())
            entries.append(f"{self.kind_index[kind]}: {fn}")
        w(f"COMPLETE = {{{', '.join(entries)}}}")

    def _scoring(self) -> None:
        rs = self.rs
        w = self.writeline
        w("")
        tables = {"complete": [], "end": []}
        for (kind, when) in sorted(rs.scores):
            s = rs.scores[(kind, when)]
            fn = self.rule_function(f"score_{when}_{self.kind_index[kind]}", "g, r", s,
                                    f"score {kind} {when} = {_src(s.value)}", s.value, self.feature_scope())
            tables[when].append(f"{self.kind_index[kind]}: ({fn}, {_first_cite(s.cites, '')!r})")
        by = []
        for (kind, when, fig) in sorted(rs.figure_scores):
            s = rs.figure_scores[(kind, when, fig)]
            fn = self.rule_function(f"score_{when}_{self.kind_index[kind]}_by_{self.fig_index[fig]}", "g, r", s,
                                    f"score {kind} {when} by {fig} = {_src(s.value)}", s.value, self.feature_scope())
            by.append(f"({when!r}, {self.kind_index[kind]}, {self.fig_index[fig]}): ({fn}, {_first_cite(s.cites, '')!r})")
        w(f"SCORE_BY = {{{', '.join(by)}}}")
        w(f"SCORE_COMPLETE = {{{', '.join(tables['complete'])}}}")
        w(f"SCORE_END = {{{', '.join(tables['end'])}}}")
        ow = rs.owners
        w(f"OWNERS_MOST = {(ow is None or ow.mode == 'most')!r}", ow.span if ow else None)
        # awards and recalls
        w("")
        awards = []
        for name in sorted(rs.awards):
            a = rs.awards[name]
            fn = self.rule_function(f"award_{self.state_index[name]}", "g", a, f"award {name} at end = {_src(a.value)}",
                                    a.value, self.game_scope())
            awards.append(f"({self.state_index[name]}, {fn}, {_first_cite(a.cites, '')!r}, {name!r})")
        w(f"AWARDS = {_tuple(awards)}")
        recalls = []
        rclause = []
        for name in sorted(rs.recalls):
            rc = rs.recalls[name]
            gi = self.fig_index[name]
            fn = self.rule_function(f"recall_{gi}", "g, r", rc, f"recall {name} = {_src(rc.value)}",
                                    rc.value, self.feature_scope())
            recalls.append(f"{gi}: ({fn}, {_first_cite(rc.cites, '')!r})")
            rclause.append(f"{gi}: {_first_cite(rc.cites, '')!r}")
        w(f"RECALLS = {{{', '.join(recalls)}}}")
        w(f"RECALL_CLAUSE = {{{', '.join(rclause)}}}")

    def _figure_options(self) -> None:
        """The one figure-legality predicate (runtime/figures.py): the (figure, local feature)
        pairs allowed on o placed at cell, each figure's `when` condition written inline on
        the roots of the placed features it would join (`nbr`: runtime Board._neighbour_roots)."""
        rs = self.rs
        w = self.writeline
        conds = []
        used: set[str] = set()
        for gi, name in enumerate(self.figs):
            f = rs.figures[name]
            if f.when is None:
                conds.append((gi, f, "True"))
                continue
            sc = self._common(Scope(names={
                "figures": "figures",
                "tiles": "len(set().union(*(g.cells[x] for x in roots)) | {cell})",
                "shields": "(sum(g.shields[x] for x in roots) + o.feats[fi][2])",
            }))
            conds.append((gi, f, self.expr(f.when, sc)))
            used |= sc.used
        need_roots = bool(used & {"figures", "tiles", "shields"})
        w("")
        w("def figure_options(g, o, cell, nbr, sup):")
        self.indent()
        w('"""(figure, local feature) pairs a player with supply `sup` may put on o placed at cell."""')
        w("out = []")
        if "figures" in used:
            w("figs = g.figs")
        if conds:
            w("for fi, gis in o.figfeats:")
            self.indent()
            if need_roots:
                w("roots = set()")
                w("for d, k in o.sidefeat[fi]:")
                self.indent()
                w("side = nbr[d]")
                w("if side is not None and side[k] >= 0:")
                self.indent()
                w("roots.add(side[k])")
                self.outdent()
                self.outdent()
            if "figures" in used:
                w("figures = 0")
                w("for x in roots:")
                self.indent()
                w("figures += len(figs[x])")
                self.outdent()
            for gi, f, cond in conds:
                w(f"# {_where(f.span)}: figure {f.name}" + (f" ... when {_src(f.when)}" if f.when is not None else ""), f.span)
                w(f"if sup[{gi}] > 0 and {gi} in gis and ({cond}):")
                self.indent()
                w(f"out.append(({gi}, fi))")
                self.outdent()
            self.outdent()
        w("return out")
        self.outdent()

    def _events(self) -> None:
        rs = self.rs
        w = self.writeline
        w("")
        # on place: state updates (requires were checked before placing)
        w("def on_place(g, o, cell):")
        self.indent()
        w("sets = []")
        w("kinds = {f[0] for f in o.feats}")
        for on in rs.ons:
            if on.event != "place":
                continue
            sets = [a for a in on.actions if isinstance(a, A.SetAction)]
            if not sets:
                continue
            sc = self.place_scope()
            w(f"# {_where(on.span)}: on place" + (f" of {on.of}" if on.of else ""), on.span)
            cond = f"{self.kind_index[on.of]} in kinds" if on.of else "True"
            if on.where is not None:
                cond += f" and ({self.expr(on.where, sc)})"
            w(f"if {cond}:")
            self.indent()
            for a in sets:
                w(f"sets.append(({self.state_index[a.name]}, {self.expr(a.value, sc)}))", a.span)
            self.outdent()
        w("return sets")
        self.outdent()
        w("")
        w("def on_complete(g, r, kind):")
        self.indent()
        any_on = False
        for on in rs.ons:
            if on.event != "complete":
                continue
            any_on = True
            sc = self.feature_scope()
            w(f"# {_where(on.span)}: on complete" + (f" of {on.of}" if on.of else ""), on.span)
            cond = f"kind == {self.kind_index[on.of]}" if on.of else "True"
            if on.where is not None:
                cond += f" and ({self.expr(on.where, sc)})"
            w(f"if {cond}:")
            self.indent()
            sets = [a for a in on.actions if isinstance(a, A.SetAction)]
            vals = [self.expr(a.value, sc) for a in sets]
            # simultaneous assignment: every right-hand side reads the old values
            if sets:
                w(f"_new = {_tuple(vals)}")
                for j, a in enumerate(sets):
                    w(f"g.st[{self.state_index[a.name]}] = _new[{j}]", a.span)
                w(f"g.events.append({{'turn': g.turn, 'kind': 'state', 'set': {{{', '.join(repr(a.name) + ': _new[' + str(j) + ']' for j, a in enumerate(sets))}}}, 'clause': {_first_cite(on.cites, '')!r}}})")
            else:
                w("pass")
            self.outdent()
        if not any_on:
            w("return None")
        self.outdent()


@dataclass
class Compiled:
    source: str
    source_map: list[tuple[int, str]]


def generate(rs: RuleSet) -> Compiled:
    gen = CodeGenerator(rs)
    return Compiled(gen.generate(), gen.source_map)
