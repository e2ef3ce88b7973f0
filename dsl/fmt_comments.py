"""The comments and blank lines of a rule file's text, and what each belongs to, for `tessera
fmt` (the rules are in dsl/fmt.py's docstring): a `_Unit` is something printed on a line or
as a block of its own, carrying the comments above, within and after it."""
from __future__ import annotations

import threading
from bisect import bisect_right
from dataclasses import dataclass, field
from functools import lru_cache

from . import ast as A

_WS = " \t\f\r\n"  # what the grammar's WS skips


@dataclass
class _Comment:
    text: str  # `# ...`, trailing spaces removed
    start: int  # offset in the source
    trailing: bool  # code before it on its line
    blank: bool  # a blank line above it


@dataclass(eq=False)
class _Unit:
    """Something printed on a line (or as a block) of its own, and the comments it carries."""

    first_line: int = 0
    last_line: int = 0
    start: int = -1  # offsets in the source; -1 without one
    end: int = -1
    block: bool = False
    children: list["_Unit"] = field(default_factory=list)
    blank: bool = False  # a blank line above it (and above `before`'s last comment)
    before: list[_Comment] = field(default_factory=list)  # comment lines above it
    inside: list[_Comment] = field(default_factory=list)  # comments within it (a block: within its head)
    end_before: list[_Comment] = field(default_factory=list)  # a block: comment lines before its `}`
    end_inside: list[_Comment] = field(default_factory=list)  # a block: comments after its `}`
    form: tuple | None = None  # an example field: how its value was written (see `_value`)


_scan_lock = threading.Lock()
_scanned: list = []


@lru_cache(maxsize=1)
def _comment_parser():
    from .parser import make_parser

    return make_parser(lexer_callbacks={"COMMENT": _scanned.append})


class _Source:
    """The text a module was parsed from: its comments and the positions fmt needs."""

    def __init__(self, text: str):
        self.text = text
        self.starts = [0, *(i + 1 for i, ch in enumerate(text) if ch == "\n")]
        with _scan_lock:
            _scanned.clear()
            try:
                tree = _comment_parser().parse(text)
                toks = list(_scanned)
            finally:
                _scanned.clear()
        seen: dict[int, object] = {t.start_pos: t for t in toks}  # one per position, in order
        self.comments = []
        for pos in sorted(seen):
            tok = seen[pos]
            prev = self.prev_code(pos)
            trailing = prev >= 0 and self.line(prev) == self.line(pos)
            self.comments.append(_Comment(str(tok).rstrip(), pos, trailing, not trailing and self.blank_before(pos)))
        # example fields have no span in the AST: take them from the parse tree, in order,
        # with how each value was written
        self.fields = [self._field(t) for t in tree.iter_subtrees_topdown() if t.data == "example_field"]

    @staticmethod
    def _field(t) -> tuple[tuple[int, int, int, int], tuple | None]:
        m, value = t.meta, t.children[1]
        form = None
        if getattr(value, "type", None) == "STRING":
            form = ("string",)
        elif getattr(value, "data", None) == "mapping":
            kv = value.children
            form = ("mapping", tuple((str(kv[i]), int(kv[i + 1].children[0])) for i in range(0, len(kv), 2)))
        return (m.line, m.column, m.end_line, m.end_column), form

    def offset(self, line: int, column: int) -> int:
        return self.starts[line - 1] + column - 1

    def line(self, offset: int) -> int:
        return bisect_right(self.starts, offset)

    def prev_code(self, offset: int) -> int:
        """The offset of the last character before `offset` that is not white space (-1: none)."""
        i = offset - 1
        while i >= 0 and self.text[i] in _WS:
            i -= 1
        return i

    def next_code(self, offset: int) -> int | None:
        """The offset of the first token at or after `offset`, comments skipped (None: end of file)."""
        t, i = self.text, offset
        while True:
            while i < len(t) and t[i] in _WS:
                i += 1
            if i >= len(t):
                return None
            if t[i] != "#":
                return i
            i = t.find("\n", i)
            if i < 0:
                return None

    def blank_before(self, offset: int) -> bool:
        prev = self.prev_code(offset)
        return prev >= 0 and self.line(offset) - self.line(prev) >= 2


