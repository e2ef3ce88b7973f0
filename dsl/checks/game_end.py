"""When the game ends: `end after N rounds` (docs/language.md 2.30)."""
from __future__ import annotations

from .. import ast as A
from . import register


@register("end after")
def end_after(b) -> None:
    """`end after N rounds`: at least one round (`end after 0 rounds` would end the game before the
    first tile; a second `end after` is the loader's `duplicate`)."""
    for end in b.rs.all(A.EndAfterDecl):
        if end.rounds < 1:
            b.err(end.span, f"`end after {end.rounds} rounds`: a game has at least one round "
                            f"(write `end after 1 rounds` or more)", "range")
