"""One check of a document and the index of the names it can see."""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from lsprotocol import types as T

from ..dsl import ast as A
from ..dsl import names as N
from ..dsl.loader import Workspace, check_text
from ..dsl.model import BUNDLED_RULES

WORD = re.compile(r"[A-Za-z0-9_.\-]+")


@dataclass(frozen=True)
class Decl:
    name: str
    kind: str  # tile | feature | figure | state | edge | deck | module | invariant | example | clause
    span: A.Span


def declarations(mod: A.Module) -> list[Decl]:
    out = [Decl(mod.name, "module", mod.span)]
    stack = list(mod.items)
    while stack:
        item = stack.pop(0)
        if isinstance(item, A.WithDecl):
            stack[:0] = list(item.items)
            continue
        s = item.decl if isinstance(item, A.Override) else item
        for cls, kind, attr in ((A.TileDecl, "tile", "name"), (A.FeatureDecl, "feature", "kind"),
                                (A.FigureDecl, "figure", "name"), (A.StateDecl, "state", "name"),
                                (A.EdgeDecl, "edge", "code"), (A.DeckDecl, "deck", "name"),
                                (A.TrackDecl, "track", "name"),
                                (A.InvariantDecl, "invariant", "name"), (A.ExampleDecl, "example", "name")):
            if isinstance(s, cls):
                out.append(Decl(getattr(s, attr), kind, s.span))
        if isinstance(s, A.ClauseDecl):  # a house rule's own clause
            out.append(Decl(s.clause, "clause", s.span))
    return out


# a declaration's kind as the name index calls its role
ROLE_OF_KIND = {"feature": "kind", "tile": "tile", "figure": "figure", "state": "state", "edge": "edge",
                "deck": "deck", "track": "track", "module": "module", "invariant": "invariant",
                "example": "example", "clause": "clause"}


@lru_cache(maxsize=64)
def index_text(text: str) -> tuple[N.Occurrence, ...]:
    """The names of a rule file's text (unresolved); () when it does not parse."""
    tree = N.raw_tree(text)
    return tuple(N.occurrences(tree)) if tree is not None else ()


class Analysis:
    """One check of a document's text: its diagnostics and every declaration it can see."""

    def __init__(self, text: str, path: str):
        self.path = path
        self.text = text
        diags, ws = check_text(text, path)
        self.all_diagnostics = diags
        self.diagnostics = [d for d in diags if d.span.file == path]  # a required file's own problems show there
        if path not in {m.file for m in ws.modules.values()}:
            # a statement being typed does not parse yet: the names come from the text without it
            blanked = _parsable(text)
            if blanked is not None:
                _, ws2 = check_text(blanked, path)
                if path in {m.file for m in ws2.modules.values()}:
                    ws2.sources.add(path, text)
                    ws = ws2
        self.workspace: Workspace = ws
        self.decls: dict[str, list[Decl]] = {}
        for m in ws.modules.values():
            for d in declarations(m):
                self.decls.setdefault(d.name, []).append(d)
        self.module = ws.modules.get(next((m.name for m in ws.modules.values() if m.file == path), ""), None)

    def declared(self) -> dict[str, set[str]]:
        """role -> names declared in the rule set (marks: those its tiles print)."""
        out: dict[str, set[str]] = {}
        for name, ds in self.decls.items():
            for d in ds:
                out.setdefault(ROLE_OF_KIND.get(d.kind, d.kind), set()).add(name)
        for f in self.workspace.files:
            if f == self.path:
                occs = index_text(self.text)
            else:
                occs = index_text(file_text(f))
            for role, names in N.declared([list(occs)]).items():  # marks, and what the AST's Decls leave out (cards)
                out.setdefault(role, set()).update(names)
        return out

    def names(self, text: str | None = None) -> list[N.Occurrence]:
        """The resolved names of this document (or of another text of the same rule set)."""
        return N.resolve(list(index_text(self.text if text is None else text)), self.declared())

    def module_of(self, name: str) -> A.Module | None:
        return self.workspace.modules.get(name)


