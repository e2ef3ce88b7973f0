"""Read rule files, resolve modules, build a RuleSet and check it.

Every problem is a Diagnostic; nothing here raises for a designer's mistake.
"""
from __future__ import annotations

import difflib
import os
import re
from functools import lru_cache
from dataclasses import dataclass, field
from pathlib import Path

from . import ast as A
from . import limits, multicell
from .builtins import FUNCTIONS, QUANTITIES
from .clauses import CLAUSES
from .diagnostics import Diagnostic, SourceCache, narrow
from .model import BUNDLED_RULES, MOST_PLAYERS, Feature, RuleSet, TileType, describe_key, override_key
from .parser import ParseFailure, keywords, parse
from .untrusted import MAX_RULE_FILE, FileReadError, read_text
from .places import ALL_PLACES, CENTRE, HALVES, SIDE_HALVES, SIDES, place_type


_BUNDLED_SEEN: dict[str, tuple[str, A.Module]] = {}  # bundled file -> (its text, module) as a workspace parsed it


@lru_cache(maxsize=1)
def _bundled_figures() -> frozenset[str]:
    """The figures the bundled modules declare (rules/*.tess); a file a workspace has already
    parsed with the same text is not parsed again (`tessera check rules/` reads them all)."""
    out = set()
    for path in sorted(BUNDLED_RULES.glob("*.tess")):
        try:
            text = path.read_text(encoding="utf-8")
            seen = _BUNDLED_SEEN.get(str(path))
            mod = seen[1] if seen is not None and seen[0] == text else parse(text, str(path))
        except (OSError, ParseFailure):
            continue
        for item in mod.items:
            decl = item.decl if isinstance(item, A.Override) else item
            if isinstance(decl, A.FigureDecl):
                out.add(decl.name)
    return frozenset(out)


def _bundled_modules() -> list[str]:
    return sorted(p.stem for p in BUNDLED_RULES.glob("*.tess"))


def _module_exists(name: str) -> bool:
    """A module name a `with` block may wait for: a bundled module (a rule file beside it is
    named by its path, so it cannot be waited for by name)."""
    return name in _bundled_modules()


def did_you_mean(name: str, choices) -> str:
    close = difflib.get_close_matches(name, sorted(set(choices)), n=1, cutoff=0.6)
    return f"; did you mean `{close[0]}`?" if close else ""


@dataclass
class Workspace:
    """Parsed files and the modules they declare."""

    sources: SourceCache = field(default_factory=SourceCache)
    modules: dict[str, A.Module] = field(default_factory=dict)
    files: list[str] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    search: list[Path] = field(default_factory=list)
    # a record's folder (resolved): every rule file read, but the bundled ones, must lie in it or below,
    # symlinks followed, so a record cannot make a command read /etc/passwd through `rules.tess -> /etc/passwd`
    confine: Path | None = None

    def add_file(self, path: Path) -> A.Module | None:
        name = str(path)
        if self.confine is not None and not (_inside(path, self.confine) or _inside(path, BUNDLED_RULES)):
            self.diagnostics.append(Diagnostic(A.Span(name, 0, 0), "a record's rule files lie in the record's folder "
                                               "or below; this one leads outside it (a symlink), so it is not read", "io"))
            return None
        try:  # a regular file of bounded size only: never a FIFO, /dev/zero or a folder
            text = read_text(path, MAX_RULE_FILE)
        except FileReadError as err:
            if err.code == "encoding":
                self.files.append(name)  # it was checked (and is not looked up again)
                self.diagnostics.append(Diagnostic(A.Span(name, err.line, err.column), err.message, "encoding"))
            else:
                self.diagnostics.append(Diagnostic(A.Span(name, 0, 0), err.message, "io"))
            return None
        mod = self.add_text(text, name)
        if mod is not None and path.parent.resolve() == BUNDLED_RULES:
            _BUNDLED_SEEN[str(path.resolve())] = (text, mod)
        return mod

    def add_text(self, text: str, name: str) -> A.Module | None:
        self.sources.add(name, text)
        self.files.append(name)
        try:
            module = parse(text, name)
        except ParseFailure as fail:
            self.diagnostics.extend(fail.diagnostics)
            return None
        self.diagnostics.extend(limits.check_module(module))  # numbers, counts, names: bounded (dsl/limits.py)
        other = self.modules.get(module.name)
        if other is not None and other.file != name:
            self.diagnostics.append(Diagnostic(
                module.span, f"module `{module.name}` is already declared in {other.file}", "duplicate"))
            return module
        self.modules[module.name] = module
        return module

    def find_module(self, name: str) -> A.Module | None:
        """A module by name: one already read, else a bundled one (rules/ and rules/variants/),
        else one in the search folders (the folders of the rule files named, and a record's
        folder).  A bundled module is never replaced by a file or folder of the same name
        elsewhere, so a name means the same module from every working folder."""
        if name in self.modules:
            return self.modules[name]
        if not is_module_name(name):
            return None
        for folder in [BUNDLED_RULES, *self.search]:
            for cand in (folder / f"{name}.tess", folder / "variants" / f"{name}.tess"):
                if _is_file(cand) and str(cand) not in self.files:
                    mod = self.add_file(cand)
                    if mod is not None and mod.name == name:
                        return mod
        return self.modules.get(name)

    def known_module_names(self) -> list[str]:
        names = set(self.modules)
        for folder in [BUNDLED_RULES, *self.search]:
            names.update(p.stem for p in folder.glob("*.tess"))
            names.update(p.stem for p in folder.glob("variants/*.tess"))
        return sorted(names)


def expand_paths(paths: list[str]) -> tuple[list[Path], list[str]]:
    """Files named, and every *.tess under folders named; missing paths are reported."""
    files: list[Path] = []
    missing: list[str] = []
    seen: set[str] = set()

    def add(f: Path) -> None:  # `check rules/ rules/base.tess` reads base.tess once
        key = os.path.realpath(f)
        if key not in seen:
            seen.add(key)
            files.append(f)

    for p in paths:
        path = Path(p)
        if path.is_dir():
            for f in sorted(path.rglob("*.tess")):
                add(f)
        elif path.exists() or path.is_symlink():
            add(path)  # a FIFO or device too: reading it reports what it is
        else:
            missing.append(p)
    return files, missing


MAX_NAME = limits.MAX_NAME  # characters of a module name (a file name is `NAME.tess`, well within every file system)
_MODULE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def is_module_name(spec: str) -> bool:
    """A bare module name (`base`, `big_cities`), as opposed to a path to a rule file."""
    return len(spec) <= MAX_NAME and _MODULE_NAME.fullmatch(spec) is not None


def _inside(path: Path, folder: Path) -> bool:
    """Whether `path`, every symlink followed, lies in `folder` (resolved) or below."""
    try:
        return path.resolve().is_relative_to(folder)
    except (OSError, RuntimeError):  # a symlink loop, a name too long: not inside
        return False


def _is_file(p: Path) -> bool:
    try:
        return p.is_file()
    except OSError:  # a name too long for the file system and the like: no such module
        return False


