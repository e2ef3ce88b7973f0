"""`tessera compile`, `replay` and `simulate`: the engine side of the command line."""
from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import List, Optional

import typer

from .dsl.diagnostics import render
from .dsl.family import CARDS, Family
from .dsl.model import MOST_PLAYERS
from .dsl.untrusted import printable

from .app import app, err, fail, json_errors, out, report

RULES_HELP = "rule modules (base, river, abbot, king_robber, ...) or rule-file paths; a comma-separated list works too"


def _split(specs: List[str]) -> list[str]:
    out_: list[str] = []
    for s in specs:
        out_.extend(x for x in s.split(",") if x)
    return out_


SET_HELP = "give a parameter (`param NAME = V in LO..HI`) this value: NAME=VALUE, repeatable"


def _sets(sets: Optional[List[str]], command: str) -> dict:
    """`--set NAME=VALUE ...` as {name: value} (a malformed one: a usage error, exit 2)."""
    from .dsl.params import SetError, parse_sets

    try:
        return parse_sets(sets)
    except SetError as exc:
        err.print(printable(f"tessera {command}: {exc}"), markup=False)
        raise typer.Exit(2)


def _load(specs: list[str], command: str = "", sets: dict | None = None):
    from .dsl.loader import load_rule_set
    from .dsl.params import settings

    with settings(sets):  # `--set NAME=VALUE`: checked against the parameters the rules declare
        rs, diags, ws = load_rule_set(specs)
    usage = [d for d in diags if d.severity == "error" and d.span.line == 0]
    if usage:  # an unknown module or a missing file named on the command line
        for d in usage:
            err.print(printable(f"tessera{' ' + command if command else ''}: {d.message}"), markup=False)
        raise typer.Exit(2)
    if rs is None:
        raise typer.Exit(report(diags, ws.sources, len(ws.files)))
    from .dsl.limits import playable

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
    set_: Optional[List[str]] = typer.Option(None, "--set", help=SET_HELP),
    native: bool = typer.Option(False, "--native", help="also put the native kernel (the hot runtime modules compiled "
                                                        "with Cython, for this interpreter) into the package's runtime/; "
                                                        "built once per package name and cached; another interpreter "
                                                        "runs the .py beside it (pip install 'tessera-rules[fast]')"),
) -> None:
    """Compile rule modules into an importable engine package (standard library only)."""
    import keyword

    from .compiler.build import CompileTargetError, compile_to_dir
    from .compiler.codegen import CompileError
    from .dsl.diagnostics import Diagnostic

    if not package.isidentifier() or keyword.iskeyword(package) or len(package) > 64:
        err.print(f"tessera compile: --package {printable(repr(package), 80)} is not a Python package name "
                  f"(letters, digits and _, not a keyword, at most 64 characters)", markup=False)
        raise typer.Exit(2)
    rs = _load(_split(rules), "compile", _sets(set_, "compile"))
    from .compiler.native import KernelError, ext_suffix

    try:
        pkg = compile_to_dir(rs, output, package, native=native)
    except KernelError as exc:
        err.print(f"tessera compile: --native: {printable(str(exc), 2000)}", markup=False)
        raise typer.Exit(2)
    except CompileTargetError as exc:
        err.print(f"tessera compile: {printable(str(exc))}", markup=False)
        raise typer.Exit(2)
    except CompileError as ce:
        from .dsl.diagnostics import SourceCache
        raise typer.Exit(report([Diagnostic(ce.span, ce.message, ce.code)], SourceCache(), len(rs.modules)))
    what = f"{rs.cards.count()} cards" if rs.family is CARDS else f"{sum(t.count for t in rs.tiles)} tiles"
    if native:
        n = len(list(pkg.glob(f"runtime/*{ext_suffix()}")))
        what += (f"; native kernel: {n} runtime modules compiled" if n
                 else f"; no module of the {rs.family.noun} game's runtime is compiled: interpreted")
    out.print(printable(f"wrote {pkg} (rules of {', '.join(rs.names)}; {what})"), markup=False)


