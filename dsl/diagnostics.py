"""Diagnostics in mypy's format: `file:line:col: error: message  [code]`.

Each diagnostic is printed with its source line and a caret under the column.
"""
from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field, replace
from pathlib import Path

from .ast import Span
from .untrusted import FileReadError, MAX_RULE_FILE, clip_line, printable


@dataclass(frozen=True)
class Diagnostic:
    span: Span
    message: str
    code: str
    severity: str = "error"  # error | warning | note
    related: tuple[Span, ...] = field(default=(), compare=False)  # the other places of the same mistake

    def header(self) -> str:
        """`file:line:col: severity: message  [code]`, printable: a character a terminal would act on
        (a control character such as 0x1f in a rule file, quoted in a message) is written as its escape, as `render`
        writes it (a note's lines stay lines)."""
        raw = f"{self.span.file}:{self.span.line}:{self.span.column}: {self.severity}: {self.message}  [{self.code}]"
        return "\n".join(printable(ln) for ln in raw.split("\n"))


class SourceCache:
    """Remembers the text of every file read, so diagnostics can quote lines."""

    def __init__(self) -> None:
        self._text: dict[str, list[str]] = {}

    def add(self, name: str, text: str) -> None:
        self._text[name] = _lines(text)

    def text(self, name: str) -> str | None:
        """The whole text of a file already read, else None (never reads)."""
        lines = self._text.get(name)
        return None if lines is None else "\n".join(lines)

    def line(self, name: str, line: int) -> str | None:
        lines = self._text.get(name)
        if lines is None:
            try:
                from .untrusted import read_bytes

                lines = _lines(read_bytes(Path(name), MAX_RULE_FILE).decode("utf-8-sig", errors="replace"))
            except FileReadError:
                return None
            self._text[name] = lines
        if 1 <= line <= len(lines):
            return lines[line - 1]
        return None


_MASK = re.compile(r'"(?:[^"\\\n]|\\.)*"?|#[^\n]*')


def _masked(line: str) -> str:
    """The line with its strings and its comment blanked out (a name inside them is no token)."""
    return _MASK.sub(lambda m: " " * len(m.group(0)), line)


def narrow(span: Span, word: str, sources: "SourceCache", nth: int = 0) -> Span:
    """The span of the `nth` token `word` inside `span` (a statement's span): the name a
    diagnostic is about, so the editor underlines that name and the caret points at it.
    The statement's span is kept when the word is not found there."""
    if not word or span.line <= 0:
        return span
    pat = re.compile(rf"(?<![A-Za-z0-9_.\-]){re.escape(word)}(?![A-Za-z0-9_]|\.[A-Za-z0-9_])")
    last = span.end_line if span.end_line >= span.line else span.line
    seen = 0
    for n in range(span.line, min(last, span.line + 200) + 1):
        src = sources.line(span.file, n)
        if src is None:
            break
        text = _masked(src)
        lo = span.column - 1 if n == span.line else 0
        hi = span.end_column - 1 if n == span.end_line and span.end_column > 0 else len(text)
        for m in pat.finditer(text, max(lo, 0), max(hi, 0)):
            if seen == nth:
                return replace(span, line=n, column=m.start() + 1, end_line=n, end_column=m.end() + 1)
            seen += 1
    return span


def _lines(text: str) -> list[str]:
    """Lines as the parser counts them: split at `\n` only (a form feed or U+2028 in a
    comment is not a line break for Lark, so it must not be one for the quoted line)."""
    return [ln.removesuffix("\r") for ln in text.split("\n")]


MAX_MESSAGE = 400  # characters of a message printed (a 80 KB token is quoted by its start)


def render(diag: Diagnostic, sources: SourceCache) -> str:
    """The header, the source line and a caret; every part printable and bounded in
    length (a long line is shown as a window around the caret)."""
    import dataclasses

    named = dataclasses.replace(diag, span=dataclasses.replace(diag.span, file=printable(diag.span.file)))
    out = ["\n".join(printable(ln, MAX_MESSAGE) for ln in named.header().split("\n"))]  # a note may have lines
    src = sources.line(diag.span.file, diag.span.line)
    if src is not None and diag.span.line > 0:
        src = src.replace("\t", " ")
        col = max(diag.span.column, 1)
        width = 1
        if diag.span.end_line == diag.span.line and diag.span.end_column > col:
            width = diag.span.end_column - col
        text, caret, width = clip_line(src, col, width)
        out.append("    " + text)
        out.append("    " + " " * (caret - 1) + "^" + "~" * max(width - 1, 0))
    return "\n".join(out)


