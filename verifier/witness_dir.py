"""Where `tessera verify` writes witness records when no `--record DIR` is given: a folder only
this user can reach.

A fixed shared name in the temporary folder (`/tmp/tessera-witnesses`, as before issue 38) lets
another user of the machine plant a symbolic link there (the records land where that user chose),
own the folder (every other user's refutations are lost), or make it world-writable (a victim's
witness replaced before it is replayed).  So the folder is per user, `tessera-witnesses-<uid>`
in the temporary folder, made with mode 0700, and reused only when one `lstat` shows a real
folder (not a link) owned by this user that nobody else may enter (no group or other bits).
Anything else at that name is left alone and a fresh folder from `mkdtemp` (mode 0700, a new
name) is used instead; `reason` says why, for the report.
"""
from __future__ import annotations

import os
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path

PREFIX = "tessera-witnesses-"
FRESH_PREFIX = "tessera-witnesses-run-"  # never a user id: a fresh folder cannot take another user's name


@dataclass(frozen=True)
class Folder:
    path: Path
    reason: str | None = None  # why the usual per-user folder was not used (None: it was)


def _user() -> str:
    if hasattr(os, "geteuid"):
        return str(os.geteuid())
    import getpass

    return "".join(c for c in getpass.getuser() if c.isalnum()) or "user"


def problem(st: os.stat_result, uid: int | None) -> str | None:
    """Why a folder with this `lstat` is not a private folder of user `uid` (None: it is)."""
    if stat.S_ISLNK(st.st_mode):
        return "is a symbolic link"
    if not stat.S_ISDIR(st.st_mode):
        return "is not a folder"
    if uid is not None and st.st_uid != uid:
        return f"belongs to another user (uid {st.st_uid})"
    if uid is not None and st.st_mode & 0o077:
        return f"may be entered by other users (mode {stat.S_IMODE(st.st_mode):04o})"
    return None


def witness_folder(base: Path | None = None, uid: int | None = None) -> Folder:
    """The per-user witness folder under `base` (default: the system's temporary folder), made
    if missing; a fresh `mkdtemp` folder when what stands at that name is not private to `uid`
    (default: this process's effective user; on a system without user ids no owner check)."""
    base = Path(base) if base is not None else Path(tempfile.gettempdir())
    if uid is None and hasattr(os, "geteuid"):
        uid = os.geteuid()
    path = base / f"{PREFIX}{_user() if uid is None else uid}"
    try:
        os.mkdir(path, 0o700)  # fails on anything already there, a dangling link included: never followed
    except FileExistsError:
        pass
    except OSError as exc:
        return _fresh(base, f"{path} could not be made ({exc.strerror or exc})")
    try:
        st = os.lstat(path)
    except OSError as exc:
        return _fresh(base, f"{path} could not be examined ({exc.strerror or exc})")
    why = problem(st, uid)
    if why is not None:
        return _fresh(base, f"{path} {why}; it is left alone")
    return Folder(path)


_fresh_made: dict = {}  # base -> the fresh folder this process made there: one per run, not one per record


def _fresh(base: Path, reason: str) -> Folder:
    made = _fresh_made.get(base)
    if made is not None:
        try:
            if problem(os.lstat(made), os.geteuid() if hasattr(os, "geteuid") else None) is None:
                return Folder(made, reason)
        except OSError:
            pass
    path = Path(tempfile.mkdtemp(prefix=FRESH_PREFIX, dir=base))
    _fresh_made[base] = path
    return Folder(path, reason)
