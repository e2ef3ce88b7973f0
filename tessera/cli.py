"""The `tessera` command line (typer).

Exit codes everywhere: 0 clean, 1 problems found, 2 usage or internal error.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import List, Optional

import typer

from .dsl.diagnostics import Diagnostic, render
from .dsl.model import MOST_PLAYERS
from .dsl.untrusted import printable

from .app import app, err, fail, missing_paths, out, report
from .console import diagnostic_json, shown


@app.command()
def check(paths: List[str] = typer.Argument(..., help="rule files, folders of *.tess files, or bundled module names (base, river, big_cities)"),
          verbose: bool = typer.Option(False, "--verbose", "-v", help="also list the stated assumptions (`assume`)"),
          as_json: bool = typer.Option(False, "--json", help="print the outcome as one JSON object: files, "
                                                             "diagnostics, stated assumptions")) -> None:
    """Parse and check rule files; print every problem at once."""
    from .console import check as run_check

    raise typer.Exit(run_check(paths, verbose, as_json))


@app.command()
def fmt(
    paths: List[str] = typer.Argument(..., help="rule files or folders of *.tess files"),
    write: bool = typer.Option(False, "--write", "-w", help="rewrite each file in place (files with errors are left alone)"),
    check_only: bool = typer.Option(False, "--check", help="change nothing; exit 1 if any file is not in canonical form"),
) -> None:
    """Print rule files in canonical form (to stdout, or in place with --write).

    Every # comment is kept, in its place: a comment line stays above what
    follows it, an end-of-line comment at the end of its line.  Blank lines
    (paragraphs) are kept.  A file with syntax errors is reported exactly as
    `tessera check` reports it (exit 1) and is never rewritten; --write replaces
    a file only after its new text has been checked to parse to the same rules
    with the same comments.
    """
    import os
    from pathlib import Path

    from .dsl.ast import Span
    from .dsl.diagnostics import SourceCache
    from .dsl.fmt import comments, format_module, write_formatted
    from .dsl.loader import Workspace, expand_paths
    from .dsl.parser import ParseFailure, parse
    from .dsl.untrusted import MAX_RULE_FILE, FileReadError, decode, read_bytes

    if write and check_only:
        raise typer.BadParameter("use --write or --check, not both")
    missing_paths("fmt", paths)
    files, missing = expand_paths(paths)
    sources = SourceCache()
    diags = [Diagnostic(Span(m, 0, 0), "no such file or folder", "io") for m in missing]
    unformatted: list[str] = []
    for path in files:
        ws = Workspace(sources=sources)  # one per file: fmt does not care which modules clash
        mod = ws.add_file(path)
        diags.extend(ws.diagnostics)
        if mod is None:
            continue
        try:
            raw = read_bytes(path, MAX_RULE_FILE)
            old = decode(raw)
        except FileReadError as exc:
            diags.append(Diagnostic(Span(str(path), 0, 0), exc.message, "io"))
            continue
        try:
            mod = parse(old, str(path))  # the very text read above (the file may have changed since)
        except ParseFailure as fail:
            diags.extend(fail.diagnostics)
            continue
        new = format_module(mod, old)
        try:
            same = parse(new, str(path)) == mod and comments(new) == comments(old)
        except ParseFailure:
            same = False
        if not same:  # a formatter bug must never reach a rule file (nor lose a comment)
            raise RuntimeError(f"fmt would change the meaning or the comments of {path}; file left alone")
        if not write and not check_only:
            sys.stdout.write(new)
            continue
        if new == old:
            continue
        unformatted.append(str(path))
        if check_only:
            out.print(printable(f"would reformat {path}"), markup=False)
            continue
        target = Path(os.path.realpath(path))  # a symlink: format the file it points to, keep the link
        if not _writable(target):
            diags.append(Diagnostic(Span(str(path), 0, 0), "the file is read-only; left alone", "io"))
            continue
        why = write_formatted(target, raw, new)  # in place when it has other links or another owner
        if why is not None:
            diags.append(Diagnostic(Span(str(path), 0, 0), why, "io"))
            continue
        out.print(printable(f"reformatted {path}"), markup=False)
    if diags:
        raise typer.Exit(report(diags, sources, len(files)))
    if check_only and unformatted:
        n = len(unformatted)
        out.print(f"{n} of {len(files)} rule file{'s' if len(files) != 1 else ''} would be reformatted", markup=False)
        raise typer.Exit(1)


def _writable(path) -> bool:
    """A file fmt may rewrite: its owner's write bit is set (root, who may write anything,
    still leaves a file marked read-only alone) and this user may write it."""
    import os
    import stat

    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return bool(mode & stat.S_IWUSR) and os.access(path, os.W_OK)


ENGINE_GAMES = 500  # `tessera verify`'s engine check: games in all, split over the rule sets (docs/verifier.md)
# base+siege: the Siege without the River (its landscape closed by the lake, `without river`),
# which the all-modules set does not reach; `tessera verify --no-engine` stays within 10 s of CPU
# (tests/test_z3_verify_cli.py; docs/verifier.md#speed)
VERIFY_DEFAULT = ["base", "base+river", "base+abbot", "base+king_robber", "base+barn", "base+tower", "base+siege",
                  "base+river+abbot+king_robber+barn+tower+siege", "card"]


def _verify_targets(rules: list[str]) -> list[list[str]]:
    """Each argument is one rule set: a module name or rule file (with what it requires),
    `a+b+c` for modules combined, or a folder (each of its rule files on its own, except
    those under a `variants/` folder: name a variant to verify it)."""
    from pathlib import Path

    from .dsl.loader import expand_paths

    targets: list[list[str]] = []
    for r in rules:
        if "+" in r and not Path(r).exists():
            targets.append([p for p in r.split("+") if p])
        elif Path(r).is_dir():
            files, _ = expand_paths([r])
            # house rules under variants/ are verified when named, not as part of their folder
            files = [f for f in files if "variants" not in f.relative_to(r).parts[:-1]]
            targets.extend([str(f)] for f in files)
        else:
            targets.append([r])
    return targets


def _budget_bar(title: str, prog, task):
    """The rule set's budget spent, shown in `task`'s line of `prog` (verify's progress display, one line so
    that a terminal's screen keeps still) while its checks run; nothing when there is no display or no bound."""
    import contextlib

    from .verifier import budget

    if prog is None or budget.total() is None:
        return contextlib.nullcontext()

    @contextlib.contextmanager
    def bar():
        shown = [0]

        def on_spend(used: int, total: int | None) -> None:
            if total and used - shown[0] >= total // 100:
                shown[0] = used
                prog.update(task, description=f"{title} ({min(used, total) * 100 // total}% of its budget)")
        budget.set_progress(on_spend)
        try:
            yield
        finally:
            budget.set_progress(None)
    return bar()


@app.command()
def verify(rules: Optional[List[str]] = typer.Argument(
        None, help="rule sets: module names or .tess files, `base+river` to combine, or folders; "
                   "default: base, base+river, base+abbot, base+king_robber, base+barn, base+tower, base+siege, "
                   "base+river+abbot+king_robber+barn+tower+siege, card (the card game)"),
        only: Optional[List[str]] = typer.Option(
            None, "--only", help="run only the checks with this name or name prefix (repeatable), e.g. tile- or set-river"),
        engine: bool = typer.Option(True, "--engine/--no-engine", help="play random games with the compiled engine and "
                                                                       "compare its features with an independent "
                                                                       "networkx rebuild (the card game: recount its "
                                                                       "cards and claims after every move; default: on)"),
        games: int = typer.Option(ENGINE_GAMES, "--games", min=1, help="engine-check games in all, split evenly over "
                                                                       "the rule sets (at least one each)"),
        players: int = typer.Option(2, "--players", min=2, max=MOST_PLAYERS, help="players per game of the engine check"),
        rlimit: Optional[int] = typer.Option(
            None, "--rlimit", min=1, help="z3's resource limit per query (default 20000000): a count of z3's own "
                                          "work, so results never depend on the machine's load; raise it when a "
                                          "check is inconclusive"),
        budget: Optional[int] = typer.Option(
            None, "--budget", min=1, help="the budget of work per rule set (default 250000000, about 50 s of CPU): "
                                          "z3's own work count over all its queries, plus 2500 per move "
                                          "of the witness games and the engine check; once spent, the checks left "
                                          "are inconclusive (budget spent), never passed"),
        timeout: Optional[float] = typer.Option(
            None, "--timeout", min=0, help="also stop each z3 query after this many seconds (default: no "
                                           "timeout); a timeout can only make a check inconclusive, never "
                                           "change a proof or a counterexample"),
        svg: Optional[Path] = typer.Option(None, "--svg", help="also draw the counterexamples that have a board "
                                                              "(the river theorem's maps) as SVG files in this folder"),
        record: Optional[Path] = typer.Option(
            None, "--record", help="write the game that breaks each refuted invariant here, as a tessera-game/1 "
                                   "record (default: a folder of this user's, mode 0700, in the system's temporary "
                                   "folder; written only when something is refuted); a folder that is not empty "
                                   "must be one tessera wrote records into"),
        witness_games: int = typer.Option(
            60, "--witness-games", min=0, help="games the compiled engine plays, per refuted invariant, to find one "
                                               "that breaks it; none found: the verdict is `not proved`"),
        verbose: bool = typer.Option(False, "--verbose", "-v", help="each rule set in full: a line per check with "
                                                                    "its time and clauses, every note with its source "
                                                                    "line (the default with one rule set)"),
        as_json: bool = typer.Option(False, "--json", help="print the outcome as one JSON object: every rule set, "
                                                           "every check with its verdict and findings"),
        set_: Optional[List[str]] = typer.Option(None, "--set", help="give a parameter (`param NAME = V in LO..HI`) "
                                                                     "this value: NAME=VALUE, repeatable"),
        param: Optional[List[str]] = typer.Option(
            None, "--param", help="prove the invariants for every value of this parameter's range (repeatable): the "
                                  "sub-range proved, and a game that breaks one for each other value "
                                  "(tessera/verifier/params.py)")) -> None:
    """Verify rule sets: tile topology, tile sets and every registered check.

    Several rule sets: a table of checks by rule set, then each distinct
    finding once; one rule set (or --verbose): one line per check (passed or
    failed, its time and the rulebook clauses involved), then the problems
    found.  Exit 1 if any check fails.
    """
    from rich.text import Text

    from .dsl.diagnostics import SourceCache
    from .dsl.loader import load_rule_set
    from .verifier.checks import run_checks
    from .verifier.solver import set_limits

    set_limits(rlimit, timeout, budget)
    from .verifier import witness as wit

    wit.RECORD_DIR, wit.WITNESS_GAMES = record, witness_games
    if record is not None:  # refused before any work: a file, or a folder of the user's (compiler/outdir.py)
        from .compiler.outdir import RecordFolderError, check_record_folder

        try:
            check_record_folder(record)
        except RecordFolderError as exc:
            err.print(printable(f"tessera verify: --record: {exc}"), markup=False)
            raise typer.Exit(2)
    names = None
    if only:
        from .verifier.checks import load_checks

        known = list(load_checks())
        names = [n for n in known if any(n == o or n.startswith(o) for o in only)]
        if not names:
            fail("verify", f"no check matches {', '.join(only)}; checks: {', '.join(known)}", as_json)
    if not engine:  # --no-engine: not run, and not listed as skipped either
        from .verifier.checks import load_checks

        names = [n for n in (names if names is not None else load_checks()) if n not in ("engine-features", "card-engine")]
    targets = _verify_targets(list(rules) if rules else VERIFY_DEFAULT)
    if not targets:
        fail("verify", "no rule files found", as_json)
    from .dsl.params import settings

    from .engine_cmds import _sets

    sets = _sets(set_, "verify")
    if param:
        from .tune.verifycmd import verify_range_cmd

        raise typer.Exit(verify_range_cmd(targets, list(param), sets, as_json=as_json, record=record))
    loaded = []
    for specs in targets:
        with settings(sets):  # `--set NAME=VALUE`
            rs, diags, ws = load_rule_set(specs)
        usage = [d for d in diags if d.severity == "error" and d.span.line == 0]
        if usage:  # an unknown module or a missing file on the command line
            fail("verify", "; ".join(f"{' + '.join(specs) + ': ' if specs else ''}{d.message}" for d in usage), as_json)
        loaded.append((specs, rs, diags, ws))
    if engine and (names is None or "engine-features" in names):  # --players is the tile engine check's
        wrong = [(rs, rs.player_range()) for _, rs, _, _ in loaded if rs is not None and rs.family.has_tiles
                 and not rs.player_range()[0] <= players <= rs.player_range()[1]]
        if wrong:  # as `simulate` says it, before any work
            fail("verify", "; ".join(f"{'+'.join(rs.names)} is for {lo} to {hi} players, not {players}"
                                     for rs, (lo, hi) in wrong), as_json)
    if engine:
        from .verifier.checks import load_checks as _load

        _load()  # register every check first, so the engine check keeps its place (last)
        from .verifier import engine_check as ec

        ec.ENGINE_GAMES, ec.ENGINE_PLAYERS = -(-games // len(loaded)), players  # per rule set, rounded up
        from .verifier import cards as vc

        vc.ENGINE_GAMES = ec.ENGINE_GAMES  # the card game's engine check plays as many (every player count)

    runs = _run_verify(loaded, names, quiet=as_json or not sys.stderr.isatty())
    if as_json:
        doc = _verify_json(runs)
        sys.stdout.write(json.dumps(doc, ensure_ascii=True) + "\n")
        raise typer.Exit(1 if doc["failed_checks"] else 0)
    if verbose or len(runs) == 1:
        for run in runs:
            _print_set(run)
    else:
        _print_table(runs)
    if svg is not None:
        from .pictures.counterexamples import write_counterexamples

        for run in runs:
            failed = {r.name for r in run.results or () if not r.passed}
            if run.rs is not None and failed:
                for path in write_counterexamples(run.rs, failed, svg, "+".join(run.rs.names)):
                    out.print(printable(f"  wrote {path}"), markup=False)
    total = sum(run.count for run in runs)
    failed_checks = sum(run.failed for run in runs)
    failed_sets = sum(1 for run in runs if run.failed)
    n = len(runs)
    sets = f"{n} rule set{'s' if n != 1 else ''}"
    if failed_checks:
        out.print(Text(f"Failed: {failed_checks} of {total} checks, in {failed_sets} of {sets}", style="red"))
        raise typer.Exit(1)
    out.print(Text(f"Success: {total} checks passed in {sets}", style="green"))


class _SetRun:
    """One rule set verified: what `tessera verify` prints of it, as a table, in full or as JSON."""

    def __init__(self, specs, rs, diags, ws, results) -> None:
        from .dsl.diagnostics import SourceCache

        self.specs, self.rs, self.diags, self.results = specs, rs, diags, results
        self.sources = ws.sources if ws is not None else SourceCache()
        self.title = " + ".join(rs.names) if rs is not None else " + ".join(specs)
        self.label = "+".join(Path(x).stem if x.endswith(".tess") else x for x in specs)

    @property
    def count(self) -> int:  # a rule set that does not load counts as one failed check (`load`)
        return 1 if self.results is None else len(self.results)

    @property
    def failed(self) -> int:
        return 1 if self.results is None else sum(1 for r in self.results if not r.passed)

    def problems(self) -> list:
        """The checks' findings, then the loader's: Diagnostic objects and plain messages."""
        found: list = []
        for r in self.results or ():
            found.extend(r.diagnostics)
            found.extend(r.messages)
        return found + list(self.diags)


def _status(r) -> str:
    """A check's outcome, from its result object: skipped, passed or failed, or the verdict kind a
    check reports of itself (`verdict`, when its result carries one)."""
    kind = getattr(r, "verdict", None)
    if kind is not None:
        return str(getattr(kind, "value", kind))
    return "skipped" if r.skipped else "passed" if r.passed else "failed"


MARKS = {"passed": ("✓", "green"), "failed": ("✗", "red"), "skipped": ("–", "dim")}


def _mark(r) -> tuple[str, str]:
    status = _status(r)
    if status in MARKS:
        return MARKS[status]
    return ("✓", "green") if r.passed else ("?", "yellow")  # a verdict kind of its own: passed or not


def _run_verify(loaded, names, quiet: bool) -> list[_SetRun]:
    """Run the checks of every rule set; a progress bar on stderr in a terminal."""
    from contextlib import nullcontext

    from .verifier.checks import of_family, run_checks

    runs: list[_SetRun] = []
    progress = nullcontext()
    if not quiet:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                            console=err, transient=True)
    with progress as prog:
        bar = prog.add_task("verifying", total=len(loaded)) if prog is not None else None
        for specs, rs, diags, ws in loaded:
            if prog is not None:
                prog.update(bar, description=printable(f"verifying {'+'.join(specs)}", 60))
            results = None
            if rs is not None:
                # a rule set runs the checks of its own game family (the tile game's, or the card game's), within
                # one budget (verifier/budget.py), its share spent shown on the rule set's line (a terminal only)
                with _budget_bar(printable(f"verifying {'+'.join(specs)}", 60), prog, bar):
                    results = run_checks(rs, [n for n in names if of_family(n, rs) or n.startswith("import-")]
                                         if names is not None else None)
            runs.append(_SetRun(specs, rs, diags, ws, results))
            if prog is not None:
                prog.advance(bar)
    return runs


def _seconds(t: float) -> str:
    return f"{t * 1000:.0f} ms" if t < 1 else f"{t:.2f} s"


def _print_set(run: _SetRun) -> None:
    """One rule set in full: a line per check (its mark, time and clauses), then every finding."""
    from rich.text import Text

    out.print(Text(printable(run.title), style="bold"))
    if run.results is None:
        out.print(Text.assemble("  ", ("✗", "red"), " load: the rules have errors (see `tessera check`)"))
        for d in run.diags:
            out.print(render(d, run.sources), markup=False)
        return
    for r in run.results:
        clauses = " ".join(r.clauses)
        out.print(Text.assemble("  ", _mark(r), f" {r.name:<26} ", (f"{_seconds(r.seconds):>7}", "dim"),
                                f"  {clauses}" if clauses else "",
                                ("  skipped: nothing to check" if r.skipped else "", "dim")))
    for p in run.problems():
        _print_problem(p, run.sources)


def _print_problem(p, sources, full: bool = True) -> None:
    if isinstance(p, Diagnostic):
        out.print(shown(p, sources, full), markup=False)
    else:
        out.print("\n".join(printable(ln) for ln in str(p).split("\n")), markup=False)


def _print_table(runs: list[_SetRun]) -> None:
    """Several rule sets: a table of checks × rule sets, then each distinct finding once (errors and
    warnings in full with their source line, notes by their first line); `--verbose` prints each
    rule set in full."""
    from rich import box
    from rich.table import Table
    from rich.text import Text

    checks: list[str] = []
    for run in runs:
        for r in run.results or ():
            if r.name not in checks:
                checks.append(r.name)
        if run.results is None and "load" not in checks:
            checks.insert(0, "load")
    t = Table(box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False)
    t.add_column("check", no_wrap=True)
    for i, _ in enumerate(runs, 1):
        t.add_column(str(i), justify="center", no_wrap=True)
    for name in checks:
        row: list = [name]
        for run in runs:
            if run.results is None:
                row.append(Text(*MARKS["failed"]) if name == "load" else Text(""))
                continue
            r = next((x for x in run.results if x.name == name), None)
            row.append(Text("") if r is None else Text(*_mark(r)))
        t.add_row(*row)
    out.print(t)
    legend = Text("rule sets: ")
    for i, run in enumerate(runs, 1):
        legend.append(f"{i} ", style="bold")
        legend.append(printable(run.label) + ("; " if i < len(runs) else ""))
    legend.append("  (✓ passed, ✗ failed, – nothing to check; --verbose: times and clauses)", style="dim")
    out.print(legend, soft_wrap=False)
    seen: dict[str, list[int]] = {}
    order: list[tuple[str, object, object]] = []
    for i, run in enumerate(runs, 1):
        for p in run.problems():
            note = isinstance(p, Diagnostic) and p.severity == "note"
            key = shown(p, run.sources, False).split("\n")[0] if note else (p.header() if isinstance(p, Diagnostic) else str(p))
            if key not in seen:
                seen[key] = []
                order.append((key, p, run.sources))
            seen[key].append(i)
    for key, p, sources in order:
        where = seen[key]
        tail = "" if len(where) == len(runs) or len(runs) == 1 else f"  (rule set{'s' if len(where) > 1 else ''} {_spans(where)})"
        if isinstance(p, Diagnostic) and p.severity == "note":
            out.print(printable(key) + tail, markup=False)
        else:
            _print_problem(p, sources)
            if tail:
                out.print(tail.strip(), markup=False)


def _spans(nums: list[int]) -> str:
    """1, 2, 3, 5 -> `1-3, 5`."""
    runs: list[list[int]] = []
    for n in nums:
        if runs and runs[-1][1] == n - 1:
            runs[-1][1] = n
        else:
            runs.append([n, n])
    return ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in runs)


