"""Scoring checks: completion, scores (by a figure, on put or join), states and the `on`
rules that set them, awards, invariants."""
from __future__ import annotations

from .. import ast as A
from ..diagnostics import did_you_mean
from . import register


@register("complete")
def complete(b) -> None:
    """`complete KIND when ...`: a known kind, a condition."""
    rs = b.rs
    for kind, c in rs.complete.items():
        b.kind(kind, c.span)
        b.expr(c.when, {"feature"}, "bool")


@register("scores")
def scores(b) -> None:
    """Each score: a known kind, a number, a known figure that can stand there."""
    rs = b.rs
    for s in rs.all_scores():
        b.kind(s.kind, s.span)
        b.expr(s.value, {"feature"}, "int")
        if s.figure is not None:
            if s.figure not in rs.figures:
                b.err(s.span, f"`score ... {s.when} {s.figure}`: no figure `{s.figure}`{did_you_mean(s.figure, rs.figures)}", "unknown-name", word=s.figure)
            elif s.kind not in rs.may_stand(s.figure):
                b.err(s.span, f"a {s.figure} never stands on a {s.kind}, so this score never applies", "unknown-name", word=s.kind)
        if s.by is not None:
            if s.by not in rs.figures:
                b.err(s.span, f"`score ... by {s.by}`: no figure `{s.by}`{did_you_mean(s.by, rs.figures)}", "unknown-name", word=s.by)
            elif s.kind not in rs.may_stand(s.by):
                b.err(s.span, f"a {s.by} never stands on a {s.kind}, so this score never applies", "unknown-name", word=s.kind)


@register("states")
def states(b) -> None:
    """Each state starts at a number."""
    rs = b.rs
    for st in rs.states.values():
        b.expr(st.init, {"game"}, "int")


@register("ons")
def ons(b) -> None:
    """`on EVENT`: its kind, its condition, what it requires and sets."""
    rs = b.rs
    for on in rs.ons:
        ctx = {"game", "feature"} if on.event == "complete" else {"game", "place"}
        if on.of is not None:
            b.kind(on.of, on.span)
        if on.where is not None:
            b.expr(on.where, ctx, "bool")
        for act in on.actions:
            if isinstance(act, A.Release):
                b.err(act.span, f"`release` frees prisoners at the end of a round: write it in "
                                f"`on round end {{ ... }}`, not in `on {on.event}`", "unsupported")
            elif isinstance(act, A.Require):
                b.expr(act.test, ctx, "bool")
            else:
                if act.name not in rs.states:
                    b.err(act.span, f"`set {act.name}`: no `state {act.name}` is declared{did_you_mean(act.name, rs.states)}", "unknown-name", word=act.name)
                elif rs.states[act.name].each and act.seat is None:
                    b.err(act.span, f"`{act.name}` is kept for each player: say whose, as in "
                                    f"`set {act.name} of current = ...`", "context")
                elif not rs.states[act.name].each and act.seat is not None:
                    b.err(act.span, f"`{act.name}` is one value for the game, not one per player: "
                                    f"write `set {act.name} = ...` (or declare `state {act.name} of each player`)", "context")
                if act.seat is not None:
                    b.expr(act.seat, ctx, "int")
                b.expr(act.value, ctx, "int")


@register("awards")
def awards(b) -> None:
    """`award`: a declared state, kept per player for `most`, and a number."""
    rs = b.rs
    for aw in rs.awards.values():
        if aw.state not in rs.states:
            b.err(aw.span, f"`award {aw.state}`: no `state {aw.state}` is declared{did_you_mean(aw.state, rs.states)}", "unknown-name", word=aw.state)
        elif aw.most and not rs.states[aw.state].each:
            b.err(aw.span, f"`award most {aw.state}` compares the players' values, but `{aw.state}` is one value "
                           f"for the game: declare `state {aw.state} of each player`", "context")
        elif not aw.most and rs.states[aw.state].each:
            b.err(aw.span, f"`award {aw.state}` names the seat that state holds, but `{aw.state}` is kept for "
                           f"each player: write `award most {aw.state} at end = ...`", "context")
        b.expr(aw.value, {"game"}, "int")


@register("invariants")
def invariants(b) -> None:
    """Each invariant is a condition on the game."""
    rs = b.rs
    for inv in rs.invariants:
        b.expr(inv.test, {"game"}, "bool")
