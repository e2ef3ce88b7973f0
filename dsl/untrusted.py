"""Rule files and game records are untrusted input: read them safely, print them safely.

- `read_text` reads only regular files (never a FIFO, a device or a folder, even
  through a symlink), at most `limit` bytes, as UTF-8 (a leading BOM is dropped).
- `printable` escapes what a terminal would act on (control characters, bidi
  overrides, line separators, undecodable bytes of a file name), so a name in a
  record or a rule file can never move the cursor, recolour or hide text.
- `clip_line` shortens a long source line to a window around a caret, so a
  diagnostic stays one short line whatever the file holds.
"""
from __future__ import annotations

import os
import re
import stat

MAX_RULE_FILE = 1 << 20  # bytes: base.tess is ~20 KB; a megabyte of rules is far beyond any rulebook
MAX_RECORD_FILE = 16 << 20  # bytes: a 5-player game with every expansion is ~40 KB


class FileReadError(Exception):
    """A file that is not read: `code` is "io" (cannot or may not be read) or "encoding"."""

    def __init__(self, message: str, code: str = "io", line: int = 0, column: int = 0):
        super().__init__(message)
        self.message = message
        self.code = code
        self.line, self.column = line, column  # where the bad byte is, for "encoding"


def read_bytes(path, limit: int) -> bytes:
    """The bytes of a regular file of at most `limit` bytes; FileReadError otherwise."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)  # O_NONBLOCK: opening a FIFO never waits for a writer
    except OSError as err:
        raise FileReadError(f"cannot read the file: {err.strerror or err}") from None
    except ValueError:  # a NUL in the name
        raise FileReadError("cannot read the file: its name holds a NUL character") from None
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise FileReadError("this is a folder, not a file")
        if not stat.S_ISREG(st.st_mode):
            raise FileReadError("not a regular file (a device, FIFO or socket); only regular files are read")
        if st.st_size > limit:
            raise FileReadError(f"the file is {st.st_size} bytes; the limit is {limit} bytes")
        chunks = []
        size = 0
        while size <= limit:
            try:
                chunk = os.read(fd, min(1 << 16, limit + 1 - size))
            except BlockingIOError:  # pragma: no cover - regular files never block
                break
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > limit:  # it grew while we read it
            raise FileReadError(f"the file is more than {limit} bytes; the limit is {limit} bytes")
        return b"".join(chunks)
    except OSError as err:
        raise FileReadError(f"cannot read the file: {err.strerror or err}") from None
    finally:
        os.close(fd)


def decode(data: bytes) -> str:
    """UTF-8 text, a leading byte-order mark dropped; FileReadError("encoding") otherwise."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        line = data.count(b"\n", 0, err.start) + 1
        column = len(data[data.rfind(b"\n", 0, err.start) + 1:err.start].decode("utf-8-sig", "replace")) + 1
        raise FileReadError(f"the file is not UTF-8 text: byte 0x{data[err.start]:02x} here is not UTF-8",
                            "encoding", line, column) from None


def read_text(path, limit: int = MAX_RULE_FILE) -> str:
    return decode(read_bytes(path, limit))


# ------------------------------------------------------------------ printing
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff\ud800-\udfff]")


def _escape(ch: str) -> str:
    o = ord(ch)
    if 0xDC80 <= o <= 0xDCFF:  # an undecodable byte of a file name (surrogateescape)
        return f"\\x{o - 0xDC00:02x}"
    if o < 0x100:
        return f"\\x{o:02x}"
    return f"\\u{o:04x}"


def printable(text: str, limit: int | None = None) -> str:
    """`text` with every character a terminal would act on written as an escape (`\\x1b`),
    cut to `limit` characters (with `…`) when given."""
    text = str(text)
    if limit is not None and len(text) > limit:
        text = text[:limit]
        return _UNSAFE.sub(lambda m: _escape(m.group()), text) + "…"
    return _UNSAFE.sub(lambda m: _escape(m.group()), text)


def clip_line(src: str, col: int, width: int, room: int = 60) -> tuple[str, int, int]:
    """A printable window of source line `src` around 1-based column `col` (a mark `width`
    wide): (text, caret column, mark width) in the window's terms."""
    i = max(col, 1) - 1
    width = max(1, min(width, room))
    start = max(0, i - room)
    end = min(len(src), i + width + room)
    lead = "…" if start > 0 else ""
    tail = "…" if end < len(src) else ""
    before = printable(src[start:i])
    mark = printable(src[i:i + width])
    after = printable(src[i + width:end])
    return lead + before + mark + after + tail, len(lead) + len(before) + 1, max(len(mark), 1)