def _verify_json(runs: list[_SetRun]) -> dict:
    """`tessera verify --json`: every rule set, every check with its outcome and findings."""
    sets = []
    for run in runs:
        checks = []
        for r in run.results or ():
            checks.append({"name": r.name, "verdict": _status(r), "passed": r.passed, "skipped": r.skipped,
                           "seconds": round(r.seconds, 3), "clauses": list(r.clauses), "title": r.title,
                           "diagnostics": [diagnostic_json(d) for d in r.diagnostics], "messages": list(r.messages)})
        sets.append({"rules": run.specs, "modules": list(run.rs.names) if run.rs is not None else None,
                     "loaded": run.results is not None, "checks": checks,
                     "diagnostics": [diagnostic_json(d) for d in run.diags]})
    failed = sum(run.failed for run in runs)
    return {"rule_sets": sets, "checks": sum(run.count for run in runs), "failed_checks": failed,
            "failed_rule_sets": sum(1 for run in runs if run.failed), "passed": not failed}


@app.command()
def lsp() -> None:
    """Serve the Language Server Protocol over stdio (diagnostics, hover, definition, formatting, completion)."""
    from .lsp import main as serve

    serve()


from . import engine_cmds  # noqa: E402,F401  (registers compile, replay, simulate)
from . import picture_cmds  # noqa: E402,F401  (registers draw, view)
from .tune import command as _tune  # noqa: E402,F401  (registers tune, issue 40)
from . import kernel_cmds  # noqa: E402,F401  (registers kernel, issue 41)
from .app import escape_help  # noqa: E402

