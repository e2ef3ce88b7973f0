"""Which rule files make a rule set: files read (bounded, confined), the modules they declare,
module names found bundled or beside the files named, and the modules in dependency order.

The first step of loading (dsl/loader.py); the Builder (dsl/collect.py) then collects the
statements of the modules in that order and the checks (dsl/checks/) report misuse.
"""
from __future__ import annotations

import os
import difflib
import re
from functools import lru_cache
from dataclasses import dataclass, field
from pathlib import Path

from . import ast as A
from . import limits
from .diagnostics import Diagnostic, SourceCache, did_you_mean, narrow
from .model import BUNDLED_RULES
from .parser import ParseFailure, parse
from .untrusted import MAX_RULE_FILE, FileReadError, read_text


_BUNDLED_SEEN: dict[str, tuple[str, A.Module]] = {}  # bundled file -> (its text, module) as a workspace parsed it


@lru_cache(maxsize=1)
def bundled_figures() -> frozenset[str]:
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


def bundled_modules() -> list[str]:
    return sorted(p.stem for p in BUNDLED_RULES.glob("*.tess"))


def module_exists(name: str) -> bool:
    """A module name a `with` block may wait for: a bundled module (a rule file beside it is
    named by its path, so it cannot be waited for by name)."""
    return name in bundled_modules()


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
    # check only (`check_paths`, `check_text`): a file with a syntax error still gives the module of the rest of
    # it (ParseFailure.partial), checked too; every other user of a workspace gets None for such a file
    recover: bool = False
    # file -> the names written in the statements a syntax error set aside (ParseFailure.set_aside)
    set_aside: dict[str, frozenset[str]] = field(default_factory=dict)

    def quiet(self, diags: list[Diagnostic]) -> list[Diagnostic]:
        """`diags` less those that only follow from a syntax error: in a file with statements set aside,
        an error (not a syntax error) that names, in backticks, a name one of those statements wrote."""
        if not self.set_aside:
            return diags
        out = []
        for d in diags:
            words = self.set_aside.get(d.span.file)
            if words and d.code != "syntax" and any(w in words for w in re.findall(r"`([^`]+)`", d.message)):
                continue
            out.append(d)
        return out

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
            if fail.partial is None or not self.recover:
                return None
            # the rest of the file is checked as if the statements at fault were not there (one diagnostic
            # per mistake: an error about a name they wrote follows from the syntax error; `quiet` drops it)
            module = fail.partial
            self.set_aside[name] = fail.set_aside
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
            # one diagnostic per mistake: the rest is checked as if the name were the one it is closest to
            close = difflib.get_close_matches(name, sorted(set(ws.known_module_names())), n=1, cutoff=0.6)
            if close and close[0] != name and state.get(close[0]) != 1:
                visit(close[0], via, None, path)
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

