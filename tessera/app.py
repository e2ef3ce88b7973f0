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
from rich.markup import escape as _escape  # noqa: E402


def _docs() -> str:
    """Where the documents the help cites are: docs/ beside the bundled rules (the repository's docs/
    in a checkout, tessera/docs in an installed wheel)."""
    from .dsl.model import BUNDLED_RULES

    return str(BUNDLED_RULES.parent / "docs")


app = typer.Typer(no_args_is_help=True, rich_markup_mode="rich",
                  help="A rules language, compiler and verifier for Carcassonne.",
                  epilog="The documents the help names (docs/simulate.md, docs/verifier.md ...) are in " + _escape(_docs()))


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


def fail(command: str, message: str, as_json: bool = False, code: int = 2, kind: str = "usage") -> None:
    """A failure of `tessera COMMAND`: a line on stderr, or with --json one JSON object on stdout
    (`{"error": {"message": …, "kind": …}}`); exit `code` (2: usage)."""
    import json
    import sys

    from .dsl.untrusted import printable

    if as_json:
        sys.stdout.write(json.dumps({"error": {"message": message, "kind": kind}}, ensure_ascii=True) + "\n")
    else:
        err.print(printable(f"tessera {command}: {message}"), markup=False)
    raise typer.Exit(code)


from contextlib import contextmanager  # noqa: E402


@contextmanager
def json_errors(command: str, as_json: bool):
    """With --json, whatever the commands inside print on the way to a failure (a usage error, the rule
    files' diagnostics) becomes one JSON object on stdout, `{"error": {"message", "kind"}}`, and the exit
    code stays; on success what they printed goes out as printed."""
    if not as_json:
        yield
        return
    import json
    import sys

    failure = None
    with out.capture() as said, err.capture() as warned:
        try:
            yield
        except typer.Exit as exc:
            failure = exc
    if failure is None or not failure.exit_code:
        sys.stdout.write(said.get())
        sys.stderr.write(warned.get())
    else:
        text = "\n".join(x for x in (said.get().strip(), warned.get().strip()) if x)
        prefix = f"tessera {command}: "
        text = "\n".join(ln[len(prefix):] if ln.startswith(prefix) else ln for ln in text.split("\n"))
        doc = {"error": {"message": text or f"exit {failure.exit_code}",
                         "kind": "usage" if failure.exit_code == 2 else "rules"}}
        sys.stdout.write(json.dumps(doc, ensure_ascii=True) + "\n")
    if failure is not None:
        raise failure


def missing_paths(command: str, paths: List[str]) -> None:
    """A file or folder named on the command line that does not exist is a usage error (exit 2)."""
    if missing(command, paths):
        raise typer.Exit(2)
