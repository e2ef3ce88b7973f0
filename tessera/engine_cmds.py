"""`tessera compile`, `replay` and `simulate`: the engine side of the command line."""
from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import List, Optional

import typer

from dsl.untrusted import printable

from .cli import app, err, out, report

RULES_HELP = "rule modules (base, river, abbot, king_robber, ...) or rule-file paths; a comma-separated list works too"


def _split(specs: List[str]) -> list[str]:
    out_: list[str] = []
    for s in specs:
        out_.extend(x for x in s.split(",") if x)
    return out_


def _load(specs: list[str], command: str = ""):
    from dsl.loader import load_rule_set

    rs, diags, ws = load_rule_set(specs)
    usage = [d for d in diags if d.severity == "error" and d.span.line == 0]
    if usage:  # an unknown module or a missing file named on the command line
        for d in usage:
            err.print(f"tessera{' ' + command if command else ''}: {d.message}", markup=False)
        raise typer.Exit(2)
    if rs is None:
        raise typer.Exit(report(diags, ws.sources, len(ws.files)))
    return rs


@app.command("compile")
def compile_cmd(
    rules: List[str] = typer.Argument(..., help=RULES_HELP),
    output: Path = typer.Option(..., "-o", "--output", help="folder to write the engine package into"),
    package: str = typer.Option("engine", "--package", help="name of the Python package to write"),
) -> None:
    """Compile rule modules into an importable engine package (standard library only)."""
    import keyword

    from compiler.build import CompileTargetError, compile_to_dir
    from compiler.codegen import CompileError
    from dsl.diagnostics import Diagnostic

    if not package.isidentifier() or keyword.iskeyword(package) or len(package) > 64:
        err.print(f"tessera compile: --package {printable(repr(package), 80)} is not a Python package name "
                  f"(letters, digits and _, not a keyword, at most 64 characters)", markup=False)
        raise typer.Exit(2)
    rs = _load(_split(rules), "compile")
    try:
        pkg = compile_to_dir(rs, output, package)
    except CompileTargetError as exc:
        err.print(f"tessera compile: {printable(str(exc))}", markup=False)
        raise typer.Exit(2)
    except CompileError as ce:
        from dsl.diagnostics import SourceCache
        raise typer.Exit(report([Diagnostic(ce.span, ce.message, ce.code)], SourceCache(), len(rs.modules)))
    out.print(f"wrote {pkg} (rules of {', '.join(rs.names)}; {sum(t.count for t in rs.tiles)} tiles)", markup=False)


@app.command()
def replay(
    record: Path = typer.Argument(..., help="a tessera-game/1 JSON record"),
    as_json: bool = typer.Option(False, "--json", help="print the answer as one JSON object"),
) -> None:
    """Replay a game record: every turn checked, every scoring event, final scores and winners."""
    from compiler.replay import RecordError, RuleLoadError, load_record, replay as run

    try:
        res = run(load_record(record), record.parent)
    except RecordError as exc:
        err.print(f"tessera replay: {exc}", markup=False)
        raise typer.Exit(2)
    except RuleLoadError as exc:
        if all(d.span.line == 0 for d in exc.diagnostics):  # an unknown module named by the record
            for d in exc.diagnostics:
                err.print(f"tessera replay: {record}: {d.message}", markup=False)
            raise typer.Exit(2)
        raise typer.Exit(report(exc.diagnostics, exc.workspace.sources, len(exc.workspace.files)) or 2)
    if as_json:
        doc = {"error": res.error} if res.error else res.answer
        sys.stdout.write(json.dumps(doc, ensure_ascii=False) + "\n")
        raise typer.Exit(1 if res.error else 0)
    if res.error:
        out.print(f"{res.error['message']} [{res.error['clause']}]", markup=False)
        raise typer.Exit(1)
    from rich.table import Table

    ans = res.answer
    t = Table(title=f"{record.name}: scoring events")
    for col in ("turn", "feature", "when", "tiles", "points", "clause"):
        t.add_column(col)
    for ev in ans["events"]:
        t.add_row(str(ev["turn"]), ev["feature"], ev["when"], str(ev.get("tiles", "")),
                  ", ".join(f"{k} {v}" for k, v in ev["points"].items()), ev["clause"])
    out.print(t)
    out.print("scores: " + ", ".join(f"{k} {v}" for k, v in ans["scores"].items()), markup=False)
    out.print("winners: " + ", ".join(ans["winners"]), markup=False)


