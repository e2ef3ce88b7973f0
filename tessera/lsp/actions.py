"""Code actions: the diagnostics' own suggestions as quick fixes."""
from __future__ import annotations

import re

from lsprotocol import types as T

from ..dsl import ast as A

from .analysis import Analysis, occ_range, occurrence_at

_MEAN = re.compile(r"did you mean `([^`]+)`\?")
_CLAUSE = re.compile(r"unknown clause `([^`]+)`")


def _text_in(text: str, r: T.Range) -> str | None:
    lines = text.split("\n")
    if r.start.line != r.end.line or not 0 <= r.start.line < len(lines):
        return None
    return lines[r.start.line][r.start.character:r.end.character]


def _header_end(mod: A.Module) -> int:
    """The 0-based line after the module's header: `module`, `requires`/`extends`, `clause` lines."""
    end = max(mod.span.end_line, mod.span.line)
    for item in mod.items:
        if not isinstance(item, (A.Requires, A.Extends, A.ClauseDecl)):
            break
        end = max(item.span.end_line, item.span.line, end)
    return end


def code_actions(a: Analysis, uri: str, diagnostics: list[T.Diagnostic]) -> list[T.CodeAction]:
    out = []
    for d in diagnostics:
        if d.source not in (None, "tessera"):
            continue
        m = _MEAN.search(d.message)
        old = _text_in(a.text, d.range)
        if m and old and re.fullmatch(r"[A-Za-z0-9_.\-]+", old) and old != m.group(1):
            new = m.group(1)
            names = a.names()
            here = occurrence_at(names, d.range.start)
            uses = [o for o in names if here is not None and o.name == old and o.role == here.role and not o.decl]
            # the name the suggestion stands for, declared in this file (`feature towers` for `tower`)
            decl = next((o for o in names if o.decl and o.name == new), None)
            many = len(uses) > 1
            out.append(T.CodeAction(f"Change `{old}` to `{new}`", kind=T.CodeActionKind.QuickFix, diagnostics=[d],
                                    is_preferred=not many,
                                    edit=T.WorkspaceEdit(changes={uri: [T.TextEdit(d.range, new)]})))
            if many:
                out.append(T.CodeAction(f"Change all {len(uses)} uses of `{old}` to `{new}`",
                                        kind=T.CodeActionKind.QuickFix, diagnostics=[d], is_preferred=decl is None,
                                        edit=T.WorkspaceEdit(changes={uri: [T.TextEdit(occ_range(o), new) for o in uses]})))
            if many and decl is not None:  # the declaration was misspelt: rename it and its own uses
                same = [o for o in names if o.name == new and o.role == decl.role]
                out.append(T.CodeAction(f"Rename `{new}` (line {decl.line}) to `{old}`", kind=T.CodeActionKind.QuickFix,
                                        diagnostics=[d], is_preferred=True,
                                        edit=T.WorkspaceEdit(changes={uri: [T.TextEdit(occ_range(o), old) for o in same]})))
        c = _CLAUSE.search(d.message)
        if c and a.module is not None:
            line = _header_end(a.module)
            text = f'clause {c.group(1)} "the house rule, in one line"\n'
            at = T.Range(T.Position(line, 0), T.Position(line, 0))
            out.append(T.CodeAction(f"Declare clause {c.group(1)} (a house rule's own clause)",
                                    kind=T.CodeActionKind.QuickFix, diagnostics=[d],
                                    edit=T.WorkspaceEdit(changes={uri: [T.TextEdit(at, text)]})))
    return out
