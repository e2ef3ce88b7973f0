"""The `tessera` command line (typer).

Exit codes everywhere: 0 clean, 1 problems found, 2 usage or internal error.
"""
from __future__ import annotations

import sys
from pathlib import Path
from typing import List, Optional

import typer

from tessera.dsl.diagnostics import Diagnostic, render
from tessera.dsl.model import MOST_PLAYERS
from tessera.dsl.untrusted import printable

from .app import app, err, missing_paths, out, report


@app.command()
def check(paths: List[str] = typer.Argument(..., help="rule files or folders of *.tess files")) -> None:
    """Parse and check rule files; print every problem at once."""
    from .console import check as run_check

    raise typer.Exit(run_check(paths))


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
    import tempfile
    from pathlib import Path

    from tessera.dsl.ast import Span
    from tessera.dsl.diagnostics import SourceCache
    from tessera.dsl.fmt import comments, format_module
    from tessera.dsl.loader import Workspace, expand_paths
    from tessera.dsl.parser import ParseFailure, parse
    from tessera.dsl.untrusted import MAX_RULE_FILE, FileReadError, decode, read_bytes

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
        try:
            if read_bytes(target, MAX_RULE_FILE) != raw:  # someone saved it meanwhile: never overwrite their edit
                diags.append(Diagnostic(Span(str(path), 0, 0), "the file changed while fmt read it; left alone", "io"))
                continue
            fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
        except (OSError, FileReadError) as exc:
            diags.append(Diagnostic(Span(str(path), 0, 0), f"cannot write the file: {getattr(exc, 'message', None) or exc.strerror}", "io"))
            continue
        try:
            with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
                fh.write(new)
            os.chmod(tmp, target.stat().st_mode & 0o7777)
            os.replace(tmp, target)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
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

    from tessera.dsl.loader import expand_paths

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


