"""Parameters: `param NAME = VALUE in LOW..HIGH [CLAUSES]`, a named number with its range.

A parameter is read by any expression (a formula, a count, a condition) by its name.  The
loader gives it its value before anything else reads the rules: every `NAME` an expression
reads becomes the number (at the name's own place in the file, so a diagnostic about the
expression still points there), so the checks, the compiler, the verifier and the engine
all see plain numbers, exactly as if the designer had written the value.  A later module
may `override param NAME = V in LO..HI` (its value and its range).

The value comes from, in order: `--set NAME=V` on the command line (`settings`), else the
last declaration.  `symbolic(...)` keeps the names given as names instead (the verifier's
proof over a whole range, tessera/verifier/params.py): the expression checker then types
such a name as a number, and only the z3 encoder gives it a meaning.

Diagnostics: a value outside its range, an empty range, a name that is a built-in quantity,
function or keyword, a parameter inside a `with` block (`unsupported`), and a `--set` of a
parameter the rule set does not declare or outside its range (`usage`, at `<command line>`,
which the commands report as a usage error, exit 2).
"""
from __future__ import annotations

import contextlib
import contextvars
import dataclasses
from typing import Iterator

from . import ast as A

_SETTINGS: contextvars.ContextVar[dict[str, int]] = contextvars.ContextVar("tessera_param_settings", default={})
_SYMBOLIC: contextvars.ContextVar[frozenset[str]] = contextvars.ContextVar("tessera_param_symbolic",
                                                                           default=frozenset())
COMMAND_LINE = A.Span("<command line>", 0, 0)


@contextlib.contextmanager
def settings(values: dict[str, int] | None = None, symbolic: set[str] | frozenset[str] = frozenset()) -> Iterator[None]:
    """While open, rule sets load with these parameter values (`--set`), and with the parameters named in
    `symbolic` kept as names (the verifier's range proof)."""
    t1 = _SETTINGS.set(dict(values or {}))
    t2 = _SYMBOLIC.set(frozenset(symbolic))
    try:
        yield
    finally:
        _SETTINGS.reset(t1)
        _SYMBOLIC.reset(t2)


def current_settings() -> dict[str, int]:
    return dict(_SETTINGS.get())


class SetError(ValueError):
    """A `--set` that is not `NAME=INTEGER`."""


def parse_sets(texts: list[str] | None) -> dict[str, int]:
    """`["city_tile=3", ...]` -> {"city_tile": 3}; SetError names the one that is not NAME=INTEGER."""
    out: dict[str, int] = {}
    for t in texts or ():
        name, eq, value = t.partition("=")
        name, value = name.strip(), value.strip()
        if not eq or not name.isidentifier():
            raise SetError(f"--set {t!r}: write NAME=VALUE, as in --set city_tile=3")
        try:
            v = int(value)
        except ValueError:
            raise SetError(f"--set {t!r}: a parameter's value is a whole number, as in --set {name}=3") from None
        if name in out and out[name] != v:
            raise SetError(f"--set {name} is given twice ({out[name]} and {v})")
        out[name] = v
    return out


def _declared(modules: list[A.Module]) -> list[A.ParamDecl]:
    out = []
    for mod in modules:
        for item in mod.items:
            d = item.decl if isinstance(item, A.Override) else item
            if isinstance(d, A.ParamDecl):
                out.append(d)
    return out


