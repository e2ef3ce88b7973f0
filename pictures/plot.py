"""`tessera simulate --plot FILE.svg`: what a rule set does, as a chart (matplotlib).

Left: the distribution of each seat's final score over the games (box plots).
Middle: the mean points per game each feature kind (and award) brings.
Right (summaries with per-game rows): each seat's rate of games won alone on
top, with its 95% Wilson interval (compiler/stats.py) as an error bar.  With
`--against`, both rule sets are drawn side by side in each panel, the rules
under study in the darker colour.
"""
from __future__ import annotations

import io

RULES_COLOUR = "#1f5fbf"
AGAINST_COLOUR = "#b0b0b0"


def seat_scores(s, p: int) -> list[int]:
    """Seat p's score in each game of a compiler.simulate.Summary (a list per seat, or a method)."""
    return s.scores(p) if callable(s.scores) else s.scores[p]


def points_by_kind(s) -> dict[str, float]:
    """Mean points per game by feature kind (an attribute, or per-game lists to average)."""
    if hasattr(s, "points_by_kind"):
        return dict(s.points_by_kind)
    return {k: sum(v) / max(len(v), 1) for k in s.kinds() for v in [s.points(k)]}


def win_rates(s):
    """Per seat (rate, low, high) of the games won alone, or None for a summary without per-game rows."""
    if not hasattr(s, "won"):
        return None
    return [(x["wins"]["rate"], x["wins"]["low"], x["wins"]["high"]) for x in s.to_dict(per_game=False)["by_seat"]]


BALANCE = (("seat 1 wins", lambda b: b["seat_advantage"] and b["seat_advantage"]["wins"], "rate"),
           ("tie rate", lambda b: b["tie_rate"], "rate"),
           ("decided at (share of game)", lambda b: b["decided_at"], "mean"))


def _balance_panel(ax, runs) -> None:
    """The balance measures that are shares (docs/simulate.md, Balance), each with its 95% interval."""
    hb = 0.8 / len(runs)
    for n, (s, colour) in enumerate(runs):
        name = "+".join(s.rules)
        b = s.balance()
        ys, xs, lo, hi = [], [], [], []
        for k, (label, pick, key) in enumerate(BALANCE):
            m = pick(b)
            if not m or m.get(key) is None:
                continue
            v = m[key]
            ys.append(k + (n - (len(runs) - 1) / 2) * hb)
            xs.append(v)
            lo.append(v - (m["low"] if m.get("low") is not None else v))
            hi.append((m["high"] if m.get("high") is not None else v) - v)
        bars = ax.barh(ys, xs, height=hb * 0.9, color=colour, label=name)
        for (label, _, _), bar in zip(BALANCE, bars):
            bar.set_gid(f"balance-{name}-{label.split(' (')[0].replace(' ', '-')}")
        ax.errorbar(xs, ys, xerr=[lo, hi], fmt="none", ecolor="#111111", capsize=3, linewidth=1)
    if runs and runs[0][0].players > 1:
        ax.axvline(1 / runs[0][0].players, color="#888888", linestyle=":", linewidth=1)  # seat 1's fair share
    ax.set_yticks(range(len(BALANCE)), [label for label, _, _ in BALANCE])
    ax.invert_yaxis()
    ax.set_xlim(0, 1)
    ax.set_title("balance (95% interval)")
    ax.legend(loc="lower right", fontsize=8)


def plot_summaries(summ, against=None) -> str:
    """The SVG text of the chart of `summ` (a compiler.simulate.Summary), compared with `against` if given."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    runs = [(summ, RULES_COLOUR)] if against is None else [(against, AGAINST_COLOUR), (summ, RULES_COLOUR)]
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "tessera", "font.size": 10}):
        wins = {id(s): win_rates(s) for s, _ in runs}
        with_wins = all(w is not None for w in wins.values())
        if with_wins:
            fig = Figure(figsize=(20, 4.8), layout="constrained")
            ax_s, ax_k, ax_w, ax_b = fig.subplots(1, 4, width_ratios=[1.1, 1, 0.8, 1])
        else:
            fig = Figure(figsize=(11, 4.8), layout="constrained")
            ax_s, ax_k = fig.subplots(1, 2, width_ratios=[1.1, 1])
        width = 0.8 / len(runs)
        for n, (s, colour) in enumerate(runs):
            name = "+".join(s.rules)
            pos = [p + 1 + (n - (len(runs) - 1) / 2) * width for p in range(s.players)]
            bp = ax_s.boxplot([seat_scores(s, p) for p in range(s.players)], positions=pos, widths=width * 0.85, patch_artist=True,
                              medianprops={"color": "#111111"}, flierprops={"markersize": 3})
            for p, box in enumerate(bp["boxes"]):
                box.set_facecolor(colour)
                box.set_gid(f"scores-{name}-seat{p + 1}")
            ax_s.plot([], [], color=colour, linewidth=8, label=name)
        ax_s.set_xticks(range(1, summ.players + 1), [f"seat {p + 1}" for p in range(summ.players)])
        ax_s.set_ylabel("final score")
        ax_s.set_title(f"score distribution by seat ({summ.games} games, {summ.players} players)")
        ax_s.legend(loc="upper right", fontsize=8)
        points = {id(s): points_by_kind(s) for s, _ in runs}
        kinds = sorted(set().union(*points.values()))
        hb = 0.8 / len(runs)
        for n, (s, colour) in enumerate(runs):
            name = "+".join(s.rules)
            ys = [k + (n - (len(runs) - 1) / 2) * hb for k in range(len(kinds))]
            bars = ax_k.barh(ys, [points[id(s)].get(k, 0.0) for k in kinds], height=hb * 0.9, color=colour,
                             label=name)
            for k, bar in zip(kinds, bars):
                bar.set_gid(f"points-{name}-{k}")
        ax_k.set_yticks(range(len(kinds)), kinds)
        ax_k.invert_yaxis()
        ax_k.set_xlabel("mean points per game")
        ax_k.set_title("points by feature")
        ax_k.legend(loc="lower right", fontsize=8)
        if with_wins:
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
            ax_w.set_xticks(range(1, summ.players + 1), [f"seat {p + 1}" for p in range(summ.players)])
            ax_w.set_ylim(0, 1)
            ax_w.set_ylabel("games won alone on top")
            ax_w.set_title("win rate by seat (95% interval)")
            ax_w.legend(loc="upper right", fontsize=8)
            _balance_panel(ax_b, runs)
        buf = io.StringIO()
        fig.savefig(buf, format="svg", metadata={"Date": None})
    return buf.getvalue()