@app.command()
def replay(
    record: Path = typer.Argument(..., help="a tessera-game/1 JSON record"),
    as_json: bool = typer.Option(False, "--json", help="print the answer as one JSON object"),
    set_: Optional[List[str]] = typer.Option(None, "--set", help=SET_HELP + " (a game the verifier found for that "
                                                                            "value: tessera verify --param)"),
) -> None:
    """Replay a game record: every turn checked, every scoring event, final scores and winners."""
    from .replay.tiles import RecordError, RuleLoadError, load_record, replay as run
    from .compiler.runtime import events as E
    from .compiler.runtime.errors import RuleFailure

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

    from .dsl.params import settings

    sets = _sets(set_, "replay")
    try:
        with settings(sets):  # `--set NAME=VALUE`: the rules the record names, with that value
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
    running = {k: 0 for k in ans["scores"]}
    low = []  # a score below 0 at some moment of the game, even if it is made up later
    for ev in ans["events"]:
        pts = ev.get("points") if isinstance(ev.get("points"), dict) else {}
        for k, v in pts.items():
            running[k] = running.get(k, 0) + v
            if running[k] < 0:
                low.append(f"{k} {running[k]} after turn {ev['turn']}")
        what = E.ledger(ev)  # a score, or a ransom (points move between players: TOWER-RANSOM-1)
        if what is None:
            continue  # captures, outposts, catapults: in `--json` and `tessera view`
        t.add_row(str(ev["turn"]), P(what), P(ev.get("when", "")), str(ev.get("tiles", "")),
                  P(", ".join(f"{k} {v}" for k, v in pts.items())), P(ev.get("clause", "")))
    out.print(t, markup=False)
    game_events = getattr(getattr(res, "game", None), "events", None) or []
    for ev in game_events:  # a tile that fits nowhere (a river blocked: a witness of `tessera verify`)
        if isinstance(ev, dict) and E.is_kind(ev, "discard"):
            out.print(P(f"discarded: turn {ev['turn']}: {ev.get('player', '')} draws {ev.get('tile', '')}, which fits "
                        f"nowhere [{ev.get('clause', '')}]"))
    if low:
        out.print(P("below 0: " + ", ".join(dict.fromkeys(low))))
    if isinstance(ans.get("rounds"), int) and isinstance(ans.get("locations"), dict):  # a card game's deal
        left = ans["locations"].get("deck", 0)
        out.print(P(f"rounds: {ans['rounds']}; cards left in the deck: {left}"))
    out.print(P("scores: " + ", ".join(f"{k} {v}" for k, v in ans["scores"].items())))
    out.print(P("winners: " + ", ".join(ans["winners"])))


def _simulation_task(specs: list[str], players: int, seed: int, agents: list[str], record: Optional[Path],
                     sets: dict | None = None) -> dict:
    """Load and compile one rule set for `simulate`: what a worker needs to play its games, and the engine
    to play them in this process."""
    import tessera.compiler.build
    from .compiler.codegen import CompileError
    from .dsl.diagnostics import Diagnostic, SourceCache

    rs = _load(specs, "simulate", sets)
    lo, hi = rs.player_range()
    if not lo <= players <= hi:
        err.print(printable(f"tessera simulate: {'+'.join(specs)} is for {lo} to {hi} players, not {players}"), markup=False)
        raise typer.Exit(2)
    try:
        eng = tessera.compiler.build.load_engine(rs)
    except CompileError as ce:
        raise typer.Exit(report([Diagnostic(ce.span, ce.message, ce.code)], SourceCache(), len(rs.modules)))
    kept = None
    if record is not None:  # rule files copied beside the records, so they replay from any folder
        from .replay.records import rule_paths_for

        from .compiler.outdir import RecordFolderError, claim_record_folder

        try:  # made, or empty, or tessera's own: a folder of the user's is never written into
            claim_record_folder(record)
        except RecordFolderError as exc:
            err.print(printable(f"tessera simulate: --record: {exc}"), markup=False)
            raise typer.Exit(2)
        from .dsl.loader import BUNDLED_RULES, _inside
        from .replay.records import RecordError

        # a bundled rule file named by its path (rules/variants/big_cities.tess) is named by its module
        bundled = {m.file: m.name for m in rs.modules if _inside(Path(m.file), BUNDLED_RULES)}
        try:  # the rule files read (but the bundled modules) go beside the records
            kept = rule_paths_for(record, [bundled.get(s, s) for s in specs],
                                  [m.file for m in rs.modules if m.file not in bundled])
        except (RecordError, OSError) as exc:
            err.print(printable(f"tessera simulate: cannot keep the rule files beside the records in {record}: "
                                f"{exc.strerror if isinstance(exc, OSError) and exc.strerror else exc}"), markup=False)
            raise typer.Exit(2)
    from .play.usage import catalogue

    return {"source": eng.source, "rules": specs, "players": players, "seed": seed, "agents": agents,
            "record": str(record) if record is not None else None, "record_rules": kept}, (eng, catalogue(rs))


