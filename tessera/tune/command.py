"""`tessera tune RULES --param NAME --target MEASURE=VALUE ...` (issue 40): the command line of the search
in search.py, its table, `--json` and `--plot`."""
from __future__ import annotations

import json
import re
import sys
import time
from pathlib import Path
from typing import List, Optional

import typer

from ..dsl.model import MOST_PLAYERS
from ..dsl.untrusted import printable

from ..app import app, err, out


def _param_spec(text: str) -> tuple[str, int | None, int | None]:
    """`NAME` or `NAME=LO..HI` (a sub-range of the declared range)."""
    m = re.fullmatch(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?:=\s*(-?[0-9]+)\s*\.\.\s*(-?[0-9]+))?\s*", text)
    if not m:
        raise ValueError(f"--param {text!r}: write NAME, or NAME=LO..HI for part of its range")
    name, lo, hi = m.groups()
    return name, int(lo) if lo is not None else None, int(hi) if hi is not None else None


def _fail(msg: str, code: int = 2):
    err.print(printable(f"tessera tune: {msg}"), markup=False)
    raise typer.Exit(code)


@app.command()
def tune(
    rules: List[str] = typer.Argument(..., help="rule modules or rule files (a comma-separated list works too)"),
    param: List[str] = typer.Option(..., "--param", help="a parameter to tune (repeatable): NAME, or NAME=LO..HI "
                                                         "for part of its declared range"),
    target: List[str] = typer.Option(..., "--target", help="a balance target (repeatable): MEASURE=VALUE, "
                                                           "MEASURE<=VALUE or MEASURE>=VALUE, e.g. seat_advantage=0, "
                                                           "tie_rate<=0.05; measures: seat_advantage, seat1_wins, "
                                                           "tie_rate, decided_at, lead_changes, score_spread, "
                                                           "lowest_score, mean_score, turns, captures, ransoms, "
                                                           "attacks, edge_wins"),
    agents: Optional[str] = typer.Option(None, "--agents", help="players per seat as in simulate (random, greedy, "
                                                                "mcts:N, ladder:K; default: random)"),
    players: int = typer.Option(2, "--players", "-p", min=1, max=MOST_PLAYERS, help="players per game"),
    budget: int = typer.Option(4000, "--budget", min=1, help="games in all, over every candidate"),
    seed: int = typer.Option(0, "--seed", "-s", min=0, help="the run's seed: every candidate plays the same games"),
    jobs: int = typer.Option(1, "--jobs", "-j", min=1, help="worker processes; the result does not depend on it"),
    first: Optional[int] = typer.Option(None, "--first", min=2, help="games per candidate in the first round "
                                                                     "(default: from the budget)"),
    halving: bool = typer.Option(True, "--halving/--no-halving", help="after each round keep only the nearer half "
                                                                     "of the candidates left (successive halving)"),
    verify: bool = typer.Option(True, "--verify/--no-verify", help="only values the verifier proves sound are "
                                                                  "candidates (tessera verify --param; default: on)"),
    set_: Optional[List[str]] = typer.Option(None, "--set", help="fix another parameter's value: NAME=VALUE"),
    as_json: bool = typer.Option(False, "--json", help="print the result as one JSON object"),
    plot: Optional[Path] = typer.Option(None, "--plot", help="draw each target's measure against the value, with "
                                                             "intervals and the target band (SVG, or PNG if FILE "
                                                             "ends in .png)"),
) -> None:
    """Find the value of a rule's parameter that meets balance targets: candidates raced on common seeds, only
    values the verifier proves sound (docs/tune.md)."""
    from ..play.agents import AgentSpecError, parse_agents
    from ..compiler.build import load_engine
    from ..dsl.params import settings

    from ..engine_cmds import _load, _sets, _split
    from .search import Candidate, Result, TargetError, candidates_grid, choose, pareto, parse_target, race

    specs = _split(rules)
    sets = _sets(set_, "tune")
    try:
        targets = [parse_target(t) for t in target]
        wanted = [_param_spec(p) for p in param]
        seat_agents = parse_agents(agents, players)
    except (TargetError, ValueError, AgentSpecError) as exc:
        _fail(str(exc))
    names = [n for n, _, _ in wanted]
    if len(set(names)) != len(names):
        _fail("a parameter is named twice in --param")
    if set(names) & set(sets):
        _fail("a parameter given with --set is fixed: it cannot also be tuned")
    rs = _load(specs, "tune", sets)
    lo_p, hi_p = rs.player_range()
    if not lo_p <= players <= hi_p:
        _fail(f"{'+'.join(specs)} is for {lo_p} to {hi_p} players, not {players}")
    values: dict[str, list[int]] = {}
    unproved: dict[str, list[int]] = {}
    t0 = time.perf_counter()
    for name, lo, hi in wanted:
        d = rs.params.get(name)
        if d is None:
            _fail(f"--param {name}: these rules declare no parameter `{name}` (their parameters: "
                  f"{', '.join(sorted(rs.params)) or 'none'})")
        a, b = d.low if lo is None else lo, d.high if hi is None else hi
        if not d.low <= a <= b <= d.high:
            _fail(f"--param {name}={a}..{b}: outside the declared range {d.low}..{d.high} ({d.span})")
        every = list(range(a, b + 1))
        if verify:
            from ..verifier.checks import load_checks
            from ..verifier.params import verify_range

            load_checks()
            if not as_json:
                err.print(printable(f"verifying the invariants for {name} in {a}..{b} ..."), markup=False)
            from ..verifier import witness as wit

            games, wit.WITNESS_GAMES = wit.WITNESS_GAMES, 0  # which values are proved is all tune asks: no games
            try:  # searched for a value that is not (`tessera verify --param` searches them)
                res = verify_range(specs, name, sets, low=a, high=b)
            finally:
                wit.WITNESS_GAMES = games
            ok = set(res.proved())
            values[name] = [v for v in every if v in ok]
            unproved[name] = [v for v in every if v not in ok]
        else:
            values[name] = every
            unproved[name] = []
        if not values[name]:
            _fail(f"--param {name}: the verifier proves no value of {a}..{b} sound (tessera verify --param {name}); "
                  f"nothing to tune", 1)
    verify_seconds = time.perf_counter() - t0
    try:
        grid = candidates_grid(values)
    except TargetError as exc:
        _fail(str(exc))
    cands = []
    for vals in grid:
        rs_v = _load(specs, "tune", {**sets, **vals})
        eng = load_engine(rs_v)
        task = {"source": eng.source, "rules": specs, "players": players, "seed": seed, "agents": seat_agents,
                "record": None, "record_rules": None, "rotate": False}
        cands.append(Candidate(vals, task, eng))

    def progress(rd: dict) -> None:
        if not as_json:
            err.print(printable(f"round {rd['round']}: {rd['games_per_candidate']} games per candidate, "
                                f"{len(rd['alive'])} left, {rd['games_spent']} games spent"), markup=False)

    t1 = time.perf_counter()
    spent, rounds = race(cands, targets, budget, specs, players, seed, seat_agents, jobs, first, progress, halving)
    alive = [c for c in cands if c.dropped is None]
    chosen, met = choose(alive, targets)
    front = pareto(alive, targets) if len(targets) > 1 else ([chosen] if chosen else [])
    result = Result(specs, values, unproved, targets, seat_agents, players, seed, budget, cands, rounds, spent,
                    chosen, met, front, verify)
    doc = result.to_dict()
    doc["seconds"] = {"verify": round(verify_seconds, 1), "games": round(time.perf_counter() - t1, 1)}
    if plot is not None:
        from ..pictures import write_atomically
        from ..pictures.plot import plot_tune

        fmt = "png" if plot.suffix.lower() == ".png" else "svg"
        write_atomically(plot, plot_tune(result, fmt))
        if not as_json:
            err.print(f"wrote {plot}", markup=False)
    if as_json:
        sys.stdout.write(json.dumps(doc, sort_keys=True) + "\n")
    else:
        _print(result, doc["seconds"])
    raise typer.Exit(0 if met else 1)


