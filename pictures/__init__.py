"""Pictures of rule sets and games: tile sheets, boards, the game viewer, plots (drawsvg, matplotlib)."""
from __future__ import annotations

import os
import tempfile
from pathlib import Path


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
