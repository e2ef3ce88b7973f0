"""Pictures of rule sets and games: tile sheets, boards, the game viewer, plots (drawsvg, matplotlib).

Every text from a record or a rule file reaches SVG and HTML through one escaping function,
`escape`.  drawsvg escapes a `Text`'s content but writes attribute values as given, so a player
called `" onload="...` in `data_player=name` would close the attribute and add a handler (issue
38: the card game's pictures did, where no call site remembered to escape).  So escaping is not
left to the call sites: importing this package (every picture module does) routes every attribute
value drawsvg writes through `escape`, whatever element or keyword carries it.
"""
from __future__ import annotations

import html
import os
import tempfile
from pathlib import Path

import drawsvg.types as _dwtypes


def escape(value) -> str:
    """Text made safe in HTML and SVG, as element content and as a quoted attribute value
    (`&`, `<`, `>`, `"` and `'` as references): the one escaping function of the pictures."""
    return html.escape(str(value), quote=True)


def _install_attribute_escaping() -> None:
    """Every attribute value drawsvg writes goes through `escape` (numbers and references to
    other elements, which drawsvg formats itself, as they are)."""
    ctx = _dwtypes.Context
    original = getattr(ctx, "_write_tag_args", None)
    if original is None:  # another drawsvg: refuse to draw rather than draw unescaped
        raise ImportError("tessera.pictures: this drawsvg has no Context._write_tag_args to escape attribute "
                          "values through; install the version in constraints.txt")
    if getattr(original, "tessera_escapes", False):
        return

    def write_tag_args(self, args, output_file, id_map=None):
        safe = {k: v if v is None or isinstance(v, (bool, int, float, _dwtypes.DrawingElement)) else escape(v)
                for k, v in args.items()}
        return original(self, safe, output_file, id_map=id_map)

    write_tag_args.tessera_escapes = True
    ctx._write_tag_args = write_tag_args


_install_attribute_escaping()


def write_atomically(path: Path, text: str | bytes) -> None:
    """Write the whole file or nothing: a failure never leaves half a picture behind (text, or
    bytes for a PNG)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        if isinstance(text, bytes):
            with os.fdopen(fd, "wb") as fh:
                fh.write(text)
        else:
            with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
                fh.write(text)
        mask = os.umask(0)
        os.umask(mask)
        os.chmod(tmp, 0o666 & ~mask)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