def _simulate(specs: list[str], games: int, players: int, seed: int, record: Optional[Path], show: bool):
    from compiler.build import load_engine
    from compiler.simulate import simulate as run
    from rich.progress import Progress

    rs = _load(specs, "simulate")
    lo, hi = (rs.players.low, rs.players.high) if rs.players else (2, 5)
    if not lo <= players <= hi:
        err.print(f"tessera simulate: {'+'.join(specs)} is for {lo} to {hi} players, not {players}", markup=False)
        raise typer.Exit(2)
    eng = load_engine(rs)
    if not show:
        return run(eng, games, players, seed, specs, record)
    with Progress(console=err, transient=True) as prog:
        task = prog.add_task(f"simulating {'+'.join(specs)}", total=games)
        return run(eng, games, players, seed, specs, record, lambda k: prog.update(task, completed=k))


@app.command()
def simulate(
    games: int = typer.Option(1000, "--games", "-n", min=1, help="how many games"),
    players: int = typer.Option(2, "--players", "-p", min=1, max=6, help="players per game"),
    seed: int = typer.Option(0, "--seed", "-s", help="seed of the first game (game i uses seed+i)"),
    rules: List[str] = typer.Option(["base"], "--rules", "-r", help=RULES_HELP),
    against: Optional[List[str]] = typer.Option(None, "--against", "-a",
                                                help="also play the same seeds under these rules and compare (a rule change's effect)"),
    as_json: bool = typer.Option(False, "--json", help="print the summary as JSON"),
    record: Optional[Path] = typer.Option(None, "--record", help="write every game as a replayable record into this folder"),
) -> None:
    """Play random legal games and summarise: scores, points by feature, wins by seat, length, discards.

    With --against, the same seeds are played under both rule sets and the two
    summaries are shown side by side with the change: what a house rule does.
    """
    specs = _split(rules)
    show = not as_json and sys.stderr.isatty()
    summ = _simulate(specs, games, players, seed, record, show)
    other = None
    if against:
        base_specs = _split(against)
        other = _simulate(base_specs, games, players, seed, None, show)
    if as_json:
        doc = summ.to_dict() if other is None else {"rules": summ.to_dict(), "against": other.to_dict()}
        sys.stdout.write(json.dumps(doc, sort_keys=True) + "\n")
        return
    if other is not None:
        _print_comparison(other, summ)
        return
    from rich.table import Table

    d = summ.to_dict()
    out.print(f"{games} games, {players} players, rules {'+'.join(specs)}, seed {seed} "
              f"({summ.seconds:.2f} s, {games / max(summ.seconds, 1e-9):.0f} games/s)", markup=False)
    t = Table(title="by seat")
    t.add_column("seat")
    t.add_column("mean score", justify="right")
    t.add_column("win rate", justify="right")
    for p in range(players):
        t.add_row(str(p + 1), f"{summ.mean_score[p]:.2f}", f"{summ.win_rate[p]:.1%}")
    out.print(t)
    k = Table(title="mean points per game by feature")
    k.add_column("feature")
    k.add_column("points", justify="right")
    for name, v in d["mean_points_by_feature"].items():
        k.add_row(name, f"{v:.2f}")
    out.print(k)
    out.print(f"mean game length: {summ.mean_turns:.1f} turns; mean discards: {summ.mean_discards:.2f}; "
              f"highest score: {summ.max_score}", markup=False)


def _print_comparison(a, b) -> None:
    """Two summaries of the same seeds side by side: `a` the reference, `b` the rules under study."""
    from rich.table import Table

    out.print(f"{a.games} games, {a.players} players, seeds {a.seed}..{a.seed + a.games - 1}: "
              f"{'+'.join(b.rules)} against {'+'.join(a.rules)}", markup=False)
    t = Table()
    t.add_column("measure")
    t.add_column("+".join(a.rules), justify="right")
    t.add_column("+".join(b.rules), justify="right")
    t.add_column("change", justify="right")

    def row(name: str, x: float, y: float, pct: bool = False) -> None:
        fmt = (lambda v: f"{v:.1%}") if pct else (lambda v: f"{v:.2f}")
        d = y - x
        t.add_row(name, fmt(x), fmt(y), ("+" if d > 0 else "") + (f"{d * 100:.1f} pt" if pct else f"{d:.2f}"))

    row("mean score (all seats)", sum(a.mean_score) / a.players, sum(b.mean_score) / b.players)
    for p in range(a.players):
        row(f"win rate, seat {p + 1}", a.win_rate[p], b.win_rate[p], pct=True)
    for kind in sorted(set(a.points_by_kind) | set(b.points_by_kind)):
        row(f"points from {kind}", a.points_by_kind.get(kind, 0.0), b.points_by_kind.get(kind, 0.0))
    row("game length (turns)", a.mean_turns, b.mean_turns)
    row("discards", a.mean_discards, b.mean_discards)
    row("highest score", a.max_score, b.max_score)
    out.print(t)
