"""`tessera draw` and `tessera view`: pictures of rule sets and games (pictures/)."""
from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer

from .dsl.untrusted import printable
from .pictures import write_atomically

from .app import app, err, out, report


def _card_record(record_path: Path, command: str, seat: Optional[str]):
    """The timeline of a record whose family has a viewer of its own (the card game's, `tessera-cards/1`),
    or None for a record that pictures/viewer.py shows."""
    from .replay.tiles import RecordError, RuleLoadError, load_record
    from .dsl.family import CARDS, Family

    try:
        record = load_record(record_path)
        family = Family.of_record(record)
        if family.timeline is None:
            if seat is not None:
                raise RecordError(f"--seat is for a card game's record ({CARDS.record_format})")
            return None
        from .pictures.cards import CannotStart

        try:
            ctl = family.timeline(record, record_path.parent, seat)
        except CannotStart as exc:  # a problem found, as `tessera replay` says it (exit 1): nothing to draw
            out.print(printable(f"{exc}"), markup=False)
            err.print(printable(f"tessera {command}: {record_path}: no game starts from this record, "
                                f"so nothing was written"), markup=False)
            raise typer.Exit(1)
        ctl.family = family
        return ctl
    except RecordError as exc:
        err.print(printable(f"tessera {command}: {exc}"), markup=False)
        raise typer.Exit(2)
    except RuleLoadError as exc:
        raise typer.Exit(report(exc.diagnostics, exc.workspace.sources, len(exc.workspace.files)) or 2)


def _timeline(record_path: Path, command: str):
    from .replay.tiles import RecordError, RuleLoadError, load_record
    from .pictures.board import timeline
    from .pictures.cards import CannotStart

    try:
        return timeline(load_record(record_path), record_path.parent)
    except CannotStart as exc:  # a problem found, as `tessera replay` says it (exit 1): nothing to draw
        out.print(printable(f"{exc}"), markup=False)
        err.print(printable(f"tessera {command}: {record_path}: no game starts from this record, "
                            f"so nothing was written"), markup=False)
        raise typer.Exit(1)
    except RecordError as exc:
        err.print(printable(f"tessera {command}: {exc}"), markup=False)
        raise typer.Exit(2)
    except RuleLoadError as exc:
        if all(d.span.line == 0 for d in exc.diagnostics):
            for d in exc.diagnostics:
                err.print(printable(f"tessera {command}: {record_path}: {d.message}"), markup=False)
            raise typer.Exit(2)
        raise typer.Exit(report(exc.diagnostics, exc.workspace.sources, len(exc.workspace.files)) or 2)


