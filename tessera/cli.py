"""The `tessera` command line (typer).

Exit codes everywhere: 0 clean, 1 problems found, 2 usage or internal error.
"""
from __future__ import annotations

import sys
from typing import List, Optional

import typer
from rich.console import Console

from dsl.diagnostics import Diagnostic, render, summary

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="A rules language, compiler and verifier for Carcassonne.")
out = Console(highlight=False, soft_wrap=True)
err = Console(stderr=True, highlight=False, soft_wrap=True)


@app.callback()
def _root() -> None:
    """A rules language, compiler and verifier for Carcassonne."""


def report(diags: list[Diagnostic], sources, files: int) -> int:
    """Print diagnostics mypy-style with a summary line; return the exit code."""
    for d in diags:
        out.print(render(d, sources), markup=False)
    out.print(summary(diags, files), markup=False)
    return 1 if any(d.severity == "error" for d in diags) else 0


@app.command()
def check(paths: List[str] = typer.Argument(..., help="rule files or folders of *.tess files")) -> None:
    """Parse and check rule files; print every problem at once."""
    from dsl.loader import check_paths

    diags, ws = check_paths(paths)
    raise typer.Exit(report(diags, ws.sources, len(ws.files)))


def main() -> None:
    try:
        app()
    except SystemExit:
        raise
    except KeyboardInterrupt:
        err.print("interrupted")
        sys.exit(2)
    except Exception as exc:  # an internal error, never a designer's mistake
        err.print(f"tessera: internal error: {type(exc).__name__}: {exc}", markup=False)
        sys.exit(2)
