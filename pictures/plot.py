"""`tessera simulate --plot FILE.svg`: what a rule set does, as a chart (matplotlib).

Left: the distribution of each seat's final score over the games (box plots).
Second: the mean points per game each feature kind (and award) brings, and under a
feature the part of it from each other source (`field: barn`, `outpost: knights`,
read from the scoring events by tessera.play.simulate.point_sources), then sources
that are no feature's (ransoms received and paid), hatched.
Right (summaries with per-game rows): each seat's rate of games won alone on
top, with its 95% Wilson interval (play/stats.py) as an error bar, and the
balance measures.  With `--against`, both rule sets are drawn side by side in
each panel, the rules under study in the darker colour, and each difference the
paired comparison (tessera.play.simulate.compare: paired t-test on the same seeds,
Benjamini-Hochberg adjusted) calls significant is marked with an asterisk.
"""
from __future__ import annotations

import io

RULES_COLOUR = "#1f5fbf"
AGAINST_COLOUR = "#b0b0b0"


def seat_scores(s, p: int) -> list[int]:
    """Seat p's score in each game of a tessera.play.simulate.Summary (a list per seat, or a method)."""
    return s.scores(p) if callable(s.scores) else s.scores[p]


def points_by_kind(s) -> dict[str, float]:
    """Mean points per game by feature kind (an attribute, or per-game lists to average)."""
    if hasattr(s, "points_by_kind"):
        return dict(s.points_by_kind)
    return {k: sum(v) / max(len(v), 1) for k in s.kinds() for v in [s.points(k)]}


def points_by_source(s) -> dict[str, float]:
    """Mean points per game by source beyond the features' own scorings (tessera.play.simulate.point_sources)."""
    if not hasattr(s, "sources"):
        return {}
    return {k: sum(v) / max(len(v), 1) for k in s.sources() for v in [s.source_points(k)]}


def point_intervals(s, rows):
    """Per row of the points panel, the (low, high) of its mean's 95% interval; None without per-game rows."""
    if not hasattr(s, "points"):
        return None
    from ..play import stats

    out = []
    for key, source in rows:
        m = stats.mean_ci(s.source_points(key) if source else s.points(key))
        out.append((m["low"], m["high"]))
    return out


def point_rows(runs) -> list[tuple[str, bool]]:
    """The rows of the points panel, top to bottom: (key, is a source).  Each feature kind (or
    award), then the sources that are part of it (`field: barn` under `field`); then the
    sources that are no feature's (ransoms)."""
    kinds = sorted(set().union(*(points_by_kind(s) for s in runs)))
    sources = sorted(set().union(*(points_by_source(s) for s in runs)))
    rows: list[tuple[str, bool]] = []
    for k in kinds:
        rows.append((k, False))
        rows.extend((src, True) for src in sources if src.startswith(f"{k}: "))
    placed = {k for k, _ in rows}
    rows.extend((src, True) for src in sources if src not in placed)
    return rows


SIGNIFICANT = "*"


def significance_note(differences) -> str:
    """What an asterisk means, from play/stats.py's own test and threshold."""
    from ..play.stats import ALPHA

    n = sum(1 for d in differences if d.get("significant"))
    test = (f"paired t-test over the same seeds, Benjamini-Hochberg adjusted p < {ALPHA:g} "
            f"across the {len(differences)} measures compared")
    if n == 0:
        return f"no difference is significant ({test})"
    return f"{SIGNIFICANT} significant difference: {test} ({n} significant, all named in the printed comparison)"


def win_rates(s):
    """Per seat (rate, low, high) of the games won alone, or None for a summary without per-game rows."""
    if not hasattr(s, "won"):
        return None
    return [(x["wins"]["rate"], x["wins"]["low"], x["wins"]["high"]) for x in s.to_dict(per_game=False)["by_seat"]]


BALANCE = (("seat 1 wins", lambda b: b["seat_advantage"] and b["seat_advantage"]["wins"], "rate"),
           ("tie rate", lambda b: b["tie_rate"], "rate"),
           ("decided at (share of game)", lambda b: b["decided_at"], "mean"))


