"""What every `tessera` command shares: the typer app, the two consoles, diagnostics
printing and the exit codes (0 clean, 1 problems found, 2 usage or internal error,
130 interrupted).

The commands live in cli.py (check, fmt, verify) and engine_cmds.py (compile,
replay, simulate); both import from here, and cli.py imports engine_cmds, so
nothing imports in a circle.
"""
from __future__ import annotations

import sys
from typing import List

import typer

from dsl.diagnostics import Diagnostic, render, summary
from dsl.untrusted import printable


class _Console:
    """A rich Console, made on first use.  `line` prints one plain line without it, so a command
    that prints only plain lines (`tessera check`, `fmt`) never imports rich: that import was a
    third of `tessera check`'s start-up."""

    def __init__(self, stderr: bool = False) -> None:
        self._stderr = stderr
        self._console = None

    def _rich(self):
        if self._console is None:
            from rich.console import Console

            # source lines like `x :x:` print as written
            self._console = Console(stderr=self._stderr, highlight=False, soft_wrap=True, emoji=False)
        return self._console

    def __getattr__(self, name: str):
        return getattr(self._rich(), name)

    def line(self, text: str) -> None:
        """Print `text` (already `printable`) and a newline, as `print(text, markup=False)` does."""
        if self._console is not None:  # rich is in use: keep to one writer
            self._console.print(text, markup=False)
        else:
            (sys.stderr if self._stderr else sys.stdout).write(text + "\n")


app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="A rules language, compiler and verifier for Carcassonne.")
out = _Console()
err = _Console(stderr=True)


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
        err.line(printable(f"tessera {command}: no such file or folder: {p}"))
    if gone:
        raise typer.Exit(2)


def report(diags: list[Diagnostic], sources, files: int) -> int:
    """Print diagnostics mypy-style with a summary line; return the exit code."""
    for d in diags:
        out.line(render(d, sources))
    out.line(summary(diags, files))
    return 1 if any(d.severity == "error" for d in diags) else 0