escape_help(app)


def _ctrl_c(exc: BaseException, kind: type = KeyboardInterrupt) -> bool:
    """Whether `exc` came from a Ctrl-C (typer turns KeyboardInterrupt into a silent exit 130),
    or from another `kind` of exception."""
    seen = 0
    while exc is not None and seen < 10:
        if isinstance(exc, kind):
            return True
        exc, seen = exc.__cause__ or exc.__context__, seen + 1
    return False


def _json_usage_errors() -> None:
    """`tessera COMMAND --json …` whose command line typer itself refuses (an unknown option, a value
    that is not a number): the refusal is one JSON object on stdout, `{"error": {"message", "kind":
    "usage"}}`, exit 2, as every other failure under --json, not typer's boxed text."""
    import typer.main

    command = typer.main.get_command(app)
    try:
        code = command.main(args=sys.argv[1:], prog_name="tessera", standalone_mode=False)
    except Exception as exc:
        # typer may carry its own copy of click (0.29 does): know the error by its class's name
        if not any(k.__name__ == "UsageError" for k in type(exc).__mro__):
            raise
        message = exc.format_message() if hasattr(exc, "format_message") else str(exc)
        sub = getattr(getattr(exc, "ctx", None), "info_name", None)
        where = f"tessera {sub}" if sub and sub != "tessera" else "tessera"
        sys.stdout.write(json.dumps({"error": {"message": f"{where}: {message}", "kind": "usage"}},
                                    ensure_ascii=True) + "\n")
        sys.exit(2)
    if any(k.__name__ == "Abort" for k in type(code).__mro__):  # pragma: no cover (Ctrl-C at a prompt)
        raise KeyboardInterrupt
    sys.exit(code if isinstance(code, int) else 0)


