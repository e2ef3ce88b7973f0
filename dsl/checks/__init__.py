"""The loader's checks: what a designer can get wrong in a collected rule set, by topic.

A check is a function of the Builder (dsl/collect.py) that reports each mistake with
`b.err(span, message, code, word=...)`; it reads the collected rule set `b.rs` and the
Builder's helpers `b.kind`, `b.listed_figures` and `b.expr` (dsl/exprtype.py).  Register one
with

    from . import register

    @register("decks")
    def decks(b):
        for d in b.rs.decks: ...

in a module of this package: every module here is imported by `load_checks()`, so a new
check is a new module (or a function in the module of its topic).  A check is of one game
family: `family="tiles"` (the default) or `"cards"`; a rule set runs the checks of its own
family only (a card game's statements are checked by dsl/cards.py instead of the tile checks).

Checks run in the order of ORDER, then any other in registration order.  Any order gives the
same output, since the loader sorts its diagnostics, but this one is the order they had when
they were one method, so that `Builder._one_per_unknown_name` keeps the first of two messages
about one name at one place as it did.
"""
from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass
from typing import Callable

from ..family import Family

FAMILIES = tuple(Family.REGISTRY)  # the game families (dsl/family.py)


@dataclass(frozen=True)
class LoadCheck:
    name: str
    fn: Callable[..., None]
    family: str = "tiles"


REGISTRY: dict[str, LoadCheck] = {}

ORDER = ("edges", "figures", "permits", "tiles", "totals", "compositions", "start", "boxed", "copies",
         "decks", "placement", "complete", "scores", "states", "ons", "awards", "recalls", "returns",
         "invariants", "captures", "exchange", "ransom", "rounds", "tracks", "players", "cards")


def register(name: str, family: str = "tiles"):
    """Decorator: add `fn(builder)` as the loader check `name` of game family `family`."""
    if family not in FAMILIES:
        raise ValueError(f"unknown game family {family!r}")

    def deco(fn):
        if name in REGISTRY and REGISTRY[name].fn is not fn:
            raise ValueError(f"two loader checks are named {name!r}")
        REGISTRY[name] = LoadCheck(name, fn, family)
        return fn

    return deco


_LOADED = False


def load_checks() -> list[LoadCheck]:
    """Every registered check (each module of this package imported once), in running order."""
    global _LOADED
    if not _LOADED:
        for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
            if not info.name.startswith("_"):
                importlib.import_module(f"{__name__}.{info.name}")
        _LOADED = True
    rank = {n: i for i, n in enumerate(ORDER)}
    order = list(REGISTRY)
    return sorted(REGISTRY.values(), key=lambda c: (rank.get(c.name, len(ORDER)), order.index(c.name)))


def run(b) -> None:
    """Run the checks of the rule set's game family on the Builder `b`."""
    family = b.rs.family.name
    for check in load_checks():
        if check.family == family:
            check.fn(b)
    for items in b.rs.declared.values():  # the statements declared in one place check themselves (dsl/ast.py)
        for item in items:
            item.check(b)