def balance_rows(s) -> tuple:
    """BALANCE, then each seat's ties (the table's by-seat ties) and the stronger player's wins when one is."""
    more = [(f"seat {p + 1} ties (top shared)", lambda b, p=p: b["_by_seat"][p]["ties"], "rate")
            for p in range(s.players)]
    more.append(("edge: stronger's wins", lambda b: b["_edge"] and b["_edge"]["wins"], "rate"))
    return BALANCE + tuple(more)


def _balance_panel(ax, runs, sig: dict[str, dict]) -> None:
    """The balance measures that are shares (docs/simulate.md, Balance), each with its 95% interval."""
    hb = 0.8 / len(runs)
    tips: dict[int, float] = {}
    rows_all = balance_rows(runs[-1][0])
    docs = []
    for s, _ in runs:
        d = s.to_dict(per_game=False)
        docs.append({**d["balance"], "_by_seat": d["by_seat"], "_edge": d["edge"]})
    shown = [r for r in rows_all if any((lambda m: bool(m) and m.get(r[2]) is not None)(r[1](b)) for b in docs)]
    for n, ((s, colour), b) in enumerate(zip(runs, docs)):
        name = "+".join(s.rules)
        ys, xs, lo, hi, which = [], [], [], [], []
        for k, (label, pick, key) in enumerate(shown):
            m = pick(b)
            if not m or m.get(key) is None:
                continue
            v = m[key]
            ys.append(k + (n - (len(runs) - 1) / 2) * hb)
            xs.append(v)
            lo.append(v - (m["low"] if m.get("low") is not None else v))
            hi.append((m["high"] if m.get("high") is not None else v) - v)
            which.append(k)
            tips[k] = max(tips.get(k, 0.0), m["high"] if m.get("high") is not None else v)
        bars = ax.barh(ys, xs, height=hb * 0.9, color=colour, label=name)
        for k, bar in zip(which, bars):
            bar.set_gid(f"balance-{name}-{shown[k][0].split(' (')[0].replace(' ', '-').replace(':', '')}")
            ax.text(min(xs[which.index(k)] + hi[which.index(k)] + 0.02, 1.0), ys[which.index(k)],
                    f"{xs[which.index(k)]:.3f}", va="center", fontsize=7, color="#333333")
        ax.errorbar(xs, ys, xerr=[lo, hi], fmt="none", ecolor="#111111", capsize=3, linewidth=1)
    if runs and runs[0][0].players > 1:  # seat 1's fair share, across its own row only (not the tie rate's)
        f = 1 / runs[0][0].players
        ln, = ax.plot([f, f], [-0.45, 0.45], color="#888888", linestyle=":", linewidth=1.2)
        ln.set_gid("fair-share")
    summ = runs[-1][0]
    measures = {"seat 1 wins": f"win rate, seat 1 ({summ.agents[0]})" if summ.agents else None,
                "tie rate": "tie rate (top score shared)", "decided at (share of game)": "decided at (share of the game)"}
    for k, (label, _, _) in enumerate(shown):
        d = sig.get(measures.get(label) or "")
        if d is not None and d.get("significant") and k in tips:
            _mark(ax, min(tips[k], 0.93) + 0.02, k, f"significant-balance-{label.split(' (')[0].replace(' ', '-')}", d,
                  ha="left", va="center")
    ax.set_yticks(range(len(shown)), [label for label, _, _ in shown])
    ax.invert_yaxis()
    ax.set_xlim(0, 1.08)
    ax.set_title("balance (95% interval)")
    _legend_below(ax)


def _ci_of(m) -> tuple:
    """(value, low, high) of a stats dict (`mean`, `rate` or `sd`)."""
    if not m:
        return None, None, None
    v = m.get("mean", m.get("rate", m.get("sd")))
    return v, m.get("low"), m.get("high")