def loopback_address(address: str) -> bool:
    """Whether a Dask scheduler address names this machine: `inproc://`, or a host that is
    literally a loopback IP address or `localhost` (no name is looked up: a name could
    resolve anywhere)."""
    import ipaddress
    from urllib.parse import urlsplit

    scheme, sep, rest = address.partition("://")
    if not sep:
        scheme, rest = "tcp", address
    if scheme == "inproc":
        return True
    try:
        host = urlsplit(f"tcp://{rest}").hostname
    except ValueError:
        return False
    if host is None:
        return False
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


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
    seed: int = typer.Option(0, "--seed", "-s", min=0,
                             help="seed of the run: game i's seed is derived from (seed, i), so two seeds never share a game"),
    rules: List[str] = typer.Option(["base"], "--rules", "-r", help=RULES_HELP),
    against: Optional[List[str]] = typer.Option(None, "--against", "-a",
                                                help="also play the same seeds under these rules and compare (a rule change's effect)"),
    agents: Optional[str] = typer.Option(None, "--agents",
                                         help="who plays each seat: random, greedy, mcts:N (N simulations per move) "
                                              "or a rung of the skill ladder, ladder:0 to ladder:3 (random, greedy, mcts:16, mcts:64; "
                                              "each measured against the one below on base, docs/simulate.md), "
                                              "comma-separated per seat, or one for every seat [default: random]"),
    rotate_seats: bool = typer.Option(False, "--rotate-seats",
                                      help="move the players of --agents one seat on from game to game, so that each "
                                           "sits in each seat equally often (the stronger player's edge without the "
                                           "first seat's advantage)"),
    jobs: Optional[int] = typer.Option(None, "--jobs", "-j", min=1, help="worker processes [default: the idle cores, 1 below 500 games]; the results do not depend on it"),
    backend: str = typer.Option("processes", "--backend", help="processes (this machine) or dask (a Dask cluster: pip install 'tessera-rules[cluster]')"),
    scheduler: Optional[str] = typer.Option(None, "--scheduler", help="with --backend dask: the address of a running Dask scheduler "
                                                                       "[default: start a local cluster of --jobs workers]; "
                                                                       "one on this machine (127.0.0.1, ::1, localhost) unless --trust-scheduler"),
    trust_scheduler: bool = typer.Option(False, "--trust-scheduler",
                                         help="allow a --scheduler on another machine: it and its workers receive the "
                                              "generated engine, and the results they send back are unpickled here, so "
                                              "whoever runs them can run code on this machine (docs/simulate.md)"),
    as_json: bool = typer.Option(False, "--json", help="print the summary as JSON, with one row per game"),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="also the balance measures in a table, how often each "
                                                                "rule fired, and each rule that never fired"),
    csv_path: Optional[Path] = typer.Option(None, "--csv", help="write one line per game (and rule set) to this CSV file"),
    record: Optional[Path] = typer.Option(None, "--record", help="write every game as a replayable record into this folder (made when missing; one that holds anything must be one tessera wrote records into)"),
    plot: Optional[Path] = typer.Option(None, "--plot", help="also draw score distributions by seat, points by feature and by "
                                                             "source, win rates and balance (both rule sets with --against, "
                                                             "significant differences starred) as an SVG chart (a PNG if "
                                                             "FILE ends in .png)"),
    set_: Optional[List[str]] = typer.Option(None, "--set", help=SET_HELP + " (the --rules only: --against keeps "
                                                                            "the values its files give)"),
) -> None:
    """Play games and summarise with 95% confidence intervals: scores, wins and ties by seat, points by feature, length.

    With --against, the same seeds are played under both rule sets and each
    difference is shown with its interval and whether it is significant
    (paired t-test, Benjamini-Hochberg across the measures; see docs/simulate.md).
    """
    import time

    from .play.agents import AgentSpecError, parse_agents
    from .compiler.runtime.errors import RuleFailure
    from .play.simulate import Summary, compare, default_jobs, run as run_games, write_csv

    if backend not in ("processes", "dask"):
        fail("simulate", f"--backend {backend!r}: use processes or dask", as_json)
    if scheduler and backend != "dask":
        fail("simulate", "--scheduler goes with --backend dask", as_json)
    if scheduler and not trust_scheduler and not loopback_address(scheduler):
        fail("simulate", f"--scheduler {scheduler} is not on this machine; a Dask scheduler and its "
                         f"workers run what they are sent and the results they send back are unpickled here, so "
                         f"they can run code on this machine. If you trust them, add --trust-scheduler "
                         f"(docs/simulate.md)", as_json)
    try:
        seat_agents = parse_agents(agents, players)
    except AgentSpecError as exc:
        fail("simulate", f"--agents: {exc}", as_json)
    specs = _split(rules)
    with json_errors("simulate", as_json):  # the rules' diagnostics too, as JSON with --json
        loaded = [_simulation_task(specs, players, seed, seat_agents, record, _sets(set_, "simulate"))]
        if against:
            loaded.append(_simulation_task(_split(against), players, seed, seat_agents, None))
    if against:
        fam = [Family.of_rules(e.rules) for _, (e, _) in loaded]
        if fam[0] is not fam[1]:  # a family mix-up: a card game's points are not a tile game's
            fail("simulate", f"--against compares two versions of one game; "
                             f"{'+'.join(specs)} is a {fam[0].noun} game and "
                             f"{'+'.join(_split(against))} a {fam[1].noun} game", as_json)
    tasks, engines, cats = [t for t, _ in loaded], [e for _, (e, _) in loaded], [c for _, (_, c) in loaded]
    for t in tasks:
        t["rotate"] = rotate_seats
    jobs = jobs or _default_jobs(games, default_jobs())
    import scipy.stats  # noqa: F401  (loaded now rather than after a Ctrl-C, when the summary is wanted at once)

    show = not as_json and sys.stderr.isatty()
    t0 = time.perf_counter()
    try:
        if show:
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

            with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                          console=err, transient=True) as prog:
                bar = prog.add_task(f"simulating {' and '.join('+'.join(t['rules']) for t in tasks)} on {jobs} "
                                    f"{'Dask ' if backend == 'dask' else ''}worker{'s' if jobs > 1 else ''}",
                                    total=games * len(tasks))
                res = run_games(tasks, games, jobs, backend, scheduler, lambda k: prog.update(bar, completed=k),
                                engines)
        else:
            res = run_games(tasks, games, jobs, backend, scheduler, engines=engines)
    except RuntimeError as exc:
        fail("simulate", str(exc), as_json)
    except RuleFailure as failure:
        _rule_failed(failure, as_json)
    seconds = time.perf_counter() - t0
    summs = [Summary(t["rules"], players, seed, seat_agents, [r for r in rows if r is not None], cat)
             for t, rows, cat in zip(tasks, res.rows, cats)]
    if len(summs) == 2:  # a comparison uses the games finished under both rule sets
        both = {r["game"] for r in summs[0].rows} & {r["game"] for r in summs[1].rows}
        for s_ in summs:
            s_.rows = [r for r in s_.rows if r["game"] in both]
    if res.interrupted:
        err.print(f"tessera simulate: interrupted; the summary is of the {summs[0].games} of {games} games finished"
                  f"{' under both rule sets' if len(summs) == 2 else ''}", markup=False)
    if csv_path is not None:
        write_csv(csv_path, summs)
    diffs = compare(summs[0], summs[1]) if len(summs) == 2 and summs[0].games else None
    if plot is not None and summs[0].games:
        from .pictures import write_atomically
        from .pictures.plot import plot_summaries

        fmt = "png" if plot.suffix.lower() == ".png" else "svg"
        write_atomically(plot, plot_summaries(summs[0], summs[1] if len(summs) == 2 else None, diffs, fmt))
        err.print(f"wrote {plot}", markup=False)
    if as_json:
        if len(summs) == 1:
            doc = summs[0].to_dict()
        else:
            doc = {"rules": summs[0].to_dict(), "against": summs[1].to_dict(),
                   "differences": diffs if diffs is not None else compare(summs[0], summs[1])}
        sys.stdout.write(json.dumps(doc, sort_keys=True) + "\n")
    elif summs[0].games == 0:
        out.print("no game finished", markup=False)
    elif len(summs) == 2:
        _print_comparison(summs[1], summs[0], diffs, seconds, engines[0].kernel)
    else:
        _print_summary(summs[0], seconds, verbose, engines[0].kernel)
    if not as_json:  # a rule of the rules under study that never came into play (play/usage.py)
        from .dsl.model import BUNDLED_RULES

        never = summs[0].never_fired()
        # the designer's own rule files: each warning; the bundled rules': one line when there are many
        bundled = [w for w in never if (BUNDLED_RULES.parent / w.split(":")[0]).is_file()]
        for w in never if verbose or len(bundled) <= 3 else [w for w in never if w not in bundled]:
            err.print(printable(f"warning: {w}"), markup=False)
        if not verbose and len(bundled) > 3:
            where = ", ".join(w.split(" never fired")[0] for w in bundled)
            n = summs[0].games
            err.print(printable(f"warning: {len(bundled)} bundled rules never fired in {n} game{'s' if n != 1 else ''}: "
                                f"{where} (--verbose says why)"), markup=False)
    if res.interrupted:
        raise typer.Exit(130)


