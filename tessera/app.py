"""What every `tessera` command shares: the typer app, the two consoles, diagnostics
printing and the exit codes (0 clean, 1 problems found, 2 usage or internal error,
130 interrupted).

The consoles and diagnostics printing live in console.py (no typer, no rich until a
styled line is printed); tessera/main.py runs `tessera check FILES…` through them
without loading this app.  The commands live in cli.py (check, fmt, verify) and engine_cmds.py (compile,
replay, simulate); both import from here, and cli.py imports engine_cmds, so
nothing imports in a circle.
"""
from __future__ import annotations

from typing import List

import typer

from .console import err, missing, out, report  # noqa: F401  (the commands import them from here)

# rich markup on, so help is drawn by rich; every help text is escaped (escape_help) so that
# `'tessera-rules[cluster]'` and `[default: all cores]` show as written.  Shell completion:
# `tessera --install-completion`.
app = typer.Typer(no_args_is_help=True, rich_markup_mode="rich",
                  help="A rules language, compiler and verifier for Carcassonne.")


def escape_help(typer_app: typer.Typer) -> None:
    """Escape rich markup in every command's option and argument help (call once all commands are
    registered): help texts are plain text, and `[cluster]` or `[default: …]` in them are not tags."""
    import inspect

    from rich.markup import escape
    from typer.models import ParameterInfo

    for cmd in typer_app.registered_commands:
        for param in inspect.signature(cmd.callback).parameters.values():
            info = param.default
            if isinstance(info, ParameterInfo) and info.help and not getattr(info, "_escaped", False):
                info.help = escape(info.help)
                info._escaped = True


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
    if missing(command, paths):
        raise typer.Exit(2)
