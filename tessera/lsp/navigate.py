"""Go to definition, find references, rename: across the files of a rule set."""
from __future__ import annotations

import os
import re
from pathlib import Path

from lsprotocol import types as T
from pygls.uris import from_fs_path

from ..dsl import names as N
from ..dsl.limits import MAX_NAME
from ..dsl.model import BUNDLED_RULES
from ..dsl.parser import keywords
from ..dsl.places import ALL_PLACES

from .analysis import Analysis, file_text, index_text, occ_range, occurrence_at, rule_set_files

# a module is named by its file (`extends base` reads base.tess): renaming it is renaming the file
REFERABLE = {"module", "tile", "edge", "kind", "figure", "state", "deck", "track", "invariant", "example",
              "assumption", "clause", "mark", "colour", "card", "table", "scoring"}
RENAMEABLE = REFERABLE - {"module"}
_PATTERN = {"tile": re.compile(r"[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z0-9_]+)*"),
            "clause": re.compile(r"[A-Z][A-Z0-9]*(-[A-Z0-9]+)+")}
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def uri_of(path: str) -> str:
    return from_fs_path(str(Path(path).resolve())) or path


def _module_deps(occs) -> tuple[str | None, set[str]]:
    own = next((o.name for o in occs if o.role == "module" and o.decl), None)
    return own, {o.name for o in occs if o.role == "module" and not o.decl}


def symbol_files(a: Analysis, texts: dict[str, str], name: str | None = None,
                 role: str | None = None) -> dict[str, list[N.Occurrence]]:
    """The files a name of `role` reaches (path -> its resolved names): the files of the
    document's rule set and the rule files beside it that read the module declaring it (so a
    rename reaches them all, and never a file with a name of its own that happens to be equal).
    `texts`: open documents' texts by path (unsaved edits win over the disk)."""
    raw: dict[str, tuple] = {}
    for f in rule_set_files(a):
        text = a.text if f == a.path else texts.get(f) if f in texts else file_text(f)
        raw[f] = index_text(text)
    for f, text in texts.items():
        raw.setdefault(f, index_text(text))
    raw[a.path] = index_text(a.text)
    owners = {_module_deps(o)[0]: f for f, o in raw.items() if _module_deps(o)[0]}
    ours = [m.name for m in a.workspace.modules.values()]
    declaring = None
    if name is not None:
        for m in reversed(ours):  # the module of the document's rule set that declares it first (not an override)
            f = owners.get(m)
            if f is not None and any(o.decl and o.name == name and o.role == role for o in raw[f]):
                declaring = m
                break
    if declaring is None:
        declaring = _module_deps(raw[a.path])[0]
    keep = {}
    for f, occs in raw.items():
        seen, stack = set(), [_module_deps(occs)[0]]
        while stack:  # the modules this file reads, itself included
            m = stack.pop()
            if m in seen or m is None:
                continue
            seen.add(m)
            if m in owners:
                stack.extend(_module_deps(raw[owners[m]])[1])
        if f == a.path or declaring in seen:
            keep[f] = occs
    declared = N.declared([list(o) for o in keep.values()])
    for nm, ds in a.decls.items():
        for d in ds:
            declared.setdefault({"feature": "kind"}.get(d.kind, d.kind), set()).add(nm)
    return {f: N.resolve(list(o), declared) for f, o in keep.items()}


def target(a: Analysis, pos: T.Position) -> N.Occurrence | None:
    """The name under the cursor, with its role."""
    return occurrence_at(a.names(), pos)


def references(a: Analysis, pos: T.Position, texts: dict[str, str], include_decl: bool = True) -> list[T.Location]:
    o = target(a, pos)
    if o is None or o.role not in REFERABLE:
        return []
    out = []
    for f, occs in symbol_files(a, texts, o.name, o.role).items():
        for x in occs:
            if x.name == o.name and x.role == o.role and (include_decl or not x.decl):
                out.append(T.Location(uri_of(f), occ_range(x)))
    return out


def prepare_rename(a: Analysis, pos: T.Position) -> T.Range | None:
    o = target(a, pos)
    if o is None or o.role not in RENAMEABLE:
        return None
    return occ_range(o)


class RenameRefused(ValueError):
    """A rename the server will not offer: an invalid new name, or files it must not edit."""


def installed_reason(path: str) -> str | None:
    """Why no edit of the file at `path` is ever offered (rename, code actions, formatting), or None:
    tessera's own installed rule files are never edited (every rule set that reads them would change)."""
    p = Path(path)
    try:
        resolved = p.resolve()
        if resolved.is_relative_to(BUNDLED_RULES.resolve()):
            return f"{p.name} is one of tessera's own rule files (installed with tessera, read by every rule set)"
    except (OSError, RuntimeError):
        return f"{p.name} cannot be read"
    return None


def read_only_reason(path: str) -> str | None:
    """Why a rename must not edit the file at `path`, or None: tessera's own installed rule files are
    never edited, nor a file the user cannot write (a rename edits files the editor may not have open)."""
    p = Path(path)
    why = installed_reason(path)
    if why is not None:
        return why
    if not os.access(p, os.W_OK):
        return f"{p} is not a file you can write"
    return None


def valid_new_name(role: str, new: str) -> str | None:
    """Why `new` cannot name a `role`, or None (the rules `tessera check` holds a name to)."""
    if len(new) > MAX_NAME:
        return f"a name is at most {MAX_NAME} characters (`tessera check`'s limit); this one has {len(new)}"
    pat = _PATTERN.get(role, _NAME)
    if not pat.fullmatch(new):
        return f"`{new}` is not a valid {role} name"
    if role != "clause" and new in keywords():
        return f"`{new}` is a keyword of the rules language"
    if role == "kind" and new in ALL_PLACES:
        return f"`{new}` is a place name"
    return None


def rename(a: Analysis, pos: T.Position, new: str, texts: dict[str, str]) -> T.WorkspaceEdit | None:
    o = target(a, pos)
    if o is None or o.role not in RENAMEABLE:
        return None
    why = valid_new_name(o.role, new)
    if why:
        raise RenameRefused(why)
    changes: dict[str, list[T.TextEdit]] = {}
    refused = []
    for f, occs in symbol_files(a, texts, o.name, o.role).items():
        edits = [T.TextEdit(occ_range(x), new) for x in occs if x.name == o.name and x.role == o.role]
        if edits:
            changes[uri_of(f)] = edits
            why = read_only_reason(f)
            if why:
                refused.append(why)
        # all or nothing: renaming only the files that can be written would leave the others broken
    if refused:
        raise RenameRefused(f"`{o.name}` cannot be renamed: it is also written in files a rename must not edit "
                            f"({'; '.join(refused)}). Rename it in your own copy of the rule set, or give your "
                            f"rule file a new name of its own for it.")
    return T.WorkspaceEdit(changes=changes)