PARALLEL_FROM = 500  # games: below this a run takes about a second on one core, less than starting workers costs


def _default_jobs(games: int, cores: int, load: float | None = None) -> int:
    """`--jobs` when not given: the cores that are idle now, or 1 for a short run.

    A worker is a new process that imports tessera and compiles the engine again before its first
    game, and on a busy machine a second worker only competes with what already runs there: with
    the cores taken by others, one process is as fast as two and spends less CPU (docs/simulate.md,
    `--jobs`).  The results never depend on it."""
    import os

    if games < PARALLEL_FROM or cores <= 1:
        return 1
    if load is None:
        try:
            load = os.getloadavg()[0]
        except OSError:  # pragma: no cover - no load average on this system
            return cores
    idle = cores - max(0.0, load - 1.0)  # this process is part of the load
    return max(1, min(cores, int(idle + 0.5)))


def _label(specs: list[str]) -> str:
    """A rule set as a column heading: `big_cities` for rules/variants/big_cities.tess."""
    return "+".join(Path(x).stem if x.endswith(".tess") else x for x in specs)


def _ci(m: dict, fmt: str = "{:.2f}") -> str:
    if m["mean"] is None:
        return "-"
    if m["low"] is None:
        return fmt.format(m["mean"])
    return f"{fmt.format(m['mean'])} [{fmt.format(m['low'])}, {fmt.format(m['high'])}]"