def sort_key(d: Diagnostic) -> tuple:
    return (d.span.file, d.span.line, d.span.column, d.code, d.message)


def summary(diags: list[Diagnostic], files: int) -> str:
    errors = sum(1 for d in diags if d.severity == "error")
    warnings = sum(1 for d in diags if d.severity == "warning")
    if not errors and not warnings:
        return f"Success: no issues found in {files} rule file{'s' if files != 1 else ''}"
    bits = []
    if errors:
        bits.append(f"{errors} error{'s' if errors != 1 else ''}")
    if warnings:
        bits.append(f"{warnings} warning{'s' if warnings != 1 else ''}")
    touched = len({d.span.file for d in diags})
    return f"Found {' and '.join(bits)} in {touched} file{'s' if touched != 1 else ''} (checked {files} rule file{'s' if files != 1 else ''})"


def did_you_mean(name: str, choices) -> str:
    close = difflib.get_close_matches(name, sorted(set(choices)), n=1, cutoff=0.6)
    return f"; did you mean `{close[0]}`?" if close else ""



# -- a flood of alike diagnostics is one ------------------------------------------------------------
_NUMBER = re.compile(r"\d+(?:,\d{3})*(?:\.\d+)?")
SHOWN_ALIKE = 3  # this many alike diagnostics at one place are shown one by one; more are one diagnostic


class Floods:
    """Diagnostics alike (the same place, code and severity, and the same message but for its
    numbers) are one mistake seen many times: a check that walks a range (cells, player counts,
    copies) says it once per value.  More than SHOWN_ALIKE of them become one diagnostic at that
    place that gives their number and the values that differ (issue 38: `override players
    2..1000000` once gave 999,995 errors, 185 MB).  Beyond SHOWN_ALIKE only a count and a few
    examples are kept, so a flood costs neither memory nor output."""

    EXAMPLES = 6

    def __init__(self) -> None:
        self.count: dict[tuple, int] = {}
        self.examples: dict[tuple, list[tuple[str, ...]]] = {}

    @staticmethod
    def key(d: Diagnostic) -> tuple:
        return (d.span, d.code, d.severity, _NUMBER.sub("#", d.message))

    def admit(self, d: Diagnostic) -> bool:
        """Count `d`; True while it is still to be kept as it is (the first SHOWN_ALIKE alike)."""
        k = self.key(d)
        n = self.count[k] = self.count.get(k, 0) + 1
        seen = self.examples.setdefault(k, [])
        if len(seen) <= self.EXAMPLES:
            seen.append(tuple(_NUMBER.findall(d.message)))
        return n <= SHOWN_ALIKE

    def group(self, diags: list[Diagnostic]) -> list[Diagnostic]:
        """`diags` with each flood (more than SHOWN_ALIKE alike) made one diagnostic, where its first was."""
        floods = {k for k, n in self.count.items() if n > SHOWN_ALIKE}
        if not floods:
            return diags
        out, done = [], set()
        for d in diags:
            k = self.key(d)
            if k not in floods:
                out.append(d)
            elif k not in done:
                done.add(k)
                out.append(replace(d, message=d.message + self._also(k)))
        return out

    def _also(self, k: tuple) -> str:
        n, seen = self.count[k], self.examples[k]
        varying = [i for i in range(min(map(len, seen))) if len({s[i] for s in seen}) > 1]
        values = [", ".join(s[i] for i in varying) for s in seen[:self.EXAMPLES]]
        shown = "; ".join(f"({v})" if len(varying) > 1 else v for v in values)
        more = ", ..." if n > len(values) else ""
        return f" ({n:,} alike here, differing only in their numbers: {shown}{more})"
