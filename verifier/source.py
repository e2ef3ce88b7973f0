"""Rule-file lines for reports: `where` (file:line) and the line's text."""
from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path

from ..dsl import ast as A


@lru_cache(maxsize=64)
def _lines(file: str) -> tuple[str, ...]:
    from ..dsl.untrusted import FileReadError, read_text

    try:
        return tuple(ln.removesuffix("\r") for ln in read_text(Path(file)).split("\n"))  # lines as Lark counts them
    except FileReadError:
        return ()


def rel(file: str) -> str:
    """A path relative to the working directory when it lies below it."""
    return _rel(file, os.getcwd())


@lru_cache(maxsize=1024)
def _rel(file: str, cwd: str) -> str:  # every step and check asks it of the same few rule files
    try:
        return str(Path(file).resolve().relative_to(Path(cwd).resolve()))
    except ValueError:
        return file


def where(span: A.Span) -> str:
    return f"{rel(span.file)}:{span.line}" if span.line else "builtin"


def line_text(span: A.Span) -> str:
    """The statement's first line, without its trailing comment."""
    lines = _lines(span.file)
    if not span.line or span.line > len(lines):
        return ""
    text = lines[span.line - 1]
    if "#" in text:
        text = text[: text.index("#")]
    return " ".join(text.split())


def cites(decl: object) -> tuple[str, ...]:
    """The clause IDs a statement cites, sorted (reports do not depend on the order written)."""
    return tuple(sorted({c.clause for c in getattr(decl, "cites", ())}))