def _rate(m: dict) -> str:
    if m["rate"] is None:
        return "-"
    return f"{m['rate']:.1%} [{m['low']:.1%}, {m['high']:.1%}]"


def _print_summary(summ, seconds: float, verbose: bool = False, kernel: str = "python") -> None:
    from rich import box
    from rich.table import Table

    d = summ.to_dict(per_game=False)
    n = summ.games
    out.print(printable(f"{n} games, {summ.players} players, rules {'+'.join(summ.rules)}, seed {summ.seed} "
                        f"({seconds:.2f} s, {n / max(seconds, 1e-9):.0f} games/s, {kernel} kernel); 95% confidence intervals in brackets"),
              markup=False)
    t = Table(box=box.SIMPLE_HEAD, show_edge=False)
    for col, just in (("seat", "left"), ("mean score", "right"), ("wins (alone on top)", "right"),
                      ("ties (top shared)", "right")):
        t.add_column(col, justify=just)
    for s in d["by_seat"]:
        t.add_row(f"{s['seat']} {s['agent']}", _ci(s["score"]), _rate(s["wins"]), _rate(s["ties"]))
    out.print(t)
    k = Table(box=box.SIMPLE_HEAD, show_edge=False)
    k.add_column("by feature")
    k.add_column("mean points per game", justify="right")
    sources = dict(d.get("points_by_source", {}))  # part of a feature's points (field: barn), or none's (ransoms)
    for name, v in d["points_by_feature"].items():
        k.add_row(name, _ci(v))
        for src in [x for x in sources if x.startswith(f"{name}: ")]:
            k.add_row(f"  of which {src}", _ci(sources.pop(src)))
    for src, v in sources.items():
        k.add_row(src, _ci(v))
    out.print(k)
    discards = f"discards: {_ci(d['discards'])}; " if summ.discards_apply else ""  # a card game discards nothing
    out.print(f"game length: {_ci(d['turns'], '{:.1f}')} turns; {discards}"
              f"highest score: {d['max_score']}", markup=False)
    if summ.mean_captures or summ.mean_ransoms:  # the Tower
        out.print(f"mean captures per game: {summ.mean_captures:.2f}; mean ransoms per game: {summ.mean_ransoms:.2f}",
                  markup=False)
    if summ.rows and "attacks" in summ.rows[0]:  # rules with outposts (Siege and Defense)
        out.print(f"outposts, mean per game: counterattacks {summ.mean_of('counterattacks'):.2f} (rows filled during "
                  f"play; those at the end are not counted); attacks {summ.mean_of('attacks'):.2f}; removals "
                  f"{summ.mean_of('removals'):.2f}", markup=False)
    if verbose:
        _print_balance(d)
    else:
        b = d["balance"]
        sa = b["seat_advantage"]
        out.print(("balance: " + (f"seat advantage {_ci(sa['score'])}; " if sa is not None else "")
                   + f"tie rate {_rate(b['tie_rate'])}; lead changes {_ci(b['lead_changes'])}; "
                   f"score spread {_ci(b['score_spread'])} (--verbose: every measure, and how often each rule fired)"),
                  markup=False)
    _print_edge(d)
    if verbose:
        _print_usage(d)