def comments(text: str) -> list[str]:
    """The `#` comments of a rule file that parses, in order, trailing spaces removed."""
    return [c.text for c in _Source(text).comments]


def _unit(src: _Source | None, span: tuple[int, int, int, int] | A.Span) -> _Unit:
    line, col, end_line, end_col = (span.line, span.column, span.end_line, span.end_column) \
        if isinstance(span, A.Span) else span
    u = _Unit(line, end_line)
    if src is not None and line > 0:
        u.start, u.end = src.offset(line, col), src.offset(end_line, end_col)
        u.blank = src.blank_before(u.start)
    return u


def _statement_unit(s: A.Statement, src: _Source | None, fields) -> _Unit:
    d = s.decl if isinstance(s, A.Override) else s
    u = _unit(src, s.span)
    if isinstance(d, A.TileDecl):
        u.block = True
        u.children = [_unit(src, d.edges_span), *(_unit(src, f.span) for f in d.features)]
        if d.symbols:
            u.children.append(_unit(src, d.symbols_span))
        for v in d.variants:
            vu = _unit(src, v.span)
            vu.block = True
            vu.children = [_unit(src, f.span) for f in v.features]
            u.children.append(vu)
    elif isinstance(d, (A.OnDecl, A.OnTrackDecl)):
        u.block = True
        u.children = [_unit(src, a.span) for a in d.actions]
    elif isinstance(d, A.Declared) and d.block is not None:  # a declared statement's block (dsl/ast.py)
        u.block = True
        u.children = [_unit(src, a.span) for a in getattr(d, d.block)]
    elif isinstance(d, A.OnPutDecl):
        u.block = True
        u.children = [_unit(src, d.action_span)]
    elif isinstance(d, A.WithDecl):
        u.block = True
        u.children = [_statement_unit(item, src, fields) for item in d.items]
    elif isinstance(d, A.ExampleDecl):
        u.block = True
        for _ in d.fields:
            k = _Unit()
            if src is not None:
                span, form = next(fields)
                k = _unit(src, span)
                k.form = form
            u.children.append(k)
    return u


def _locate(units: list[_Unit], pos: int) -> tuple[_Unit, str] | None:
    """The innermost unit holding the character at `pos`, and which part of it:
    `line`, a block's `head` or its closing `end`."""
    for u in units:
        if u.start <= pos < u.end:
            if not u.block:
                return u, "line"
            if pos == u.end - 1:
                return u, "end"
            return _locate(u.children, pos) or (u, "head")
    return None


def _attach_line(units: list[_Unit], pos: int, c: _Comment) -> bool:
    """Give a comment on a line of its own to what follows it (the token at `pos`)."""
    for u in units:
        if u.start == pos:
            u.before.append(c)
            return True
        if u.start < pos < u.end:
            if u.block and pos == u.end - 1:
                u.end_before.append(c)
            elif not (u.block and _attach_line(u.children, pos, c)):
                u.inside.append(c)  # within a statement: it moves above it
            return True
    return False


def _attach(src: _Source, units: list[_Unit]) -> list[_Comment]:
    """Distribute the comments of `src` over `units`; return those that end the file."""
    trailer = []
    for c in src.comments:
        if c.trailing:
            found = _locate(units, src.prev_code(c.start))
            if found is None:
                raise RuntimeError(f"fmt: no statement before the comment at offset {c.start}")
            u, part = found
            (u.end_inside if part == "end" else u.inside).append(c)
            continue
        pos = src.next_code(c.start)
        if pos is None:
            trailer.append(c)
        elif not _attach_line(units, pos, c):
            raise RuntimeError(f"fmt: no statement after the comment at offset {c.start}")
    return trailer


def _last(cs: list[_Comment]) -> tuple[list[_Comment], _Comment | None]:
    """Comments gathered by one printed line: all but the last go above it, the last ends it."""
    return (cs[:-1], cs[-1]) if cs else ([], None)


def _ends(text: str, c: _Comment | None) -> str:
    return f"{text}  {c.text}" if c is not None else text