# --------------------------------------------------------------- resolution
def module_order(ws: Workspace, roots: list[str], diags: list[Diagnostic]) -> list[A.Module]:
    """Modules in dependency order (requirements first); cycles and unknown names reported."""
    order: list[A.Module] = []
    state: dict[str, int] = {}  # 1 visiting, 2 done

    def visit(name: str, via: A.Module | None, span: A.Span | None, path: list[str]) -> None:
        if state.get(name) == 2:
            return
        if state.get(name) == 1:
            cycle = " -> ".join(path[path.index(name):] + [name])
            diags.append(Diagnostic(narrow(span, name, ws.sources) if span is not None else A.Span(), f"modules require each other in a cycle: {cycle}", "cycle"))
            return
        mod = ws.find_module(name)
        if mod is None:
            where = narrow(span, name, ws.sources) if span is not None else A.Span()
            diags.append(Diagnostic(where, f"unknown module `{name}`{did_you_mean(name, ws.known_module_names())}", "unknown-name"))
            return
        state[name] = 1
        for item in mod.items:
            if isinstance(item, (A.Requires, A.Extends)):
                for dep in item.modules:
                    visit(dep, mod, item.span, path + [name])
        state[name] = 2
        order.append(mod)

    for r in roots:
        visit(r, None, None, [])
    return order