def _starts_statement(line: str) -> bool:
    return bool(line[:1]) and not line[:1].isspace() and not line.startswith(("#", "}"))


def _first_error_line(text: str) -> int | None:
    """The line of the text's first syntax error (None: it parses).  Only the first error is read:
    `parse` reports every error (up to 50, each worked out against the grammar's examples), and
    `_parsable` asks up to 12 times per keystroke, which was seconds on a hostile document."""
    from lark.exceptions import UnexpectedInput

    from ..dsl.lalr import _parser
    from ..dsl.parser import ParseFailure, parse
    from ..dsl.syntax_errors import _syntax_diag

    try:
        _parser().parse(text)
    except UnexpectedInput as err:
        return _syntax_diag("<input>", text, err).span.line or 1
    try:  # no syntax error; a literal out of range or nesting too deep still gives no module
        parse(text)
    except ParseFailure as fail:
        return min((d.span.line for d in fail.diagnostics), default=1) or 1
    return None


def _blank(lines: list[str], n: int) -> list[str]:
    """The lines with the statement holding line `n` (1-based) blanked (the module line kept)."""
    lines = list(lines)
    start = min(n, len(lines)) - 1
    while start > 0 and not _starts_statement(lines[start]):
        start -= 1
    if start == 0 and lines[0].startswith("module"):
        start = 1
    end = start + 1
    while end < len(lines) and not _starts_statement(lines[end]):
        end += 1
    for i in range(start, end):
        lines[i] = ""
    return lines


def _parsable(text: str, rounds: int = 6) -> str | None:
    """The text with its broken statements blanked out, lines kept so every other name stays
    where it is; None if that does not make it parse.  An error is blamed on the statement it
    is in, or, when blanking that does not move the error on, on the statement before (`score
    ... = 2 *` then `figure` on the next line)."""
    lines = text.split("\n")
    for _ in range(rounds):
        bad = _first_error_line("\n".join(lines))
        if bad is None:
            return "\n".join(lines)
        own = _blank(lines, bad)
        after = _first_error_line("\n".join(own))
        if after is None or after > bad:
            lines = own
            continue
        prev = bad - 1
        while prev > 1 and not _starts_statement(lines[prev - 1]):
            prev -= 1
        if prev < 1 or prev == bad:
            return None
        lines = _blank(lines, prev)
    return "\n".join(lines) if _first_error_line("\n".join(lines)) is None else None


def file_text(path: str) -> str:
    from ..dsl.untrusted import MAX_RULE_FILE, FileReadError, read_text

    try:
        return read_text(Path(path), MAX_RULE_FILE)
    except (FileReadError, OSError):
        return ""


def span_range(span: A.Span) -> T.Range:
    line, col = max(span.line - 1, 0), max(span.column - 1, 0)
    if span.end_line >= span.line and span.end_line > 0 and (span.end_line > span.line or span.end_column > span.column):
        end = T.Position(span.end_line - 1, max(span.end_column - 1, 0))
    else:
        end = T.Position(line, col + 1)
    return T.Range(T.Position(line, col), end)


def occ_range(o: N.Occurrence) -> T.Range:
    return T.Range(T.Position(o.line - 1, o.column - 1), T.Position(o.line - 1, o.end_column - 1))


def name_range(d: Decl, ws: Workspace) -> T.Range:
    """The declared name itself on the declaration's first line (or the statement's start)."""
    text = ws.sources.line(d.span.file, d.span.line) or ""
    for m in re.finditer(rf"(?<![\w.\-]){re.escape(d.name)}(?![\w.\-])", text):
        if m.start() >= d.span.column - 1:
            return T.Range(T.Position(d.span.line - 1, m.start()), T.Position(d.span.line - 1, m.end()))
    return span_range(d.span)


