"""Parameter checks (`param NAME = V in LO..HI`, dsl/params.py): a parameter's name names nothing else."""
from __future__ import annotations

from . import register


def _clashes(b) -> None:
    rs = b.rs
    others = {"state": rs.states, "figure": rs.figures, "feature kind": rs.features, "track": rs.tracks}
    marks = rs.mark_names() if rs.family.has_tiles else set()
    for name, d in rs.params.items():
        what = next((w for w, names in others.items() if name in names), "mark" if name in marks else None)
        if what is not None:
            b.err(d.span, f"`param {name}`: `{name}` is also a {what} of these rules; an expression could not tell "
                          f"which one it reads: give the parameter another name", "duplicate", word=name)


@register("params")
def params(b) -> None:
    """A parameter named like a state, figure, feature kind, track or mark."""
    _clashes(b)


@register("card-params", family="cards")
def card_params(b) -> None:
    """The same in a card game."""
    _clashes(b)
