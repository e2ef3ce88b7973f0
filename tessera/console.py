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

import os
import sys
from typing import TYPE_CHECKING

from .dsl.diagnostics import Diagnostic, render, summary
from .dsl.untrusted import printable

if TYPE_CHECKING:  # pragma: no cover
    from rich.console import Console

    out: Console
    err: Console

PIPE_CLOSED = 141  # 128 + SIGPIPE, as shells report a writer whose reader went away (`tessera check … | head`)

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


def bundled_name(file: str) -> str:
    """How a bundled record is named in what tessera prints: `base:records/city_3_tiles_1_shield.json`
    (its rule set and its name), the same from a checkout and from an installed wheel, where a
    checkout's `rules/records/base/…` does not exist.  Any other file: as given."""
    from pathlib import Path

    from .dsl.model import BUNDLED_RULES

    if not file.endswith(".json"):
        return file
    p = Path(file)
    for where in ([p] if p.is_absolute() else [Path.cwd() / p, BUNDLED_RULES.parent / p]):
        try:
            rel = where.resolve().relative_to(BUNDLED_RULES.resolve())
        except (ValueError, OSError):
            continue
        if len(rel.parts) >= 3 and rel.parts[0] == "records" and where.is_file():
            return f"{rel.parts[1]}:records/{'/'.join(rel.parts[2:])}"
    return file


def shown(d: Diagnostic, sources, full: bool = True) -> str:
    """A diagnostic as printed (render(), or its header alone), a bundled record by its bundled name."""
    text = render(d, sources) if full else d.header()
    head = printable(d.span.file)
    name = bundled_name(d.span.file)
    return printable(name) + text[len(head):] if name != d.span.file and text.startswith(head) else text


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


def by_name(paths: list[str]) -> list[str]:
    """A path that does not exist but names a bundled module (`base`, `big_cities`) is that module's
    rule file, so `tessera check base` works from an installed wheel as from a checkout."""
    import re
    from pathlib import Path

    from .dsl.model import BUNDLED_RULES

    named = []
    for p in paths:
        if not Path(p).exists() and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", p):
            found = [f for f in (BUNDLED_RULES / f"{p}.tess", BUNDLED_RULES / "variants" / f"{p}.tess") if f.is_file()]
            if found:
                p = str(found[0])
        named.append(p)
    return named


def check(paths: list[str], verbose: bool = False, as_json: bool = False) -> int:
    """`tessera check PATHS…` (files, folders or bundled module names): the exit code (2 when a path
    does not exist)."""
    from .dsl.loader import check_paths, stated_assumptions

    paths = by_name(paths)
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


def pipe_closed() -> None:
    """The reader of stdout went away (`| head`): stop quietly, with no traceback and no error at exit
    when Python flushes what is left, as `cat` does."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
    sys.exit(PIPE_CLOSED)