# the measures of the table in points, in counts per game and in turns: (label, pick(summary dict), compared row)
POINT_MEASURES = (
    ("seat advantage (seat 1 - others)", lambda d, s: d["balance"]["seat_advantage"] and
     d["balance"]["seat_advantage"]["score"], "seat advantage (seat 1's score - the others' mean)"),
    ("score spread (top - bottom)", lambda d, s: d["balance"]["score_spread"], "score spread (top - bottom)"),
    ("lowest score (lowest of all: {min})", lambda d, s: d["balance"]["lowest_score"], "lowest score"),
    ("mean score, all seats (highest: {max})", lambda d, s: d["score_all_seats"], "mean score (all seats)"),
    ("edge: stronger's lead over the best other", lambda d, s: d["edge"] and d["edge"]["lead"], None),
)
COUNT_MEASURES = (
    ("lead changes", lambda d, s: d["balance"]["lead_changes"], "lead changes"),
    ("discards", lambda d, s: d["discards"] if s.discards_apply else None, "discards"),
    ("captures", lambda d, s: d["expansion_counts"].get("captures"), "captures"),
    ("ransoms", lambda d, s: d["expansion_counts"].get("ransoms"), "ransoms"),
    ("attacks on outposts", lambda d, s: d["expansion_counts"].get("attacks"), "attacks on outposts"),
    ("figures removed", lambda d, s: d["expansion_counts"].get("removals"), "figures removed by attacks"),
    ("counterattacks", lambda d, s: d["expansion_counts"].get("counterattacks"), "counterattacks (rows filled)"),
)
LENGTH_MEASURES = (
    ("turns", lambda d, s: d["turns"], "game length (turns)"),
    ("length spread (sd)", lambda d, s: d["balance"]["length_spread"], None),
)


def _measures_panel(ax, runs, measures, title: str, unit: str, sig: dict) -> None:
    """Each measure the summary has, a bar with its 95% interval, one per rule set; a line at 0."""
    docs = [(s, colour, s.to_dict(per_game=False)) for s, colour in runs]
    rows = [m for m in measures if any(_ci_of(m[1](d, s))[0] is not None for s, _, d in docs)]
    hb = 0.8 / len(runs)
    for n, (s, colour, d) in enumerate(docs):
        name = "+".join(s.rules)
        ys, xs, lo, hi = [], [], [], []
        for k, (label, pick, _) in enumerate(rows):
            v, a, b = _ci_of(pick(d, s))
            if v is None:
                continue
            ys.append(k + (n - (len(runs) - 1) / 2) * hb)
            xs.append(v)
            lo.append(v - (a if a is not None else v))
            hi.append((b if b is not None else v) - v)
        bars = ax.barh(ys, xs, height=hb * 0.9, color=colour, label=name)
        for (label, _, _), bar in zip([r for r in rows if _ci_of(r[1](d, s))[0] is not None], bars):
            bar.set_gid(f"measure-{name}-{label.split(' (')[0].replace(' ', '-').replace(':', '')}")
        span = max([abs(x) + h for x, h in zip(xs, hi)], default=1.0) or 1.0
        for x, y, l_, h in zip(xs, ys, lo, hi):  # the value and its interval, as the table prints them
            ax.text(max(x + h, 0) + 0.03 * span, y, f"{x:.2f} [{x - l_:.2f}, {x + h:.2f}]", va="center", fontsize=7,
                    color="#333333")
        ax.set_xlim(right=max(ax.get_xlim()[1], 1.45 * span))
        eb = ax.errorbar(xs, ys, xerr=[lo, hi], fmt="none", ecolor="#111111", capsize=3, linewidth=1)
        if eb.lines[2]:
            eb.lines[2][0].set_gid(f"measure-interval-{name}-{title.split(' ')[0]}")
    ax.axvline(0, color="#444444", linewidth=0.8)
    d = docs[-1][2]
    names = [label.format(min=d["balance"]["lowest_score"].get("min"), max=d["max_score"]) for label, _, _ in rows]
    for k, (_, _, measure) in enumerate(rows):
        row = sig.get(measure or "")
        if row is not None and row.get("significant"):
            names[k] += " " + SIGNIFICANT
    ax.set_yticks(range(len(rows)), names)
    ax.invert_yaxis()
    ax.set_xlabel(unit)
    ax.set_title(title)
    _legend_below(ax)


