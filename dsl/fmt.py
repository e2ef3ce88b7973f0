"""The canonical form of a rule file (`tessera fmt`).

`format_module(mod, text)` prints every statement of `mod` (parsed from
`text`) in one fixed layout: single spaces between words, two-space
indentation inside `{ }` blocks, parentheses only where the grammar needs
them, and the citations (and titles) of consecutive one-line statements
aligned in one column.  The output parses to the same AST as the input
(`parse(format_module(m, text)) == m`, spans aside) and formatting twice
changes nothing.

Comments and blank lines come from `text` (without it, as for a module built
in code, there are no comments and blank lines follow the statements' spans):

- every `#` comment is printed exactly once, in its order;
- a comment on a line of its own belongs to what follows it (a statement, a
  tile's `edges`/feature line, a variant, an `on` action, a line of example
  fields) and is printed above it, at its indentation; one before a block's
  `}` stays at the end of that block, one after the last statement at the end
  of the file;
- a comment at the end of a line stays at the end of the line that thing is
  printed on (two spaces after it).  Where one printed line gathers several
  (a statement written over several lines with a comment on each), all but
  the last move above it;
- one blank line is kept wherever the source had one or more (never right
  after a `{`), so the paragraphs of a file survive;
- example fields written on one line stay on one line, two spaces apart.

A comment line or a blank line ends a run of aligned citations.

The jobs are one module each: dsl/fmt_expr.py writes expressions and strings,
dsl/fmt_statements.py lays out one statement, dsl/fmt_comments.py finds the
comments and blank lines of the text and what each belongs to; here, the
printer puts them together.
"""
from __future__ import annotations

from . import ast as A
from .fmt_comments import _Comment, _Source, _Unit, _attach, _ends, _last, _statement_unit, _unit, comments
from .fmt_expr import format_expr, format_string
from .fmt_statements import (INDENT, WRAP_AT, _Block, _Line, _action, _aligns, _cites, _feature, _join, _statement,
                             _value)

__all__ = ["ALIGN_LIMIT", "INDENT", "WRAP_AT", "comments", "format_expr", "format_module", "format_statement",
           "format_string", "format_text"]

ALIGN_LIMIT = 60  # statements longer than this do not push the citation column right