def _print_balance(d: dict) -> None:
    """The balance measures of one summary (docs/simulate.md, Balance)."""
    from rich.table import Table

    b = d["balance"]
    t = Table(title="balance")
    t.add_column("measure")
    t.add_column("value [95% CI]", justify="right")
    sa = b["seat_advantage"]
    if sa is not None:
        t.add_row("seat advantage: seat 1's score - the others' mean", _ci(sa["score"]))
        t.add_row(f"seat 1's wins (a fair share: {sa['fair_share']:.1%})", _rate(sa["wins"]))
    t.add_row("tie rate (top score shared)", _rate(b["tie_rate"]))
    t.add_row("decided at: share of the game before the winner led for good", _ci(b["decided_at"], "{:.3f}"))
    t.add_row("lead changes per game", _ci(b["lead_changes"]))
    t.add_row("score spread (top - bottom)", _ci(b["score_spread"]))
    low = b["lowest_score"]
    t.add_row("lowest score (mean per game; lowest of all)", f"{_ci(low)}; {low['min']}")
    ls = b["length_spread"]
    t.add_row("length spread (standard deviation, turns)",
              "-" if ls["sd"] is None else f"{ls['sd']:.2f}" + ("" if ls["low"] is None else f" [{ls['low']:.2f}, {ls['high']:.2f}]"))
    for k, v in d["expansion_counts"].items():
        t.add_row(f"{k.replace('_', ' ')} per game", _ci(v))
    out.print(t)


