"""Figure checks: where each figure stands and how many there are, `allow`/`forbid`,
`recall` and `return`."""
from __future__ import annotations

from ..diagnostics import did_you_mean
from . import register


@register("figures")
def figures(b) -> None:
    """Each figure: the kinds it stands on, its count (by players), its condition, a corner figure on half-sides."""
    rs = b.rs
    half_kinds = rs.half_kinds()
    for name, fig in rs.figures.items():
        for k in fig.on:
            if k not in rs.features:
                b.err(fig.span, f"figure `{name}` may stand on unknown feature kind `{k}`{did_you_mean(k, rs.features)}", "unknown-name", word=k)
        if fig.count_expr is not None:
            before = len(b.diags)
            if b.expr(fig.count_expr, {"setup"}, "int") == "int" and len(b.diags) == before:
                for n, c in rs.figure_counts(name).items():
                    if c < 0:
                        b.err(fig.count_expr.span, f"figure `{name}`: the count is {c} for {n} players; it cannot be negative", "range")
                        break
        elif fig.count < 0:
            b.err(fig.span, "a figure count cannot be negative", "range")
        if fig.when is not None:
            b.expr(fig.when, {"feature"}, "bool")
        if fig.at == "corner":
            for k in fig.on:
                if k in rs.features and k not in half_kinds:
                    b.err(fig.span, f"figure `{name}` stands at a corner, and a corner lies between two "
                                    f"half-sides: `{k}` does not lie on half-sides", "bad-place")


@register("permits")
def permits(b) -> None:
    """`allow`/`forbid`: a known figure on known kinds where it can stand, `anywhere` only for `allow`."""
    rs = b.rs
    half_kinds = rs.half_kinds()
    for pm in rs.permits:
        if pm.figure not in rs.figures:
            b.err(pm.span, f"`{pm.mode} {pm.figure}`: no figure `{pm.figure}`{did_you_mean(pm.figure, rs.figures)}", "unknown-name", word=pm.figure)
        for k in pm.on:
            if k not in rs.features:
                b.err(pm.span, f"`{pm.mode} {pm.figure}` names unknown feature kind `{k}`{did_you_mean(k, rs.features)}", "unknown-name", word=k)
            elif (pm.mode == "allow" and pm.figure in rs.figures and rs.figures[pm.figure].at == "corner"
                  and k not in half_kinds):
                b.err(pm.span, f"a {pm.figure} stands at a corner, between two half-sides: `{k}` does not lie on half-sides", "bad-place")
            elif pm.mode == "forbid" and pm.figure in rs.figures and k not in rs.may_stand(pm.figure):
                b.err(pm.span, f"a {pm.figure} never stands on a {k}, so this `forbid` never applies", "unknown-name", word=k)
        if pm.anywhere and pm.mode == "forbid":
            b.err(pm.span, f"`forbid {pm.figure}` takes an option away wherever the figure would stand; "
                           "`anywhere` belongs to `allow`", "bad-place")
        elif pm.anywhere and pm.figure in rs.figures and rs.figures[pm.figure].at == "corner":
            b.err(pm.span, f"a {pm.figure} stands at a corner of the tile just placed; "
                           "it cannot be allowed `anywhere`", "bad-place")
        if pm.when is not None:
            b.expr(pm.when, {"feature"}, "bool")


@register("recalls")
def recalls(b) -> None:
    """`recall FIGURE`: a known figure, a number."""
    rs = b.rs
    for fig, rc in rs.recalls.items():
        if fig not in rs.figures:
            b.err(rc.span, f"`recall {fig}`: no figure `{fig}`{did_you_mean(fig, rs.figures)}", "unknown-name", word=fig)
        b.expr(rc.value, {"feature"}, "int")


@register("returns")
def returns(b) -> None:
    """`return FIGURE`: a known figure."""
    rs = b.rs
    for fig, rt in rs.returns.items():
        if fig not in rs.figures:
            b.err(rt.span, f"`return {fig}`: no figure `{fig}`{did_you_mean(fig, rs.figures)}", "unknown-name", word=fig)