ENGINE_COMMANDS = ("simulate", "verify", "replay", "tune", "view", "draw")  # commands that run an engine


def _kernel_first() -> None:
    """TESSERA_KERNEL (compiler/native.py) for a command that runs engines: a value that is no kernel is
    refused, and `native` is built now if it is not, before any work (the verifier's checks would
    otherwise each report that it cannot be had)."""
    import os

    args = sys.argv[1:]
    command = next((a for a in args if not a.startswith("-")), None)
    if not os.environ.get("TESSERA_KERNEL") or command not in ENGINE_COMMANDS or "--help" in args:
        return
    from .compiler import native

    if native.choice() == "native":
        native.ensure_built(say=lambda line: err.print(printable(f"tessera: {line}", 2000), markup=False))


def main() -> None:
    try:
        _kernel_first()
        if "--json" in sys.argv[1:sys.argv.index("--") if "--" in sys.argv else None]:
            _json_usage_errors()
        app()
    except SystemExit as exc:
        if exc.code == 130 and _ctrl_c(exc):  # in any phase: loading, compiling, starting workers
            err.print("interrupted", markup=False)
        # a closed pipe that click (exit 1, silent; typer 0.29 carries its own click) or rich
        # (Console.on_broken_pipe: exit 1) met: as main.py does
        if type(sys.stdout).__name__ == "PacifyFlushWrapper" or _ctrl_c(exc, BrokenPipeError):
            from .console import pipe_closed

            pipe_closed()
        raise
    except BrokenPipeError:  # `tessera … | head`: quiet (tessera/main.py)
        from .console import pipe_closed

        pipe_closed()
    except KeyboardInterrupt:  # Ctrl-C: exit 130 (128 + SIGINT) everywhere, as shells report it
        err.print("interrupted", markup=False)
        sys.exit(130)
    except Exception as exc:  # an internal error, never a designer's mistake
        if type(exc).__name__ == "KernelError":  # the native kernel cannot be had (compiler/native.py): usage
            if "--json" in sys.argv[1:]:
                sys.stdout.write(json.dumps({"error": {"message": str(exc), "kind": "kernel"}}, ensure_ascii=True) + "\n")
            else:
                err.print(printable(f"tessera: {exc}", 2000), markup=False)
            sys.exit(2)
        err.print(printable(f"tessera: internal error: {type(exc).__name__}: {exc}", 600), markup=False)
        sys.exit(2)
