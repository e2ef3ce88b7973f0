"""What every `tessera` command shares: the typer app, the two consoles, diagnostics
printing and the exit codes (0 clean, 1 problems found, 2 usage or internal error,
130 interrupted).

The commands live in cli.py (check, fmt, verify) and engine_cmds.py (compile,
replay, simulate); both import from here, and cli.py imports engine_cmds, so
nothing imports in a circle.
"""
from __future__ import annotations

from typing import List

import typer
from rich.console import Console

from dsl.diagnostics import Diagnostic, render, summary
from dsl.untrusted import printable

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="A rules language, compiler and verifier for Carcassonne.")
out = Console(highlight=False, soft_wrap=True, emoji=False)  # source lines like `x :x:` print as written
err = Console(stderr=True, highlight=False, soft_wrap=True, emoji=False)


def _version(value: bool) -> None:
    if value:
        from . import __version__

        out.print(f"tessera {__version__}", markup=False)
        raise typer.Exit(0)


@app.callback()
def _root(version: bool = typer.Option(False, "--version", callback=_version, is_eager=True,
                                       help="Print the version and exit.")) -> None:
    """A rules language, compiler and verifier for Carcassonne."""


def missing_paths(command: str, paths: List[str]) -> None:
    """A file or folder named on the command line that does not exist is a usage error (exit 2)."""
    from pathlib import Path

    gone = [p for p in paths if not Path(p).exists()]
    for p in gone:
        err.print(printable(f"tessera {command}: no such file or folder: {p}"), markup=False)
    if gone:
        raise typer.Exit(2)


def report(diags: list[Diagnostic], sources, files: int, assumptions: list[str] | None = None) -> int:
    """Print diagnostics mypy-style, then the rule files' stated assumptions (`assume`), with a
    summary line; return the exit code."""
    for d in diags:
        out.print(render(d, sources), markup=False)
    if assumptions:
        out.print(f"{len(assumptions)} stated assumption{'s' if len(assumptions) != 1 else ''} (`assume`: "
                  f"reconstructions, not the rulebook's text):", markup=False)
        for line in assumptions:
            out.print(printable(f"  {line}"), markup=False)
    out.print(summary(diags, files), markup=False)
    return 1 if any(d.severity == "error" for d in diags) else 0
