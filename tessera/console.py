"""The two consoles and diagnostics printing, without typer or rich.

`tessera check FILES…` (what an editor or a commit hook runs on every save)
goes through these alone (tessera/main.py); the typer app (app.py) uses the
same ones, so every command prints the same way.
"""
from __future__ import annotations

import sys

from tessera.dsl.diagnostics import Diagnostic, render, summary
from tessera.dsl.untrusted import printable


class Console:
    """A rich Console, made on first use.  `line` prints one plain line without it, so a command
    that prints only plain lines (`tessera check`) never imports rich: that import was a third
    of `tessera check`'s start-up."""

    def __init__(self, stderr: bool = False) -> None:
        self._stderr = stderr
        self._console = None

    def _rich(self):
        if self._console is None:
            from rich.console import Console as RichConsole

            # source lines like `x :x:` print as written
            self._console = RichConsole(stderr=self._stderr, highlight=False, soft_wrap=True, emoji=False)
        return self._console

    def __getattr__(self, name: str):
        return getattr(self._rich(), name)

    def line(self, text: str) -> None:
        """Print `text` (already `printable`) and a newline, as `print(text, markup=False)` does."""
        if self._console is not None:  # rich is in use: keep to one writer
            self._console.print(text, markup=False)
        else:
            (sys.stderr if self._stderr else sys.stdout).write(text + "\n")


out = Console()
err = Console(stderr=True)


def missing(command: str, paths: list[str]) -> bool:
    """Name each file or folder on the command line that does not exist; whether there was one."""
    from pathlib import Path

    gone = [p for p in paths if not Path(p).exists()]
    for p in gone:
        err.line(printable(f"tessera {command}: no such file or folder: {p}"))
    return bool(gone)


def report(diags: list[Diagnostic], sources, files: int, assumptions: list[str] | None = None) -> int:
    """Print diagnostics mypy-style, then the rule files' stated assumptions (`assume`), with a
    summary line; return the exit code."""
    for d in diags:
        out.line(render(d, sources))
    if assumptions:
        out.line(f"{len(assumptions)} stated assumption{'s' if len(assumptions) != 1 else ''} (`assume`: "
                 f"reconstructions, not the rulebook's text):")
        for line in assumptions:
            out.line(printable(f"  {line}"))
    out.line(summary(diags, files))
    return 1 if any(d.severity == "error" for d in diags) else 0


def check(paths: list[str]) -> int:
    """`tessera check PATHS…`: the exit code (2 when a path does not exist)."""
    from tessera.dsl.loader import check_paths, stated_assumptions

    if missing("check", paths):
        return 2
    diags, ws = check_paths(paths)
    return report(diags, ws.sources, len(ws.files), stated_assumptions(ws))
