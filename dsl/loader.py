"""Read rule files, resolve modules, build a RuleSet and check it: the loader's entry points.

Every problem is a Diagnostic; nothing here raises for a designer's mistake.  The jobs are
one module each:

  dsl/workspace.py  which files and modules: reading (bounded, confined), module names, the
                    modules in dependency order (`Workspace`, `module_order`)
  dsl/collect.py    the statements of those modules collected into a RuleSet (`Builder`):
                    overrides, `with` blocks, clauses, tiles and their features
  dsl/checks/       the checks of the collected rule set, one module per topic (tiles,
                    figures, setup, scoring, prisoners, tracks, cards), registered like
                    verifier/checks.py's: a new check is a new module
  dsl/exprtype.py   the types of rule expressions, which the checks ask through `Builder.expr`

The names callers import from here (`load_rule_set`, `check_paths`, `Workspace`, ...) stay here.
"""
from __future__ import annotations

from pathlib import Path

from . import ast as A
from .collect import Builder
from .diagnostics import Diagnostic, did_you_mean
from .model import BUNDLED_RULES, RuleSet
from .workspace import (MAX_NAME, Workspace, _inside, expand_paths, is_module_name, module_exists,
                        module_order)

__all__ = ["BUNDLED_RULES", "MAX_NAME", "Builder", "RuleSetError", "Workspace", "check_paths", "check_text",
           "did_you_mean", "expand_paths", "is_module_name", "load_rule_set", "module_order",
           "require_rule_set", "stated_assumptions", "_inside"]


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
    ws = Workspace(recover=True)
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
            if other in present or not module_exists(other):
                continue
            more = module_order(ws, [name, other], [])
            if more:
                b = Builder(more, ws.sources)
                b.build()
                diags.extend(b.diags)
    diags = ws.quiet(ws.diagnostics + diags)
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
    ws = Workspace(search=[Path(name).parent], recover=True)
    diags: list[Diagnostic] = []
    mod = ws.add_text(text, name)
    if mod is not None:
        order = module_order(ws, [mod.name], diags)
        if order:
            b = Builder(order, ws.sources)
            b.build()
            diags.extend(b.diags)
    return _dedupe(ws.quiet(ws.diagnostics + diags)), ws


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