def collect(b) -> None:
    """The Builder's first step (dsl/collect.py): every parameter's value and range into `b.rs.params`
    (the last declaration of each, or an override's), every diagnostic about them, and the modules'
    expressions with each parameter that is not kept symbolic read as its value."""
    from .builtins import FUNCTIONS, QUANTITIES
    from .limits import MAX_VALUE
    from .parser import keywords

    rs = b.rs
    for mod in rs.modules:
        for w in mod.items:
            if isinstance(w, A.WithDecl):
                for item in w.items:
                    d = item.decl if isinstance(item, A.Override) else item
                    if isinstance(d, A.ParamDecl):
                        b.err(d.span, f"`param {d.name}` inside `{'without' if w.without else 'with'} {w.module}`: "
                                      f"a parameter is declared at the top of a module", "unsupported", word=d.name)
    found: dict[str, A.ParamDecl] = {}
    for d in _declared(rs.modules):
        bad = False
        if d.name in QUANTITIES or d.name in FUNCTIONS or d.name in keywords():
            what = ("a built-in quantity" if d.name in QUANTITIES else "a built-in function" if d.name in FUNCTIONS
                    else "a keyword of the rules language")
            b.err(d.span, f"`param {d.name}`: `{d.name}` is {what}; give the parameter another name", "reserved",
                  word=d.name)
            bad = True
        if d.low > d.high:
            b.err(d.span, f"`param {d.name}`: the range {d.low}..{d.high} is empty (write the lower bound first)",
                  "range", word=d.name)
            bad = True
        elif not d.low <= d.value <= d.high:
            b.err(d.span, f"`param {d.name} = {d.value}`: the value is outside its range {d.low}..{d.high}", "range",
                  word=d.name)
            bad = True
        if max(abs(d.low), abs(d.high), abs(d.value)) > MAX_VALUE:
            b.err(d.span, f"`param {d.name}`: a parameter stays within {MAX_VALUE:,} either way", "range", word=d.name)
            bad = True
        if not bad:
            found[d.name] = d
        else:
            found.pop(d.name, None)
    sets = _SETTINGS.get()
    for name, v in sets.items():
        d = found.get(name)
        if d is None:
            from .diagnostics import did_you_mean

            known = ", ".join(sorted(found)) or "none"
            b.err(COMMAND_LINE, f"--set {name}={v}: these rules declare no parameter `{name}`"
                                f"{did_you_mean(name, found)} (their parameters: {known})", "usage")
        elif not d.low <= v <= d.high:
            b.err(COMMAND_LINE, f"--set {name}={v}: outside the range of `param {name}` ({d.low}..{d.high}, "
                                f"{d.span})", "usage")
        else:
            found[name] = dataclasses.replace(d, value=v)
    rs.params = found
    keep = _SYMBOLIC.get()
    values = {n: d.value for n, d in found.items() if n not in keep}
    if values:
        rs.modules = [dataclasses.replace(m, items=tuple(substitute(i, values) for i in m.items)) for m in rs.modules]


# statements whose fields hold no expression: left as they are (a tile is most of a rule file)
_NO_EXPR = (A.TileDecl, A.EdgeDecl, A.FeatureDecl, A.ClauseDecl, A.AssumeDecl, A.ExampleDecl, A.ParamDecl,
            A.Requires, A.Extends, A.Total, A.CompositionDecl, A.Players, A.StartDecl, A.DeckDecl, A.BoxDecl,
            A.PlacementDecl, A.OwnersDecl, A.ReturnDecl, A.ExchangeDecl)
_ATOMS = (str, int, bool, float, type(None), A.Span, A.Cite)


def substitute(node, values: dict[str, int]):
    """`node` with every expression name in `values` read as its number (an IntLit at the name's place)."""
    if isinstance(node, A.Var):
        v = values.get(node.name)
        return node if v is None else A.IntLit(v, node.span)
    if isinstance(node, _ATOMS) or isinstance(node, _NO_EXPR):
        return node
    if isinstance(node, A.Call):  # a call's names are figures, kinds or marks unless the function takes numbers
        return dataclasses.replace(node, args=tuple(substitute(a, values) for a in node.args))
    if isinstance(node, tuple):
        new = tuple(substitute(x, values) for x in node)
        return node if all(a is b for a, b in zip(new, node)) else new
    if dataclasses.is_dataclass(node):
        changes = {}
        for f in dataclasses.fields(node):
            old = getattr(node, f.name)
            new = substitute(old, values)
            if new is not old:
                changes[f.name] = new
        return dataclasses.replace(node, **changes) if changes else node
    return node