def _print_edge(d: dict) -> None:
    """The stronger player's wins and lead, when one player is stronger than every other."""
    e = d.get("edge")
    if e is None:
        return
    out.print(f"the stronger player, {e['player']} (against {', '.join(e['others'])}; seats {e['seats']}): wins "
              f"{_rate(e['wins'])}, lead over the best other {_ci(e['lead'])} points", markup=False)


def _print_usage(d: dict) -> None:
    """How often each rule fired (play/usage.py)."""
    from rich.table import Table

    t = Table(title="rule usage: how often each rule fired")
    for col, just in (("clause", "left"), ("rule-file line", "left"), ("rule", "left"), ("games fired in", "right"),
                      ("per game", "right")):
        t.add_column(col, justify=just)
    for u in d["rule_usage"]:
        t.add_row(printable(u["clause"]), printable(u["where"]), printable(u["what"]), _rate(u["games"]),
                  _ci(u["per_game"]))
    out.print(t)


def _print_comparison(ref, ours, diffs: list[dict], seconds: float, kernel: str = "python") -> None:
    """The same seeds under two rule sets: `ref` the reference, `ours` the rules under study."""
    from rich.table import Table

    out.print(f"{ours.games} games, {ours.players} players ({', '.join(ours.agents)}), run seed {ours.seed}: "
              f"{'+'.join(ours.rules)} against {'+'.join(ref.rules)} on the same seeds ({seconds:.1f} s, {kernel} kernel)",
              markup=False)
    t = Table()
    t.add_column("measure")
    t.add_column(_label(ref.rules), justify="right")
    t.add_column(_label(ours.rules), justify="right")
    t.add_column("change [95% CI]", justify="right")
    t.add_column("p (adj.)", justify="right")
    t.add_column("significant")

    def num(v: float, unit: str) -> str:
        return f"{v:.1%}" if unit == "rate" else f"{v:.2f}"

    def change(r: dict) -> str:
        unit = r["unit"]
        f = (lambda v: f"{v * 100:+.1f} pt") if unit == "rate" else (lambda v: f"{v:+.2f}")
        if r["low"] is None:
            return f(r["diff"])
        return f"{f(r['diff'])} [{f(r['low'])}, {f(r['high'])}]"

    for r in diffs:
        q = r["p_adjusted"]
        t.add_row(r["measure"], num(r["ref"], r["unit"]), num(r["ours"], r["unit"]), change(r),
                  "-" if q is None else "<0.0001" if q < 1e-4 else f"{q:.3g}", "yes" if r["significant"] else "no")
    out.print(t)
    edge = [r for r in diffs if r["measure"].startswith("edge: ")]
    if edge:  # whether the rule change moves the stronger player's edge (docs/simulate.md)
        (r, lead), who = edge, ours.edge_player()

        def adj(x: dict) -> str:
            q = x["p_adjusted"]
            return "-" if q is None else "<0.0001" if q < 1e-4 else f"{q:.3g}"

        verdict = ("changes it significantly" if r["significant"] or lead["significant"]
                   else "does not change it significantly")
        out.print(f"the stronger player's edge: {who} wins {num(r['ref'], 'rate')} of the games under "
                  f"{_label(ref.rules)} and {num(r['ours'], 'rate')} under {_label(ours.rules)}, a change of "
                  f"{change(r)} (p adj. {adj(r)}); its lead over the best other changes by {change(lead)} points "
                  f"(p adj. {adj(lead)}): {_label(ours.rules)} {verdict}"
                  + ("" if ours.rotated else "; seats fixed, so seat 1's advantage is part of it: --rotate-seats "
                     "moves every player through every seat"), markup=False)
    sig = [r["measure"] for r in diffs if r["significant"]]
    out.print(("significant at the 5% level: " + "; ".join(sig)) if sig else
              "no difference is significant at the 5% level", markup=False)
    out.print("paired by seed: paired t-test per measure, p-values adjusted by Benjamini-Hochberg "
              "(docs/simulate.md)", markup=False)