# --------------------------------------------------------------------- printer
class _Printer:
    def __init__(self) -> None:
        self.lines: list[str] = []
        self.fresh = True  # at the start of the file or right after a `{`: no blank line

    def blank(self) -> None:
        if not self.fresh and self.lines[-1] != "":
            self.lines.append("")

    def add(self, depth: int, text: str) -> None:
        self.lines.append(INDENT * depth + text)
        self.fresh = False

    def comment_lines(self, depth: int, cs: list[_Comment], blanks: bool = True) -> None:
        for c in cs:
            if blanks and c.blank:
                self.blank()
            self.add(depth, c.text)

    def prefix(self, depth: int, u: _Unit, moved: list[_Comment]) -> None:
        """What goes above a unit: its comment lines, a blank line, comments moved up from it."""
        self.comment_lines(depth, u.before)
        if u.blank:
            self.blank()
        self.comment_lines(depth, moved, blanks=False)

    def line_unit(self, depth: int, u: _Unit, text: str) -> None:
        moved, end = _last(u.inside)
        self.prefix(depth, u, moved)
        self.add(depth, _ends(text, end))

    def statement(self, depth: int, u: _Unit, r: _Line | _Block | list[str], col: int = 0) -> None:
        """A statement whose prefix is printed (see `_statement_comments`)."""
        end = _statement_comments(u, r)[1]
        if isinstance(r, _Line):
            self.add(depth, _ends(r.text(col), end))
        elif isinstance(r, _Block):
            self.block(depth, u, r.head.text(col), end, lambda: self.body(depth + 1, u, r.node))
        else:
            for line in r[:-1]:
                self.add(depth, line)
            self.add(depth, _ends(r[-1], end))

    def block(self, depth: int, u: _Unit, head: str, end: _Comment | None, body) -> None:
        if not u.children and not u.end_before:
            self.add(depth, _ends(head + " {}", end))
            return
        self.add(depth, _ends(head + " {", end))
        self.fresh = True
        body()
        self.comment_lines(depth + 1, u.end_before)
        moved, end = _last(u.end_inside)
        self.comment_lines(depth + 1, moved, blanks=False)
        self.fresh = False
        self.add(depth, _ends("}", end))

    def body(self, depth: int, u: _Unit, node: A.Statement) -> None:
        kids = iter(u.children)
        match node:
            case A.WithDecl(items=items):
                for item, k in zip(items, kids):
                    r = _statement(item)
                    moved, _ = _statement_comments(k, r)
                    self.prefix(depth, k, moved)
                    self.statement(depth, k, r)
            case A.TileDecl(edges=edges, features=feats, variants=variants, symbols=symbols):
                if edges and isinstance(edges[0], tuple):  # a tile covering several cells: four groups
                    self.line_unit(depth, next(kids), "edges " + " ".join("(" + " ".join(g) + ")" for g in edges))
                else:
                    self.line_unit(depth, next(kids), "edges " + " ".join(edges))
                for f in feats:
                    self.line_unit(depth, next(kids), _feature(f))
                if symbols:
                    self.line_unit(depth, next(kids), "symbols " + " ".join(symbols))
                for v in variants:
                    self.variant(depth, next(kids), v)
            case A.OnDecl(actions=actions) | A.OnTrackDecl(actions=actions):
                for a in actions:
                    self.line_unit(depth, next(kids), _action(a))
            case A.Declared(block=str(block)):  # a declared statement's block: a line each (dsl/ast.py)
                for a in getattr(node, block):
                    self.line_unit(depth, next(kids), _action(a))
            case A.OnPutDecl(figure=f, slot=slot):
                self.line_unit(depth, next(kids), f"may put {f} on {slot}")
            case A.ExampleDecl(fields=fields):
                self.fields(depth, list(zip(u.children, fields)))

    def variant(self, depth: int, u: _Unit, v: A.TileVariant) -> None:
        head = _join(f"variant {v.name} x{v.count}", _cites(v.cites))
        if len(v.features) == 1 and not (u.inside or u.end_before or u.children[0].before or u.children[0].inside):
            moved, end = _last(u.end_inside)
            self.prefix(depth, u, moved)
            self.add(depth, _ends(f"{head} {{ {_feature(v.features[0])} }}", end))
            return
        empty = not v.features and not u.end_before
        moved, end = _last(u.inside + (u.end_inside if empty else []))
        self.prefix(depth, u, moved)

        def features() -> None:
            for k, f in zip(u.children, v.features):
                self.line_unit(depth + 1, k, _feature(f))

        self.block(depth, u, head, end, features)

    def fields(self, depth: int, fields: list[tuple[_Unit, tuple[str, object]]]) -> None:
        """Example fields; those written on one line stay on one line."""
        groups: list[list[tuple[_Unit, str]]] = []
        for k, (key, value) in fields:
            text = f"{key} = {_value(value, k.form)}"
            if groups and k.first_line > 0 and k.first_line == groups[-1][-1][0].last_line:
                groups[-1].append((k, text))
            else:
                groups.append([(k, text)])
        for g in groups:
            first = g[0][0]
            cs = first.inside + [c for k, _ in g[1:] for c in (*k.before, *k.inside)]
            moved, end = _last(cs)
            self.prefix(depth, first, moved)
            self.add(depth, _ends("  ".join(t for _, t in g), end))


def _statement_comments(u: _Unit, r: object) -> tuple[list[_Comment], _Comment | None]:
    """The comments within a statement's first printed line: those moved above it and
    the one that ends it.  An empty block (`{}`) also gathers those after its `}`."""
    cs = u.inside
    if isinstance(r, _Block) and not u.children and not u.end_before:
        cs = cs + u.end_inside
    return _last(cs)


def format_statement(s: A.Statement) -> str:
    """One statement in canonical form (no trailing newline)."""
    p = _Printer()
    p.statement(0, _statement_unit(s, None, None), _statement(s))
    return "\n".join(p.lines)


def _column(rs: list[_Line]) -> int:
    """The citation column of a run of one-line statements (0: each tail just follows its line)."""
    widths = [len(r.body) for r in rs if r.tail and len(r.body) <= ALIGN_LIMIT]
    return max(widths) + 2 if len(widths) > 1 else 0