def _budget_bar(title: str):
    """A progress bar of the rule set's budget (units spent of the total) on stderr, while its checks run;
    nothing when stderr is not a terminal."""
    import contextlib

    from tessera.verifier import budget

    if not err.is_terminal or budget.total() is None:
        return contextlib.nullcontext()
    from rich.progress import BarColumn, Progress, TextColumn

    @contextlib.contextmanager
    def bar():
        with Progress(TextColumn("  {task.description}"), BarColumn(), TextColumn("{task.percentage:>3.0f}% of the budget"),
                      console=err._rich(), transient=True) as prog:
            task = prog.add_task(printable(title), total=budget.total())
            shown = [0]

            def on_spend(used: int, total: int | None) -> None:
                if total and used - shown[0] >= total // 200:
                    shown[0] = used
                    prog.update(task, completed=min(used, total))
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
                                   "record (default: tessera-witnesses in the system's temporary folder; written only "
                                   "when something is refuted)"),
        witness_games: int = typer.Option(
            60, "--witness-games", min=0, help="games the compiled engine plays, per refuted invariant, to find one "
                                               "that breaks it; none found: the verdict is `not proved`")) -> None:
    """Verify rule sets: tile topology, tile sets and every registered check.

    Prints one line per check (passed or failed, its time and the rulebook
    clauses involved), then the problems found.  Exit 1 if any check fails.
    """
    from rich.text import Text

    from tessera.dsl.diagnostics import SourceCache
    from tessera.dsl.loader import load_rule_set
    from tessera.verifier.checks import run_checks
    from tessera.verifier.solver import set_limits

    set_limits(rlimit, timeout, budget)
    import tessera.verifier.witness as wit

    wit.RECORD_DIR, wit.WITNESS_GAMES = record, witness_games
    names = None
    if only:
        from tessera.verifier.checks import load_checks

        known = list(load_checks())
        names = [n for n in known if any(n == o or n.startswith(o) for o in only)]
        if not names:
            err.print(printable(f"tessera verify: no check matches {', '.join(only)}; checks: {', '.join(known)}"), markup=False)
            raise typer.Exit(2)
    if not engine:  # --no-engine: not run, and not listed as skipped either
        from tessera.verifier.checks import load_checks

        names = [n for n in (names if names is not None else load_checks()) if n not in ("engine-features", "card-engine")]
    targets = _verify_targets(list(rules) if rules else VERIFY_DEFAULT)
    if not targets:
        err.print("tessera verify: no rule files found", markup=False)
        raise typer.Exit(2)
    loaded = []
    for specs in targets:
        rs, diags, ws = load_rule_set(specs)
        usage = [d for d in diags if d.severity == "error" and d.span.line == 0]
        if usage:  # an unknown module or a missing file on the command line
            for d in usage:
                err.print(printable(f"tessera verify: {' + '.join(specs) + ': ' if specs else ''}{d.message}"), markup=False)
            raise typer.Exit(2)
        loaded.append((specs, rs, diags, ws))
    if engine:
        from tessera.verifier.checks import load_checks as _load

        _load()  # register every check first, so the engine check keeps its place (last)
        import tessera.verifier.engine_check as ec

        ec.ENGINE_GAMES, ec.ENGINE_PLAYERS = -(-games // len(loaded)), players  # per rule set, rounded up
        import tessera.verifier.cards as vc

        vc.ENGINE_GAMES = ec.ENGINE_GAMES  # the card game's engine check plays as many (every player count)

    def seconds(t: float) -> str:
        return f"{t * 1000:.0f} ms" if t < 1 else f"{t:.2f} s"

    failed_checks = failed_sets = total = 0
    for specs, rs, diags, ws in loaded:
        title = " + ".join(rs.names) if rs is not None else " + ".join(specs)
        out.print(Text(printable(title), style="bold"))
        if rs is None:
            failed_sets += 1
            failed_checks += 1
            total += 1
            out.print(Text.assemble("  ", ("✗", "red"), " load: the rules have errors (see `tessera check`)"))
            for d in diags:
                out.print(render(d, ws.sources), markup=False)
            continue
        from tessera.verifier.checks import of_family

        # a rule set runs the checks of its own game family (the tile game's, or the card game's), within one
        # budget (verifier/budget.py), shown on stderr as a progress bar while it is spent (a terminal only)
        with _budget_bar(title):
            results = run_checks(rs, [n for n in names if of_family(n, rs) or n.startswith("import-")]
                                 if names is not None else None)
        problems = []
        bad = 0
        for r in results:
            total += 1
            mark = ("–", "dim") if r.skipped else (("✓", "green") if r.passed else ("✗", "red"))
            clauses = " ".join(r.clauses)
            line = Text.assemble("  ", mark, f" {r.name:<26} ", (f"{seconds(r.seconds):>7}", "dim"),
                                 f"  {clauses}" if clauses else "",
                                 ("  skipped: nothing to check" if r.skipped else "", "dim"))
            out.print(line)
            if not r.passed:
                bad += 1
            problems.extend(r.diagnostics)
            problems.extend(r.messages)
        for d in diags:
            problems.append(d)
        sources = ws.sources if ws is not None else SourceCache()
        for p in problems:
            if isinstance(p, Diagnostic):
                out.print(render(p, sources), markup=False)
            else:
                out.print("\n".join(printable(ln) for ln in str(p).split("\n")), markup=False)
        if svg is not None and bad:
            from tessera.pictures.counterexamples import write_counterexamples

            for path in write_counterexamples(rs, {r.name for r in results if not r.passed}, svg, "+".join(rs.names)):
                out.print(printable(f"  wrote {path}"), markup=False)
        failed_checks += bad
        failed_sets += 1 if bad else 0
    n = len(loaded)
    sets = f"{n} rule set{'s' if n != 1 else ''}"
    if failed_checks:
        out.print(Text(f"Failed: {failed_checks} of {total} checks, in {failed_sets} of {sets}", style="red"))
        raise typer.Exit(1)
    out.print(Text(f"Success: {total} checks passed in {sets}", style="green"))


@app.command()
def lsp() -> None:
    """Serve the Language Server Protocol over stdio (diagnostics, hover, definition, formatting, completion)."""
    from .lsp import main as serve

    serve()


from . import engine_cmds  # noqa: E402,F401  (registers compile, replay, simulate)
from . import picture_cmds  # noqa: E402,F401  (registers draw, view)


def _ctrl_c(exc: BaseException) -> bool:
    """Whether `exc` came from a Ctrl-C (typer turns KeyboardInterrupt into a silent exit 130)."""
    seen = 0
    while exc is not None and seen < 10:
        if isinstance(exc, KeyboardInterrupt):
            return True
        exc, seen = exc.__cause__ or exc.__context__, seen + 1
    return False


def main() -> None:
    try:
        app()
    except SystemExit as exc:
        if exc.code == 130 and _ctrl_c(exc):  # in any phase: loading, compiling, starting workers
            err.print("interrupted", markup=False)
        raise
    except KeyboardInterrupt:  # Ctrl-C: exit 130 (128 + SIGINT) everywhere, as shells report it
        err.print("interrupted", markup=False)
        sys.exit(130)
    except Exception as exc:  # an internal error, never a designer's mistake
        err.print(printable(f"tessera: internal error: {type(exc).__name__}: {exc}", 600), markup=False)
        sys.exit(2)