@app.command()
def draw(
    inputs: List[str] = typer.Argument(..., help="rule modules or rule files (a tile sheet), or one GAME.json record (a board)"),
    output: Path = typer.Option(..., "-o", "--output", help="the SVG file to write"),
    places: bool = typer.Option(False, "--places", help="label every place (N, Ne, C ...) on the tiles (on a board: in the board frame)"),
    turn: Optional[int] = typer.Option(None, "--turn", min=0, help="for a record: the board after this many turns (default: the end)"),
    tiles: Optional[List[str]] = typer.Option(None, "--tile", help="draw only these tiles (repeatable)"),
    columns: int = typer.Option(8, "--columns", min=1, max=40, help="tiles per row of the sheet"),
    seat: Optional[str] = typer.Option(None, "--seat", help="for a card game's record: the player whose view is drawn "
                                                           "(their hand; others' hands and face-down cards hidden); "
                                                           "`all`: every hand and card (the record's author); "
                                                           "default: the open table, no hand"),
) -> None:
    """Draw a rule set's tile sheet, or the board of a game record at any turn, as SVG.

    The sheet shows every tile type from the same geometry the compiler uses:
    each declared feature kind in its colour (legend on top), shields, crossings,
    the name and copy count; a tile whose topology check fails is framed in red
    with the problem marked.  A tile covering several cells (the Siege's
    fortress) is drawn whole across its cells, its places numbered (N1w, E2,
    C3 ...).  A record gives its board: tiles, figures in their players'
    colours, completed features hatched, scores beside it.
    """
    from .app import missing_paths
    from .engine_cmds import _load, _split

    if len(inputs) == 1 and inputs[0].endswith(".json"):
        if tiles:
            raise typer.BadParameter("--tile is for a tile sheet (rule modules or files), not a game record")
        missing_paths("draw", inputs)
        ctl = _card_record(Path(inputs[0]), "draw", seat)
        if ctl is not None:  # the card game (rulebook 001): its table at a move
            last = len(ctl.steps) - 1
            if turn is not None and turn > last:
                err.print(f"tessera draw: the record has {last} steps; --turn {turn} is past them", markup=False)
                raise typer.Exit(2)
            step = last if turn is None else turn
            write_atomically(output, ctl.family.table_drawing(ctl, step).as_svg())
            out.print(printable(f"wrote {output} (the table after step {step} of {last}; "
                                + ", ".join(f"{k} {v}" for k, v in ctl.steps[step].scores.items()) + ")"), markup=False)
            if ctl.error is not None:
                out.print(printable(f"{ctl.error['message']} [{ctl.error['clause']}]"), markup=False)
                raise typer.Exit(1)
            return
        tl = _timeline(Path(inputs[0]), "draw")
        last = len(tl.steps) - 1
        if turn is not None and turn > last:
            err.print(f"tessera draw: the record has {last} turns{' that replay' if tl.error else ''}; --turn {turn} is past them",
                      markup=False)
            raise typer.Exit(2)
        from .pictures.board import board_drawing

        step = last if turn is None else turn
        write_atomically(output, board_drawing(tl, step, places=places).as_svg())
        out.print(printable(f"wrote {output} (board after turn {step} of {last}; "
                            + ", ".join(f"{k} {v}" for k, v in tl.steps[step].scores.items()) + ")"), markup=False)
        if tl.error is not None:
            out.print(printable(f"{tl.error['message']} [{tl.error['clause']}]"), markup=False)
            raise typer.Exit(1)
        return
    if turn is not None:
        raise typer.BadParameter("--turn is for a game record (GAME.json)")
    specs = _split(inputs)
    rs = _load(specs, "draw")
    if not rs.family.has_tiles and not rs.tiles:  # a family mix-up: the card game has no tile sheet
        err.print(printable(f"tessera draw: {' + '.join(rs.names)} is a card game, which has no tiles to draw; "
                            f"draw one of its records instead: tessera draw GAME.json --turn N -o table.svg"),
                  markup=False)
        raise typer.Exit(2)
    from .pictures.sheet import tile_problems, tile_sheet

    if tiles:
        unknown = [t for t in tiles if not any(t in (x.name, x.id) for x in rs.tiles)]
        if unknown:
            err.print(f"tessera draw: no tile {', '.join(unknown)} in {' + '.join(rs.names)}", markup=False)
            raise typer.Exit(2)
    write_atomically(output, tile_sheet(rs, places=places, only=tiles, columns=columns).as_svg())
    probs = tile_problems(rs)
    n = len([t for t in rs.tiles if not tiles or t.name in tiles or t.id in tiles])
    out.print(f"wrote {output} ({n} tile types of {' + '.join(rs.names)}"
              + (f"; {len(probs)} with topology problems, marked" if probs else "") + ")", markup=False)
    if probs:
        raise typer.Exit(1)


@app.command()
def view(
    record: Path = typer.Argument(..., help="a tessera-game/1 JSON record"),
    output: Path = typer.Option(..., "-o", "--output", help="the HTML file to write"),
    seat: Optional[str] = typer.Option(None, "--seat", help="for a card game's record: the player whose view is shown; "
                                                           "`all`: every hand and card (the record's author); "
                                                           "default: the open table, no hand"),
) -> None:
    """Write one self-contained HTML page that steps through a game (buttons, arrow keys).

    Everything is inline (no server, no network): it works opened from disk.
    Each step shows the board, the tile drawn, the scores and every event with
    its clause, exactly as `tessera replay` answers for that prefix.
    """
    from .app import missing_paths
    from .pictures.viewer import viewer_html

    missing_paths("view", [str(record)])
    ctl = _card_record(record, "view", seat)
    if ctl is not None:  # the card game (rulebook 001)
        write_atomically(output, ctl.family.viewer_html(ctl))
        out.print(printable(f"wrote {output} ({len(ctl.steps)} steps; final scores "
                            + ", ".join(f"{k} {v}" for k, v in ctl.steps[-1].scores.items()) + ")"), markup=False)
        if ctl.error is not None:
            out.print(printable(f"{ctl.error['message']} [{ctl.error['clause']}]"), markup=False)
            raise typer.Exit(1)
        return
    tl = _timeline(record, "view")
    write_atomically(output, viewer_html(tl, f"{record.name}: {' + '.join(tl.rs.names)}, {len(tl.steps) - 1} turns"))
    out.print(printable(f"wrote {output} ({len(tl.steps)} steps; final scores "
                        + ", ".join(f"{k} {v}" for k, v in tl.steps[-1].scores.items()) + ")"), markup=False)
    if tl.error is not None:
        out.print(printable(f"{tl.error['message']} [{tl.error['clause']}]"), markup=False)
        raise typer.Exit(1)
