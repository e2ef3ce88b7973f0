"""`tessera compile`, `replay` and `simulate`: the engine side of the command line."""
from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import List, Optional

import typer

from dsl.diagnostics import render
from dsl.model import MOST_PLAYERS
from dsl.untrusted import printable

from .app import app, err, out, report

INTERRUPTED = 130  # Ctrl-C (128 + SIGINT, as shells report it): the summary of the games finished is printed

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
            err.print(printable(f"tessera{' ' + command if command else ''}: {d.message}"), markup=False)
        raise typer.Exit(2)
    if rs is None:
        raise typer.Exit(report(diags, ws.sources, len(ws.files)))
    from dsl.limits import playable

    why = playable(rs)  # checks, but no game can be played with it (or a degenerate one: a warning)
    if any(d.severity == "error" for d in why):
        raise typer.Exit(report(diags + why, ws.sources, len(ws.files)))
    for d in why:
        err.print(render(d, ws.sources), markup=False)
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
    out.print(printable(f"wrote {pkg} (rules of {', '.join(rs.names)}; {sum(t.count for t in rs.tiles)} tiles)"), markup=False)


@app.command()
def replay(
    record: Path = typer.Argument(..., help="a tessera-game/1 JSON record"),
    as_json: bool = typer.Option(False, "--json", help="print the answer as one JSON object"),
) -> None:
    """Replay a game record: every turn checked, every scoring event, final scores and winners."""
    from compiler.replay import RecordError, RuleLoadError, load_record, replay as run
    from compiler.runtime.errors import RuleFailure

    def fail(message: str, code: int, diagnostics=(), kind: str = "record"):
        """Every failure: a message on stderr, or with --json one JSON object on stdout."""
        if as_json:
            doc = {"error": {"turn": None, "message": message, "clause": None, "kind": kind}}
            if diagnostics:
                doc["error"]["diagnostics"] = [
                    {"file": d.span.file, "line": d.span.line, "column": d.span.column, "severity": d.severity,
                     "message": d.message, "code": d.code} for d in diagnostics]
            sys.stdout.write(json.dumps(doc, ensure_ascii=True) + "\n")
        raise typer.Exit(code)

    try:
        res = run(load_record(record), record.parent)
    except RuleFailure as failure:
        _rule_failed(failure, as_json)
    except RecordError as exc:
        if not as_json:
            err.print(f"tessera replay: {printable(str(exc))}", markup=False)
        fail(str(exc), 2)
    except RuleLoadError as exc:
        usage = all(d.span.line == 0 for d in exc.diagnostics)  # an unknown module or unreadable rule file
        if as_json:
            first = next((d for d in exc.diagnostics if d.severity == "error"), None)
            named = first is not None and first.span.line == 0 and first.span.file not in ("", "<input>", "<command line>")
            said = "" if first is None else (f": {first.span.file}: {first.message}" if named else f": {first.message}")
            fail(f"{record}: the record's rules do not load{said}",
                 2, exc.diagnostics, "rules")
        if usage:
            for d in exc.diagnostics:
                where = f"{d.span.file}: " if d.span.file not in ("", "<input>", "<command line>") else ""
                err.print(printable(f"tessera replay: {record}: {where}{d.message}"), markup=False)
            raise typer.Exit(2)
        raise typer.Exit(report(exc.diagnostics, exc.workspace.sources, len(exc.workspace.files)) or 2)
    except Exception as exc:  # an internal error: still one JSON answer with --json
        if not as_json:
            raise
        fail(f"internal error: {type(exc).__name__}: {exc}", 2, kind="internal")
    if as_json:
        doc = {"error": res.error} if res.error else res.answer
        sys.stdout.write(json.dumps(doc, ensure_ascii=True) + "\n")
        raise typer.Exit(1 if res.error else 0)
    if res.error:
        out.print(printable(f"{res.error['message']} [{res.error['clause']}]"), markup=False)
        raise typer.Exit(1)
    from rich.table import Table

    ans = res.answer
    from rich.text import Text

    def P(s: str) -> Text:  # names come from the record: never let one drive the terminal (nor be markup)
        return Text(printable(s))
    t = Table(title=P(f"{record.name}: scoring events"))
    for col in ("turn", "feature", "when", "tiles", "points", "clause"):
        t.add_column(col)
    for ev in ans["events"]:
        t.add_row(str(ev["turn"]), P(ev["feature"]), P(ev["when"]), str(ev.get("tiles", "")),
                  P(", ".join(f"{k} {v}" for k, v in ev["points"].items())), P(ev["clause"]))
    out.print(t, markup=False)
    out.print(P("scores: " + ", ".join(f"{k} {v}" for k, v in ans["scores"].items())))
    out.print(P("winners: " + ", ".join(ans["winners"])))


