"""Track checks: the outposts (Siege and Defense)."""
from __future__ import annotations

from .. import ast as A
from ..diagnostics import did_you_mean
from . import register


@register("tracks")
def tracks(b) -> None:
    """The outposts (Siege and Defense): tracks, the extra figures put on them, their events."""
    rs = b.rs
    for tr in rs.tracks.values():
        if tr.name in rs.features or tr.name in rs.figures:
            b.err(tr.span, f"track `{tr.name}` is named like a feature kind or figure; give it a name of its own", "duplicate", word=tr.name)
        for k in tr.kinds:
            b.kind(k, tr.span)
        if tr.row_expr is not None:
            before = len(b.diags)
            if b.expr(tr.row_expr, {"setup"}, "int") == "int" and len(b.diags) == before:
                for n, c in rs.track_rows(tr.name).items():
                    if c < 1:
                        b.err(tr.row_expr.span, f"track `{tr.name}`: the row has {c} slots for {n} players; "
                                                "a row has at least 1", "range")
                        break
        elif tr.row < 1:
            b.err(tr.span, f"track `{tr.name}`: a row has at least 1 slot", "range")
    owner: dict[str, str] = {}
    for tr in rs.tracks.values():
        for k in tr.kinds:
            if k in owner:
                b.err(tr.span, f"track `{tr.name}`: a figure on a {k} already goes to the row of `{owner[k]}`; "
                               "a kind belongs to one outpost", "duplicate")
            owner.setdefault(k, tr.name)
    for op in rs.outpost_puts:
        b.listed_figures("on put", op.figures, op.span)
        for k in op.kinds:
            b.kind(k, op.span)
        if op.figure not in rs.figures:
            b.err(op.span, f"`may put {op.figure}`: no figure `{op.figure}`{did_you_mean(op.figure, rs.figures)}", "unknown-name", word=op.figure)
        if not rs.tracks:
            b.err(op.span, "`may put ... on row/pool` without a `track`: there is no outpost to put it on", "unknown-name")
        elif op.slot == "row":
            for k in op.kinds or tuple(rs.features):
                if k in rs.features and k not in owner:
                    b.err(op.span, f"`may put {op.figure} on row`: no track's row is for `{k}` "
                                   f"(`track NAME for {k} ...`)", "unknown-name")
                    break
        elif not any(t.pool for t in rs.tracks.values()):
            b.err(op.span, "`may put ... on pool`: no track has a pool (`track ... pool catapult N`)", "unknown-name")
    for on in rs.track_ons:
        for t in on.tracks:
            if t not in rs.tracks:
                b.err(on.span, f"`on {on.event} of {t}`: no track `{t}`{did_you_mean(t, rs.tracks)}", "unknown-name", word=t)
        for act in on.actions:
            if isinstance(act, A.ScoreEach):
                b.expr(act.value, {"game", "track"}, "int")
            elif isinstance(act, A.ReturnFrom):
                b.listed_figures("return ... from outpost", act.figures, act.span)
            elif isinstance(act, A.RemoveFigures):
                b.listed_figures("remove", act.figures, act.span)
                if on.event != "overflow":
                    b.err(act.span, f"`remove N of ...` asks players to choose, which only an attack "
                                    f"(`on overflow`) may; not `on {on.event}`", "unsupported")
                if act.count != 1:
                    b.err(act.span, "`remove 1 of ...`: removing more than 1 is not supported yet", "unsupported")
                if act.where is not None:
                    b.expr(act.where, {"game", "track"}, "bool")
        if on.event == "draw" and not rs.tracks:
            b.err(on.span, "`on draw { put catapult on symbols }` without a `track`: no outpost to put it on", "unknown-name")
        for k in on.shows:  # `on draw of KINDS`: the drawn tile's features
            b.kind(k, on.span)