def _usage_panel(ax, runs) -> None:
    """Rule usage: each firing rule's share of games it fired in (95% Wilson interval) and, at the bar's end,
    the times per game; a rule that never fired in red, said so."""
    labels: list[str] = []
    per_run = []
    from ..play.usage import compared_label, Rule

    for s, colour in runs:
        got = {}
        for u in s.rule_usage():
            key = compared_label(Rule(u["what"], u["clause"], u["where"], u["chosen"], "", "", ()))
            got[key] = u
            if key not in labels:
                labels.append(key)
        per_run.append((s, colour, got))
    hb = 0.8 / len(runs)
    for n, (s, colour, got) in enumerate(per_run):
        name = "+".join(s.rules)
        for k, key in enumerate(labels):
            u = got.get(key)
            if u is None:
                continue
            y = k + (n - (len(runs) - 1) / 2) * hb
            g = u["games"]
            never = u["total"] == 0
            bar = ax.barh([y], [g["rate"] or 0], height=hb * 0.9, color="#c62828" if never else colour)[0]
            bar.set_gid(f"usage-{name}-{key.replace(' ', '-')}")
            if g["low"] is not None:
                eb = ax.errorbar([g["rate"]], [y], xerr=[[g["rate"] - g["low"]], [g["high"] - g["rate"]]],
                                 fmt="none", ecolor="#111111", capsize=2, linewidth=0.8)
                eb.lines[2][0].set_gid(f"usage-interval-{name}-{key.replace(' ', '-')}")
            pg = u["per_game"]
            text = ("never fired" if never else
                    f"{pg['mean']:.2f}/game" + (f" [{pg['low']:.2f}, {pg['high']:.2f}]" if pg["low"] is not None else ""))
            t = ax.text(min((g["high"] or g["rate"] or 0) + 0.02, 1.02), y, text, va="center", fontsize=7,
                        color="#c62828" if never else "#333333")
            t.set_gid(f"usage-note-{name}-{key.replace(' ', '-')}")
    ax.set_yticks(range(len(labels)), [k if len(k) < 48 else k[:46] + "…" for k in labels], fontsize=8)
    ax.invert_yaxis()
    ax.set_xlim(0, 1.35)
    ax.set_xticks([0, 0.25, 0.5, 0.75, 1.0])
    ax.set_xlabel("share of games the rule fired in")
    ax.set_title("rule usage (95% interval; never fired in red)")


def _mark(ax, x, y, gid: str, d: dict, transform=None, **kw) -> None:
    """An asterisk by a difference compare() calls significant (`d`, its row); `gid` names it in the SVG."""
    t = ax.text(x, y, SIGNIFICANT, fontsize=14, fontweight="bold", color="#c62828",
                **({"transform": transform} if transform is not None else {}), **kw)
    t.set_gid(gid)


def _legend_below(ax, handles=None) -> None:
    """The panel's legend under it, where it hides no bar and no asterisk."""
    kw = {"handles": handles} if handles is not None else {}
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.11), fontsize=8, frameon=False, **kw)