def word_at(text: str, pos: T.Position) -> str | None:
    lines = text.splitlines()
    if not 0 <= pos.line < len(lines):
        return None
    for m in WORD.finditer(lines[pos.line]):
        if m.start() <= pos.character <= m.end():
            return m.group(0).strip(".-")
    return None


def occurrence_at(occs: list[N.Occurrence], pos: T.Position) -> N.Occurrence | None:
    for o in occs:
        if o.line - 1 == pos.line and o.column - 1 <= pos.character <= o.end_column - 1:
            return o
    return None


def statement_head(lines: list[str], line: int) -> str | None:
    """The first word of the statement the line belongs to (statements start at column 0)."""
    for n in range(min(line, len(lines) - 1), -1, -1):
        ln = lines[n]
        if ln[:1] and not ln[:1].isspace() and not ln.startswith(("#", "}")):
            head = re.match(r"[a-z_]+", ln)
            word = head.group(0) if head else None
            if word == "override":
                m = re.match(r"override\s+([a-z_]+)", ln)
                word = m.group(1) if m else word
            return word
    return None


def rule_set_files(a: Analysis) -> list[str]:
    """The files of a document's rule set: the modules it reads, and the rule files beside it
    (rules/variants/ beside rules/ too) that build on them."""
    files = dict.fromkeys(m.file for m in a.workspace.modules.values())
    folder = Path(a.path).parent
    for cand in sorted([*folder.glob("*.tess"), *folder.glob("variants/*.tess")]):
        files.setdefault(str(cand), None)
    if folder.resolve() == BUNDLED_RULES.parent.resolve() / "rules" / "variants":
        for cand in sorted(BUNDLED_RULES.glob("*.tess")):
            files.setdefault(str(cand), None)
    return [f for f in files if f]


class Codec:
    """Columns as the client counts them (LSP's position encoding: UTF-16 code units unless the
    client and server agreed on UTF-8 or UTF-32) <-> as Python and the parser count them (code
    points).  They differ only on a line holding a character beyond the BMP (an emoji in a string)."""

    def __init__(self, encoding: str | None, texts: dict[str, str] | None = None):
        enc = str(getattr(encoding, "value", encoding) or "utf-16").lower()
        self.enc = enc if enc in ("utf-8", "utf-16", "utf-32") else "utf-16"
        self.texts = dict(texts or {})
        self._lines: dict[str, list[str]] = {}

    def _units(self, s: str) -> int:
        if self.enc == "utf-32" or s.isascii():
            return len(s)
        if self.enc == "utf-8":
            return len(s.encode("utf-8", "surrogatepass"))
        return len(s) + sum(1 for ch in s if ord(ch) > 0xFFFF)

    def line(self, path: str, n: int) -> str:
        if path not in self._lines:
            text = self.texts.get(path)
            self._lines[path] = (text if text is not None else file_text(path)).split("\n")
        lines = self._lines[path]
        return lines[n] if 0 <= n < len(lines) else ""

    def col_out(self, path: str, line: int, col: int) -> int:
        text = self.line(path, line)
        return self._units(text[:col]) + max(col - len(text), 0)

    def col_in(self, path: str, line: int, units: int) -> int:
        text = self.line(path, line)
        if text.isascii() or self.enc == "utf-32":
            return units
        count = 0
        for i, ch in enumerate(text):
            if count >= units:
                return i
            count += self._units(ch)
        return len(text) + max(units - count, 0)

    def pos_in(self, path: str, pos: T.Position) -> T.Position:
        return T.Position(pos.line, self.col_in(path, pos.line, pos.character))

    def range_out(self, path: str, r: T.Range) -> T.Range:
        return T.Range(T.Position(r.start.line, self.col_out(path, r.start.line, r.start.character)),
                       T.Position(r.end.line, self.col_out(path, r.end.line, r.end.character)))

    def range_in(self, path: str, r: T.Range) -> T.Range:
        return T.Range(self.pos_in(path, r.start), self.pos_in(path, r.end))
