"""Prisoner checks (the Tower): captures, the exchange of prisoners, the ransom, the release at a
round's end."""
from __future__ import annotations

from .. import ast as A
from ..diagnostics import did_you_mean
from . import register


@register("captures")
def captures(b) -> None:
    """`capture 1 of ... after put FIGURE within N`."""
    rs = b.rs
    for cap in rs.captures.values():
        if cap.after not in rs.figures:
            b.err(cap.span, f"`capture ... after put {cap.after}`: no figure `{cap.after}`{did_you_mean(cap.after, rs.figures)}", "unknown-name", word=cap.after)
        b.listed_figures("capture", cap.figures, cap.span)
        if cap.count != 1:
            b.err(cap.span, "a capture takes 1 figure (`capture 1 of ...`); more is not supported yet", "unsupported")
        b.expr(cap.within, {"feature"}, "int")


@register("exchange")
def exchange(b) -> None:
    """`exchange prisoners` needs a capture rule."""
    rs = b.rs
    if rs.exchange is not None and not rs.captures:
        b.err(rs.exchange.span, "`exchange prisoners` without a `capture` rule: nobody is ever taken prisoner", "unused")


@register("ransom")
def ransom(b) -> None:
    """`ransom`: its figures, its price, its condition."""
    rs = b.rs
    if rs.ransom is not None:
        b.listed_figures("ransom", rs.ransom.figures, rs.ransom.span)
        b.expr(rs.ransom.price, {"game", "ransom"}, "int")
        if rs.ransom.when is not None:
            b.expr(rs.ransom.when, {"game", "ransom"}, "bool")


@register("rounds")
def rounds(b) -> None:
    """`on round end [where C] { release FIGS }` (language.md 2.28): a game-context condition;
    `release` is its one action, and frees only figures some `capture` takes."""
    rs = b.rs
    capturable = {f for cap in rs.captures.values() for f in cap.figures}
    for on in rs.all(A.OnRoundDecl):
        if on.where is not None:
            b.expr(on.where, {"game"}, "bool")
        if not on.actions:
            b.err(on.span, "`on round end { }` does nothing: write `release FIGURE, ...` inside", "unused")
        for act in on.actions:
            if not isinstance(act, A.Release):
                word = "require" if isinstance(act, A.Require) else "set"
                b.err(act.span, f"`{word}` has no meaning in `on round end`: its one action is "
                                f"`release FIGURE, ...` (prisoners back to their owners' supply)", "unsupported")
                continue
            b.listed_figures("release", act.figures, act.span)
            if not rs.captures:
                b.err(act.span, "`release` without a `capture` rule: nobody is ever taken prisoner "
                                "(add the Tower: `requires tower`)", "unused")
                continue
            for fig in act.figures:
                if fig in rs.figures and fig not in capturable:
                    b.err(act.span, f"`release {fig}`: no `capture` rule takes a {fig}, so no {fig} is "
                                    f"ever a prisoner", "unused", word=fig)