# ------------------------------------------------------------------ building
class Builder:
    def __init__(self, modules: list[A.Module], sources: SourceCache | None = None):
        self.rs = RuleSet(modules=list(modules))
        self.sources = sources if sources is not None else SourceCache()  # to find a name's token in its statement
        self.diags: list[Diagnostic] = []
        self._seen: dict[tuple, A.Span] = {}
        self._tiles_seen: dict[str, A.TileDecl] = {}
        self._unknown: dict[tuple[str, str], list[Diagnostic]] = {}  # (file, name) -> its unknown-name errors
        self._misread: set[int] = set()  # id() of tiles with a word read as a feature kind that was meant as a place

    def err(self, span: A.Span, msg: str, code: str, severity: str = "error", word: str | None = None,
            nth: int = 0) -> None:
        """A diagnostic at `span`, narrowed to the token `word` in it (the `nth` one) when given:
        the name that is wrong, not the whole statement."""
        if word:
            span = narrow(span, word, self.sources, nth)
        d = Diagnostic(span, msg, code, severity)
        if code == "unknown-name" and word:
            self._unknown.setdefault((span.file, word), []).append(d)
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
        self._check()
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
        if w.module not in present and not _module_exists(w.module):
            self.err(w.span, f"`{word} {w.module}`: no module `{w.module}` is bundled, so the block would "
                             f"{'always' if w.without else 'never'} apply{did_you_mean(w.module, _bundled_modules())}",
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
                if key not in self._seen:
                    hint = "" if mod.of_type(A.Requires) or mod.of_type(A.Extends) else \
                        f"; module `{mod.name}` builds on no other: a house rule starts with `extends base`"
                    self.err(item.span, f"`override` of {describe_key(key)}, but no earlier module defines it{hint}",
                             "override-missing")
                else:
                    self.rs.overrides[key] = item.span
            elif key in self._seen and key[0] not in ("deck", "on"):  # several `on` rules for one event are normal
                prev = self._seen[key]
                self.err(item.span, f"{describe_key(key)} is already defined at {prev}; write `override` to replace it", "duplicate")
                return
            self._seen[key] = item.span
        rs = self.rs
        if isinstance(item, A.CARD_STATEMENTS):  # the card game family: collected and checked by dsl/cards.py
            from .cards import collect

            collect(self, item, override)
            return
        match item:
            case A.Requires() | A.Extends():
                pass
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
            case A.OnRoundDecl():
                if override:
                    rs.round_ons = [o for o in rs.round_ons if override_key(o) != key]
                rs.round_ons.append(item)
            case A.InvariantDecl():
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
            if t.name not in self._tiles_seen:
                self.err(t.span, f"`override` of tile `{t.name}`, but no earlier module defines it", "override-missing", word=t.name)
                return
            # a house rule redraws or recounts a tile: it replaces every copy and variant of it
            old = [tt for tt in self.rs.tiles if tt.name == t.name]
            self.rs.tiles = [tt for tt in self.rs.tiles if tt.name != t.name]
            self.rs.overridden_tiles.update(tt.module for tt in old)
        elif t.name in self._tiles_seen:
            self.err(t.span, f"tile `{t.name}` is already defined at {self._tiles_seen[t.name].span}; "
                             f"write `override` to replace it", "duplicate", word=t.name)
            return
        self._tiles_seen[t.name] = t
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
                self._misread.add(id(t))
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
                if ref not in owner and (id(t) in self._misread or placeless):
                    continue  # the place it names was misspelt, or the feature on it lies nowhere: reported once
                if ref not in owner:
                    self.err(f.span, f"`-> {ref}`: no feature of tile `{t.name}` lies on {ref}", "bad-border", word=ref)
                else:
                    borders.append(owner[ref])
            crosses = None
            if f.crosses is not None:
                if f.crosses not in owner:
                    if id(t) not in self._misread and not placeless:  # else: the place it names was misspelt, reported once
                        self.err(f.span, f"`crosses {f.crosses}`: no feature of tile `{t.name}` lies on {f.crosses}", "bad-border", word=f.crosses)
                else:
                    crosses = owner[f.crosses]
            out.append(Feature(i, f.kind, f.places, f.shields, tuple(borders), crosses, f))
        return tuple(out)

    def _check_compositions(self) -> None:
        """Each `composition` is one clause's printed counts, consistent in itself.  (Whether
        the tiles agree with it is the verifier's `set-counts`: the tiles may come later.)"""
        unlisted: dict[str, A.CompositionDecl] = {}
        listed: dict[tuple[str, str], A.CompositionCount] = {}
        for _, comp in self.rs.compositions:
            if comp.total is None and not comp.counts:
                self.err(comp.span, "a composition states how many tiles (`composition 18`), how many of each "
                                    "(`composition: A x2, B x4`), or both", "composition")
                continue
            if len(comp.cites) != 1:
                how = "cites none" if not comp.cites else f"cites {len(comp.cites)} clauses"
                self.err(comp.span, f"a composition states the counts of one composition clause, but this one {how}: "
                                    f"cite it, as in `composition 18 [TOWER-COMP-1]`", "composition")
                continue
            clause = comp.cites[0].clause
            if not comp.counts:
                if clause in unlisted:
                    self.err(comp.span, f"{clause} already has a composition without a list at {unlisted[clause].span}; "
                                        f"both would count the same tiles", "composition")
                unlisted.setdefault(clause, comp)
                continue
            for entry in comp.counts:
                if entry.count < 1:
                    self.err(entry.span, f"`{entry.tile} x{entry.count}`: a tile the rulebook prints is there at least once", "range")
                prev = listed.get((clause, entry.tile))
                if prev is not None:
                    self.err(entry.span, f"tile `{entry.tile}` is already counted for {clause} at {prev.span}", "duplicate")
                listed.setdefault((clause, entry.tile), entry)
            n = sum(e.count for e in comp.counts)
            if comp.total is not None and n != comp.total:
                self.err(comp.span, f"this composition of {clause} states {comp.total} tiles, but its list adds up to {n}", "composition")

    # -- semantic checks ------------------------------------------------------
    def _check(self) -> None:
        rs = self.rs
        if rs.cards is not None:
            from .cards import check

            check(self)
            return
        half_kinds = rs.half_kinds()
        for code, e in rs.edges.items():
            for part in e.parts:
                if part not in rs.features:
                    self.err(e.span, f"edge `{code}` is drawn with unknown feature kind `{part}`{did_you_mean(part, rs.features)}", "unknown-name", word=part)
        for name, fig in rs.figures.items():
            for k in fig.on:
                if k not in rs.features:
                    self.err(fig.span, f"figure `{name}` may stand on unknown feature kind `{k}`{did_you_mean(k, rs.features)}", "unknown-name", word=k)
            if fig.count_expr is not None:
                before = len(self.diags)
                if self.expr(fig.count_expr, {"setup"}, "int") == "int" and len(self.diags) == before:
                    for n, c in rs.figure_counts(name).items():
                        if c < 0:
                            self.err(fig.count_expr.span, f"figure `{name}`: the count is {c} for {n} players; it cannot be negative", "range")
                            break
            elif fig.count < 0:
                self.err(fig.span, "a figure count cannot be negative", "range")
            if fig.when is not None:
                self.expr(fig.when, {"feature"}, "bool")
            if fig.at == "corner":
                for k in fig.on:
                    if k in rs.features and k not in half_kinds:
                        self.err(fig.span, f"figure `{name}` stands at a corner, and a corner lies between two "
                                           f"half-sides: `{k}` does not lie on half-sides", "bad-place")
        for pm in rs.permits:
            if pm.figure not in rs.figures:
                self.err(pm.span, f"`{pm.mode} {pm.figure}`: no figure `{pm.figure}`{did_you_mean(pm.figure, rs.figures)}", "unknown-name", word=pm.figure)
            for k in pm.on:
                if k not in rs.features:
                    self.err(pm.span, f"`{pm.mode} {pm.figure}` names unknown feature kind `{k}`{did_you_mean(k, rs.features)}", "unknown-name", word=k)
                elif (pm.mode == "allow" and pm.figure in rs.figures and rs.figures[pm.figure].at == "corner"
                      and k not in half_kinds):
                    self.err(pm.span, f"a {pm.figure} stands at a corner, between two half-sides: `{k}` does not lie on half-sides", "bad-place")
                elif pm.mode == "forbid" and pm.figure in rs.figures and k not in rs.may_stand(pm.figure):
                    self.err(pm.span, f"a {pm.figure} never stands on a {k}, so this `forbid` never applies", "unknown-name", word=k)
            if pm.anywhere and pm.mode == "forbid":
                self.err(pm.span, f"`forbid {pm.figure}` takes an option away wherever the figure would stand; "
                                  "`anywhere` belongs to `allow`", "bad-place")
            elif pm.anywhere and pm.figure in rs.figures and rs.figures[pm.figure].at == "corner":
                self.err(pm.span, f"a {pm.figure} stands at a corner of the tile just placed; "
                                  "it cannot be allowed `anywhere`", "bad-place")
            if pm.when is not None:
                self.expr(pm.when, {"feature"}, "bool")
        seen_tiles: set[str] = set()
        for tt in rs.tiles:
            if tt.decl.name in seen_tiles:
                continue
            seen_tiles.add(tt.decl.name)
            self._check_tile(tt.decl, half_kinds)
        # totals per module
        for modname, tot in rs.totals:
            if modname in rs.overridden_tiles:
                continue  # a house rule recounted this module's tiles: its published total no longer applies
            n = sum(tt.count for tt in rs.tiles if tt.module == modname)
            if n != tot.count:
                self.err(tot.span, f"module `{modname}` states {tot.count} tiles but its tiles add up to {n}", "total")
        self._check_compositions()
        names = {t.name for t in rs.tiles}
        self._check_start(names)
        for b in rs.boxed:
            if b.tile not in names:
                self.err(b.span, f"boxed tile `{b.tile}` is not a tile{did_you_mean(b.tile, names)}", "unknown-name", word=b.tile)
        self._copies_taken(names)
        deck_names = {d.name for d in rs.decks}
        for d in rs.decks:
            for tn in (*d.tiles, *([d.last] if d.last else [])):
                if tn not in names:
                    self.err(d.span, f"deck `{d.name}` names unknown tile `{tn}`{did_you_mean(tn, names)}", "unknown-name", word=tn)
            if d.before and d.before not in deck_names:
                self.err(d.span, f"deck `{d.name}` is drawn before unknown deck `{d.before}`{did_you_mean(d.before, deck_names)}", "unknown-name", word=d.before)
        for p in rs.placement.values():
            if p.kind == "continues" and p.arg not in rs.features:
                self.err(p.span, f"`placement continues` needs a feature kind, not `{p.arg}`{did_you_mean(p.arg or '', rs.features)}", "unknown-name", word=p.arg)
        for kind, c in rs.complete.items():
            self._kind(kind, c.span)
            self.expr(c.when, {"feature"}, "bool")
        for s in rs.all_scores():
            self._kind(s.kind, s.span)
            self.expr(s.value, {"feature"}, "int")
            if s.figure is not None:
                if s.figure not in rs.figures:
                    self.err(s.span, f"`score ... {s.when} {s.figure}`: no figure `{s.figure}`{did_you_mean(s.figure, rs.figures)}", "unknown-name", word=s.figure)
                elif s.kind not in rs.may_stand(s.figure):
                    self.err(s.span, f"a {s.figure} never stands on a {s.kind}, so this score never applies", "unknown-name", word=s.kind)
            if s.by is not None:
                if s.by not in rs.figures:
                    self.err(s.span, f"`score ... by {s.by}`: no figure `{s.by}`{did_you_mean(s.by, rs.figures)}", "unknown-name", word=s.by)
                elif s.kind not in rs.may_stand(s.by):
                    self.err(s.span, f"a {s.by} never stands on a {s.kind}, so this score never applies", "unknown-name", word=s.kind)
        for st in rs.states.values():
            self.expr(st.init, {"game"}, "int")
        for on in rs.ons:
            ctx = {"game", "feature"} if on.event == "complete" else {"game", "place"}
            if on.of is not None:
                self._kind(on.of, on.span)
            if on.where is not None:
                self.expr(on.where, ctx, "bool")
            for act in on.actions:
                if isinstance(act, A.Release):
                    self.err(act.span, f"`release` frees prisoners at the end of a round: write it in "
                                       f"`on round end {{ ... }}`, not in `on {on.event}`", "unsupported")
                elif isinstance(act, A.Require):
                    self.expr(act.test, ctx, "bool")
                else:
                    if act.name not in rs.states:
                        self.err(act.span, f"`set {act.name}`: no `state {act.name}` is declared{did_you_mean(act.name, rs.states)}", "unknown-name", word=act.name)
                    elif rs.states[act.name].each and act.seat is None:
                        self.err(act.span, f"`{act.name}` is kept for each player: say whose, as in "
                                           f"`set {act.name} of current = ...`", "context")
                    elif not rs.states[act.name].each and act.seat is not None:
                        self.err(act.span, f"`{act.name}` is one value for the game, not one per player: "
                                           f"write `set {act.name} = ...` (or declare `state {act.name} of each player`)", "context")
                    if act.seat is not None:
                        self.expr(act.seat, ctx, "int")
                    self.expr(act.value, ctx, "int")
        for aw in rs.awards.values():
            if aw.state not in rs.states:
                self.err(aw.span, f"`award {aw.state}`: no `state {aw.state}` is declared{did_you_mean(aw.state, rs.states)}", "unknown-name", word=aw.state)
            elif aw.most and not rs.states[aw.state].each:
                self.err(aw.span, f"`award most {aw.state}` compares the players' values, but `{aw.state}` is one value "
                                  f"for the game: declare `state {aw.state} of each player`", "context")
            elif not aw.most and rs.states[aw.state].each:
                self.err(aw.span, f"`award {aw.state}` names the seat that state holds, but `{aw.state}` is kept for "
                                  f"each player: write `award most {aw.state} at end = ...`", "context")
            self.expr(aw.value, {"game"}, "int")
        for fig, rc in rs.recalls.items():
            if fig not in rs.figures:
                self.err(rc.span, f"`recall {fig}`: no figure `{fig}`{did_you_mean(fig, rs.figures)}", "unknown-name", word=fig)
            self.expr(rc.value, {"feature"}, "int")
        for fig, rt in rs.returns.items():
            if fig not in rs.figures:
                self.err(rt.span, f"`return {fig}`: no figure `{fig}`{did_you_mean(fig, rs.figures)}", "unknown-name", word=fig)
        for inv in rs.invariants:
            self.expr(inv.test, {"game"}, "bool")
        for cap in rs.captures.values():
            if cap.after not in rs.figures:
                self.err(cap.span, f"`capture ... after put {cap.after}`: no figure `{cap.after}`{did_you_mean(cap.after, rs.figures)}", "unknown-name", word=cap.after)
            self._listed_figures("capture", cap.figures, cap.span)
            if cap.count != 1:
                self.err(cap.span, "a capture takes 1 figure (`capture 1 of ...`); more is not supported yet", "unsupported")
            self.expr(cap.within, {"feature"}, "int")
        if rs.exchange is not None and not rs.captures:
            self.err(rs.exchange.span, "`exchange prisoners` without a `capture` rule: nobody is ever taken prisoner", "unused")
        if rs.ransom is not None:
            self._listed_figures("ransom", rs.ransom.figures, rs.ransom.span)
            self.expr(rs.ransom.price, {"game", "ransom"}, "int")
            if rs.ransom.when is not None:
                self.expr(rs.ransom.when, {"game", "ransom"}, "bool")
        self._check_tracks()
        if rs.players is not None and not (1 <= rs.players.low <= rs.players.high <= MOST_PLAYERS):
            lo, hi = rs.players.low, rs.players.high
            if lo > hi and 1 <= hi and lo <= MOST_PLAYERS:  # within the bounds, but backwards
                self.err(rs.players.span, f"players {lo}..{hi} is backwards: the fewest come first, "
                                          f"as in `players {hi}..{lo}`", "range")
            else:
                self.err(rs.players.span, f"players must be a range within 1..{MOST_PLAYERS}", "range")

    def _check_tracks(self) -> None:
        """The outposts (Siege and Defense): tracks, the extra figures put on them, their events."""
        rs = self.rs
        for tr in rs.tracks.values():
            if tr.name in rs.features or tr.name in rs.figures:
                self.err(tr.span, f"track `{tr.name}` is named like a feature kind or figure; give it a name of its own", "duplicate", word=tr.name)
            for k in tr.kinds:
                self._kind(k, tr.span)
            if tr.row_expr is not None:
                before = len(self.diags)
                if self.expr(tr.row_expr, {"setup"}, "int") == "int" and len(self.diags) == before:
                    for n, c in rs.track_rows(tr.name).items():
                        if c < 1:
                            self.err(tr.row_expr.span, f"track `{tr.name}`: the row has {c} slots for {n} players; "
                                                       "a row has at least 1", "range")
                            break
            elif tr.row < 1:
                self.err(tr.span, f"track `{tr.name}`: a row has at least 1 slot", "range")
        owner: dict[str, str] = {}
        for tr in rs.tracks.values():
            for k in tr.kinds:
                if k in owner:
                    self.err(tr.span, f"track `{tr.name}`: a figure on a {k} already goes to the row of `{owner[k]}`; "
                                      "a kind belongs to one outpost", "duplicate")
                owner.setdefault(k, tr.name)
        for op in rs.outpost_puts:
            self._listed_figures("on put", op.figures, op.span)
            for k in op.kinds:
                self._kind(k, op.span)
            if op.figure not in rs.figures:
                self.err(op.span, f"`may put {op.figure}`: no figure `{op.figure}`{did_you_mean(op.figure, rs.figures)}", "unknown-name", word=op.figure)
            if not rs.tracks:
                self.err(op.span, "`may put ... on row/pool` without a `track`: there is no outpost to put it on", "unknown-name")
            elif op.slot == "row":
                for k in op.kinds or tuple(rs.features):
                    if k in rs.features and k not in owner:
                        self.err(op.span, f"`may put {op.figure} on row`: no track's row is for `{k}` "
                                          f"(`track NAME for {k} ...`)", "unknown-name")
                        break
            elif not any(t.pool for t in rs.tracks.values()):
                self.err(op.span, "`may put ... on pool`: no track has a pool (`track ... pool catapult N`)", "unknown-name")
        for on in rs.track_ons:
            for t in on.tracks:
                if t not in rs.tracks:
                    self.err(on.span, f"`on {on.event} of {t}`: no track `{t}`{did_you_mean(t, rs.tracks)}", "unknown-name", word=t)
            for act in on.actions:
                if isinstance(act, A.ScoreEach):
                    self.expr(act.value, {"game", "track"}, "int")
                elif isinstance(act, A.ReturnFrom):
                    self._listed_figures("return ... from outpost", act.figures, act.span)
                elif isinstance(act, A.RemoveFigures):
                    self._listed_figures("remove", act.figures, act.span)
                    if on.event != "overflow":
                        self.err(act.span, f"`remove N of ...` asks players to choose, which only an attack "
                                           f"(`on overflow`) may; not `on {on.event}`", "unsupported")
                    if act.count != 1:
                        self.err(act.span, "`remove 1 of ...`: removing more than 1 is not supported yet", "unsupported")
                    if act.where is not None:
                        self.expr(act.where, {"game", "track"}, "bool")
            if on.event == "draw" and not rs.tracks:
                self.err(on.span, "`on draw { put catapult on symbols }` without a `track`: no outpost to put it on", "unknown-name")
            for k in on.shows:
                self._kind(k, on.span)
        self._check_round_ons()

    def _check_round_ons(self) -> None:
        """`on round end [where C] { release FIGS }` (language.md 2.28): a game-context condition;
        `release` is its one action, and needs prisoners (a `capture` rule)."""
        rs = self.rs
        for on in rs.round_ons:
            if on.where is not None:
                self.expr(on.where, {"game"}, "bool")
            if not on.actions:
                self.err(on.span, "`on round end { }` does nothing: write `release FIGURE, ...` inside", "unused")
            for act in on.actions:
                if not isinstance(act, A.Release):
                    word = "require" if isinstance(act, A.Require) else "set"
                    self.err(act.span, f"`{word}` has no meaning in `on round end`: its one action is "
                                       f"`release FIGURE, ...` (prisoners back to their owners' supply)", "unsupported")
                    continue
                self._listed_figures("release", act.figures, act.span)
                if not rs.captures:
                    self.err(act.span, "`release` without a `capture` rule: nobody is ever taken prisoner "
                                       "(add the Tower: `requires tower`)", "unused")
                    continue
                capturable = {f for cap in rs.captures.values() for f in cap.figures}
                for fig in act.figures:
                    if fig in rs.figures and fig not in capturable:
                        self.err(act.span, f"`release {fig}`: no `capture` rule takes a {fig}, so no {fig} is "
                                           f"ever a prisoner", "unused", word=fig)

    def _copies_taken(self, names: set[str]) -> None:
        """The start tile and each boxed tile take a copy out of the tile's count: it must have one."""
        rs = self.rs
        takers: dict[str, list[tuple[str, A.Span]]] = {}
        for sp in (rs.start.places() if rs.start is not None else ()):
            if sp.tile in names:
                takers.setdefault(sp.tile, []).append(("the start tile", sp.span if sp.span.line else rs.start.span))
        for b in rs.boxed:
            if b.tile in names:
                takers.setdefault(b.tile, []).append(("a `box`", b.span))
        for name, who in takers.items():
            copies = sum(tt.count for tt in rs.tiles if tt.name == name and tt.variant is None)
            if copies >= len(who):
                continue
            decl = self._tiles_seen[name]
            uses = " and ".join(f"{what} (at {span})" for what, span in who)
            self.err(decl.span, f"tile `{name}` has {copies} plain cop{'y' if copies == 1 else 'ies'}, but {uses} "
                                f"take{'s' if len(who) == 1 else ''} {len(who)} out of its count: "
                                f"{'it' if len(who) == 1 else 'they'} would come from nowhere; give it at least "
                                f"x{len(who)}", "count")

    def _listed_figures(self, what: str, figs: tuple[str, ...], span: A.Span) -> None:
        """A capture or ransom list may name figures of bundled modules not in play (the Tower
        lists the abbot, TOWER-FIGURES-1): they apply once that module is.  Any other name is
        an error, so a misspelling still shows."""
        for fig in figs:
            if fig not in self.rs.figures and fig not in _bundled_figures():
                known = {*self.rs.figures, *_bundled_figures()}
                self.err(span, f"`{what}`: no figure `{fig}` in these rules or any bundled module"
                               f"{did_you_mean(fig, known)}", "unknown-name", word=fig)

    def _kind(self, kind: str, span: A.Span) -> None:
        if kind not in self.rs.features:
            self.err(span, f"unknown feature kind `{kind}`{did_you_mean(kind, self.rs.features)}", "unknown-name", word=kind)

    def _check_tile(self, t: A.TileDecl, half_kinds: set[str]) -> None:
        if id(t) in self._misread:
            self._check_symbols(t)
            return  # its one misspelt place is reported (`_misread_places`); the rest would repeat it
        if t.cells is not None or (t.edges and isinstance(t.edges[0], tuple)):
            self._check_multi_tile(t, half_kinds)
            self._check_symbols(t)
            return
        rs = self.rs
        es = t.edges_span
        if es.end_line > es.line and t.edges and t.edges[-1] not in rs.edges:
            # `edges C R F` then `city N` on the next line: the parser read `city` as the fourth code
            n = len(t.edges) - 1
            self.err(A.Span(es.file, es.line, es.column), f"`edges` takes exactly four edge codes, in the order "
                     f"N E S W, but this line has {n}: `{t.edges[-1]}` on line {es.end_line} was read as the "
                     f"{['first', 'second', 'third', 'fourth'][min(n, 3)]}", "syntax")
            return  # its features would only repeat the same mistake
        for code in t.edges:
            if code not in rs.edges:
                self.err(t.edges_span, f"tile `{t.name}`: unknown edge code `{code}`{did_you_mean(code, rs.edges)}", "unknown-name", word=code)
        feats = list(t.features) + [f for v in t.variants for f in v.features]
        claimed: dict[str, A.TileFeature] = {}
        misplaced = False  # a feature on the wrong kind of place: its edge complaints would only repeat it
        unknown: set[str] = set()  # places of a feature of a misspelt kind: the edges are not checked there
        for f in feats:
            if f.kind not in rs.features:
                if len(f.kind) <= 3 and f.kind[:1] in "NESWC" and not f.places:
                    self.err(f.span, f"`{f.kind}` is not a place; places are {' '.join(SIDES)}, {' '.join(HALVES)}, C and the corners NW NE SE SW", "bad-place", word=f.kind)
                else:
                    self.err(f.span, f"tile `{t.name}`: unknown feature kind `{f.kind}`{did_you_mean(f.kind, rs.features)}", "unknown-name", word=f.kind)
                for p in f.places:
                    unknown.update((p, *SIDE_HALVES.get(p, ())))
                continue
            fd = rs.features[f.kind]
            if not f.places:
                misplaced = True  # the edge it was meant to lie on would only repeat this
                self.err(f.span, f"tile `{t.name}`: this {f.kind} lies on no place, so no record could name it; give it a place (an inner field may lie at a corner, e.g. NE)", "bad-place", word=f.kind)
            want = "centre" if fd.centre else ("half" if f.kind in half_kinds else "side")
            wrong = []
            for p in f.places:
                pt = place_type(p)
                if pt == "corner" and want == "half":
                    pt = "half"  # fields may also lie at corners (inner fields; where barns stand)
                if pt != want:
                    wrong.append(p)
            if wrong:
                misplaced = True
                hint = "" if want != "side" or f.kind in half_kinds else \
                    f" (to draw a {f.kind} on half-sides, declare `feature {f.kind} halves`)"
                self.err(f.span, f"tile `{t.name}`: a {f.kind} lies on {'the centre C' if want == 'centre' else want + 's'}, "
                                 f"not on {' '.join(wrong)}{hint}", "bad-place", word=wrong[0])
            for p in f.places:
                if p == CENTRE and p in claimed and claimed[p].kind != f.kind and fd.centre \
                        and rs.features[claimed[p].kind].centre:
                    continue  # two centre features side by side (a cloister and a tower foundation, 003)
                if p in claimed:
                    self.err(f.span, f"tile `{t.name}`: place {p} belongs to two features ({claimed[p].kind} and {f.kind})", "place-overlap", word=p)
                claimed[p] = f
            if fd.centre and not f.places:
                self.err(f.span, f"tile `{t.name}`: a {f.kind} must be placed at C", "bad-place")
            if f.shields < 0:
                self.err(f.span, "shields cannot be negative", "range")
            seen_marks: set[str] = set()
            for m, n in f.marks:
                if m in seen_marks:
                    self.err(f.span, f"tile `{t.name}`: this {f.kind} prints `marks {m}` twice; write the number once, "
                                     f"as in `marks {m} 2`", "duplicate")
                seen_marks.add(m)
                if n < 1:
                    self.err(f.span, f"`marks {m} {n}`: a printed mark is there at least once", "range")
        self._check_symbols(t)
        # Edge terrain against the features drawn on each side.
        if len(t.edges) == 4 and not misplaced:
            for side, code in zip(SIDES, t.edges):
                e = rs.edges.get(code)
                if e is None:
                    continue
                if len(e.parts) == 3:
                    want = {SIDE_HALVES[side][0]: e.parts[0], side: e.parts[1], SIDE_HALVES[side][1]: e.parts[2]}
                elif e.parts[0] in half_kinds:
                    want = {SIDE_HALVES[side][0]: e.parts[0], SIDE_HALVES[side][1]: e.parts[0]}
                else:
                    want = {side: e.parts[0]}
                for place, kind in want.items():
                    got = claimed.get(place)
                    if place in unknown:
                        continue  # the feature there has a misspelt kind: reported once
                    if got is None:
                        self.err(t.edges_span, f"tile `{t.name}`: its {side} edge is `{code}` ({' '.join(e.parts)}), but no {kind} lies on {place}", "edge-terrain")
                    elif got.kind != kind:
                        self.err(got.span, f"tile `{t.name}`: its {side} edge is `{code}` ({' '.join(e.parts)}), so {place} must be {kind}, not {got.kind}", "edge-terrain", word=place)
                # nothing else may claim the side or its halves
                for place in (side, *SIDE_HALVES[side]):
                    if place not in want and place in claimed:
                        self.err(claimed[place].span, f"tile `{t.name}`: its {side} edge is `{code}` ({' '.join(e.parts)}), which has no {claimed[place].kind} on {place}", "edge-terrain", word=place)

    def _check_multi_tile(self, t: A.TileDecl, half_kinds: set[str]) -> None:
        """A tile covering W x H cells (X10): four edge groups, numbered places, features that
        agree with the perimeter's edge codes."""
        rs = self.rs
        if t.cells is None:
            self.err(t.edges_span, f"tile `{t.name}`: edges in four groups are for a tile covering several cells; "
                                   f"say how many, as in `tile {t.name} x1 cells 3x2`", "syntax")
            return
        w, h = t.cells
        if w * h > limits.MAX_CELLS:
            self.err(t.span, f"tile `{t.name}` covers {w * h} cells; the limit is {limits.MAX_CELLS}", "limit")
            return
        groups = t.edges if t.edges and isinstance(t.edges[0], tuple) else ()
        want = (w, h, w, h)
        if len(groups) != 4 or tuple(len(g) for g in groups) != want:
            got = " ".join(str(len(g)) for g in groups) if groups else "4 single codes"
            self.err(t.edges_span, f"tile `{t.name}` covers {w}x{h} cells: its `edges` are four groups of {w}, {h}, "
                                   f"{w} and {h} codes, N E S W, each read clockwise, as in "
                                   f"`edges ({' '.join(['F'] * w)}) ({' '.join(['F'] * h)}) ({' '.join(['F'] * w)}) "
                                   f"({' '.join(['F'] * h)})`; this one has {got}", "syntax")
            return
        for g in groups:
            for code in g:
                if code not in rs.edges:
                    self.err(t.edges_span, f"tile `{t.name}`: unknown edge code `{code}`{did_you_mean(code, rs.edges)}", "unknown-name", word=code)
        if t.variants:
            self.err(t.variants[0].span, f"tile `{t.name}` covers several cells: variants of it are not supported", "unsupported")
        claimed: dict[str, A.TileFeature] = {}
        misplaced = False
        for f in t.features:
            if f.kind not in rs.features:
                self.err(f.span, f"tile `{t.name}`: unknown feature kind `{f.kind}`{did_you_mean(f.kind, rs.features)}", "unknown-name", word=f.kind)
                continue
            if f.crosses is not None:
                self.err(f.span, f"tile `{t.name}` covers several cells: `crosses` is not supported on it", "unsupported")
            if not f.places:
                self.err(f.span, f"tile `{t.name}`: this {f.kind} lies on no place", "bad-place")
            fd = rs.features[f.kind]
            want_type = "centre" if fd.centre else ("half" if f.kind in half_kinds else "side")
            for p in (*f.places, *f.borders):
                loc = multicell.locate(p, w, h)
                if loc is None:
                    misplaced = True
                    self.err(f.span, f"tile `{t.name}` covers {w}x{h} cells: `{p}` is none of its places (sides "
                                     f"N1..N{w}, E1..E{h}, S1..S{w}, W1..W{h}, their halves such as N1w, centres "
                                     f"C1..C{w * h})", "bad-place")
            for p in f.places:
                loc = multicell.locate(p, w, h)
                if loc is None:
                    continue
                pt = place_type(loc[1])
                if pt != want_type:
                    misplaced = True
                    self.err(f.span, f"tile `{t.name}`: a {f.kind} lies on {'centres' if want_type == 'centre' else want_type + 's'}, "
                                     f"not on {p}", "bad-place", word=p)
                if p in claimed and not (fd.centre and rs.features[claimed[p].kind].centre and claimed[p].kind != f.kind):
                    self.err(f.span, f"tile `{t.name}`: place {p} belongs to two features ({claimed[p].kind} and {f.kind})", "place-overlap", word=p)
                claimed[p] = f
            if f.shields < 0:
                self.err(f.span, "shields cannot be negative", "range")
        if misplaced:
            return
        for side, g in zip("NESW", groups):
            for k, code in enumerate(g, 1):
                e = rs.edges.get(code)
                if e is None:
                    continue
                name = multicell.side_place(side, k)
                halves = (multicell.side_place(side, k, 0), multicell.side_place(side, k, 1))
                if len(e.parts) == 3:
                    need = {halves[0]: e.parts[0], name: e.parts[1], halves[1]: e.parts[2]}
                elif e.parts[0] in half_kinds:
                    need = {halves[0]: e.parts[0], halves[1]: e.parts[0]}
                else:
                    need = {name: e.parts[0]}
                for place, kind in need.items():
                    got = claimed.get(place)
                    if got is None:
                        self.err(t.edges_span, f"tile `{t.name}`: its side {name} is `{code}` ({' '.join(e.parts)}), but no {kind} lies on {place}", "edge-terrain")
                    elif got.kind != kind:
                        self.err(got.span, f"tile `{t.name}`: its side {name} is `{code}` ({' '.join(e.parts)}), so {place} must be {kind}, not {got.kind}", "edge-terrain", word=place)
                for place in (name, *halves):
                    if place not in need and place in claimed:
                        self.err(claimed[place].span, f"tile `{t.name}`: its side {name} is `{code}` ({' '.join(e.parts)}), which has no {claimed[place].kind} on {place}", "edge-terrain", word=place)

    def _check_start(self, names: set[str]) -> None:
        """The start landscape (X12): known tiles, turned by quarters, a tile covering several
        cells at rotation 0 and wholly used there, no two tiles on one cell."""
        rs = self.rs
        if rs.start is None:
            return
        covered: dict[tuple[int, int], str] = {}
        for sp in rs.start.places():
            span = sp.span if sp.span.line else rs.start.span
            if sp.tile not in names:
                self.err(span, f"start tile `{sp.tile}` is not a tile{did_you_mean(sp.tile, names)}", "unknown-name", word=sp.tile)
                continue
            if sp.rotation % 90:
                self.err(span, "a rotation is 0, 90, 180 or 270", "range")
            decl = self._tiles_seen[sp.tile]
            w, h = decl.cells or (1, 1)
            if decl.cells is not None and sp.rotation % 360:
                self.err(span, f"tile `{sp.tile}` covers {w}x{h} cells: it is laid at rotation 0 only (turning it is "
                               f"not supported)", "unsupported")
            for i in range(w):
                for j in range(h):
                    c = (sp.x + i, sp.y + j)
                    if c in covered:
                        self.err(span, f"start tile `{sp.tile}` at {sp.x} {sp.y} covers [{c[0]}, {c[1]}], where "
                                       f"`{covered[c]}` already lies", "place-overlap")
                    covered[c] = sp.tile
        for name, decl in self._tiles_seen.items():
            if decl.cells is None or name not in names:
                continue
            used = sum(1 for sp in rs.start.places() if sp.tile == name) + sum(1 for b in rs.boxed if b.tile == name)
            if decl.count > used:
                self.err(decl.span, f"tile `{name}` covers several cells, so it can only lie in the start landscape, "
                                    f"but {decl.count - used} of its {decl.count} copies would go in a deck", "unsupported")
        for d in rs.decks:
            for tn in (*d.tiles, *([d.last] if d.last else [])):
                if tn in self._tiles_seen and self._tiles_seen[tn].cells is not None:
                    self.err(d.span, f"deck `{d.name}` names tile `{tn}`, which covers several cells: it can only "
                                     f"lie in the start landscape", "unsupported", word=tn)

    def _check_symbols(self, t: A.TileDecl) -> None:
        """A tile's printed symbols (`symbols ...`): `any` (the "?") or a name of what a symbol
        names, once those are declared (RuleSet.symbol_targets: the Siege's tracks)."""
        if not t.symbols:
            return
        span = t.symbols_span if t.symbols_span.line else t.span
        if span.end_line > span.line:
            # `symbols monks` then `city N` on the next line: the parser read the feature as symbols
            self.err(A.Span(span.file, span.line, span.column), f"tile `{t.name}`: a `symbols` line is one line and "
                     f"comes last, after the feature lines; the words on line {span.end_line} were read as "
                     f"symbols", "syntax")
            return
        for s in t.symbols:
            if s in self.rs.features or s in SIDES or s in HALVES or s in ("C", "NW", "NE", "SE", "SW"):
                self.err(span, f"tile `{t.name}`: `{s}` is a {'feature kind' if s in self.rs.features else 'place'}, "
                               f"not a symbol: a `symbols` line comes last, after the feature lines", "syntax", word=s)
                return
        targets = self.rs.symbol_targets()
        if targets is None:
            return
        for s in t.symbols:
            if s != "any" and s not in targets:
                self.err(span, f"tile `{t.name}`: symbol `{s}` names nothing these rules declare"
                               f"{did_you_mean(s, targets)} (a symbol is `any`, the \"?\", or one of "
                               f"{', '.join(sorted(targets)) or 'none'})", "unknown-name", word=s)

    # -- expressions ---------------------------------------------------------
    def expr(self, e: A.Expr, ctx: set[str], want: str | None) -> str:
        got = self._type(e, ctx)
        if want is not None and got not in (want, "?"):
            self.err(e.span, f"expected {'a number' if want == 'int' else 'a condition'} here, but this is {'a number' if got == 'int' else 'a condition'}", "type")
        return got

    def _type(self, e: A.Expr, ctx: set[str]) -> str:
        rs = self.rs
        match e:
            case A.IntLit():
                return "int"
            case A.BoolLit():
                return "bool"
            case A.StateOf(name=n, seat=seat):
                st = rs.states.get(n)
                if st is None:
                    self.err(e.span, f"`{n} of ...`: no `state {n}` is declared{did_you_mean(n, rs.states)}", "unknown-name", word=n)
                elif not st.each:
                    self.err(e.span, f"`{n}` is one value for the game, not one per player: write `{n}` "
                                     f"(or declare `state {n} of each player`)", "context")
                elif ctx == {"setup"}:
                    self.err(e.span, f"state `{n}` has no value yet here: a figure count may read only `players`", "context")
                self.expr(seat, ctx, "int")
                return "int"
            case A.Var(name=n):
                if n in rs.states:
                    if rs.states[n].each:
                        self.err(e.span, f"`{n}` is kept for each player: say whose, as in `{n} of current`", "context")
                    if ctx == {"setup"}:
                        self.err(e.span, f"state `{n}` has no value yet here: a figure count may read only `players`", "context")
                    return "int"
                q = QUANTITIES.get(n)
                if q is None:
                    choices = [*QUANTITIES, *rs.states]
                    self.err(e.span, f"unknown name `{n}`{did_you_mean(n, choices)}", "unknown-name")
                    return "?"
                if not (q.contexts & ctx):
                    self.err(e.span, f"`{n}` has no meaning here ({q.doc}; usable in a {' or '.join(sorted(q.contexts))} rule)", "context")
                return q.type
            case A.Call(fn=fn, args=args):
                f = FUNCTIONS.get(fn)
                if f is None:
                    self.err(e.span, f"unknown function `{fn}`{did_you_mean(fn, FUNCTIONS)}", "unknown-name", word=fn)
                    return "?"
                if not (f.contexts & ctx):
                    self.err(e.span, f"`{fn}(...)` has no meaning here ({f.doc})", "context", word=fn)
                if len(args) != len(f.args):
                    self.err(e.span, f"`{fn}` takes {len(f.args)} argument{'s' if len(f.args) != 1 else ''}, not {len(args)}", "arity")
                    return f.type
                for a, kind in zip(args, f.args):
                    if kind == "figure":
                        if not isinstance(a, A.Var) or a.name not in rs.figures:
                            nm = a.name if isinstance(a, A.Var) else "this"
                            self.err(a.span, f"`{fn}` takes a figure, and `{nm}` is not one{did_you_mean(nm, rs.figures)}", "unknown-name")
                    elif kind == "mark":
                        marks = rs.mark_names()
                        if not isinstance(a, A.Var) or a.name not in marks:
                            nm = a.name if isinstance(a, A.Var) else "this"
                            self.err(a.span, f"`{fn}` takes a mark printed on some tile (`marks NAME` on a feature "
                                             f"line), and no tile prints `{nm}`{did_you_mean(nm, marks)}", "unknown-name")
                    elif kind == "kind":
                        if not isinstance(a, A.Var) or a.name not in rs.features:
                            nm = a.name if isinstance(a, A.Var) else "this"
                            self.err(a.span, f"`{fn}` takes a feature kind, and `{nm}` is not one{did_you_mean(nm, rs.features)}", "unknown-name")
                    else:
                        self.expr(a, ctx, kind)
                return f.type
            case A.BinOp(op=op, left=l, right=r):
                if op in ("and", "or"):
                    self.expr(l, ctx, "bool")
                    self.expr(r, ctx, "bool")
                    return "bool"
                if op in ("==", "!="):
                    lt = self._type(l, ctx)
                    rt = self._type(r, ctx)
                    if "?" not in (lt, rt) and lt != rt:
                        self.err(e.span, "cannot compare a number with a condition", "type")
                    return "bool"
                if op in ("<", "<=", ">", ">="):
                    self.expr(l, ctx, "int")
                    self.expr(r, ctx, "int")
                    return "bool"
                self.expr(l, ctx, "int")
                self.expr(r, ctx, "int")
                if op in ("//", "%") and isinstance(r, A.IntLit) and r.value == 0:
                    self.err(r.span, "division by zero", "range")
                return "int"
            case A.Not(operand=o):
                self.expr(o, ctx, "bool")
                return "bool"
            case A.Neg(operand=o):
                self.expr(o, ctx, "int")
                return "int"
            case A.Cond(test=t, then=a, orelse=b):
                self.expr(t, ctx, "bool")
                ta = self._type(a, ctx)
                tb = self._type(b, ctx)
                if "?" not in (ta, tb) and ta != tb:
                    self.err(e.span, "both branches of `if` must be numbers, or both conditions", "type")
                return ta
        return "?"


# ------------------------------------------------------------------ entry points
def load_rule_set(specs: list[str], search: list[str] | None = None,
                  confine: str | None = None) -> tuple[RuleSet | None, list[Diagnostic], Workspace]:
    """Build the rule set of the named modules or rule files (with their requirements); `confine`:
    a record's folder, which every rule file read (but the bundled ones) must lie in."""
    ws = Workspace(search=[Path(s) for s in (search or [])],
                   confine=Path(confine).resolve() if confine is not None else None)
    diags: list[Diagnostic] = []
    roots: list[str] = []
    if not specs:
        diags.append(Diagnostic(A.Span("<command line>", 0, 0), "no rules named: name a module (e.g. base) or a rule file", "usage"))
    for spec in specs:
        if is_module_name(spec):  # a bare name is a module, never a file or folder of that name here
            roots.append(spec)
            continue
        p = Path(spec)
        if not spec.endswith(".tess"):  # checked before anything is read or walked
            what = "a module name" if "/" not in spec and "." not in spec else "a rule file (a rule file's name ends in .tess)"
            diags.append(Diagnostic(A.Span(spec, 0, 0), f"`{spec}` is not {what}", "usage"))
            continue
        mod = ws.add_file(p)
        if mod is not None:
            roots.append(mod.name)
            ws.search.append(p.parent)
    order = module_order(ws, roots, diags)
    diags = ws.diagnostics + diags
    if any(d.severity == "error" for d in diags):
        return None, _dedupe(diags), ws
    b = Builder(order, ws.sources)
    rs = b.build()
    diags.extend(b.diags)
    diags = _dedupe(diags)
    if any(d.severity == "error" for d in diags):
        return None, diags, ws
    return rs, diags, ws


def check_paths(paths: list[str]) -> tuple[list[Diagnostic], Workspace]:
    """Check every module in the files and folders given, each with its requirements."""
    ws = Workspace()
    files, missing = expand_paths(paths)
    diags: list[Diagnostic] = []
    for m in missing:
        diags.append(Diagnostic(A.Span(m, 0, 0), "no such file or folder", "io"))
    roots = []
    for f in files:
        ws.search.append(f.parent)
        mod = ws.add_file(f)
        if mod is not None:
            roots.append(mod.name)
    for name in roots:
        order = module_order(ws, [name], diags)
        if not order:
            continue
        b = Builder(order, ws.sources)
        b.build()
        diags.extend(b.diags)
        # a `with MODULE` block is read only with MODULE: check the module with each of them too
        present = {m.name for m in order}
        for other in dict.fromkeys(w.module for w in ws.modules[name].items
                                   if isinstance(w, A.WithDecl) and not w.without):
            if other in present or not _module_exists(other):
                continue
            more = module_order(ws, [name, other], [])
            if more:
                b = Builder(more, ws.sources)
                b.build()
                diags.extend(b.diags)
    diags = ws.diagnostics + diags
    return _dedupe(diags), ws


def stated_assumptions(ws: Workspace) -> list[str]:
    """`file:line: NAME [CITES]: text` for every `assume` statement of the files checked (those
    in `with` blocks too), in file order."""
    out = []
    named = {str(f) for f in ws.files}
    for mod in ws.modules.values():
        if str(mod.file) not in named:
            continue
        stack = list(mod.items)
        found = []
        while stack:
            item = stack.pop(0)
            if isinstance(item, A.WithDecl):
                stack[:0] = list(item.items)
            elif isinstance(item, A.AssumeDecl):
                found.append(item)
        for a in found:
            cites = f" [{', '.join(c.clause for c in a.cites)}]" if a.cites else ""
            out.append(f"{a.span.file}:{a.span.line}: {a.name}{cites}: {a.text}")
    return out


def check_text(text: str, name: str) -> tuple[list[Diagnostic], Workspace]:
    """Check one rule file's text as `check_paths([name])` checks the file (an editor's
    unsaved buffer): its module with its requirements, found beside it or bundled."""
    ws = Workspace(search=[Path(name).parent])
    diags: list[Diagnostic] = []
    mod = ws.add_text(text, name)
    if mod is not None:
        order = module_order(ws, [mod.name], diags)
        if order:
            b = Builder(order, ws.sources)
            b.build()
            diags.extend(b.diags)
    return _dedupe(ws.diagnostics + diags), ws


def _dedupe(diags: list[Diagnostic]) -> list[Diagnostic]:
    from .diagnostics import sort_key
    return sorted(set(diags), key=sort_key)


class RuleSetError(Exception):
    """The named rules do not load; carries every diagnostic."""

    def __init__(self, diagnostics: list[Diagnostic]):
        super().__init__("\n".join(d.header() for d in diagnostics if d.severity == "error"))
        self.diagnostics = diagnostics


def require_rule_set(specs: list[str], search: list[str] | None = None) -> RuleSet:
    """The rule set of the named modules or files, or RuleSetError with the diagnostics (for library use)."""
    rs, diags, _ = load_rule_set(list(specs), search)
    if rs is None:
        raise RuleSetError(diags)
    return rs