def plot_figure(summ, against=None, differences=None):
    """The chart of `summ` (a tessera.play.simulate.Summary) as a matplotlib Figure, compared with `against`
    if given; `differences` (tessera.play.simulate.compare(summ, against), computed here if not given)
    says which differences to mark as significant."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure
    from matplotlib.transforms import blended_transform_factory

    runs = [(summ, RULES_COLOUR)] if against is None else [(against, AGAINST_COLOUR), (summ, RULES_COLOUR)]
    if against is not None and differences is None:
        from ..play.simulate import compare

        differences = compare(summ, against)
    sig = {d["measure"]: d for d in (differences or [])}
    wins = {id(s): win_rates(s) for s, _ in runs}
    with_wins = all(w is not None for w in wins.values())
    if with_wins:  # a second row: the balance measures in points and counts, game length, rule usage
        n_rules = max((len(s.rule_usage()) for s, _ in runs), default=1)
        fig = Figure(figsize=(20, (5.8 if against is not None else 5.2) + max(5.0, 0.32 * n_rules + 2)),
                     layout="constrained")
        top, bottom = fig.subfigures(2, 1, height_ratios=[5.5, max(5.0, 0.32 * n_rules + 2)])
        ax_s, ax_k, ax_w, ax_b = top.subplots(1, 4, width_ratios=[1.1, 1, 0.8, 1])
        ax_p, ax_c, ax_l, ax_u = bottom.subplots(1, 4, width_ratios=[1, 0.8, 0.6, 1.6])
        _measures_panel(ax_p, runs, POINT_MEASURES, "balance in points (95% interval)", "points", sig)
        _measures_panel(ax_c, runs, COUNT_MEASURES, "per game (95% interval)", "times per game", sig)
        _measures_panel(ax_l, runs, LENGTH_MEASURES, "game length (95% interval)", "turns", sig)
        _usage_panel(ax_u, runs)
    else:
        fig = Figure(figsize=(11, 5.8 if against is not None else 5.2), layout="constrained")
        ax_s, ax_k = fig.subplots(1, 2, width_ratios=[1.1, 1])
    width = 0.8 / len(runs)
    top_of = blended_transform_factory(ax_s.transData, ax_s.transAxes)
    for n, (s, colour) in enumerate(runs):
        name = "+".join(s.rules)
        pos = [p + 1 + (n - (len(runs) - 1) / 2) * width for p in range(s.players)]
        bp = ax_s.boxplot([seat_scores(s, p) for p in range(s.players)], positions=pos, widths=width * 0.85, patch_artist=True,
                          medianprops={"color": "#111111"}, flierprops={"markersize": 3})
        for p, box in enumerate(bp["boxes"]):
            box.set_facecolor(colour)
            box.set_gid(f"scores-{name}-seat{p + 1}")
        ax_s.plot([], [], color=colour, linewidth=8, label=name)
    if against is not None:  # headroom above the boxes for the asterisks
        lo, hi = ax_s.get_ylim()
        ax_s.set_ylim(lo, hi + 0.1 * (hi - lo))
    for p in range(summ.players):
        d = sig.get(f"score, seat {p + 1} ({summ.agents[p]})") if summ.agents else None
        if d is not None and d.get("significant"):
            _mark(ax_s, p + 1, 0.93, f"significant-scores-seat{p + 1}", d, transform=top_of, ha="center")
    ax_s.set_xticks(range(1, summ.players + 1), [f"seat {p + 1}" for p in range(summ.players)])
    ax_s.set_ylabel("final score")
    ax_s.set_title(f"score distribution by seat ({summ.games} games, {summ.players} players)")
    _legend_below(ax_s)
    _points_panel(ax_k, runs, sig)
    if with_wins:
        top_w = blended_transform_factory(ax_w.transData, ax_w.transAxes)
        for n, (s, colour) in enumerate(runs):
            name = "+".join(s.rules)
            pos = [p + 1 + (n - (len(runs) - 1) / 2) * width for p in range(s.players)]
            rates = wins[id(s)]
            ys = [r for r, _, _ in rates]
            err = [[r - lo for r, lo, _ in rates], [hi - r for r, _, hi in rates]]
            bars = ax_w.bar(pos, ys, width=width * 0.85, color=colour, label=name)
            for p, bar in enumerate(bars):
                bar.set_gid(f"wins-{name}-seat{p + 1}")
            eb = ax_w.errorbar(pos, ys, yerr=err, fmt="none", ecolor="#111111", capsize=3, linewidth=1)
            eb.lines[2][0].set_gid(f"wins-interval-{name}")
        for p in range(summ.players):
            d = sig.get(f"win rate, seat {p + 1} ({summ.agents[p]})") if summ.agents else None
            if d is not None and d.get("significant"):
                _mark(ax_w, p + 1, 0.93, f"significant-wins-seat{p + 1}", d, transform=top_w, ha="center")
        ax_w.set_xticks(range(1, summ.players + 1), [f"seat {p + 1}" for p in range(summ.players)])
        ax_w.set_ylim(0, 1.1 if against is not None else 1)
        ax_w.set_yticks([0, 0.2, 0.4, 0.6, 0.8, 1.0])
        ax_w.set_ylabel("games won alone on top")
        ax_w.set_title("win rate by seat (95% interval)")
        _legend_below(ax_w)
        _balance_panel(ax_b, runs, sig)
    if against is not None:
        note = fig.supxlabel(significance_note(differences or []), fontsize=9, color="#c62828", x=0.01,
                             ha="left")
        note.set_gid("significance-note")
    return fig


def _points_panel(ax, runs, sig: dict[str, dict]) -> None:
    """Mean points per game by feature, each feature's parts by source under it (hatched), then
    the sources of no feature; an asterisk by a row whose difference is significant."""
    rows = point_rows([s for s, _ in runs])
    hb = 0.8 / len(runs)
    ends: dict[int, float] = {}
    for n, (s, colour) in enumerate(runs):
        name = "+".join(s.rules)
        values = {**points_by_kind(s), **points_by_source(s)}
        ys = [k + (n - (len(runs) - 1) / 2) * hb for k in range(len(rows))]
        xs = [values.get(key, 0.0) for key, _ in rows]
        bars = ax.barh(ys, xs, height=hb * 0.9, color=colour, label=name)
        cis = point_intervals(s, rows)
        if cis is not None:  # each mean with its 95% interval (play/stats.py), as the table shows it
            lo = [x - (c[0] if c[0] is not None else x) for x, c in zip(xs, cis)]
            hi = [(c[1] if c[1] is not None else x) - x for x, c in zip(xs, cis)]
            eb = ax.errorbar(xs, ys, xerr=[lo, hi], fmt="none", ecolor="#111111", capsize=2, linewidth=0.8)
            eb.lines[2][0].set_gid(f"points-interval-{name}")
            xs = [c[1] if c[1] is not None else x for x, c in zip(xs, cis)]
        for (key, source), bar, x, k in zip(rows, bars, xs, range(len(rows))):
            bar.set_gid(f"points-{name}-{key}")
            if source:
                bar.set_hatch("///")
                bar.set_edgecolor("#ffffff")
                bar.set_linewidth(0)
            ends[k] = max(ends.get(k, 0.0), x)
    if any(v < 0 for s, _ in runs for v in points_by_source(s).values()):
        ax.axvline(0, color="#444444", linewidth=0.8)
    span = max(ends.values(), default=0.0) or 1.0
    for k, (key, _) in enumerate(rows):
        d = sig.get(f"points from {key}")
        if d is not None and d.get("significant"):
            _mark(ax, ends[k] + 0.02 * span, k, f"significant-points-{key}", d, ha="left", va="center")
    ax.set_xlim(right=max(ends.values(), default=0.0) + 0.1 * span)
    ax.set_yticks(range(len(rows)), [f"   {key}" if source and ":" in key else key for key, source in rows])
    for label, (_, source) in zip(ax.get_yticklabels(), rows):
        if source:
            label.set_fontstyle("italic")
    ax.invert_yaxis()
    ax.set_xlabel("mean points per game")
    handles, _ = ax.get_legend_handles_labels()
    if any(source for _, source in rows):
        from matplotlib.patches import Patch

        handles.append(Patch(facecolor="#9e9e9e", edgecolor="#ffffff", hatch="///", linewidth=0,
                             label="by source: part of the feature above"))
    ax.set_title("points by feature and by source" if any(source for _, source in rows) else "points by feature")
    _legend_below(ax, handles)


def plot_summaries(summ, against=None, differences=None, fmt: str = "svg"):
    """The chart of `summ`, compared with `against` if given: SVG text, or PNG bytes (`fmt="png"`)."""
    import matplotlib

    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "tessera", "font.size": 10}):
        fig = plot_figure(summ, against, differences)
        if fmt == "png":
            buf = io.BytesIO()
            fig.savefig(buf, format="png", dpi=100, metadata={"Software": None})
            return buf.getvalue()
        out = io.StringIO()
        fig.savefig(out, format="svg", metadata={"Date": None})
    return out.getvalue()


# ------------------------------------------------------------------ `tessera tune --plot`
TARGET_BAND = "#c8e6c9"


def plot_tune(result, fmt: str = "svg"):
    """`tessera tune --plot`: one panel per target, its measure against the candidate values, each with its 95%
    interval, the target (a line for `=`, a band for `<=`/`>=`) shaded, dropped candidates pale, the chosen
    one marked (`result`: a tessera.tune.search.Result)."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    targets = result.targets
    cands = result.candidates
    single = len(result.params) == 1
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "tessera", "font.size": 10}):
        fig = Figure(figsize=(max(5.5, 4.8 * len(targets)), 4.6), layout="constrained")
        axes = fig.subplots(1, len(targets), squeeze=False)[0]
        xs = [list(c.values.values())[0] if single else i for i, c in enumerate(cands)]
        for ax, t in zip(axes, targets):
            lo_all, hi_all = [], []
            for x, c in zip(xs, cands):
                m = c.measures.get(t.measure)
                if m is None or m[0] is None:
                    continue
                est, lo, hi = m
                lo = est if lo is None else lo
                hi = est if hi is None else hi
                lo_all.append(lo)
                hi_all.append(hi)
                chosen = c is result.chosen
                colour = "#c62828" if chosen else (RULES_COLOUR if c.dropped is None else "#9e9e9e")
                eb = ax.errorbar([x], [est], yerr=[[est - lo], [hi - est]], fmt="o" if not chosen else "D",
                                 color=colour, ecolor=colour, capsize=4, markersize=7 if chosen else 5)
                eb.lines[0].set_gid(f"tune-{t.measure}-{c.label}")
                ax.annotate(f"{c.games}", (x, hi), textcoords="offset points", xytext=(0, 4), ha="center",
                            fontsize=7, color="#555555")
            v = t.value
            lo_y = min(lo_all + [v]) if lo_all else v - 1
            hi_y = max(hi_all + [v]) if hi_all else v + 1
            pad = 0.08 * (hi_y - lo_y or 1)
            ax.set_ylim(lo_y - pad, hi_y + pad)
            if t.op == "=":
                ax.axhline(v, color="#2e7d32", linewidth=1.5, label=f"target {t.text}")
            elif t.op in ("<=", "<"):
                ax.axhspan(lo_y - pad, v, color=TARGET_BAND, zorder=0, label=f"target {t.text}")
            else:
                ax.axhspan(v, hi_y + pad, color=TARGET_BAND, zorder=0, label=f"target {t.text}")
            ax.set_xticks(xs, [str(x) for x in xs] if single else [c.label for c in cands],
                          rotation=0 if single else 60, fontsize=9 if single else 7)
            ax.set_xlabel(list(result.params)[0] if single else "candidate")
            from ..tune.search import MEASURES

            ax.set_ylabel(t.measure)
            ax.set_title(f"{t.measure}: {MEASURES[t.measure][0]}", fontsize=9)
            ax.plot([], [], "D", color="#c62828", label="chosen" if result.met else "nearest (target not met)")
            ax.plot([], [], "o", color=RULES_COLOUR, label="kept to the end")
            ax.plot([], [], "o", color="#9e9e9e", label="dropped in the race")
            ax.legend(fontsize=7, loc="best")
        fig.suptitle(f"tessera tune {'+'.join(result.rules)}\n95% intervals, games per candidate above each; "
                     f"{result.spent} games spent", fontsize=9)
        if fmt == "png":
            buf = io.BytesIO()
            fig.savefig(buf, format="png", dpi=100, metadata={"Software": None})
            return buf.getvalue()
        out = io.StringIO()
        fig.savefig(out, format="svg", metadata={"Date": None})
    return out.getvalue()