def _simulate(specs: list[str], games: int, players: int, seed: int, record: Optional[Path], show: bool,
              as_json: bool = False):
    from compiler.build import load_engine
    from compiler.simulate import simulate as run
    from rich.progress import Progress

    rs = _load(specs, "simulate")
    lo, hi = rs.player_range()
    if not lo <= players <= hi:
        err.print(printable(f"tessera simulate: {'+'.join(specs)} is for {lo} to {hi} players, not {players}"), markup=False)
        raise typer.Exit(2)
    from compiler.runtime.errors import RuleFailure

    eng = load_engine(rs)
    kept = None
    if record is not None:  # rule files named relative to the records, so they replay from any folder
        from compiler.records import rule_paths_for

        try:
            record.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            err.print(printable(f"tessera simulate: cannot write records into {record}: "
                                f"{'a file is in the way' if isinstance(exc, FileExistsError) else exc.strerror or exc}"),
                      markup=False)
            raise typer.Exit(2)
        kept = rule_paths_for(record, specs)
    try:
        if not show:
            return run(eng, games, players, seed, specs, record, record_rules=kept)
        with Progress(console=err, transient=True) as prog:
            task = prog.add_task(f"simulating {'+'.join(specs)}", total=games)
            return run(eng, games, players, seed, specs, record, lambda k: prog.update(task, completed=k),
                       record_rules=kept)
    except RuleFailure as failure:
        _rule_failed(failure, as_json)


def _rule_failed(failure, as_json: bool) -> None:
    """A rule function crashed while the engine ran: name its rule-file line (exit 1)."""
    if as_json:
        sys.stdout.write(json.dumps({"error": {"message": failure.describe(), "rule": failure.location}}) + "\n")
    else:
        out.print(printable(failure.describe()), markup=False)
    raise typer.Exit(1)


@app.command()
def simulate(
    games: int = typer.Option(1000, "--games", "-n", min=1, help="how many games"),
    players: int = typer.Option(2, "--players", "-p", min=1, max=MOST_PLAYERS, help="players per game"),
    seed: int = typer.Option(0, "--seed", "-s", help="seed of the first game (game i uses seed+i)"),
    rules: List[str] = typer.Option(["base"], "--rules", "-r", help=RULES_HELP),
    against: Optional[List[str]] = typer.Option(None, "--against", "-a",
                                                help="also play the same seeds under these rules and compare (a rule change's effect)"),
    as_json: bool = typer.Option(False, "--json", help="print the summary as JSON"),
    record: Optional[Path] = typer.Option(None, "--record", help="write every game as a replayable record into this folder"),
    plot: Optional[Path] = typer.Option(None, "--plot", help="also draw score distributions by seat and points by feature "
                                                             "(both rule sets with --against) as an SVG chart"),
) -> None:
    """Play random legal games and summarise: scores, points by feature, wins by seat, length, discards.

    With --against, the same seeds are played under both rule sets and the two
    summaries are shown side by side with the change: what a house rule does.
    """
    specs = _split(rules)
    show = not as_json and sys.stderr.isatty()
    summ = _simulate(specs, games, players, seed, record, show, as_json)
    other = None
    if against and not summ.interrupted:
        base_specs = _split(against)
        other = _simulate(base_specs, summ.games, players, seed, None, show, as_json)
        if other.interrupted:  # compare the seeds both finished
            other = None
    stop = INTERRUPTED if summ.interrupted or (against and other is None) else 0
    if stop:
        err.print(f"tessera simulate: interrupted; the summary covers the {summ.games} game"
                  f"{'s' if summ.games != 1 else ''} finished{' (records of them are complete)' if record else ''}",
                  markup=False)
    if plot is not None:
        from pictures import write_atomically
        from pictures.plot import plot_summaries

        write_atomically(plot, plot_summaries(summ, other))
        err.print(f"wrote {plot}", markup=False)
    if as_json:
        doc = summ.to_dict() if other is None else {"rules": summ.to_dict(), "against": other.to_dict()}
        sys.stdout.write(json.dumps(doc, sort_keys=True) + "\n")
        raise typer.Exit(stop)
    if other is not None:
        _print_comparison(other, summ)
        raise typer.Exit(stop)
    games = summ.games
    from rich.table import Table

    d = summ.to_dict()
    out.print(printable(f"{games} games, {players} players, rules {'+'.join(specs)}, seed {seed} "
                        f"({summ.seconds:.2f} s, {games / max(summ.seconds, 1e-9):.0f} games/s)"), markup=False)
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
    raise typer.Exit(stop)


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
