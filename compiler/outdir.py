"""Record folders (`simulate --record DIR`, `verify --record DIR`): tessera writes only into a
folder it made, or one that was empty, and never replaces what it did not write.

A folder tessera writes records into holds the MARKER file.  A folder without it that holds
anything is the user's: `check_record_folder` refuses it before any work is done (a rule file
of the same name, a `game-000000.json` of the user's would otherwise be replaced).  A file
where the folder should be is refused with a message that says so.
"""
from __future__ import annotations

import os
import stat
from pathlib import Path

MARKER = ".tessera-records"
MARKER_TEXT = ("This folder holds game records written by tessera (simulate --record, verify --record); "
               "the next run may replace the records and rule files in it.\n")


class RecordFolderError(Exception):
    """The records cannot go where asked; nothing was written."""


def _describe(path: Path) -> str | None:
    """Why `path` cannot take tessera's records (None: it can)."""
    try:
        st = os.stat(path)  # a link the user named on the command line is theirs to give: followed
    except FileNotFoundError:
        return None
    except NotADirectoryError:
        return f"{path}: a file stands where a folder is needed on that path"
    except OSError as exc:
        return f"{path}: {exc.strerror or exc}"
    if not stat.S_ISDIR(st.st_mode):
        return f"{path} is a file, not a folder; give a folder (it is made when missing)"
    try:
        names = os.listdir(path)
    except OSError as exc:
        return f"{path}: {exc.strerror or exc}"
    if names and MARKER not in names:
        shown = ", ".join(sorted(names)[:3]) + (", ..." if len(names) > 3 else "")
        return (f"{path} is not empty ({shown}) and tessera did not make it (no {MARKER} file in it); "
                f"its files are left alone: give a new or empty folder")
    return None


def check_record_folder(path: Path) -> None:
    """Before the work: RecordFolderError if records may not be written into `path`."""
    why = _describe(Path(path))
    if why is not None:
        raise RecordFolderError(why)


def claim_record_folder(path: Path) -> Path:
    """Make `path` (with its parents) when missing and mark it as tessera's; RecordFolderError
    if it is a file or a folder of the user's that holds anything."""
    path = Path(path)
    check_record_folder(path)
    try:
        path.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise RecordFolderError(f"{path}: a file stands where a folder is needed on that path") from None
    except OSError as exc:
        raise RecordFolderError(f"cannot make {path}: {exc.strerror or exc}") from None
    check_record_folder(path)  # what was made or found is still empty or tessera's
    marker = path / MARKER
    if not marker.exists():
        try:
            fd = os.open(marker, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o644)
        except FileExistsError:
            return path  # another run marked it meanwhile
        except OSError as exc:
            raise RecordFolderError(f"cannot write into {path}: {exc.strerror or exc}") from None
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(MARKER_TEXT)
    return path
