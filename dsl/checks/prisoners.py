"""Prisoner checks (the Tower): captures, the exchange of prisoners, the ransom."""
from __future__ import annotations

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
