"""The two consoles and diagnostics printing, without typer or rich.

`tessera check FILES…` (what an editor or a commit hook runs on every save)
goes through `line` and `report` alone (tessera/main.py), which write plain
lines and never import rich: that import was a third of `tessera check`'s
start-up.  Everything else prints through `out` and `err`, two plain
`rich.console.Console` objects made on first use (`from tessera.console import
out` makes them): no wrapper, so `Progress(console=err)`, `with err:` and the
rest of rich's API work as rich documents them.
"""
from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from tessera.dsl.diagnostics import Diagnostic, render, summary
from tessera.dsl.untrusted import printable

if TYPE_CHECKING:  # pragma: no cover
    from rich.console import Console

    out: Console
    err: Console

_made: dict[bool, "Console"] = {}


def console(stderr: bool = False) -> "Console":
    """The rich Console on stdout (or stderr), made on first use."""
    if stderr not in _made:
        from rich.console import Console

        # source lines like `x :x:` print as written; no emoji codes, no highlighting of numbers
        _made[stderr] = Console(stderr=stderr, highlight=False, soft_wrap=True, emoji=False)
    return _made[stderr]


def __getattr__(name: str):  # `out` and `err`: made when first imported
    if name in ("out", "err"):
        return console(name == "err")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def line(text: str, stderr: bool = False) -> None:
    """Print `text` (already `printable`) and a newline, as `Console.print(text, markup=False)` does,
    without importing rich when no rich Console is in use."""
    made = _made.get(stderr)
    if made is not None:  # rich is in use: keep to one writer
        made.print(text, markup=False)
    else:
        (sys.stderr if stderr else sys.stdout).write(text + "\n")


def restore_cursor() -> None:
    """Show the cursor again (a progress bar hides it) on whichever terminal a rich Console drew on."""
    for made in _made.values():
        try:
            if made.is_terminal:
                made.show_cursor(True)
        except (OSError, ValueError):  # the terminal or the pipe is gone: nothing to restore
            pass


def missing(command: str, paths: list[str]) -> bool:
    """Name each file or folder on the command line that does not exist; whether there was one."""
    from pathlib import Path

    gone = [p for p in paths if not Path(p).exists()]
    for p in gone:
        line(printable(f"tessera {command}: no such file or folder: {p}"), stderr=True)
    return bool(gone)


def report(diags: list[Diagnostic], sources, files: int, assumptions: list[str] | None = None,
           verbose: bool = False) -> int:
    """Print diagnostics mypy-style, then how many stated assumptions (`assume`) the rule files make
    (listed with `verbose`), with a summary line; return the exit code."""
    for d in diags:
        line(render(d, sources))
    if assumptions:
        n = len(assumptions)
        line(f"{n} stated assumption{'s' if n != 1 else ''} (`assume`: reconstructions, not the rulebook's text)"
             + (":" if verbose else "; `tessera check --verbose` lists them"))
        for text in assumptions if verbose else ():
            line(printable(f"  {text}"))
    line(summary(diags, files))
    return 1 if any(d.severity == "error" for d in diags) else 0


def diagnostic_json(d: Diagnostic) -> dict:
    """A diagnostic as JSON (`check --json`, `verify --json`, `replay --json`): its place, severity,
    message and code, as the rule file has them (a JSON reader escapes nothing for a terminal)."""
    return {"file": d.span.file, "line": d.span.line, "column": d.span.column, "end_line": d.span.end_line,
            "end_column": d.span.end_column, "severity": d.severity, "message": d.message, "code": d.code}


def check(paths: list[str], verbose: bool = False, as_json: bool = False) -> int:
    """`tessera check PATHS…`: the exit code (2 when a path does not exist)."""
    from tessera.dsl.loader import check_paths, stated_assumptions

    if as_json:
        import json
        from pathlib import Path

        gone = [p for p in paths if not Path(p).exists()]
        if gone:
            doc = {"error": {"message": f"no such file or folder: {', '.join(gone)}", "kind": "usage"}}
            sys.stdout.write(json.dumps(doc, ensure_ascii=True) + "\n")
            return 2
        diags, ws = check_paths(paths)
        errors = sum(1 for d in diags if d.severity == "error")
        doc = {"files": len(ws.files), "errors": errors,
               "warnings": sum(1 for d in diags if d.severity == "warning"),
               "diagnostics": [diagnostic_json(d) for d in diags], "assumptions": stated_assumptions(ws)}
        sys.stdout.write(json.dumps(doc, ensure_ascii=True) + "\n")
        return 1 if errors else 0
    if missing("check", paths):
        return 2
    diags, ws = check_paths(paths)
    return report(diags, ws.sources, len(ws.files), stated_assumptions(ws), verbose)
