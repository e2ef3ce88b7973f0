"""The `tessera` command's entry point.

`tessera check FILE…` is what an editor or a commit hook runs on every save, so it
starts without the typer app: typer, click and the other commands' modules were a
sixth of its start-up.  Any other command line, and any `check` with an option
(`--help`, `--json`) or with no file, goes to the typer app (cli.py), which also defines
`check` for its help and its errors.

Whatever way a command ends (done, an error, Ctrl-C, a reader that closed the pipe), the
terminal gets its cursor back: a progress bar hides it while it draws.
"""
from __future__ import annotations

import sys

def main() -> None:
    try:
        _main()
    except KeyboardInterrupt:  # Ctrl-C in any phase, importing the commands too: exit 130, and say so
        sys.stderr.write("interrupted\n")
        sys.exit(130)
    except BrokenPipeError:
        from .console import pipe_closed

        pipe_closed()
    finally:
        from .console import restore_cursor

        restore_cursor()


def _main() -> None:
    args = sys.argv[1:]
    if len(args) >= 2 and args[0] == "check" and not any(a.startswith("-") for a in args[1:]):
        from .console import check, line

        try:
            code = check(args[1:])
        except KeyboardInterrupt:  # as cli.main: exit 130 (128 + SIGINT)
            line("interrupted", stderr=True)
            code = 130
        sys.stdout.flush()
        sys.exit(code)
    from .cli import main as full

    full()