def format_module(mod: A.Module, source: str | None = None) -> str:
    """The canonical text of a module, ending in a newline.  `source` is the text `mod`
    was parsed from; its comments and blank lines are kept."""
    src = _Source(source) if source is not None else None
    fields = iter(src.fields) if src is not None else None
    header = _unit(src, mod.span)
    units = [_statement_unit(item, src, fields) for item in mod.items]
    if src is not None:
        if next(fields, None) is not None:
            raise RuntimeError("fmt: the source text does not match the module")
        trailer = _attach(src, [header, *units])
    else:  # no text: a blank line wherever the statements' lines leave a gap
        trailer = []
        prev = mod.span
        for item, u in zip(mod.items, units):
            u.blank = prev.end_line > 0 and item.span.line > 0 and item.span.line - prev.end_line > 1
            prev = item.span
    p = _Printer()
    moved, end = _last(header.inside)
    p.prefix(0, header, moved)
    head = _Line(f"module {mod.name}", _join(format_string(mod.title) if mod.title is not None else None,
                                             _cites(mod.cites)))
    p.add(0, _ends(head.text(), end))  # the header is never aligned with what follows
    run: list[tuple[_Unit, _Line | _Block]] = []

    def flush() -> None:
        col = _column([r if isinstance(r, _Line) else r.head for _, r in run])
        for u, r in run:
            p.statement(0, u, r, col)
        run.clear()

    for item, u in zip(mod.items, units):
        r = _statement(item)
        moved, _ = _statement_comments(u, r)
        if u.before or moved or u.blank or not _aligns(r):
            flush()
        p.prefix(0, u, moved)
        if _aligns(r):
            run.append((u, r))
        else:
            p.statement(0, u, r)
    flush()
    p.comment_lines(0, trailer)
    return "\n".join(p.lines) + "\n"


def format_text(text: str, file: str = "<input>") -> str:
    """Parse and format, comments kept; raises tessera.dsl.parser.ParseFailure on a syntax error."""
    from .parser import parse

    return format_module(parse(text, file), text)


def write_formatted(target, raw: bytes, new: str) -> str | None:
    """Put `new` in the rule file `target` (no link: the caller resolves them), whose bytes were
    `raw` when it was read; None when written, or why the file was left alone.

    A file of this user's with no other name is replaced whole (a temporary file renamed over
    it, so a reader never sees half a file).  A rename makes a new file, though: a hard link
    would keep the old text, and a file of another owner would become this user's.  So a file
    with other links, another owner, or in a folder this user may not create files in is
    edited in place instead: opened, checked to hold `raw` still, rewritten and cut to length
    (a failed write puts `raw` back)."""
    import os
    import stat
    import tempfile
    from pathlib import Path

    target = Path(target)
    data = new.encode("utf-8")
    try:
        st = os.stat(target, follow_symlinks=False)
    except OSError as exc:
        return f"cannot write the file: {exc.strerror or exc}"
    if not stat.S_ISREG(st.st_mode):
        return "not a regular file; left alone"
    euid = os.geteuid() if hasattr(os, "geteuid") else st.st_uid
    shared = st.st_nlink > 1 or st.st_uid != euid or not os.access(target.parent, os.W_OK | os.X_OK)
    if shared:
        return _write_in_place(target, raw, data, st)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    except OSError as exc:
        return f"cannot write the file: {exc.strerror or exc}"
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.chmod(tmp, st.st_mode & 0o7777)
        with open(target, "rb") as fh:  # someone saved it meanwhile: never overwrite their edit
            if fh.read(len(raw) + 1) != raw:
                Path(tmp).unlink(missing_ok=True)
                return "the file changed while fmt read it; left alone"
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return None


def _write_in_place(target, raw: bytes, data: bytes, st) -> str | None:
    import os

    flags = os.O_RDWR | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(target, flags)
    except OSError as exc:
        return f"cannot write the file in place (it has {st.st_nlink} links or another owner): {exc.strerror or exc}"
    with os.fdopen(fd, "r+b") as fh:
        now = os.fstat(fh.fileno())
        if (now.st_dev, now.st_ino) != (st.st_dev, st.st_ino) or fh.read(len(raw) + 1) != raw:
            return "the file changed while fmt read it; left alone"
        try:
            fh.seek(0)
            fh.write(data)
            fh.truncate()
            fh.flush()
            os.fsync(fh.fileno())
        except BaseException:  # out of space, interrupted: the old text back, whole
            fh.seek(0)
            fh.write(raw)
            fh.truncate()
            fh.flush()
            raise
    return None
