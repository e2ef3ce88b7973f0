"""Collect a rule set: the statements of the modules, in dependency order, into a RuleSet.

The Builder reads each statement once: a module's own clauses first, then every statement
in module order (`override` replaces what an earlier module defined, `with MODULE { ... }`
waits for its module), tiles with their variants and features.  Then it runs the checks
(dsl/checks/, one module per topic), which report misuse through `Builder.err`; the
helpers they share (`kind`, `listed_figures`, `expr`) are here.
"""
from __future__ import annotations

import difflib

from . import ast as A
from . import limits
from .builtins import FUNCTIONS, QUANTITIES
from .clauses import CLAUSES
from .diagnostics import Diagnostic, Floods, SourceCache, did_you_mean, narrow
from .family import Family
from .model import Feature, RuleSet, TileType, describe_key, override_key
from .parser import keywords
from .places import ALL_PLACES, HALVES, SIDES
from . import checks, exprtype
from .workspace import bundled_figures, bundled_modules, module_exists


class Builder:
    def __init__(self, modules: list[A.Module], sources: SourceCache | None = None):
        self.rs = RuleSet(modules=list(modules))
        self.sources = sources if sources is not None else SourceCache()  # to find a name's token in its statement
        self.diags: list[Diagnostic] = []
        self._seen: dict[tuple, A.Span] = {}
        self.tiles_seen: dict[str, A.TileDecl] = {}
        self._unknown: dict[tuple[str, str], list[Diagnostic]] = {}  # (file, name) -> its unknown-name errors
        self.misread: set[int] = set()  # id() of tiles with a word read as a feature kind that was meant as a place
        self._floods = Floods()  # alike diagnostics at one place: one (dsl/diagnostics.py)

    def _all_kinds(self) -> set[str]:
        """Every feature kind any module of the rule set declares."""
        return {d.kind for m in self.rs.modules for it in m.items
                for d in [it.decl if isinstance(it, A.Override) else it] if isinstance(d, A.FeatureDecl)}

    def err(self, span: A.Span, msg: str, code: str, severity: str = "error", word: str | None = None,
            nth: int = 0) -> None:
        """A diagnostic at `span`, narrowed to the token `word` in it (the `nth` one) when given:
        the name that is wrong, not the whole statement."""
        if word:
            span = narrow(span, word, self.sources, nth)
        d = Diagnostic(span, msg, code, severity)
        if code == "unknown-name" and word:
            self._unknown.setdefault((span.file, word), []).append(d)  # grouped by name (below)
        elif not self._floods.admit(d):
            return  # one more of a flood alike at this place: counted, grouped when the checks end
        self.diags.append(d)

    def _one_per_unknown_name(self) -> None:
        """A name misspelt where it is declared (`feature towers`) is unknown at every use: one
        error, at its first use, that lists the other lines, instead of one per use."""
        for (_, word), group in self._unknown.items():
            if len({(d.span.line, d.span.column) for d in group}) < 2:
                continue
            group = sorted(group, key=lambda d: (d.span.line, d.span.column))
            lines = sorted({d.span.line for d in group[1:]} - {group[0].span.line})
            drop = {id(d) for d in group}
            first = group[0]
            shown = ", ".join(map(str, lines[:8])) + (f" and {len(lines) - 8} more" if len(lines) > 8 else "")
            also = f" (`{word}` is unknown on line{'s' if len(lines) != 1 else ''} {shown} too)" if lines else ""
            self.diags = [d for d in self.diags if id(d) not in drop]
            self.diags.append(Diagnostic(first.span, first.message + also, first.code, first.severity,
                                         tuple(d.span for d in group[1:])))

    def build(self) -> RuleSet:
        from .params import collect as collect_params

        collect_params(self)  # parameters first: every expression then reads a parameter's value (dsl/params.py)
        for mod in self.rs.modules:  # a module's own clauses first: any statement may cite them
            for item in mod.items:
                if isinstance(item, A.ClauseDecl):
                    self._clause(item)
        present = [m.name for m in self.rs.modules]
        later: dict[str, list[tuple[A.Module, A.WithDecl]]] = {}  # module -> `with` blocks waiting for it
        for pos, mod in enumerate(self.rs.modules):
            self._cites(mod.cites)
            for item in mod.items:
                if isinstance(item, A.WithDecl):
                    self._with(mod, item, present, pos, later)
                else:
                    self._statement(mod, item)
            for wmod, w in later.pop(mod.name, []):  # as if written after both modules
                self._apply_with(wmod, w)
        checks.run(self)
        self.diags = self._floods.group(self.diags)
        self._one_per_unknown_name()
        self.diags.extend(limits.check_rule_set(self.rs))
        return self.rs

    # -- `with MODULE { ... }` (X13) -------------------------------------------
    def _with(self, mod: A.Module, w: A.WithDecl, present: list[str], pos: int, later: dict) -> None:
        self._cites(w.cites)
        if w.module == mod.name:
            self.err(w.span, f"`with {w.module}` inside module `{w.module}` itself: write its statements plainly", "unused", word=w.module)
            return
        word = "without" if w.without else "with"
        if w.module not in present and not module_exists(w.module):
            self.err(w.span, f"`{word} {w.module}`: no module `{w.module}` is bundled, so the block would "
                             f"{'always' if w.without else 'never'} apply{did_you_mean(w.module, bundled_modules())}",
                     "unknown-name", word=w.module)
            return
        if w.without:
            if w.module not in present:
                self._apply_with(mod, w)
            return
        if w.module not in present:
            return  # the module is not in this rule set: the block does not apply
        if present.index(w.module) < pos:
            self._apply_with(mod, w)
        else:
            later.setdefault(w.module, []).append((mod, w))

    def _apply_with(self, mod: A.Module, w: A.WithDecl) -> None:
        for item in w.items:
            if isinstance(item, (A.Requires, A.Extends, A.WithDecl)):
                what = "a block" if isinstance(item, A.WithDecl) else "`requires`"
                self.err(item.span, f"{what} inside `{'without' if w.without else 'with'} {w.module}`: the block "
                                    f"holds rules, not modules or blocks", "unsupported")
                continue
            self._statement(mod, item)
        self.rs.withs.append((mod.name, w))

    # -- statements ---------------------------------------------------------
    def _clause(self, d: A.ClauseDecl) -> None:
        if d.clause in CLAUSES:
            self.err(d.span, f"clause `{d.clause}` is the rulebook's ({CLAUSES[d.clause][:60]}); give the house "
                             f"rule's clause an ID of its own, e.g. `HOUSE-{d.clause}`", "duplicate", word=d.clause)
        elif d.clause in self.rs.clauses:
            self.err(d.span, f"clause `{d.clause}` is already declared at {self.rs.clauses[d.clause].span}", "duplicate", word=d.clause)
        elif not d.text.strip() or "\n" in d.text:
            self.err(d.span, f"clause `{d.clause}` needs its text on one line, as in "
                             f"`clause {d.clause} \"Cities score 3 per tile\"`", "range", word=d.clause)
        else:
            self.rs.clauses[d.clause] = d

    def _cites(self, cites) -> None:
        for c in cites:
            if c.clause not in CLAUSES and c.clause not in self.rs.clauses:
                hint = did_you_mean(c.clause, [*CLAUSES, *self.rs.clauses]) or \
                    f"; a house rule declares its own with `clause {c.clause} \"one line of text\"`"
                self.err(c.span, f"unknown clause `{c.clause}`{hint}", "unknown-clause")

    def _statement(self, mod: A.Module, item, override: bool = False) -> None:
        if isinstance(item, A.Override):
            self._statement(mod, item.decl, override=True)
            return
        self._cites(getattr(item, "cites", ()))
        key = override_key(item)
        if key is not None:
            if override:
                if key not in self._seen and key[0] in ("complete", "score") and key[1] not in self._all_kinds():
                    pass  # a misspelt kind: its unknown-name error is the one diagnostic of this mistake
                elif key not in self._seen:
                    hint = "" if mod.of_type(A.Requires) or mod.of_type(A.Extends) else \
                        f"; module `{mod.name}` builds on no other: a house rule starts with `extends base`"
                    self.err(item.span, f"`override` of {describe_key(key)}, but no earlier module defines it{hint}",
                             "override-missing")
                else:
                    self.rs.overrides[key] = item.span
            elif key in self._seen and not (item.repeats if isinstance(item, A.Declared) else key[0] in ("deck", "on")):
                # several `on` rules for one event are normal
                prev = self._seen[key]
                self.err(item.span, f"{describe_key(key)} is already defined at {prev}; write `override` to replace it", "duplicate")
                return
            self._seen[key] = item.span
        rs = self.rs
        if isinstance(item, A.Declared) and item.collect:  # declared in one place (dsl/ast.py): kept by class
            kept = rs.declared.setdefault(type(item), [])
            if override:
                kept[:] = [o for o in kept if override_key(o) != key]
            kept.append(item)
            return
        family = Family.of_statement(item)
        if family.collect is not None:  # a family's own statements (the card game's: dsl/cards.py collects them)
            family.collect(self, item, override)
            return
        match item:
            case A.Requires() | A.Extends() | A.ParamDecl():
                pass  # a parameter: collected first (build)
            case A.Total():
                rs.totals.append((mod.name, item))
            case A.CompositionDecl():
                rs.compositions.append((mod.name, item))
            case A.Players():
                rs.players = item
            case A.EdgeDecl():
                if item.code in rs.edges:
                    self.err(item.span, f"edge code `{item.code}` is already defined at {rs.edges[item.code].span}", "duplicate", word=item.code)
                rs.edges[item.code] = item
            case A.FeatureDecl():
                if item.kind in rs.features:
                    self.err(item.span, f"feature kind `{item.kind}` is already defined at {rs.features[item.kind].span}", "duplicate", word=item.kind)
                if item.kind in ALL_PLACES:
                    self.err(item.span, f"`{item.kind}` is a place name and cannot name a feature kind", "bad-name", word=item.kind)
                rs.features[item.kind] = item
            case A.FigureDecl():
                rs.figures[item.name] = item
            case A.TileDecl():
                self._tile(mod, item, override)
            case A.StartDecl():
                rs.start = item
            case A.DeckDecl():
                rs.decks = [d for d in rs.decks if d.name != item.name] + [item]
            case A.BoxDecl():
                prev = next((b for b in rs.boxed if b.tile == item.tile), None)
                if override:  # the same copy boxed, for a more specific reason (its clause is the one cited)
                    if prev is None:
                        self.err(item.span, f"`override` of box {item.tile}, but no earlier module boxes it; "
                                            f"write `box {item.tile}` without `override`", "override-missing",
                                 word=item.tile)
                        return
                    rs.boxed[rs.boxed.index(prev)] = item
                    return
                if prev is not None:
                    self.err(item.span, f"tile `{item.tile}` is already boxed at {prev.span}; a `box` takes its "
                                        f"tile out of the game once: write it once", "duplicate", word=item.tile)
                    return
                rs.boxed.append(item)
            case A.PlacementDecl():
                rs.placement[item.kind] = item
            case A.CompleteDecl():
                rs.complete[item.kind] = item
            case A.ScoreDecl() if item.figure is not None:
                rs.trigger_scores[(item.kind, item.when, item.figure)] = item
            case A.PermitDecl():
                if override:
                    rs.permits = [p for p in rs.permits if override_key(p) != key]
                rs.permits.append(item)
            case A.ScoreDecl():
                if item.by is None:
                    rs.scores[(item.kind, item.when)] = item
                else:
                    rs.figure_scores[(item.kind, item.when, item.by)] = item
            case A.OwnersDecl():
                rs.owners = item
            case A.ReturnDecl():
                rs.returns[item.figure] = item
            case A.StateDecl():
                if self._reserved(item):
                    return
                rs.states[item.name] = item
            case A.OnDecl():
                if override:
                    rs.ons = [o for o in rs.ons if override_key(o) != key]
                rs.ons.append(item)
            case A.AwardDecl():
                rs.awards[item.state] = item
            case A.RecallDecl():
                rs.recalls[item.figure] = item
            case A.CaptureDecl():
                if item.after in rs.captures and not override:
                    self.err(item.span, f"a capture after `{item.after}` is already defined at {rs.captures[item.after].span}", "duplicate", word=item.after)
                rs.captures[item.after] = item
            case A.ExchangeDecl():
                rs.exchange = item
            case A.RansomDecl():
                rs.ransom = item
            case A.TrackDecl():
                if item.name in rs.tracks and not override:
                    self.err(item.span, f"track `{item.name}` is already defined at {rs.tracks[item.name].span}", "duplicate", word=item.name)
                rs.tracks[item.name] = item
            case A.OnPutDecl():
                if override:
                    rs.outpost_puts = [o for o in rs.outpost_puts if override_key(o) != key]
                rs.outpost_puts.append(item)
            case A.OnTrackDecl():
                if override:
                    rs.track_ons = [o for o in rs.track_ons if override_key(o) != key]
                rs.track_ons.append(item)
            case A.InvariantDecl():
                prev = next((i for i in rs.invariants if i.name == item.name), None)
                if prev is not None:  # verify reports invariants by name: two of one name would be one verdict
                    self.err(item.span, f"invariant `{item.name}` is already declared at {prev.span}; give this one "
                                        f"a name of its own", "duplicate", word=item.name)
                else:
                    rs.invariants.append(item)
            case A.ClauseDecl():
                pass  # read first (build)
            case A.AssumeDecl():
                prev = next((a for _, a in rs.assumptions if a.name == item.name), None)
                if prev is not None:
                    self.err(item.span, f"assumption `{item.name}` is already stated at {prev.span}", "duplicate", word=item.name)
                elif not item.text.strip() or "\n" in item.text:
                    self.err(item.span, f"assumption `{item.name}` needs its text on one line", "range", word=item.name)
                else:
                    rs.assumptions.append((mod.name, item))
            case A.ExampleDecl():
                rs.examples.append(item)

    def _reserved(self, st: A.StateDecl) -> bool:
        """A state named like a built-in quantity, function or keyword would silently replace it."""
        n = st.name
        if n in QUANTITIES:
            what = f"a built-in quantity ({QUANTITIES[n].doc}); every rule that reads `{n}` would read the state instead"
        elif n in FUNCTIONS:
            what = f"a built-in function ({FUNCTIONS[n].doc})"
        elif n in keywords():
            what = "a keyword of the rules language"
        else:
            return False
        self.err(st.span, f"`state {n}`: `{n}` is {what}; a state cannot shadow it: give the state another "
                          f"name, e.g. `house_{n}`", "reserved", word=n)
        return True

    def _tile(self, mod: A.Module, t: A.TileDecl, override: bool = False) -> None:
        if override:
            if t.name not in self.tiles_seen:
                self.err(t.span, f"`override` of tile `{t.name}`, but no earlier module defines it", "override-missing", word=t.name)
                return
            # a house rule redraws or recounts a tile: it replaces every copy and variant of it
            old = [tt for tt in self.rs.tiles if tt.name == t.name]
            self.rs.tiles = [tt for tt in self.rs.tiles if tt.name != t.name]
            self.rs.overridden_tiles.update(tt.module for tt in old)
        elif t.name in self.tiles_seen:
            self.err(t.span, f"tile `{t.name}` is already defined at {self.tiles_seen[t.name].span}; "
                             f"write `override` to replace it", "duplicate", word=t.name)
            return
        self.tiles_seen[t.name] = t
        self._misread_places(t)
        variant_total = sum(v.count for v in t.variants)
        if variant_total > t.count:
            self.err(t.span, f"tile `{t.name}` has {t.count} cop{'y' if t.count == 1 else 'ies'} but its variants claim {variant_total}", "count", word=t.name)
        plain = max(t.count - variant_total, 0)
        base_feats = self._features(t, t.features, 0)
        types = []
        if plain > 0 or not t.variants:
            types.append(TileType(t.name, t.name, None, mod.name, plain, t.edges, base_feats, t))
        for v in t.variants:
            self._cites(v.cites)
            extra = self._features(t, v.features, len(base_feats))
            types.append(TileType(f"{t.name}+{v.name}", t.name, v.name, mod.name, v.count, t.edges, base_feats + extra, t))
        self._cites(t.cites)
        self.rs.tiles.extend(types)

    def _misread_places(self, t: A.TileDecl) -> None:
        """`city Q` (a typo for `city N`): the parser reads `Q`, not being a place, as the kind of a
        second feature on the same line.  One feature line is one feature, so a word that starts
        a "feature" on the line where the last one is written was meant as a place: say so, once,
        and leave this tile's place checks alone (a city on no place, a border, the edges' terrain
        would each only repeat the one typo)."""
        blocks = [t.features, *(v.features for v in t.variants)]
        for feats in blocks:
            for prev, f in zip(feats, feats[1:]):
                if f.span.line <= 0 or f.span.line != prev.span.end_line:
                    continue
                places = ALL_PLACES if t.cells is None else ()
                close = [p for p in ALL_PLACES if p.lower() == f.kind.lower()] or \
                    difflib.get_close_matches(f.kind, sorted(places), n=1, cutoff=0.6)
                hint = f"; did you mean `{close[0]}`?" if close else ""
                where = (f"{' '.join(SIDES)}, {' '.join(HALVES)}, C and the corners NW NE SE SW" if t.cells is None
                         else "its numbered sides, halves and centres (N1, N1w, C1, ...)")
                self.err(f.span, f"`{f.kind}` is not a place of tile `{t.name}`{hint} (a feature line is a kind "
                                 f"and its places: {where})", "bad-place", word=f.kind)
                self.misread.add(id(t))
                break

    def _features(self, t: A.TileDecl, feats, offset: int) -> tuple[Feature, ...]:
        # Resolve `-> N` / `crosses N` references to the feature holding that place.
        owner: dict[str, int] = {}
        all_feats = list(t.features) + [f for f in feats if f not in t.features]
        placeless = any(not f.places for f in all_feats)  # a feature written without its places
        for i, f in enumerate(all_feats):
            for p in f.places:
                owner.setdefault(p, i)
        out = []
        for j, f in enumerate(feats):
            i = offset + j
            borders = []
            for ref in f.borders:
                if ref not in owner and (id(t) in self.misread or placeless):
                    continue  # the place it names was misspelt, or the feature on it lies nowhere: reported once
                if ref not in owner:
                    self.err(f.span, f"`-> {ref}`: no feature of tile `{t.name}` lies on {ref}", "bad-border", word=ref)
                else:
                    borders.append(owner[ref])
            crosses = None
            if f.crosses is not None:
                if f.crosses not in owner:
                    if id(t) not in self.misread and not placeless:  # else: the place it names was misspelt, reported once
                        self.err(f.span, f"`crosses {f.crosses}`: no feature of tile `{t.name}` lies on {f.crosses}", "bad-border", word=f.crosses)
                else:
                    crosses = owner[f.crosses]
            out.append(Feature(i, f.kind, f.places, f.shields, tuple(borders), crosses, f))
        return tuple(out)

    # -- helpers of the checks ------------------------------------------------
    def listed_figures(self, what: str, figs: tuple[str, ...], span: A.Span) -> None:
        """A capture or ransom list may name figures of bundled modules not in play (the Tower
        lists the abbot, TOWER-FIGURES-1): they apply once that module is.  Any other name is
        an error, so a misspelling still shows."""
        for fig in figs:
            if fig not in self.rs.figures and fig not in bundled_figures():
                known = {*self.rs.figures, *bundled_figures()}
                self.err(span, f"`{what}`: no figure `{fig}` in these rules or any bundled module"
                               f"{did_you_mean(fig, known)}", "unknown-name", word=fig)

    def kind(self, kind: str, span: A.Span) -> None:
        if kind not in self.rs.features:
            self.err(span, f"unknown feature kind `{kind}`{did_you_mean(kind, self.rs.features)}", "unknown-name", word=kind)

    def expr(self, e: A.Expr, ctx: set[str], want: str | None) -> str:
        """The type of a rule expression (`int`, `bool`, or `?` once an error is reported), every
        misuse reported; `want`, if given, is the type it must have (dsl/exprtype.py)."""
        return exprtype.expect(self, e, ctx, want)