def _fmt(x) -> str:
    if x is None:
        return "-"
    return f"{x:.3f}" if abs(x) < 1 else f"{x:.2f}"


def _ci(m) -> str:
    est, lo, hi = m
    return f"{_fmt(est)} [{_fmt(lo)}, {_fmt(hi)}]" if lo is not None else _fmt(est)


def _print(res, seconds: dict) -> None:
    from rich.table import Table

    head = (f"tune {'+'.join(res.rules)}: {', '.join(t.text for t in res.targets)}; players "
            f"{','.join(res.agents)}, seed {res.seed}; {res.spent} of {res.budget} games spent in "
            f"{len(res.rounds)} round{'s' if len(res.rounds) != 1 else ''} ({seconds['games']:.0f} s"
            f"{', verifying ' + format(seconds['verify'], '.0f') + ' s' if res.verified else ''})")
    out.print(printable(head), markup=False)
    for name, vals in res.unproved.items():
        if vals:
            out.print(printable(f"left out, not proved sound by the verifier: {name} = "
                                f"{', '.join(map(str, vals))} (tessera verify --param {name})"), markup=False)
    if not res.verified:
        out.print("candidates not verified (--no-verify)", markup=False)
    table = Table(title="candidates (95% intervals; every candidate played the same seeds)")
    table.add_column("value")
    table.add_column("games", justify="right")
    for t in res.targets:
        table.add_column(t.text, justify="right")
    table.add_column("")
    for c in res.candidates:
        cells = []
        for t in res.targets:
            m = c.measures.get(t.measure)
            mark = "" if m is None else (" ✓" if t.met(*m) else " ~" if t.consistent(*m) else " ✗")
            cells.append(_ci(m) + mark if m is not None else "-")
        status = "chosen" if c is res.chosen else (f"dropped after round {c.dropped}" if c.dropped else "kept")
        table.add_row(printable(c.label), str(c.games), *cells, status)
    out.print(table)
    out.print("✓ the interval meets the target, ~ it does not exclude it, ✗ it excludes it", markup=False)
    c = res.chosen
    if c is None:
        out.print("no candidate", markup=False)
        return
    said = "; ".join(f"{t.measure} {_ci(c.measures[t.measure])}" for t in res.targets)
    if res.met:
        out.print(printable(f"chosen: {c.label}: {said} ({c.games} games); {res.spent} games spent"), markup=False)
        others = [x for x in res.candidates if x is not c and x.dropped is None]
        if others:
            out.print(printable(f"also consistent with the targets after the budget: "
                                f"{'; '.join(x.label for x in others)}"), markup=False)
    else:
        out.print(printable(f"no value meets the targets within the budget of {res.budget} games; the nearest is "
                            f"{c.label}: {said} ({c.games} games)"), markup=False)
    if len(res.targets) > 1 and len(res.front) > 1:
        out.print(printable("the targets conflict: Pareto front (no other candidate nearer on every target): "
                            + "; ".join(x.label for x in res.front)), markup=False)
